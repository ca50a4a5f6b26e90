"""Restriction: "only X" says X and denies the alternatives that stand.

"Only payments are failing" asserts that payments fail and denies that
anything else the conversation reports as failing does: against o1 ("Auth
failure rate elevated") it is a contradiction, though no negator is written.
The restricted words are the content words just after "only" (a verb that
merely carries the predicate, "only run", is skipped); an *alternative* is a
claim of the same kind as the one the clause anchors to, about as close to
the clause, whose texts share none of the restricted words, and that says
the same of its own subject (same polarity).  The anchoring that applies it
is in ``anchor.py``.
"""

from __future__ import annotations

import re

from grounded.interpreter.similarity import terms

CARRIER_VERBS = frozenset({"run", "runs", "be", "is", "are", "was", "were", "need", "needs", "use", "uses", "have",
                           "has", "work", "works", "get", "gets", "do", "does", "make", "makes", "support",
                           "supports", "affect", "affects", "happen", "happens", "see", "sees", "hit", "hits"})
"""Verbs between "only" and what it restricts ("can only run peer-to-peer")."""

_ONLY = re.compile(r"\bonly\s+((?:[\w'-]+\s*){1,4})", re.I)
_NOT_RESTRICTING = re.compile(r"\b(?:not only|if only|only just|only if|only when|only after|only once)\b", re.I)


def restricted(text: str) -> frozenset[str]:
    """The stemmed words an "only" in ``text`` restricts to (empty when there is none)."""
    if _NOT_RESTRICTING.search(text):
        return frozenset()
    m = _ONLY.search(text)
    if not m:
        return frozenset()
    words = [w.lower().removesuffix("'s") for w in re.findall(r"[\w'-]+", m.group(1))]
    while words and words[0] in CARRIER_VERBS:  # "only run peer-to-peer": the verb carries the predicate
        words.pop(0)
    kept: list[str] = []
    for w in words[:3]:
        if w in CARRIER_VERBS:  # "only payments are failing": the restriction ends at the verb
            break
        kept.append(w)
    return frozenset(terms(" ".join(kept)))


def unrestricted(text: str) -> str:
    """``text`` without "only" and the words it restricts: the frame the alternatives fill
    ("Only payments are failing" -> "are failing")."""
    words = restricted(text)
    m = _ONLY.search(text)
    if not words or not m:
        return text
    tail = [w for w in re.findall(r"[\w'-]+", m.group(1))]
    dropped = [w for w in tail if set(terms(w.lower().removesuffix("'s"))) & words]
    rest = text[m.end():]
    kept = " ".join(w for w in tail if w not in dropped)
    return re.sub(r"\s+", " ", f"{text[: m.start()]} {kept} {rest}").strip()


__all__ = ["CARRIER_VERBS", "restricted", "unrestricted"]
