"""Opposite predicates: a clause that says the opposite of a claim without a negator.

"Sales fell" against "sales rose", "Marta supports the rota" against "Marta
opposes the rota": similarity finds the topic and no negator marks the
denial.  The pairs are data (src/grounded/interpreter/lexicon/opposites.yaml, with their
source); a side's irregular forms are listed there and every other form is
matched through the stemmer the reader already uses.
"""

from __future__ import annotations

import re
from functools import cache

from grounded.interpreter.lexicon import load
from grounded.interpreter.similarity import stem

_WORD = re.compile(r"[a-z]+")


def _form(phrase: str) -> tuple[str, ...]:
    return tuple(stem(w) for w in _WORD.findall(phrase.lower()))


Side = tuple[str, frozenset[tuple[str, ...]]]
"""A side of a pair: its base form as listed, and the stemmed forms it is matched by."""


@cache
def pairs() -> tuple[tuple[Side, Side], ...]:
    """Each pair as (one side, the other)."""
    def side(entry: object) -> Side:
        forms = str(entry).split("|")
        return forms[0], frozenset(_form(f) for f in forms)
    return tuple((side(a), side(b)) for a, b in load("opposites")["pairs"])


def _has(words: tuple[str, ...], side: Side) -> str | None:
    for form in side[1]:
        n = len(form)
        if any(words[k:k + n] == form for k in range(len(words) - n + 1)):
            return side[0]
    return None


def opposed(clause: str, claim: list[str]) -> tuple[str, str] | None:
    """(the clause's word, the claim's word) of a pair the clause and the claim's texts take opposite sides
    of: the clause has one side and not the other, and no text of the claim has the clause's side."""
    mine = _form(clause)
    theirs = [_form(t) for t in claim]
    for a, b in pairs():
        for x, y in ((a, b), (b, a)):
            said = _has(mine, x)
            if said is None or _has(mine, y):
                continue
            other = next((w for t in theirs if (w := _has(t, y))), None)
            if other is not None and not any(_has(t, x) for t in theirs):
                return said, other
    return None


__all__ = ["opposed", "pairs"]
