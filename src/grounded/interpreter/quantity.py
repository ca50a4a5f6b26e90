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
from typing import NamedTuple

from grounded.interpreter.lexicon import load

_LEXICON = load("quantity")
NUMBER_WORDS: dict[str, float] = {str(k): float(v) for k, v in _LEXICON["number_words"].items()}
VAGUE: dict[str, tuple[float, float]] = {str(k): (float(v[0]), float(v[1])) for k, v in _LEXICON["vague"].items()}
"""Vague amounts, as intervals."""
UNITS: dict[str, tuple[str, float]] = {str(k).lower(): (str(v[0]), float(v[1])) for k, v in _LEXICON["units"].items()}
"""Unit words: (measure, size in the measure's base unit); src/grounded/interpreter/lexicon/quantity.yaml."""

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


# -- exact figures ------------------------------------------------------------------------------

_FIGURE = re.compile(
    rf"(?<![\w.])(?P<n>{_NUM})\s*(?:-\s*)?(?P<unit>{_UNIT})(?![\w])", re.I)
"""An amount with its unit after it: '120 ms', 'six months', '3x'."""
_PRICE = re.compile(r"(?<![\w.])(?P<pre>[$€£])\s*(?P<n>\d+(?:\.\d+)?)(?![\w.])")
"""A price with its currency sign first: '$40'."""
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.:]*")


class Figure(NamedTuple):
    """One figure of a text: an amount of a measure (``measure`` set, ``value`` in its base unit, ``step``
    the size of its last digit) or a token with a digit (a year, a version, an identifier: ``measure`` None)."""

    surface: str
    measure: str | None
    value: float
    step: float
    token: str


def _step(number: str) -> float:
    return 10.0 ** -len(number.split(".")[1]) if "." in number else 1.0


def figures(text: str) -> list[Figure]:
    """Every figure of ``text``, in order: amounts with a unit (digits or number words), then every other
    token holding a digit ('2025', 'v2.3', 'p99', '5' of '5-10 pages')."""
    out: list[Figure] = []
    spans: list[tuple[int, int]] = []
    for m in _FIGURE.finditer(text):
        unit = (m.group("unit") or "").lower()
        measure, size = UNITS[unit]
        number = m.group("n").lower()
        raw = _value(number)
        step = _step(number) if number[0].isdigit() else 1.0
        out.append(Figure(m.group().strip(), measure, raw * size, step * size, _token(number)))
        spans.append(m.span())
    for m in _PRICE.finditer(text):
        if not any(a <= m.start() < b for a, b in spans):
            out.append(Figure(m.group(), "money", float(m.group("n")), _step(m.group("n")), _token(m.group("n"))))
            spans.append(m.span())
    for m in _TOKEN.finditer(text):
        token = m.group().rstrip(".:")
        if not any(ch.isdigit() for ch in token) or any(a <= m.start() < b for a, b in spans):
            continue
        out.append(Figure(token, None, 0.0, 0.0, _token(token)))
    return out


def _token(word: str) -> str:
    """A figure's token: lower case; '401s' -> '401', '3.0' -> '3'."""
    word = word.lower()
    if word.endswith("s") and word[:-1].replace(".", "").isdigit():
        word = word[:-1]
    if re.fullmatch(r"\d+\.0+", word):
        word = word.split(".")[0]
    return word


def _same(a: Figure, b: Figure) -> bool:
    """Equal after rounding to the coarser of the two (1.5 s is 1500 ms; 150 ms is not 190 ms); a token
    with a digit only equals the same token."""
    if a.measure is not None and b.measure is not None:
        return a.measure == b.measure and abs(a.value - b.value) <= max(a.step, b.step) / 2 + 1e-9 * abs(b.value)
    return a.token == b.token


def unmatched(text: str, claim: list[str]) -> list[tuple[Figure, list[Figure]]]:
    """The figures of ``text`` that no text of a claim gives, each with the claim's figures of its kind
    (the same measure, or tokens of the same shape): what ``text`` says that the claim does not."""
    theirs = [f for t in claim for f in figures(t)]
    mine = figures(text)
    out = []
    for f in mine:
        if any(_same(f, g) for g in theirs):
            continue
        theirs_left = [g for g in theirs if not any(_same(h, g) for h in mine)]
        if f.measure is not None:
            like = [g for g in theirs_left if g.measure == f.measure]
        else:
            shape = re.sub(r"\d", "0", f.token)
            like = [g for g in theirs_left if g.measure is None and re.sub(r"\d", "0", g.token) == shape]
        out.append((f, like))
    return out


def describe(f: Figure, like: list[Figure], claim: str) -> str:
    """'amount 150 ms vs 190 ms in o4', 'number 2024 vs 2025 in o5', 'amount 3 kg not in o2'."""
    kind = "amount" if f.measure is not None else "number"
    if like:
        return f"{kind} {f.surface} vs {', '.join(dict.fromkeys(g.surface for g in like))} in {claim}"
    return f"{kind} {f.surface} not in {claim}"


__all__ = ["NUMBER_WORDS", "TOLERANCE", "UNITS", "VAGUE", "Figure", "amounts", "conflict", "describe", "figures",
           "unmatched"]
