"""Quantities that cannot both hold: "hundreds of pages" against "5-10 pages".

A clause can contradict a claim without a negator or an evaluative word by
giving another amount of the same thing: "our documents run to hundreds of
pages" against a1 ("Our documents are typically 5-10 pages"), "we have six
months" against "Ship in six weeks".  Each amount is read as an interval of
one measure (pages, days, times...), loose enough that "about 3x", "three
times" and "roughly triple" meet; two amounts of one measure whose intervals
do not meet contradict each other.  Amounts of different measures are never
compared.
"""

from __future__ import annotations

import re

NUMBER_WORDS: dict[str, float] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "hundred": 100, "thousand": 1000, "a": 1, "an": 1, "single": 1, "double": 2, "twice": 2, "triple": 3,
    "quadruple": 4, "half": 0.5,
}
VAGUE: dict[str, tuple[float, float]] = {
    "a few": (2, 5), "few": (2, 5), "a couple of": (2, 3), "a couple": (2, 3), "a handful of": (3, 6),
    "several": (3, 9), "dozens of": (24, 99), "dozens": (24, 99), "hundreds of": (100, 999),
    "hundreds": (100, 999), "thousands of": (1000, 9999), "thousands": (1000, 9999), "many": (5, 10**6),
}
"""Vague amounts, as intervals."""

UNITS: dict[str, tuple[str, float]] = {
    "page": ("pages", 1), "pages": ("pages", 1),
    "minute": ("days", 1 / 1440), "minutes": ("days", 1 / 1440), "hour": ("days", 1 / 24), "hours": ("days", 1 / 24),
    "day": ("days", 1), "days": ("days", 1), "week": ("days", 7), "weeks": ("days", 7), "month": ("days", 30),
    "months": ("days", 30), "quarter": ("days", 91), "quarters": ("days", 91), "year": ("days", 365),
    "years": ("days", 365),
    "x": ("times", 1), "times": ("times", 1), "fold": ("times", 1), "percent": ("percent", 1), "%": ("percent", 1),
}
"""Unit words: (measure, size in the measure's base unit)."""

TOLERANCE = 0.25
"""An exact amount reads as itself give or take this share ("about 3x" meets "roughly three times")."""

_NUM = r"(?:\d+(?:\.\d+)?|" + "|".join(sorted((w for w in NUMBER_WORDS if len(w) > 2), key=len, reverse=True)) + r")"
_VAGUE = "|".join(re.escape(v) for v in sorted(VAGUE, key=len, reverse=True))
_UNIT = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
_AMOUNT = re.compile(
    rf"(?<![\w-])(?:(?P<lo>{_NUM})\s*(?:-|–|to)\s*(?P<hi>{_NUM})|(?P<vague>{_VAGUE})|(?P<n>{_NUM}))"
    rf"\s*(?:-\s*)?(?P<unit>{_UNIT})(?![\w])", re.I)
_BARE = re.compile(r"(?<![\w-])for\s+(?P<unit>minutes|hours|days|weeks|months|quarters|years)(?![\w])", re.I)
"""'for months': more than one of the unit (two at least)."""
_MULTIPLIER = re.compile(r"(?<![\w-])(?P<n>double|twice|triple|quadruple)(?![\w-])", re.I)


def _value(word: str) -> float:
    word = word.lower()
    return float(word) if word[0].isdigit() else float(NUMBER_WORDS[word])


def amounts(text: str) -> dict[str, tuple[float, float]]:
    """Measure -> the interval of the amounts ``text`` gives of it (the first amount of each measure)."""
    out: dict[str, tuple[float, float]] = {}
    for m in _AMOUNT.finditer(text):
        measure, size = UNITS[m.group("unit").lower()]
        if m.group("vague"):
            lo, hi = VAGUE[m.group("vague").lower()]
        elif m.group("lo"):
            lo, hi = _value(m.group("lo")), _value(m.group("hi"))
        else:
            n = _value(m.group("n"))
            lo, hi = n * (1 - TOLERANCE), n * (1 + TOLERANCE)
        out.setdefault(measure, (lo * size, hi * size))
    for m in _BARE.finditer(text):
        measure, size = UNITS[m.group("unit").lower()]
        out.setdefault(measure, (2 * size, 10**6 * size))
    for m in _MULTIPLIER.finditer(text):  # "roughly triple what we'd expect"
        n = _value(m.group("n"))
        out.setdefault("times", (n * (1 - TOLERANCE), n * (1 + TOLERANCE)))
    return out


def conflict(a: str, b: str) -> str | None:
    """The measure on which ``a`` and ``b`` give amounts that cannot both hold, or None."""
    x, y = amounts(a), amounts(b)
    for measure in x.keys() & y.keys():
        (lo1, hi1), (lo2, hi2) = x[measure], y[measure]
        if hi1 < lo2 or hi2 < lo1:
            return measure
    return None


__all__ = ["NUMBER_WORDS", "TOLERANCE", "UNITS", "VAGUE", "amounts", "conflict"]
