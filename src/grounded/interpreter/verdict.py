"""One verdict on a continuation from what it asserts and what it denies.

A continuation is read (offline in ``anchor.py``, by a model in
``llm_anchor.py``, or from gold literals) into *findings*: literals it
asserts and literals it denies, each with Verify's answer as of the turn.
The verdict follows from them alone:

* **reject** when an asserted literal is out of standing or ungrounded
  (stale), or a grounded literal is denied (contradicted: by the opposite
  polarity, an antonym, another value of the same measure, a reversed causal
  direction); the reason names each one, contradictions first, with how
  ("text says 6.3 bar, o_gauge says 3.6 bar");
* **abstain** when nothing anchors (no finding names a literal some argument
  claims), when an asserted literal has no anchor (the text says something
  the conversation never established, and the verifier does not guess: the
  offline reader's clause that no claim covers, with the words not covered
  as its doubt), or when a finding carries a doubt; an accept needs every
  asserted clause confirmed;
* **accept** otherwise: every asserted literal grounded, and whatever is
  denied is out of standing ("it was not the Redis failure" after h2 was
  abandoned).

Exit codes of ``grounded verify --text``: 0 accept, 1 reject or abstain.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from grounded.engine import Engine
from grounded.engine.view import Reads
from grounded.present import context
from grounded.queries.verify import NO_ANCHOR, UNGROUNDED, Verification

ACCEPT, REJECT, ABSTAIN = "accept", "reject", "abstain"
Stance = Literal["asserts", "denies"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One literal the text asserts or denies, how it was read, and Verify's answer on it."""

    literal: str
    stance: Stance
    verification: Verification
    score: float = 1.0
    """Similarity of the clause to the claim's text (1.0 when not read by similarity)."""
    how: str = ""
    """How the stance was read: 'similarity', 'negation (not)', 'contrast', 'reversed causation', 'llm'..."""
    clause: str | None = None
    """The clause of the text it was read from (offline anchoring)."""
    doubt: str | None = None
    """What keeps the clause from confirming the literal it asserts or denies (the coverage check's "not covered
    by o3 or any claim: 'northgate', 'warehouse'"): the verdict is then abstain, not accept (a rejection still
    rejects)."""

    @property
    def rejects(self) -> bool:
        """This finding alone rejects the text: a stale assertion or a contradicted grounded literal."""
        if self.stance == "asserts":
            return self.verification.status == UNGROUNDED
        return self.verification.grounded

    def describe(self) -> str:
        """'asserts h2 (causal direction, similarity 0.95)'."""
        how = [self.how] if self.how and self.how != "similarity" else []
        if self.how == "similarity":
            how.append(f"similarity {self.score:.2f}")
        return f"{self.stance} {self.literal}" + (f" ({', '.join(how)})" if how else "")

    def to_json(self) -> dict:
        v = self.verification
        return {"literal": self.literal, "stance": self.stance, "score": round(self.score, 4), "how": self.how,
                "clause": self.clause, "status": v.status, "grounded": v.grounded, "chain": list(v.chain),
                "reason": v.reason, "doubt": self.doubt}


@dataclass(frozen=True, slots=True)
class TextVerdict:
    """The verdict on one continuation, with every finding it rests on."""

    text: str | None
    verdict: str
    reason: str
    asserted: tuple[Finding, ...]
    denied: tuple[Finding, ...]
    method: str
    at: int | None
    threshold: float | None = None
    best: tuple[str, float] | None = None
    """The most similar claim even when nothing anchored (offline anchoring), for reports."""
    error: str | None = None
    """Why the reading failed (LLM anchoring that got no valid answer): the verdict is then abstain."""
    notes: tuple[str, ...] = field(default=())

    @property
    def accepted(self) -> bool:
        return self.verdict == ACCEPT

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.asserted + self.denied

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict == ACCEPT else 1

    def flag(self, engine: Engine) -> str | None:
        """The Context Renderer's flag for this continuation (None when nothing in it is flagged)."""
        return context.continuation_flag(engine, [f.verification for f in self.asserted],
                                         [(f.verification, f.how) for f in self.denied], self.at)

    def to_json(self) -> dict:
        return {"text": self.text, "verdict": self.verdict, "reason": self.reason, "method": self.method,
                "at": self.at, "asserted": [f.to_json() for f in self.asserted],
                "denied": [f.to_json() for f in self.denied],
                "threshold": self.threshold,
                "best": {"claim": self.best[0], "score": round(self.best[1], 4)} if self.best else None,
                "error": self.error}


def _describe_rejection(f: Finding) -> str:
    v = f.verification
    if f.stance == "denies":
        how = ("reverses its causal direction" if f.how.startswith("reversed") else
               "denies it" if f.how in ("", "similarity", "given", "opposite polarity", "llm") else f.how)
        rests = f"; rests on {', '.join(v.chain[1:])}" if len(v.chain) > 1 else ""
        return f"contradicts {f.literal}, which is grounded ({how}{rests})"
    return f"asserts {f.literal}, which is not grounded: {v.reason}"


def decide(asserted: Iterable[Finding], denied: Iterable[Finding]) -> tuple[str, str]:
    """(verdict, reason) from the findings; see the module docstring."""
    asserted, denied = tuple(asserted), tuple(denied)
    contradictions = [f for f in denied if f.rejects]
    stale = [f for f in asserted if f.rejects]
    if contradictions or stale:
        return REJECT, "; ".join(_describe_rejection(f) for f in contradictions + stale)
    doubts = [f.doubt if f.literal in f.doubt or f.verification.status == NO_ANCHOR else f"{f.literal}: {f.doubt}"
              for f in asserted + denied if f.doubt]
    if doubts:
        return ABSTAIN, "cannot confirm: " + "; ".join(dict.fromkeys(doubts))
    anchored = [f for f in asserted + denied if f.verification.status != NO_ANCHOR]
    if not anchored:
        return ABSTAIN, "nothing in the text anchors to a claim of the conversation"
    unanchored = [f.literal for f in asserted if f.verification.status == NO_ANCHOR]
    if unanchored:
        return ABSTAIN, (f"asserts {', '.join(unanchored)}, which no argument claims (no anchor); "
                         "the rest is grounded")
    parts = []
    if asserted:
        parts.append(f"asserts {', '.join(f.literal for f in asserted)} (grounded)")
    out_of_standing = [f.literal for f in denied if f.verification.status != NO_ANCHOR]
    if out_of_standing:
        parts.append(f"denies {', '.join(out_of_standing)} (not grounded)")
    return ACCEPT, "; ".join(parts)


def verdict_of(text: str | None, asserted: Iterable[Finding], denied: Iterable[Finding], *, method: str,
               at: int | None, threshold: float | None = None, best: tuple[str, float] | None = None,
               error: str | None = None, notes: tuple[str, ...] = ()) -> TextVerdict:
    asserted, denied = tuple(asserted), tuple(denied)
    if error is not None:
        verdict, reason = ABSTAIN, f"no reading of the text: {error}"
    else:
        verdict, reason = decide(asserted, denied)
    return TextVerdict(text, verdict, reason, asserted, denied, method, at, threshold, best, error, notes)


def by_claim(engine: Engine | Reads, asserts: Iterable[str], denies: Iterable[str], at: int | None = None,
             text: str | None = None) -> TextVerdict:
    """The verdict on literals given directly (a gold reading, or a caller that knows them)."""
    asserted = [Finding(lit, "asserts", engine.verify(lit, at), how="given") for lit in asserts]
    denied = [Finding(lit, "denies", engine.verify(lit, at), how="given") for lit in denies]
    return verdict_of(text, asserted, denied, method="by claim", at=at)


__all__ = ["ABSTAIN", "ACCEPT", "REJECT", "Finding", "TextVerdict", "by_claim", "decide",
           "verdict_of"]
