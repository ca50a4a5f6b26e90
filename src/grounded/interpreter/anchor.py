"""Verify from text, offline: what a continuation asserts and denies, by coverage, then the walk.

``Verify(c)`` needs the literals a continuation asserts; given only its text,
they are found here, without a network, by the coverage check
(``coverage.py``): each clause of the text is covered by the claims of the
state as of turn ``at`` (every proposition, standing or not, so that a stale
claim is found and rejected), contradicts one (an antonym, another value of
the same measure, the opposite polarity, a reversed causal direction), or is
not covered.  The claims each clause asserts or denies are verified as of the
turn and ``verdict.py`` decides: accept only when every clause is covered by
grounded claims, reject on a positive finding, abstain on anything else.

    index = AnchorIndex(engine, at=13)
    v = index.verify("The token bug is a downstream symptom of Redis unavailability")
    v.verdict, v.reason

The closest claim shown beside a verdict (``best``, ``anchor``) is the one that
covers the largest share of the text's content words; no verdict rests on it.
"""

from __future__ import annotations

import re
import time
from typing import Literal, NamedTuple

from grounded.core.bounds import check_threshold
from grounded.engine.view import Reads
from grounded.interpreter.coverage import Coverage, Reading, clauses
from grounded.interpreter.texts import claim_texts
from grounded.interpreter.verdict import Finding, TextVerdict, verdict_of

Similarity = Literal["auto", "embed", "tfidf"]

THRESHOLD = 0.5
"""Least share of a text's content words a claim covers for ``match``/``anchor`` to name it (reports only; the
verdict is coverage's)."""
METHOD = "coverage (WordNet 3.0)"


class Anchor(NamedTuple):
    claim: str
    score: float


_CLAIM_REF = re.compile(r"(?<![\w-])([A-Za-z][A-Za-z0-9_]*\d[A-Za-z0-9_]*)(?![\w-])")


def _spell_out_ids(texts: dict[str, list[str]]) -> dict[str, list[str]]:
    """A claim text naming another claim by id ("P5 is fine") gets that claim's first text beside the id."""
    first = {c: t[0] for c, t in texts.items() if t}

    def spell(m: re.Match[str]) -> str:
        ref = m.group(1)
        return f"{ref} ({first[ref].rstrip('.')})" if ref in first else ref

    return {c: [_CLAIM_REF.sub(spell, t) for t in ts] for c, ts in texts.items()}


def state_texts(engine: Reads, at: int | None) -> dict[str, list[str]]:
    """Claim -> what its arguments and its declared proposition say as of ``at`` (questions included: a
    hypothesis's effect may be worded by the question it explains)."""
    texts = claim_texts(engine, at)
    for p in engine.state.props_at(at):
        if p.text:
            texts.setdefault(p.id, [])
            if p.text not in texts[p.id]:
                texts[p.id].append(p.text)
    return _spell_out_ids(texts)


class AnchorIndex:
    """The claims of one state (as of turn ``at``), read once for many continuations.

    ``threshold`` concerns ``match`` only (the closest claim, for reports); ``similarity`` is accepted for the
    callers that name one and changes nothing: the verdict is the coverage check's.
    """

    def __init__(self, engine: Reads, at: int | None = None, similarity: Similarity = "auto",
                 threshold: float | None = None):
        self.engine = engine
        self.at = at
        self.threshold = check_threshold(threshold) if threshold is not None else THRESHOLD
        self.coverage = Coverage(engine, at, state_texts(engine, at))

    @property
    def method(self) -> str:
        return METHOD

    def clauses(self, text: str) -> list[str]:
        return clauses(text)

    def best(self, text: str) -> Anchor | None:
        """The claim covering the largest share of ``text``'s content words, whatever the share; None with no
        claims."""
        found = self.coverage.closest(text)
        return Anchor(*found) if found else None

    def match(self, text: str, threshold: float | None = None) -> Anchor | None:
        best = self.best(text)
        least = self.threshold if threshold is None else threshold
        return best if best is not None and best.score >= least else None

    def _finding(self, r: Reading, claim: str) -> Finding:
        return Finding(claim, "asserts" if r.stance == "asserts" else "denies", self.engine.verify(claim, self.at),
                       1.0, r.how, r.clause)

    def read(self, text: str, deadline: float | None = None, only: set[str] | None = None
             ) -> tuple[list[Finding], list[Finding]]:
        """The findings (asserted, denied) of ``text``, verified as of the index's turn; a clause nothing covers
        is an asserted literal no argument claims, with the uncovered words as its doubt.  ``only``: cover with
        these claims alone (a citation).

        ``deadline`` (a ``time.monotonic()`` value): past it, TimeoutError between two clauses, so a long
        text read off the event loop stops when its caller has stopped waiting.
        """
        asserted: dict[str, Finding] = {}
        denied: dict[str, Finding] = {}
        for clause in clauses(text):
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError("reading the text went past its deadline")
            for r in self.coverage.read_parts(clause, only):
                self._take(r, asserted, denied)
        return list(asserted.values()), list(denied.values())

    def _take(self, r: Reading, asserted: dict[str, Finding], denied: dict[str, Finding]) -> None:
        """One clause's reading into the findings: its claims, or an uncovered literal with its doubt."""
        if r.stance == "uncovered":
            words = ", ".join(repr(w) for w in r.uncovered)
            lit = "uncovered:" + "_".join(re.findall(r"[a-z0-9]+", " ".join(r.uncovered).lower())[:6])
            asserted.setdefault(lit, Finding(lit, "asserts", self.engine.verify(lit, self.at), 0.0, r.how,
                                             r.clause, f"{r.how}: {words}"))
            return
        into = asserted if r.stance == "asserts" else denied
        for claim in r.claims:
            into.setdefault(claim, self._finding(r, claim))

    def verify(self, text: str, deadline: float | None = None, only: set[str] | None = None) -> TextVerdict:
        """Read ``text``, verify every literal found, and give the verdict (as of the index's turn)."""
        asserted, denied = self.read(text, deadline, only)
        best = self.best(text)
        return verdict_of(text, asserted, denied, method=self.method, at=self.at, threshold=self.threshold,
                          best=(best.claim, best.score) if best else None)


def anchor(engine: Reads, text: str, at: int | None = None, threshold: float | None = None,
           similarity: Similarity = "auto") -> Anchor | None:
    """The claim covering most of ``text``; None below ``threshold`` (a share of its content words)."""
    return AnchorIndex(engine, at, similarity, threshold).match(text)


def verify_text(engine: Reads, text: str, at: int | None = None, threshold: float | None = None,
                similarity: Similarity = "auto") -> TextVerdict:
    """The verdict on ``text`` as of turn ``at``: accept, reject (naming why) or abstain.

    This reads the state for one text; for many, build an ``AnchorIndex`` once and call its ``verify``.
    """
    return AnchorIndex(engine, at, similarity, threshold).verify(text)


__all__ = ["METHOD", "THRESHOLD", "Anchor", "AnchorIndex", "anchor", "state_texts",
           "verify_text"]
