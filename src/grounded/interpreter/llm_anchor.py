"""Verify from text through the configured LLM: the model reads, the engine verifies.

Offline anchoring (``anchor.py``) reads stance from cue words; a model reads
it from the sentence.  One chat-completion call per continuation is shown the
claims of the state as of the turn, in standing and out of it (id, kind,
standing, text), and the candidate, and answers with a JSON object

    {"asserts": ["h4"], "denies": ["h2"]}

validated with pydantic (only the ids it was shown; both lists of strings,
nothing else).  A malformed answer, or one naming an unknown id, is re-asked
once, saying what was wrong; a second bad answer, or no answer at all after
the transport's retries, gives the verdict *abstain* with the error, never a
guess.  The engine then verifies each literal and the verdict follows
(``verdict.py``).  Groundedness is not shown: the model reads, the walk judges.

Transport, retries with backoff (429, 5xx, timeouts, honouring Retry-After)
and the call log are the LLM Interpreter's (``llm.py``); each line of the
call log carries ``task: "anchor"``, the prompt version and the candidate.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grounded.core.vocabulary import GOOD_STANDING
from grounded.engine import Engine
from grounded.interpreter.calllog import CallLog
from grounded.interpreter.llm import LLMConfig, LLMInterpreter
from grounded.interpreter.schema import InterpreterError, parse_json
from grounded.interpreter.texts import claim_texts
from grounded.interpreter.verdict import Finding, TextVerdict, verdict_of

PROMPT_VERSION = "anchor_v1"
METHOD = "llm"

SYSTEM_V1 = """\
You check what a candidate continuation of a conversation says about the claims the conversation has made.
You are given the claims (id, kind, standing, text) and the candidate text.
Answer with one JSON object and nothing else:
{"asserts": [ids of claims the candidate asserts, restates or relies on],
 "denies": [ids of claims the candidate denies, contradicts, rules out, or whose causal direction it reverses]}
Rules:
- Use only the ids listed. A claim the candidate does not touch goes in neither list.
- Read negation and contrast: "X, not Y", "unrelated to", "independent of", "a red herring", "rather than".
- Read causal direction: "A is a symptom of B" says B causes A; if a claim says A causes B, that claim is denied.
- Standing is given for context only; do not judge whether a claim is still valid, only what the candidate says.
- If the candidate says nothing about any listed claim, answer {"asserts": [], "denies": []}."""


class AnchorAnswer(BaseModel):
    """The model's answer: the ids the candidate asserts and denies."""

    model_config = ConfigDict(extra="forbid")

    asserts: list[str] = Field(default_factory=list, max_length=200)
    denies: list[str] = Field(default_factory=list, max_length=200)


class AnchorAnswerError(ValueError):
    """An answer that is not the JSON object asked for, or names ids that were not shown."""


def claims_shown(engine: Engine, at: int | None) -> list[dict[str, str]]:
    """The claims the model is shown: every non-question claim as of ``at``, in standing first."""
    dm = engine.state
    texts = claim_texts(engine, at)
    kinds: dict[str, str] = {}
    for p in dm.props_at(at):
        if p.kind == "question":
            continue
        kinds.setdefault(p.id, p.kind)
        if p.text and p.text not in texts.get(p.id, ()):  # the declared text too, as the offline reader reads it
            texts.setdefault(p.id, []).append(p.text)
    rows = []
    for claim, said in texts.items():
        claimants = dm.claimants_at(claim, at)
        if claimants:
            newest = dm.arg(claimants[-1])
            standing, kind = newest.standing_at(at) or "none", newest.kind
        else:
            standing, kind = "not claimed by anyone", kinds.get(claim, "proposition")
        if kind == "question":
            continue
        rows.append({"id": claim, "kind": kind, "standing": standing, "text": " / ".join(said)})
    return sorted(rows, key=lambda r: r["standing"] not in GOOD_STANDING)


def user_message_v1(rows: list[dict[str, str]], candidate: str) -> str:
    standing = [r for r in rows if r["standing"] in GOOD_STANDING]
    out = [r for r in rows if r not in standing]

    def lines(rs: list[dict[str, str]]) -> str:
        return "\n".join(f"{r['id']} [{r['kind']}, {r['standing']}]: {r['text']}" for r in rs) or "(none)"

    return (f"Claims in standing:\n{lines(standing)}\n\nClaims out of standing:\n{lines(out)}\n\n"
            f"Candidate continuation:\n{candidate}\n\nAnswer with the JSON object.")


def answer_object(content: str | None, error: type[Exception]) -> Any:
    """The JSON object in a model's answer (prose or a code fence around it is tolerated); ``error`` otherwise."""
    if not content or "{" not in content or "}" not in content:
        raise error("the answer holds no JSON object")
    try:
        return parse_json(content)
    except InterpreterError as exc:  # invalid, or nested past the parser's depth
        raise error(str(exc)) from None


def check_known(ids: list[str], known: set[str], error: type[Exception], verb: str = "use") -> None:
    """Every id an answer names is one the prompt showed (a model citing anything else cites nothing)."""
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise error(f"unknown ids {', '.join(dict.fromkeys(unknown))}: {verb} only the ids listed")


def parse_answer(content: str | None, known: set[str]) -> AnchorAnswer:
    """The answer in ``content`` (prose or a code fence around the object is tolerated), ids checked."""
    data = answer_object(content, AnchorAnswerError)
    try:
        answer = AnchorAnswer.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "answer"
        raise AnchorAnswerError(f"{where}: {first['msg']}") from exc
    check_known(answer.asserts + answer.denies, known, AnchorAnswerError)
    both = set(answer.asserts) & set(answer.denies)
    if both:
        raise AnchorAnswerError(f"{', '.join(sorted(both))} both asserted and denied: choose one")
    return answer


A = TypeVar("A")


def ask_twice(transport: LLMInterpreter, messages: list[dict], meta: dict[str, Any], parse: Callable[[str | None], A],
              malformed: type[Exception], log: CallLog | None, ids_rule: str
              ) -> tuple[A | None, dict[str, Any] | None, str | None]:
    """The endpoint's answer to ``messages`` (``meta``: its log record's fields), parsed, with one re-ask when
    it is malformed (the model told why): (answer, its log record not yet written, None), or (None, None, why
    there is none).  The LLM anchor and the cited writer ask so.  A malformed answer's record is written
    here; the caller writes the accepted one with what it made of it."""
    error = "no answer"
    for attempt in (1, 2):
        content, record = transport.complete(messages, {**meta, "attempt": attempt})
        if record is None:
            return None, None, "no answer from the endpoint (see the call log)"
        try:
            return parse(content), record, None
        except malformed as exc:
            error = f"malformed answer: {exc}"
            if log is not None:
                log.write({**record, "outcome": "malformed", "error": str(exc)})
            messages = [*messages, {"role": "assistant", "content": content or ""},
                        {"role": "user", "content": f"That answer cannot be used: {exc}. Answer again with "
                                                    f"only the JSON object, {ids_rule}."}]
    return None, None, error


class LLMAnchor:
    """Reads continuations through the endpoint of ``config``; one instance serves many texts."""

    def __init__(self, config: LLMConfig, call_log: CallLog | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        self.log = call_log
        self.transport = LLMInterpreter(config, self.log, sleep)
        self.config = config

    def verify(self, engine: Engine, text: str, at: int | None = None) -> TextVerdict:
        rows = claims_shown(engine, at)
        known = {r["id"] for r in rows}
        messages: list[dict] = [{"role": "system", "content": SYSTEM_V1},
                                {"role": "user", "content": user_message_v1(rows, text)}]
        meta = {"turn": at if at is not None else engine.turn, "speaker": None, "task": "anchor", "condition": None,
                "prompt_version": PROMPT_VERSION, "candidate": text}
        answer, record, error = ask_twice(self.transport, messages, meta, lambda c: parse_answer(c, known),
                                          AnchorAnswerError, self.log, "using only the ids listed")
        if answer is None or record is None:
            return verdict_of(text, [], [], method=f"{METHOD} ({self.config.model})", at=at, error=error)
        self._write({**record, "outcome": "accepted", "answer": answer.model_dump()})
        asserted = [Finding(i, "asserts", engine.verify(i, at), how="llm") for i in answer.asserts]
        denied = [Finding(i, "denies", engine.verify(i, at), how="llm") for i in answer.denies]
        return verdict_of(text, asserted, denied, method=f"{METHOD} ({self.config.model})", at=at)

    def _write(self, record: dict[str, Any]) -> None:
        if self.log is not None:
            self.log.write(record)

    def close(self) -> None:
        self.transport.close()


__all__ = ["PROMPT_VERSION", "AnchorAnswer", "AnchorAnswerError", "LLMAnchor", "ask_twice", "claims_shown",
           "parse_answer"]
