"""What a sentence says and what it denies: clauses with a stance, offline.

A continuation rarely asserts one proposition in the words of the claim it
rests on.  "The auth errors come from the token bug rather than from Redis"
asserts one cause and denies another; "Stripe isn't rate-limiting us" denies
the observation it shares every content word with.  Similarity finds the
topic of a clause, never its stance, so a text is first cut into clauses and
each clause into parts, each part with its stance:

* sentences split at ``.;!?`` and at a colon or dash between clauses;
  parentheticals are sentences of their own;
* contrast splits a sentence into the part affirmed and the part denied:
  "X, not Y", "X rather than Y", "X instead of Y", "not X but Y"; a denied
  fragment ("not Redis") is read in the frame of the affirmed part ("... come
  from Redis"); "not the other way round" and "rather than the reverse" only
  insist on the affirmed direction and are dropped;
* a clause's *parts* (split at commas, conjunctions and subordinators:
  "because", "now that", "while"...) keep negation in its scope: in "the
  launch decision no longer holds now that Q2 is confirmed" the confirmation
  is not negated;
* a part's stance counts *negators* (not, n't, no, never, nothing..., and
  denial phrases: "unrelated to", "independent of", "a red herring", "ruled
  out", "off the table"...), *inability* ("can't", "cannot", "unable to":
  a failure when the claim reports trouble, "Payment can't reach Redis"; a
  denial otherwise, "Yjs cannot use a central server"), and its *evaluation*:
  trouble ("failing", "timeouts", "expired", "risky") or order ("normal",
  "healthy", "fine", "valid", "plenty").  A part in order denies a claim
  reporting trouble and the other way round.

Claims' own texts go through the same reading (o9 is "401 'token expired',
not 503 'session lookup failed'"), so a clause and a claim agree when their
stances do (``relation``).  The cue lists are data (src/grounded/interpreter/lexicon/polarity.yaml, with
their source); they were tuned only on the development split of the
verifier set (bench/data/verifier.yaml), never on its test split, and hold no
number or rare word of a scenario or verifier item (tests/test_lexicon.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grounded.interpreter.anaphora import resolve
from grounded.interpreter.lexicon import load, words
from grounded.interpreter.similarity import terms

# -- cue lists -----------------------------------------------------------------------------

NEGATION_WORDS = frozenset(words("polarity", "negation_words"))
"""Single words that negate the part they stand in (``n't`` is caught as a suffix)."""

INABILITY = words("polarity", "inability")
"""Inability: a failure (agreeing with a claim that reports trouble) or a denial (of any other claim)."""

DENIAL_PHRASES = words("polarity", "denial_phrases")
"""Phrases that deny what the rest of their part says ("X is unrelated to Y")."""

TROUBLE_WORDS = frozenset(words("polarity", "trouble_words"))
"""Words reporting that something is wrong."""

ORDER_WORDS = frozenset(words("polarity", "order_words"))
"""Words saying that something is in order."""

IDIOMS: tuple[tuple[str, str], ...] = tuple((str(p), str(r)) for p, r in load("polarity")["idioms"])
"""Phrases whose surface negation or evaluation is not their stance; a negator that is the proposition's own
content ("stopped doing", "no longer", "unchanged", "free of") is read as one plain negation."""

SUBORDINATORS = words("polarity", "subordinators")
"""Words that start a part of their own (negation does not cross them)."""

_DIRECTION_ONLY = re.compile(r"^(?:the )?(?:other way (?:a)?round|reverse|opposite|vice versa|converse)\b", re.I)

# -- one part's stance ---------------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_PREFIXED = re.compile(r"^(?:un|non-?)([a-z]{4,})$")
NOT_PREFIXED = words("polarity", "not_prefixed")
"""Words that begin like a negating prefix (un-, non-) without being one."""


COPULAS = frozenset(words("polarity", "copulas"))


def _predicative(words: list[re.Match[str]], k: int) -> bool:
    """The word at ``k`` is what its part says of its subject ('X is still unconfirmed'), not a modifier
    ('unthrottled requests'): a copula within the two words before it."""
    return any(m.group() in COPULAS for m in words[max(0, k - 2): k])


def prefix_negated(word: str) -> bool:
    """'unconfirmed', 'non-blocking': a word negated by its prefix (its own evaluation aside)."""
    return bool(_PREFIXED.match(word)) and not word.startswith(NOT_PREFIXED) and \
        word not in TROUBLE_WORDS and word not in ORDER_WORDS
_NEG_SUFFIX = re.compile(r"\w+n't\b")


@dataclass(frozen=True, slots=True)
class Stance:
    """What one stretch of text does to its topic: negators, inabilities, and its evaluation."""

    negations: int = 0
    inability: int = 0
    trouble: bool = False
    order: bool = False
    cues: tuple[str, ...] = ()

    @property
    def negated(self) -> bool:
        """Negated on its own (inability counted as negation): the sign of a text read alone."""
        return (self.negations + self.inability) % 2 == 1

    def contrasted(self) -> Stance:
        """The stance of the denied side of a contrast ("not Y"): negated once more."""
        return Stance(self.negations + 1, self.inability, self.trouble, self.order, self.cues + ("contrast",))


def _read_idioms(text: str) -> str:
    out = text.lower().replace("’", "'")
    for pattern, repl in IDIOMS:
        out = re.sub(pattern, repl, out)
    return out


def stance(text: str) -> Stance:
    low = _read_idioms(text)
    cues: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return not any(x < b and a < y for x, y in taken)

    inability = 0
    for phrase in INABILITY:
        for m in re.finditer(r"\b" + re.escape(phrase) + r"(?![\w'])", low):
            if free(m.start(), m.end()):
                taken.append((m.start(), m.end()))
                cues.append((m.start(), phrase))
                inability += 1
    negations = 0
    for phrase in DENIAL_PHRASES:
        for m in re.finditer(r"\b" + re.escape(phrase) + r"\b", low):
            if free(m.start(), m.end()):
                taken.append((m.start(), m.end()))
                cues.append((m.start(), phrase))
                negations += 1
    for m in _NEG_SUFFIX.finditer(low):
        if free(m.start(), m.end()):
            taken.append((m.start(), m.end()))
            cues.append((m.start(), "n't"))
            negations += 1
    words = list(_WORD.finditer(low))
    trouble = order = False
    evaluations: list[tuple[int, str]] = []  # (word index, 'trouble' | 'order')
    for k, m in enumerate(words):
        if not free(m.start(), m.end()):
            continue
        w = m.group()
        if w in NEGATION_WORDS:
            negations += 1
            cues.append((m.start(), w))
        elif w == "without" and any(x.group() in TROUBLE_WORDS for x in words[k + 1: k + 4]):
            negations += 1  # "without any timeouts"; not "without rate limiting"
            cues.append((m.start(), w))
        elif prefix_negated(w) and _predicative(words, k):
            negations += 1  # "still unconfirmed" against "not confirmed"; "unthrottled" against "throttled"
            cues.append((m.start(), w))
        elif w in TROUBLE_WORDS:
            evaluations.append((k, "trouble"))
        elif w in ORDER_WORDS:
            evaluations.append((k, "order"))
    kinds = {e for _, e in evaluations}
    if len(kinds) == 2:  # "the failure rate is flat": what the part says of its subject is its predicate's
        copula = next((k for k, m in enumerate(words) if m.group() in COPULAS), None)
        said = {e for k, e in evaluations if copula is not None and k > copula}
        kinds = said or kinds
    trouble, order = "trouble" in kinds, "order" in kinds
    return Stance(negations, inability, trouble, order, tuple(c for _, c in sorted(cues)))


def _evaluation(trouble: bool, order: bool) -> str | None:
    if trouble != order:
        return "trouble" if trouble else "order"
    return None


def relation(part: Stance, claim: Stance) -> int:
    """+1 when a part of a continuation agrees with a claim's facet on the same topic, -1 when it denies it."""
    n = part.negations + claim.negations
    part_trouble = part.trouble or bool(part.inability and claim.trouble)
    claim_trouble = claim.trouble or bool(claim.inability and part.trouble)
    if not (part.inability and claim.trouble):
        n += part.inability
    if not (claim.inability and part.trouble):
        n += claim.inability
    a, b = _evaluation(part_trouble, part.order), _evaluation(claim_trouble, claim.order)
    if a and b and a != b:
        n += 1
    return -1 if n % 2 else 1


# -- splitting -----------------------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\s+(?:--|—|–)\s+|(?<=\w)[:;]\s+")
_PAREN = re.compile(r"\s*\(([^()]*)\)")
_CONTRAST_TAIL = re.compile(r",\s+(?:and |but )?not\s+|\s+(?:and|but) not\s+|,?\s+(?:rather than|instead of)\s+",
                            re.I)
_NOT_BUT = re.compile(r"^(.*?)\bnot\s+(.+?),?\s+but\s+(.+)$", re.I)
_COPULA = re.compile(r"^(.*?\b(?:is|are|was|were|be|been|being|means|mean)\b\s)", re.I)
_NOUN_PHRASE = re.compile(r"^(?:the|a|an|any|some)\s", re.I)
"""A fragment opening with a determiner: a noun phrase, which says nothing without a subject and copula."""
_PARTS = re.compile(r"\s*,\s*|\s+(?=(?:" + "|".join(re.escape(s) for s in SUBORDINATORS) + r")\b)", re.I)


CONDITIONS = words("polarity", "conditions")
"""A part opened by one of these is a condition, not a claim: its stance is not the clause's."""


@dataclass(frozen=True, slots=True)
class Part:
    text: str
    stance: Stance

    @property
    def condition(self) -> bool:
        first = self.text.split(maxsplit=1)[0].lower() if self.text.split() else ""
        return first in CONDITIONS


@dataclass(frozen=True, slots=True)
class Clause:
    """One clause of a text: what it says (``text``), its parts, and whether it is denied by contrast."""

    text: str
    parts: tuple[Part, ...]
    contrast: bool = False
    """The clause is the denied side of a contrast ("not Y"): every part's stance is negated once more."""
    stance: Stance = Stance()
    """The stance of the whole clause (its parts' cues together), read once when the clause is made."""

    @property
    def negated(self) -> bool:
        return self.stance.negated


def _parts(text: str, contrast: bool) -> tuple[Part, ...]:
    pieces = [p for p in _PARTS.split(text) if p and terms(p)] or [text]
    out = []
    for p in pieces:
        s = stance(p)
        out.append(Part(p.strip(), s.contrasted() if contrast else s))
    return tuple(out)


def _clause(text: str, contrast: bool = False) -> Clause | None:
    text = text.strip(" ,;:.-")
    if not terms(text):
        return None
    whole = stance(text)
    return Clause(text, _parts(text, contrast), contrast, whole.contrasted() if contrast else whole)


def _in_frame(affirmed: str, fragment: str) -> str:
    """A denied fragment read in the frame of the affirmed part: 'from Redis' in 'X come from the bug'.

    The fragment replaces the affirmed part from the last occurrence of its
    first word ("from"); failing that, it follows the affirmed part's copula
    ("The alert is" + "Redis").  A fragment of three or more content words
    stands on its own, unless both sides are noun phrases after one copula:
    "Redis is a victim here, not the culprit behind the auth failures" denies
    that Redis is the culprit, so the phrase takes the copula's subject ("The
    queue is fine, not the worker" contrasts subjects and is left alone).
    """
    m = _COPULA.match(affirmed)
    if m and _NOUN_PHRASE.match(fragment) and _NOUN_PHRASE.match(affirmed[m.end():]):
        return m.group(1) + fragment
    if len(terms(fragment)) >= 3:
        return fragment
    words = fragment.split()
    low = affirmed.lower()
    if words:
        first = re.escape(words[0].lower())
        hits = list(re.finditer(r"\b" + first + r"\b", low))
        if hits and hits[-1].start() > 0:
            return affirmed[: hits[-1].start()] + fragment
    return (m.group(1) + fragment) if m else fragment


def _split_contrast(sentence: str) -> list[Clause]:
    m = _NOT_BUT.match(sentence)
    if m and terms(m.group(2)) and terms(m.group(3)):
        head = m.group(1)
        found = [_clause(head + m.group(3)), _clause(head + m.group(2), contrast=True)]
        return [c for c in found if c is not None]
    pieces = _CONTRAST_TAIL.split(sentence, maxsplit=1)
    if len(pieces) == 2 and terms(pieces[0]) and terms(pieces[1]):
        affirmed, rest = pieces
        denied, _, tail = rest.partition(",")  # "X, not Y, to ship this": the denied part ends at a comma
        if tail.strip():
            affirmed = f"{affirmed} {tail.strip()}"
        out: list[Clause] = []
        first = _clause(affirmed)
        if first is not None:
            out.append(first)
        if not _DIRECTION_ONLY.match(denied.strip()):
            framed = _clause(_in_frame(pieces[0], denied.strip()), contrast=True)
            if framed is not None:
                out.append(framed)
        return out
    single = _clause(sentence)
    return [single] if single is not None else []


def sentences(text: str) -> list[str]:
    """Sentences and independent clauses of ``text``; parentheticals become sentences of their own."""
    parens = _PAREN.findall(text)
    body = _PAREN.sub("", text)
    pieces = [s for s in _SENTENCE.split(body) if s and s.strip()] + parens
    return [p.strip() for p in pieces if p.strip()]


def clauses(text: str, names: frozenset[str] = frozenset()) -> list[Clause]:
    """The clauses of ``text`` with their parts; questions assert nothing and are left out.

    With ``names`` (the names a conversation uses), a pronoun in a sentence is
    read as the last name of the sentence before it (``anaphora.py``).
    """
    out: list[Clause] = []
    pieces = sentences(text)
    if names:
        pieces = resolve(pieces, names)
    for sentence in pieces:
        if sentence.rstrip().endswith("?"):
            continue
        out.extend(_split_contrast(sentence))
    return out


__all__ = ["DENIAL_PHRASES", "IDIOMS", "INABILITY", "NEGATION_WORDS", "ORDER_WORDS", "TROUBLE_WORDS", "Clause",
           "Part", "Stance", "clauses", "relation", "sentences", "stance"]
