"""Causal direction: does a clause say X causes Y, or Y causes X?

"The token bug is a downstream symptom of Redis unavailability" shares its
topic with h4 ("Token bug -> retry storm -> Redis connection pool
exhaustion") and reverses it.  A clause's causal reading is a chain of nodes,
cause first: an arrow chain ("A -> B -> C"), or the two sides of one causal
connective, put in cause-to-effect order ("Y is a symptom of X" gives
[X, Y]).  Two chains are compared by placing the clause's cause and effect on
the claim's nodes they share most words with: placed in the claim's order they
agree, placed against it they reverse it, and otherwise (one node for both,
or too little in common) the text says nothing about direction.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from grounded.interpreter.lexicon import words
from grounded.interpreter.similarity import terms

FORWARD = words("causal", "forward")
"""Connectives with the cause before them ("X leads to Y")."""

BACKWARD = words("causal", "backward")
"""Connectives with the effect before them ("Y is a symptom of X")."""

WEAK = words("causal", "weak")
"""Forward connectives read only when a clause has no other ("X, so Y" is as often inference as cause)."""

# Longer phrases first, so "is caused by" is not read as "caused"; arrows need no word boundary.
_CONNECTIVES = sorted([(c, 1) for c in FORWARD] + [(c, -1) for c in BACKWARD], key=lambda p: -len(p[0]))
_WEAK = [(c, 1) for c in WEAK]
_ARROW = re.compile(r"\s*(?:->|→|=>)\s*")


def _pattern(connective: str) -> re.Pattern[str]:
    if connective in ("->", "→", "=>"):
        return re.compile(re.escape(connective))
    return re.compile(r"(?<![\w-])" + re.escape(connective) + r"(?![\w-])", re.I)


_TIERS = ([(c, d, _pattern(c)) for c, d in _CONNECTIVES], [(c, d, _pattern(c)) for c, d in _WEAK])


_LINK_NEGATION = re.compile(r"(\bcannot|\bcan't|\b\w+n't|\bnot|\bnever|\bno)\W+(?:\w+\W+){0,2}$", re.I)


def chain(text: str) -> list[str] | None:
    """The clause's causal chain, cause first (None when it states no cause)."""
    found = link(text)
    return found[0] if found else None


def link(text: str, weak: bool = True) -> tuple[list[str], str | None] | None:
    """(chain, negation): the causal chain, cause first, and the negation just before its connective.

    An arrow chain gives all its nodes; otherwise the first (leftmost, longest)
    connective splits the clause in two, both sides with content words.  The
    link is denied by a negation just before its connective ("Redis didn't
    cause", "is not why", "isn't caused by").  ``weak=False`` reads only the
    unambiguous connectives (not "so", "hence", "makes").
    """
    if _ARROW.search(text):
        nodes = [n for n in _ARROW.split(text) if terms(n)]
        return (nodes, None) if len(nodes) >= 2 else None
    best: tuple[int, int, str, int] | None = None  # (start, -length, connective, direction)
    for tier in _TIERS if weak else _TIERS[:1]:
        for connective, direction, pattern in tier:
            for m in pattern.finditer(text):
                if not terms(text[: m.start()]) or not terms(text[m.end():]):
                    continue
                key = (m.start(), -len(connective), connective, direction)
                if best is None or key[:2] < best[:2]:
                    best = key
                break
        if best is not None:
            break
    if best is None:
        return None
    start, neg_len, _, direction = best
    left, right = text[:start], text[start - neg_len:]
    negated = _LINK_NEGATION.search(left)
    negation = negated.group(1).lower() if negated else None
    if negated:  # the negation belongs to the link, not to the cause
        left = left[: negated.start()]
    nodes = [left.strip(), right.strip()] if direction > 0 else [right.strip(), left.strip()]
    return (nodes, negation) if all(terms(n) for n in nodes) else None


def overlap(a: str, b: str) -> float:
    """Share of the smaller side's content words found in the other (stemmed)."""
    ta, tb = set(terms(a)), set(terms(b))
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / min(len(ta), len(tb))


def direction(clause: Sequence[str], claim: Sequence[str], least: float = 0.5,
              similarity: Callable[[str, str], float] = overlap) -> int:
    """+1 when ``clause``'s cause -> effect runs along ``claim``'s chain, -1 against it, 0 when unknown.

    The clause's first node is its cause and its last its effect; each is placed
    on the claim node most similar to it (at least ``least``).
    """
    if len(clause) < 2 or len(claim) < 2:
        return 0
    cause, effect = clause[0], clause[-1]

    def place(node: str) -> int | None:
        scores = [similarity(node, n) for n in claim]
        top = max(scores)
        if top < least:
            return None
        return scores.index(top) if scores.count(top) == 1 else None

    i, j = place(cause), place(effect)
    if i is None or j is None or i == j:
        return 0
    return 1 if i < j else -1


__all__ = ["BACKWARD", "FORWARD", "WEAK", "chain", "direction", "link", "overlap"]
