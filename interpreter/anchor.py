"""Verify from text: find the claim a candidate continuation asserts, then walk.

``Verify(c)`` needs the proposition phi_c that a continuation asserts.  Given
only the continuation's text, the anchor is the proposition whose text is
most similar to it (``similarity.py``), searched among *all* propositions,
standing or not: a continuation that re-asserts an abandoned hypothesis must
anchor to it to be rejected as stale, not be waved through as unknown.
Questions are not candidates (a continuation asserts, it does not ask).  Below
``threshold`` the verifier abstains ("no anchor"), as the paper's verifier
does on claims with no single anchor in D_t.

    hit = anchor(engine, "Restart Redis: its failure is what breaks auth")
    hit.claim, hit.score            # e.g. ("h2", 0.5); None below the threshold
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from grounded.engine import Engine
from grounded.interpreter.similarity import TextIndex
from grounded.interpreter.texts import claim_texts
from grounded.queries.verify import NO_ANCHOR, Verification

THRESHOLD = 0.25
"""Least similarity for an anchor (stemmed TF-IDF cosine); below it the verifier abstains."""


class Anchor(NamedTuple):
    claim: str
    score: float


class AnchorIndex:
    """The propositions of one state (as of turn ``at``), indexed once for many continuations."""

    def __init__(self, engine: Engine, at: int | None = None):
        texts = claim_texts(engine, at)
        for p in engine.state.props_at(at):
            if p.kind != "question" and p.text and p.id not in texts:
                texts[p.id] = [p.text]
        self.engine = engine
        self.at = at
        self._index = TextIndex(list(texts), [" ".join(t) for t in texts.values()])

    def best(self, text: str) -> Anchor | None:
        """The most similar proposition, whatever its score (None for an empty state)."""
        hit = self._index.best(text)
        return Anchor(*hit) if hit is not None else None

    def match(self, text: str, threshold: float = THRESHOLD) -> Anchor | None:
        hit = self.best(text)
        return hit if hit is not None and hit.score >= threshold else None

    def verify(self, text: str, threshold: float = THRESHOLD) -> TextVerification:
        """Anchor ``text``, abstain below ``threshold``, else Verify the anchor (as of the index's turn)."""
        best = self.best(text)
        hit = best if best is not None and best.score >= threshold else None
        verification = self.engine.verify(hit.claim, self.at) if hit is not None else None
        return TextVerification(text, hit, best, verification, threshold)


def anchor(engine: Engine, text: str, at: int | None = None, threshold: float = THRESHOLD) -> Anchor | None:
    """The claim ``text`` asserts, with its similarity; None (abstain) below ``threshold``."""
    return AnchorIndex(engine, at).match(text, threshold)


@dataclass(frozen=True, slots=True)
class TextVerification:
    """Verify of a continuation given as text: the anchor, and the walk from it."""

    text: str
    anchor: Anchor | None
    best: Anchor | None
    """The most similar proposition even when below the threshold (for reporting)."""
    verification: Verification | None
    threshold: float

    @property
    def grounded(self) -> bool:
        return self.verification is not None and self.verification.grounded

    @property
    def status(self) -> str:
        return self.verification.status if self.verification is not None else NO_ANCHOR

    def to_json(self) -> dict:
        if self.verification is not None:
            body = self.verification.to_json()
        else:
            best = f" (best: {self.best.claim} at {self.best.score:.2f})" if self.best else ""
            body = {"claim": None, "grounded": False, "chain": [], "status": NO_ANCHOR, "at": None,
                    "reason": f"no proposition matches the text above {self.threshold}{best}: abstain"}
        return {**body, "anchor": self.anchor.claim if self.anchor else None,
                "score": round(self.best.score, 4) if self.best else 0.0, "threshold": self.threshold}


def verify_text(engine: Engine, text: str, at: int | None = None, threshold: float = THRESHOLD) -> TextVerification:
    """Anchor ``text`` among all propositions, abstain below ``threshold``, else Verify the anchor.

    This indexes the state for one text; for many, build an ``AnchorIndex`` once and call its ``verify``.
    """
    return AnchorIndex(engine, at).verify(text, threshold)


__all__ = ["THRESHOLD", "Anchor", "AnchorIndex", "TextVerification", "anchor", "verify_text"]
