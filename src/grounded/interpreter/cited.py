"""A continuation that cites what it rests on: Verify by claim, then the text read against the citation.

Reading a continuation's text is heuristic (``anchor.py``); Verify by claim is
exact.  An application that generates its continuations with its own model can
have the model *cite* the claims it asserts and denies, and be answered by
claim:

    {"text": "The retry storm from the token bug exhausted Redis; it was not a Redis failure.",
     "asserts": ["h4"], "denies": ["h2"]}

The verdict (``verify_cited``) comes in two steps, and the stricter wins:

1. **by claim**, the rule of ``verdict.py`` on the cited ids: an asserted id out
   of standing, or a denied id that is grounded, rejects; every asserted id
   grounded and every denied one out of standing accepts.  A cited id that no
   argument claims (as of the turn) *rejects*, naming it: the model was shown
   the ids it may cite, so an id outside them is a citation of nothing, and the
   continuation rests on something the conversation does not hold.  A
   continuation citing no id abstains (nothing to verify).
2. **the text against its citation**: the coverage check (``coverage.py``)
   reads the text over the *cited* claims alone.  A clause they cover restates
   what it cites; a clause that contradicts a cited claim (another value of the
   same measure, an antonym, the opposite polarity, a reversed causal direction)
   rejects, naming both values ("text says 2.7 bar, o3 says 7.2 bar"); a clause
   the cited claims do not cover abstains, naming the words they do not cover:
   the text says more than its citation.  A cited claim the text does not
   restate is only noted: an under-read paraphrase is not a false assurance.

The model, ``CitedContinuation``, lives in ``grounded.core.cited`` (the HTTP API's request body holds it
without loading the reader); its JSON Schema is what ``grounded schema --cited``
prints; ``cited_llm.py`` has the prompt and the structured-output request that
make a model answer in it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from grounded.core.cited import CitedContinuation
from grounded.core.errors import InputError
from grounded.core.literals import atom_of, negate
from grounded.engine import Engine
from grounded.engine.view import Reads
from grounded.interpreter.anchor import AnchorIndex, Similarity
from grounded.interpreter.verdict import ABSTAIN, ACCEPT, REJECT, Finding, TextVerdict, by_claim, verdict_of
from grounded.io.format import describe_errors
from grounded.queries.verify import NO_ANCHOR


def read_cited(value: str | dict[str, Any], where: str = "cited") -> CitedContinuation:
    """A cited continuation from JSON text or an object; an InputError names ``where`` and the field."""
    data: Any = value
    if isinstance(value, str):
        try:
            data = json.loads(value)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
        except RecursionError:
            raise InputError(f"{where}: not valid JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a JSON object with text, asserts and denies, got {type(data).__name__}")
    try:
        return CitedContinuation.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{where}: " + describe_errors(exc.errors(), lambda seg: False)) from None


@dataclass(frozen=True, slots=True)
class CitedVerdict:
    """The verdict on a cited continuation: by claim (``claims``), the text read against the citation."""

    text: str | None
    verdict: str
    reason: str
    claims: TextVerdict
    """The verdict on the cited ids alone (Verify by claim), with one finding per id."""
    reading: TextVerdict | None
    """The offline reader's own verdict on the text (None when there was no answer to read)."""
    contradicts: tuple[Finding, ...] = ()
    """Literals the text asserts where the citation denies them, or denies where it asserts them."""
    uncited: tuple[Finding, ...] = ()
    """Literals the text asserts or denies that the citation does not mention (and clauses anchoring nowhere)."""
    unknown: tuple[str, ...] = ()
    """Cited ids that no argument claims as of the turn."""
    method: str = "cited"
    """How the verdict was reached: 'cited; text read by coverage (WordNet 3.0)', 'cited (llm model)'..."""
    error: str | None = None
    """Why there is no cited continuation to verify (a model that gave no valid answer): the verdict abstains."""
    notes: tuple[str, ...] = field(default=())

    @property
    def accepted(self) -> bool:
        return self.verdict == ACCEPT

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict == ACCEPT else 1

    @property
    def at(self) -> int | None:
        return self.claims.at

    @property
    def findings(self) -> tuple[Finding, ...]:
        """One finding per cited id, as ``grounded verify --text`` lists the literals it read."""
        return self.claims.findings

    @property
    def threshold(self) -> float | None:
        return self.reading.threshold if self.reading is not None else None

    best = None
    """No closest claim: the citation names its claims (kept for the --text printer)."""

    def flag(self, engine: Engine) -> str | None:
        """The Context Renderer's flag for the cited claims."""
        return self.claims.flag(engine)

    def to_json(self) -> dict[str, Any]:
        """The shape of ``grounded verify --text --json``, plus the citation and what the reader made of it."""
        return {**self.claims.to_json(), "verdict": self.verdict, "reason": self.reason, "method": self.method,
                "threshold": self.threshold, "error": self.error,
                "cited": {"asserts": [f.literal for f in self.claims.asserted],
                          "denies": [f.literal for f in self.claims.denied]},
                "unknown": list(self.unknown), "contradicts": [f.to_json() for f in self.contradicts],
                "uncited": [f.to_json() for f in self.uncited],
                "reading": None if self.reading is None else {
                    k: v for k, v in self.reading.to_json().items() if k != "text"},
                "notes": list(self.notes)}


def _citation(cited: CitedContinuation) -> dict[str, int]:
    """+1 for each literal the citation asserts, -1 for each it denies, complements included."""
    stance = {lit: 1 for lit in cited.asserts} | {lit: -1 for lit in cited.denies}
    for lit, sign in list(stance.items()):
        stance.setdefault(negate(lit), -sign)
    return stance


def _once_per_atom(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """A literal and its complement are one thing said (the reader adds the complement of what it finds)."""
    seen: dict[str, Finding] = {}
    for f in findings:
        seen.setdefault(atom_of(f.literal), f)
    return tuple(seen.values())


def against_citation(cited: CitedContinuation, reading: TextVerdict) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """(contradicts, uncited): the reader's findings that oppose the citation, and those it does not mention."""
    stance = _citation(cited)
    contradicts, uncited = [], []
    for f in reading.findings:
        sign = 1 if f.stance == "asserts" else -1
        given = stance.get(f.literal)
        if given == -sign:
            contradicts.append(f)
        elif given is None:
            uncited.append(f)
    return _once_per_atom(contradicts), _once_per_atom(uncited)


def _how(f: Finding) -> str:
    return f" ({f.how})" if f.how and f.how != "similarity" else ""


def _contradiction(f: Finding) -> str:
    cited_as = "denied" if f.stance == "asserts" else "asserted"
    return f"the text {f.stance} {f.literal}{_how(f)}, which it cites as {cited_as}"


def _beyond(f: Finding) -> str:
    v = f.verification
    if v.status == NO_ANCHOR and f.stance == "asserts" and f.clause:  # a clause the cited claims do not cover
        return f"the cited claims do not cover {f.clause!r} ({f.doubt or f.how or 'no anchor'})"
    if f.rejects and f.stance == "asserts":
        return f"the text also asserts {f.literal}{_how(f)}, which it does not cite and which is not grounded: " \
               f"{v.reason}"
    if f.rejects:
        return f"the text also denies {f.literal}{_how(f)}, which it does not cite and which is grounded"
    return f"the text also {f.stance} {f.literal}{_how(f)}, which it does not cite"


def verify_cited(engine: Engine | Reads, cited: CitedContinuation, at: int | None = None, *,
                 reader: AnchorIndex | None = None, threshold: float | None = None,
                 similarity: Similarity = "auto", deadline: float | None = None) -> CitedVerdict:
    """The verdict on a cited continuation as of turn ``at`` (see the module docstring).

    ``reader``: an ``AnchorIndex`` of ``engine`` as of ``at``, built once for many continuations; otherwise
    one is built here with ``threshold`` and ``similarity``.
    """
    if reader is not None and (reader.engine is not engine or reader.at != at):
        raise ValueError("the reader indexes another engine or another turn")
    claims = by_claim(engine, cited.asserts, cited.denies, at, cited.text)
    unknown = tuple(lit for lit in dict.fromkeys(cited.asserts + cited.denies)
                    if not engine.state.claimants_at(lit, at))
    only = {x for lit in cited.asserts + cited.denies for x in (lit, negate(lit))}
    reading = (reader or AnchorIndex(engine, at, similarity, threshold)).verify(cited.text, deadline, only)
    contradicts, uncited = against_citation(cited, reading)

    when = f" as of turn {at}" if at is not None else ""
    rejections = [f"cites {lit}, which no argument claims{when}" for lit in unknown]
    if claims.verdict == REJECT:
        rejections.append(claims.reason)
    rejections += [_contradiction(f) for f in contradicts]
    rejections += [_beyond(f) for f in uncited if f.rejects]
    beyond = [_beyond(f) for f in uncited if not f.rejects]
    found = {f.literal for f in reading.findings}
    missed = [lit for lit in cited.asserts + cited.denies if lit not in found and negate(lit) not in found]
    notes = (f"the reader does not find {', '.join(missed)} in the text",) if missed else ()
    if rejections:
        verdict, reason = REJECT, "; ".join(rejections)
    elif not cited.asserts and not cited.denies:
        verdict, reason = ABSTAIN, "cites no claim: nothing to verify"
    elif claims.verdict == ABSTAIN or beyond:
        verdict, reason = ABSTAIN, "; ".join(([claims.reason] if claims.verdict == ABSTAIN else []) + beyond)
    else:
        verdict, reason = ACCEPT, f"{claims.reason}; the text says nothing beyond its citation"
    return CitedVerdict(cited.text, verdict, reason, claims, reading, contradicts, uncited, unknown,
                        method=f"cited; text read by {reading.method}", notes=notes)


def no_answer(error: str, at: int | None, method: str) -> CitedVerdict:
    """The verdict when there is no cited continuation to verify (a model that gave no valid answer): abstain."""
    claims = verdict_of(None, [], [], method=method, at=at, error=error)
    return CitedVerdict(None, ABSTAIN, claims.reason, claims, None, method=method, error=error)


__all__ = ["CitedContinuation", "CitedVerdict", "against_citation", "no_answer", "read_cited", "verify_cited"]
