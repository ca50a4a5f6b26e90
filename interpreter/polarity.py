"""What a sentence says and what it denies: clauses with a polarity, offline.

A continuation rarely asserts one proposition in the words of the claim it
rests on.  "The auth errors come from the token bug rather than from Redis"
asserts one cause and denies another; "Stripe isn't rate-limiting us" denies
the observation it shares every content word with.  Similarity alone finds
the topic of a clause, never its stance, so a text is first cut into clauses,
each with the sign of what it says about its topic:

* sentences split at ``.;!?`` and at a colon or dash between clauses;
* contrast splits a sentence into the part affirmed and the part denied:
  "X, not Y", "X rather than Y", "X instead of Y", "not X but Y" (Y
  affirmed, X denied); the denied part, when it is a fragment ("not Redis"),
  is read in the frame of the affirmed one ("... come from Redis");
  "not the other way round" and "rather than the reverse" only insist on the
  affirmed direction and are dropped;
* a clause is negated when it holds an odd number of negators: negation words
  (not, n't, no, never, nothing, without, no longer...), denial phrases
  ("unrelated to", "independent of", "a red herring", "ruled out", "off the
  table"...), and words saying that something is in order ("normal",
  "healthy", "fine", "valid", "plenty"), which deny the failure a claim of a
  debugging conversation reports.  Idioms that only look negative ("no free
  connections", "not only") are read first.

Claims' own texts go through the same reading (o9 is "401 'token expired',
not 503 'session lookup failed'"), so a clause and a claim agree when their
signs agree.  The cue lists are plain data below; they were tuned only on the
development split of the verifier set (bench/data/verifier.yaml).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grounded.interpreter.similarity import terms

# -- cue lists -----------------------------------------------------------------------------

NEGATION_WORDS = frozenset({
    "not", "no", "never", "nothing", "none", "nobody", "neither", "nor", "cannot", "without", "nowhere",
})
"""Single words that negate the clause they stand in (``n't`` is caught as a suffix)."""

DENIAL_PHRASES = (
    "unrelated to", "unrelated", "independent of", "red herring", "rule out", "ruled out", "rules out",
    "off the table", "is wrong", "was wrong", "were wrong", "is false", "was false", "a myth", "is gone",
    "different problem from", "separate problem from", "separate from", "no bearing on", "disproved",
    "refuted", "debunked", "dead end", "mistaken", "irrelevant to", "no longer holds",
)
"""Phrases that deny what the rest of their clause says ("X is unrelated to Y")."""

IN_ORDER_WORDS = frozenset({
    "normal", "healthy", "fine", "valid", "ok", "okay", "plenty", "ample", "accepts", "accepting",
    "low-risk", "safe", "simple", "easy", "proven", "agrees", "works", "working",
})
"""Words that say something is in order: they deny the trouble a claim reports."""

IDIOMS = (
    # (pattern, replacement): read before counting negators
    (r"\bno free\b", "exhausted"),
    (r"\bno (?:spare|available) ", "exhausted "),
    (r"\bnot only\b", "also"),
    (r"\bno doubt\b", "surely"),
    (r"\b(\d+(?:\.\d+)?)\s*(?:x|times)\s+(?:the\s+)?normal\b", r"\1x baseline"),
    (r"\b(?:above|over|beyond) normal\b", "elevated"),
    (r"\bno (?:longer|more)\b", "not"),
    (r"\bwell documented\b", "documented"),
)
"""Phrases whose surface negation or 'in order' word is not the clause's stance."""

_DIRECTION_ONLY = re.compile(
    r"^(?:the )?(?:other way (?:a)?round|reverse|opposite|vice versa|converse)\b", re.I)

# -- splitting -----------------------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\s+(?:--|—|–)\s+|(?<=\w)[:;]\s+")
_PAREN = re.compile(r"\s*\(([^()]*)\)")
_CONTRAST_TAIL = re.compile(r",\s+(?:and |but )?not\s+|\s+(?:and|but) not\s+|,?\s+(?:rather than|instead of)\s+", re.I)
_NOT_BUT = re.compile(r"^(.*?)\bnot\s+(.+?),?\s+but\s+(.+)$", re.I)
_COPULA = re.compile(r"^(.*?\b(?:is|are|was|were|be|been|being|would be|means|mean)\b\s)", re.I)
_NEG_SUFFIX = re.compile(r"n't\b|n’t\b", re.I)
_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@dataclass(frozen=True, slots=True)
class Clause:
    """One clause of a text: what it says (``text``) and whether it denies it."""

    text: str
    negated: bool
    cues: tuple[str, ...] = ()
    """The negators that decided the sign, for reports ("not", "unrelated to", "contrast")."""

    @property
    def sign(self) -> int:
        return -1 if self.negated else 1


def _read_idioms(text: str) -> str:
    out = text.lower().replace("’", "'")
    for pattern, repl in IDIOMS:
        out = re.sub(pattern, repl, out)
    return out


def negators(text: str) -> list[str]:
    """The negation cues of one clause, in order of appearance (each counts once)."""
    low = _read_idioms(text)
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    for phrase in DENIAL_PHRASES:
        for m in re.finditer(r"\b" + re.escape(phrase) + r"\b", low):
            if not any(a < m.end() and m.start() < b for a, b in taken):
                taken.append((m.start(), m.end()))
                found.append((m.start(), phrase))
    for m in _NEG_SUFFIX.finditer(low):
        found.append((m.start(), "n't"))
    for m in _WORD.finditer(low):
        if any(a <= m.start() < b for a, b in taken):
            continue
        w = m.group()
        if w in NEGATION_WORDS or w in IN_ORDER_WORDS:
            found.append((m.start(), w))
    return [cue for _, cue in sorted(found)]


def _clause(text: str, extra: tuple[str, ...] = ()) -> Clause | None:
    text = text.strip(" ,;:.-")
    if not terms(text):
        return None
    cues = tuple(negators(text)) + extra
    return Clause(text, len(cues) % 2 == 1, cues)


def _in_frame(affirmed: str, fragment: str) -> str:
    """A denied fragment read in the frame of the affirmed part: 'from Redis' in 'X come from the bug'.

    The fragment replaces the affirmed part from the last occurrence of its
    first word ("from"); failing that, it follows the affirmed part's copula
    ("The alert is" + "Redis").  A fragment of three or more content words
    stands on its own.
    """
    if len(terms(fragment)) >= 3:
        return fragment
    words = fragment.split()
    low = affirmed.lower()
    if words:
        first = re.escape(words[0].lower())
        hits = list(re.finditer(r"\b" + first + r"\b", low))
        if hits and hits[-1].start() > 0:
            return affirmed[: hits[-1].start()] + fragment
    m = _COPULA.match(affirmed)
    return (m.group(1) + fragment) if m else fragment


def _split_contrast(sentence: str) -> list[Clause]:
    m = _NOT_BUT.match(sentence)
    if m and terms(m.group(2)) and terms(m.group(3)):
        head = m.group(1)
        denied, affirmed = head + m.group(2), head + m.group(3)
        out = [_clause(affirmed), _clause(denied, ("contrast",))]
        return [c for c in out if c is not None]
    parts = _CONTRAST_TAIL.split(sentence, maxsplit=1)
    if len(parts) == 2 and terms(parts[0]) and terms(parts[1]):
        affirmed, rest = parts
        # "X, not Y, to ship this": the denied part ends at the next comma
        denied, _, tail = rest.partition(",")
        if tail.strip():
            affirmed = f"{affirmed} {tail.strip()}"
        out: list[Clause] = []
        first = _clause(affirmed)
        if first is not None:
            out.append(first)
        if not _DIRECTION_ONLY.match(denied.strip()):
            framed = _clause(_in_frame(parts[0], denied.strip()), ("contrast",))
            if framed is not None:
                out.append(framed)
        return out
    single = _clause(sentence)
    return [single] if single is not None else []


def sentences(text: str) -> list[str]:
    """Sentences and independent clauses of ``text``; parentheticals become sentences of their own."""
    pieces: list[str] = []
    for paren in _PAREN.findall(text):
        pieces.append(paren)
    body = _PAREN.sub("", text)
    pieces[:0] = [s for s in _SENTENCE.split(body) if s and s.strip()]
    return [p.strip() for p in pieces if p.strip()]


def clauses(text: str) -> list[Clause]:
    """The clauses of ``text`` with their polarity; questions assert nothing and are left out."""
    out: list[Clause] = []
    for sentence in sentences(text):
        if sentence.rstrip().endswith("?"):
            continue
        out.extend(_split_contrast(sentence))
    return out


__all__ = ["DENIAL_PHRASES", "IDIOMS", "IN_ORDER_WORDS", "NEGATION_WORDS", "Clause", "clauses", "negators",
           "sentences"]
