"""Have a model continue the conversation citing the claims it rests on, then verify what it wrote.

The protocol an application uses with its own model (``cited.py`` verifies the
answer):

1. the model is shown the claims of the state as of the turn, by id: those in
   standing, which it may assert, and those out of standing (abandoned,
   weakened), which it may deny but should not assert; then the application's
   request (what to answer, what to write next);
2. it answers with one ``CitedContinuation`` object, ``{"text", "asserts",
   "denies"}``, constrained by OpenAI structured outputs:
   ``response_format={"type": "json_schema", "json_schema": {"strict": true,
   "schema": ...}}``, the schema being ``CitedContinuation``'s with the id lists
   restricted to the ids shown (``response_format``);
3. an answer that is not that object (a server without structured outputs may
   send anything) is re-asked once, saying what is wrong; a second bad answer,
   or no answer after the transport's retries, is reported as the verdict
   *abstain* with the error, never a guess;
4. the cited answer is verified by claim and its text read against the
   citation (``verify_cited``): citing a stale claim as asserted rejects it.

Transport, retries with backoff and the call log are the LLM Interpreter's
(``llm.py``); each line of the call log carries ``task: "cited"`` and the
prompt version.  A prompt's name carries its version: change the text, bump it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from grounded.core.vocabulary import GOOD_STANDING
from grounded.engine import Engine
from grounded.interpreter.anchor import AnchorIndex
from grounded.interpreter.calllog import CallLog
from grounded.interpreter.cited import CitedContinuation, CitedVerdict, no_answer, verify_cited
from grounded.interpreter.llm import LLMConfig, LLMInterpreter
from grounded.interpreter.llm_anchor import answer_object, ask_twice, check_known, claims_shown
from grounded.io.format import describe_errors

PROMPT_VERSION = "cited_v1"

SYSTEM_V1 = """\
You continue a conversation whose claims are tracked by id, and you cite the claims your continuation rests on.
You are given the claims in standing (id, kind, standing, text), the claims out of standing, and a request.
Write the continuation the request asks for, then answer with one JSON object and nothing else:
{"text": the continuation, as you would say it,
 "asserts": [ids of the claims the text asserts, restates or relies on],
 "denies": [ids of the claims the text denies, contradicts or rules out]}
Rules:
- Rely only on claims in standing; a claim out of standing (abandoned, weakened) may be denied, never asserted.
- Cite every claim the text asserts or denies, and say nothing in the text that no listed claim covers.
- Use only the ids listed, each in one list at most. If the text relies on no claim, both lists are empty."""


def cited_claims(engine: Engine, at: int | None) -> list[dict[str, str]]:
    """The claims a model may cite: every claim some argument makes as of ``at``, in standing first."""
    return [r for r in claims_shown(engine, at) if engine.state.claimants_at(r["id"], at)]


def user_message_v1(rows: list[dict[str, str]], request: str) -> str:
    standing = [r for r in rows if r["standing"] in GOOD_STANDING]
    out = [r for r in rows if r not in standing]

    def lines(rs: list[dict[str, str]]) -> str:
        return "\n".join(f"{r['id']} [{r['kind']}, {r['standing']}]: {r['text']}" for r in rs) or "(none)"

    return (f"Claims in standing (you may assert them):\n{lines(standing)}\n\n"
            f"Claims out of standing (do not assert them; you may deny them):\n{lines(out)}\n\n"
            f"Request:\n{request}\n\nAnswer with the JSON object.")


def response_format(ids: list[str]) -> dict[str, Any]:
    """OpenAI structured outputs for a ``CitedContinuation`` citing only ``ids``.

    Strict mode wants every property required and no keyword it does not support (string lengths): the
    text's bounds are checked on the answer instead, as is everything else (a server may ignore the schema).
    """
    schema = CitedContinuation.model_json_schema()
    props = schema["properties"]
    for key in ("minLength", "maxLength"):
        props["text"].pop(key, None)
    for name in ("asserts", "denies"):
        if ids:
            props[name]["items"] = {"type": "string", "enum": list(ids)}
        else:
            props[name]["maxItems"] = 0
    schema["required"] = list(props)
    return {"type": "json_schema", "json_schema": {
        "name": "cited_continuation", "strict": True, "schema": schema,
        "description": "A continuation of the conversation and the ids of the claims it asserts and denies."}}


class CitedAnswerError(ValueError):
    """An answer that is not a cited continuation, or cites ids that were not shown."""


def parse_cited(content: str | None, known: set[str]) -> CitedContinuation:
    """The cited continuation in ``content`` (a code fence or prose around it is tolerated), its ids checked."""
    data = answer_object(content, CitedAnswerError)
    try:
        cited = CitedContinuation.model_validate(data)
    except ValidationError as exc:
        raise CitedAnswerError(describe_errors(exc.errors(), lambda seg: False)) from None
    check_known(cited.asserts + cited.denies, known, CitedAnswerError, verb="cite")
    return cited


class CitedWriter:
    """Asks the endpoint of ``config`` for cited continuations and verifies them; one instance serves many."""

    def __init__(self, config: LLMConfig, call_log: CallLog | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        self.config = replace(config, json_mode=False)  # the response format is the structured output's
        self.log = call_log
        self.transport = LLMInterpreter(self.config, call_log, sleep)

    def ask(self, engine: Engine, request: str, at: int | None = None,
            reader: AnchorIndex | None = None) -> CitedVerdict:
        """The model's cited continuation for ``request`` as of turn ``at``, verified (``verify_cited``)."""
        rows = cited_claims(engine, at)
        ids = [r["id"] for r in rows]
        self.transport.config = replace(self.config, extra={**self.config.extra,
                                                            "response_format": response_format(ids)})
        messages: list[dict] = [{"role": "system", "content": SYSTEM_V1},
                                {"role": "user", "content": user_message_v1(rows, request)}]
        method = f"cited ({self.config.model})"
        meta = {"turn": at if at is not None else engine.turn, "speaker": None, "task": "cited", "condition": None,
                "prompt_version": PROMPT_VERSION, "request_text": request}
        cited, record, error = ask_twice(self.transport, messages, meta, lambda c: parse_cited(c, set(ids)),
                                         CitedAnswerError, self.log, "citing only the ids listed")
        if cited is None or record is None:
            return no_answer(error or "no answer", at, method)
        verdict = verify_cited(engine, cited, at, reader=reader)
        self._write({**record, "outcome": "accepted", "answer": cited.model_dump(), "verdict": verdict.verdict})
        return replace(verdict, method=f"{method}; text read by {verdict.reading.method}" if verdict.reading
                       else method)

    def _write(self, record: dict[str, Any]) -> None:
        if self.log is not None:
            self.log.write(record)

    def close(self) -> None:
        self.transport.close()


def ask_cited(engine: Engine, request: str, config: LLMConfig, at: int | None = None,
              call_log: CallLog | None = None) -> CitedVerdict:
    """One cited continuation for ``request`` from the endpoint of ``config``, verified."""
    writer = CitedWriter(config, call_log)
    try:
        return writer.ask(engine, request, at)
    finally:
        writer.close()


__all__ = ["PROMPT_VERSION", "CitedAnswerError", "CitedWriter", "ask_cited", "cited_claims", "parse_cited",
           "response_format"]
