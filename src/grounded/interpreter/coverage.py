"""Coverage: what of a continuation the conversation's claims say, word for word, number for number.

The text reader accepts only what it can show is covered, rejects only on a
positive finding, and abstains on everything else.  A continuation is cut into
clauses (sentences, and their parts at ';', ':', ' but ' and a contrast
", not ..."); each clause is read against the claims of the state as of a turn
(every proposition with a text, in standing or not; a question is only what a
hypothesis explains):

* **covered**: every content word of the clause (function words aside) matches a
  word of the claim: the same word, an inflection or derivation of it, a synonym,
  or a more general word (a hypernym) of it, all from WordNet (``wordnet.py``); a
  name, an id or a number naming a thing ("line 4") only by its spelling; every
  amount is the claim's, with the same value of the same measure (a unit, or the
  words around it: "a gravity of 1.030" is not "a target of 1.010", "two weeks"
  is not "two days"); the polarity is the claim's (each side's negators counted,
  and "no longer" is a word, so a negation in the claim's own content, "no
  coolant reached loop 2", is restated, not denied); names keep their order
  ("F2 overloaded F1" is not "F1 overloaded F2").  The claim that covers the
  clause and of which the clause says the most is what it asserts (denies, when
  the polarity differs; a grounded claim only when the clause restates half of
  it).  A clause no one claim covers is read in parts (at commas, "and",
  "while"), each part covered by its own claim.  A proposal ("let's...", "Fix
  the script") is covered only by a plan or a decision.  A causal clause ("A
  caused B", "B because A", "A is what made B", "since A, B", "A -> B") is
  covered only by a hypothesis whose own text covers the cause and whose text or
  explained claims cover the effect, in that direction; the other direction
  denies the hypothesis;
* **contradicted**: a claim covers every word of the clause but one it has an
  antonym of ("arrived late" against "arrived early"), or a number of the same
  measure with another value ("text says 2.7 bar, o3 says 7.2 bar");
* **not covered**: anything else; the words the closest claim does not cover
  are named.

Read against a citation (``only``), the cited claims alone cover, and may cover
a clause together.  What each clause asserts or denies is verified as of the
turn and ``verdict.py`` decides: a covered clause asserting a claim out of
standing, or a contradicted grounded claim, rejects; a clause not covered
abstains; every clause covered by grounded claims (and every denial of a claim
out of standing) accepts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from grounded.core.extras import require
from grounded.engine.view import Reads
from grounded.interpreter import lexicon
from grounded.interpreter.wordnet import Lexicon
from grounded.interpreter.wordnet import lexicon as wordnet

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’.,:/-][A-Za-z0-9]+)*%?|°[CF]|[€$£%]")
_SPLIT = re.compile(r"(?<!\d)(?<!\b[A-Z])[.!?;:](?!\d)\s*|\s+but\s+|,\s*(?=not\b)|\s+rather than\s+|\s+instead of\s+")
_CONTENT_NEGATION = re.compile(r"\b(?:no longer|not yet|no more)\b", re.IGNORECASE)
"""A negation that is part of what is said ("no longer retries" is "stopped retrying"): one content word."""
_MULTIPLE = re.compile(r"^\d+(?:\.\d+)?x$")
_NUMBER = re.compile(r"^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?$")
"""A plain number ("18,450", "1.030", "61%"); a version ("5.2.1") or a time ("07:40") is a name."""
_STEM = require("interpreter", "snowballstemmer").stemmer("english")
NAME_WINDOW = 3
"""A number's measure is read from the content words this many tokens either side of it."""
COURSES = ("hypothesis", "decision")
"""The kinds of claim that propose a course of action (a plan is a hypothesis about what to do)."""
DENIAL_SHARE = 0.5
"""A clause denies a grounded claim by polarity (a rejection) only when it restates at least this share of the
claim's words ("it wasn't the backup job" does not deny "the backup job runs nightly at 03:00")."""
_PARTS = re.compile(r",\s*|\s+and\s+|\s+while\s+|\s+whereas\s+")
"""Where a clause no one claim covers is cut into parts, each then read on its own ("A, and B": two claims)."""


@cache
def _lists() -> dict:
    data = lexicon.load("coverage")
    return {"function": frozenset(data["function"]), "negators": frozenset(data["negators"]),
            "forward": tuple(data["causal_forward"]), "backward": tuple(data["causal_backward"]),
            "opening": frozenset(data["causal_opening"]), "numbers": dict(data["number_words"]),
            "directive": tuple(data["directive_openings"]), "objects": frozenset(data["imperative_objects"]),
            "units": {u: (measure, float(size)) for measure, sizes in data["units"].items()
                      for u, size in sizes.items()}}


@dataclass(frozen=True, slots=True)
class Amount:
    """A number as a clause states it: its value in its measure's smallest unit, its measure, nearby words."""

    value: float
    written: str
    measure: str
    context: frozenset[str]


@dataclass(frozen=True, slots=True)
class Words:
    """A stretch of text as the coverage check reads it."""

    text: str
    content: tuple[str, ...]
    """Content words, lower case, in order (numbers and function words aside)."""
    names: tuple[str, ...]
    """Names and ids (a capitalised word inside the sentence, a token with a digit): matched by spelling only."""
    amounts: tuple[Amount, ...]
    negated: bool


def _value(token: str) -> float | None:
    numbers = _lists()["numbers"]
    if token in numbers:
        return float(numbers[token])
    if _NUMBER.match(token):
        return float(token.rstrip("%").replace(",", ""))
    return None


def read(text: str) -> Words:
    """Content words, names, amounts and polarity of one clause."""
    lists = _lists()
    text = _CONTENT_NEGATION.sub(lambda m: m.group(0).replace(" ", "-"), text.replace("’", "'"))
    tokens = [t[:-2] if t.lower().endswith("'s") else t for t in _TOKEN.findall(text)]
    low = [t.lower() for t in tokens]
    negated = False
    content, names, amounts = [], [], []
    for k, (tok, w) in enumerate(zip(tokens, low, strict=True)):
        if w in lists["negators"] or w.endswith("n't"):
            negated = not negated
            continue
        if _MULTIPLE.match(w):  # "3x": a multiple
            amounts.append(_amount(tokens, low, k, float(w[:-1]), "times"))
            continue
        value = _value(w)
        if value is not None and w.isdigit() and k > 0 and low[k - 1].isalpha() \
                and low[k - 1] not in lists["function"] and low[k - 1] not in lists["negators"] \
                and not (k + 1 < len(low) and low[k + 1] in lists["units"]):
            names.append(w)  # a number naming a thing ("line 4", "batch 212", "day 5"): matched by spelling
            content.append(w)
            continue
        if value is not None and (_NUMBER.match(w) or k + 1 < len(low) and low[k + 1] in lists["units"]):
            amounts.append(_amount(tokens, low, k, value))
            continue
        if w in lists["function"] or w in ("°c", "°f", "%"):
            continue
        if any(ch.isdigit() for ch in w) or (k > 0 and tok[0].isupper()) or (len(tok) == 1 and tok.isupper()):
            names.append(w)
        content.append(w)
    return Words(text, tuple(content), tuple(names), tuple(amounts), negated)


def _amount(tokens: list[str], low: list[str], k: int, value: float, multiple: str | None = None) -> Amount:
    lists = _lists()
    unit = "%" if low[k].endswith("%") else low[k + 1] if k + 1 < len(low) else ""
    if multiple:
        unit, measure, size = "", multiple, 1.0
    elif unit in lists["units"]:
        measure, size = lists["units"][unit]
    else:  # no unit of the table: the words around the number say what it measures ("3.6 bar", "line 4 runs")
        measure, size = "", 1.0
    near = {_STEM.stemWord(w) for w in low[max(0, k - NAME_WINDOW): k + NAME_WINDOW + 2]
            if w.isalpha() and w not in lists["function"] and w not in lists["negators"] and w != unit}
    shown = measure not in ("", "times", "percent") or unit.isalpha() and unit not in lists["function"]
    written = f"{tokens[k]} {tokens[k + 1]}" if shown and k + 1 < len(tokens) else tokens[k]
    return Amount(value * size, written, measure, frozenset(near))


def clauses(text: str) -> list[str]:
    """Sentences and their parts: at ';', ':', ' but ', and before a contrast ', not ...'."""
    return [p.strip(" ,") for p in _SPLIT.split(text) if p and p.strip(" ,")]


_ARROW = re.compile(r"\s*(?:->|→|=>)\s*")


def causal_pairs(text: str) -> list[tuple[str, str]]:
    """Every (cause, effect) a text states: each earlier node of an arrow chain ("A -> B -> C") with each later
    one, or the two sides of a connective."""
    nodes = [n for n in _ARROW.split(text) if n.strip()]
    if len(nodes) > 1:
        return [(nodes[i], nodes[j]) for i in range(len(nodes)) for j in range(i + 1, len(nodes))]
    split = causal_split(text)
    return [split] if split else []


def causal_split(text: str) -> tuple[str, str] | None:
    """(cause, effect) of a clause with a causal connective or an arrow (first node, the rest), or None."""
    lists = _lists()
    nodes = [n for n in _ARROW.split(text) if n.strip()]
    if len(nodes) > 1:
        return nodes[0], " ".join(nodes[1:])
    low = " " + text.lower().replace("’", "'") + " "
    first = low.split()[0] if low.split() else ""
    if first in lists["opening"] and "," in low:
        head, _, rest = low.partition(",")
        return head.split(None, 1)[1] if len(head.split()) > 1 else "", rest
    for cue in lists["backward"]:
        at = low.find(f" {cue} ")
        if at > 0:
            return low[at + len(cue) + 2:], low[:at]
    for cue in lists["forward"]:
        spaced = cue if cue.startswith(",") else f" {cue} "
        at = low.find(spaced)
        if at > 0:
            return low[:at], low[at + len(spaced):]
    return None


class Keys:
    """What a word matches: itself, its WordNet base forms, stems and derivations, its synsets and the synsets up
    to two hypernym steps above them (a claim's word is matched by a more general word of the text)."""

    def __init__(self, lex: Lexicon):
        self.lex = lex
        self._own: dict[str, frozenset[str]] = {}
        self._claim: dict[str, frozenset[str]] = {}

    def own(self, word: str) -> frozenset[str]:
        """The keys of a word of the text: the word, base forms, stems, synsets."""
        if word not in self._own:
            bases = self.lex.bases(word)
            self._own[word] = frozenset(bases | {_STEM.stemWord(b) for b in bases}
                                        | {s for b in bases for s in self.lex.synsets(b)})
        return self._own[word]

    def claim(self, word: str) -> frozenset[str]:
        """The keys a word of a claim offers: its own, its derivations', and the hypernyms above its synsets."""
        if word not in self._claim:
            bases = self.lex.bases(word)
            derived = {d for b in bases for d in self.lex.derivations(b)}
            self._claim[word] = frozenset(self.own(word) | derived | {_STEM.stemWord(d) for d in derived}
                                          | {s for b in bases for s in self.lex.below(b)})
        return self._claim[word]

    def antonyms(self, word: str) -> frozenset[str]:
        return frozenset(a for b in self.lex.bases(word) for a in self.lex.antonyms(b))


@dataclass
class Claim:
    """A claim as coverage reads it: its clauses, its words' keys, its standing as of the turn."""

    id: str
    kind: str
    facets: list[Words]
    keys: frozenset[str]
    words: frozenset[str]
    amounts: tuple[Amount, ...]
    grounded: bool
    explains: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Reading:
    """What one clause is found to say: ``asserts`` or ``denies`` claims, or nothing covered (``uncovered``)."""

    clause: str
    stance: str
    """'asserts', 'denies' or 'uncovered'."""
    claims: tuple[str, ...] = ()
    how: str = ""
    uncovered: tuple[str, ...] = ()


def _orderly(clause: Words, facet: Words) -> bool:
    """The names both share come in the same order (roles not swapped)."""
    shared = [n for n in clause.names if n in facet.names]
    theirs = [n for n in facet.names if n in shared]
    return len(set(shared)) < 2 or list(dict.fromkeys(shared)) == list(dict.fromkeys(theirs))


class Coverage:
    """The claims of ``engine`` as of turn ``at``, read once; ``read(text)`` gives each clause's reading."""

    def __init__(self, engine: Reads, at: int | None, texts: dict[str, list[str]]):
        self.lex = wordnet()
        self.keys = Keys(self.lex)
        dm = engine.state
        kinds = {p.id: p.kind for p in dm.props_at(at)}
        self.questions = {p for p, k in kinds.items() if k == "question"}
        explains: dict[str, list[str]] = {}
        for r in dm.args:
            if dm.visible(r.id, at):
                explains.setdefault(r.claim, []).extend(r.explains_at(at))
        self.claims: dict[str, Claim] = {}
        self.question_words: dict[str, set[str]] = {}
        for cid, said in texts.items():
            facets = [read(c) for t in said for c in clauses(t)]
            if cid.lstrip("-") in self.questions:
                self.question_words[cid] = {w for f in facets for w in f.content}
                continue
            words = frozenset(w for f in facets for w in f.content)
            self.claims[cid] = Claim(
                cid, kinds.get(cid.lstrip("-"), ""), facets,
                frozenset(k for w in words for k in self.keys.claim(w)), words,
                tuple(a for f in facets for a in f.amounts), engine.verify(cid, at).grounded,
                explains.get(cid, []))

    # -- words and numbers -------------------------------------------------------------------------------------

    def matches(self, word: str, claim: Claim, names: Iterable[str]) -> bool:
        if word in names:
            return word in claim.words
        return word in claim.words or bool(self.keys.own(word) & claim.keys)

    def _matched(self, clause: Words, claims: Sequence[Claim]) -> set[str]:
        return {w for w in clause.content if any(self.matches(w, c, clause.names) for c in claims)}

    @staticmethod
    def _amounts(clause: Words, claims: Sequence[Claim]) -> tuple[list[Amount], list[tuple[Amount, Amount, str]]]:
        """(amounts no claim states, [(amount, the claim's other value of that measure, claim)])."""
        missing, conflicts = [], []
        for a in clause.amounts:
            theirs = [(b, c.id) for c in claims for b in c.amounts]
            # the same measure: words around the number in common, and the same unit or none
            same = sorted(((b, cid) for b, cid in theirs if a.context & b.context and
                           (a.measure == b.measure or not a.measure or not b.measure)),
                          key=lambda x: (-len(a.context & x[0].context), x[0].measure != a.measure,
                                         not _equal(a, x[0])))
            # the same amount: an equal value of the same unit, or of the measure the words around it name best
            if same and _equal(a, same[0][0]) or not same and any(
                    _equal(a, b) and a.measure and a.measure == b.measure for b, _ in theirs):
                continue
            if same:
                conflicts.append((a, same[0][0], same[0][1]))
            else:
                missing.append(a)
        return missing, conflicts

    def _polarity(self, clause: Words, claim: Claim) -> bool:
        """The negation of the claim's clause that shares most words with ``clause``."""
        best = max(claim.facets, key=lambda f: len(self._matched(clause, [self._one(f, claim)])), default=None)
        return bool(best and best.negated)

    def _one(self, facet: Words, claim: Claim) -> Claim:
        return Claim(claim.id, claim.kind, [facet], frozenset(k for w in facet.content for k in self.keys.claim(w)),
                     frozenset(facet.content), facet.amounts, claim.grounded)

    # -- one clause --------------------------------------------------------------------------------------------

    def read_clause(self, text: str, only: set[str] | None = None) -> Reading | None:
        """The reading of one clause over the claims (only those in ``only`` when given); None when the clause
        has no content word and no number (an aside: "Fine.")."""
        clause = read(text)
        if not clause.content and not clause.amounts:
            return None
        claims = [c for c in self.claims.values() if only is None or c.id in only]
        if self.directive(text):  # a course of action: what a plan or a decision says, not an observation
            claims = [c for c in claims if c.kind in COURSES]
        split = causal_split(text)
        if split is not None:
            causal = self._causal(text, clause, split, claims)
            if causal is not None:
                return causal
        full = []
        for c in claims:
            if self._matched(clause, [c]) == set(clause.content):
                missing, conflicts = self._amounts(clause, [c])
                if not missing and not conflicts:
                    full.append(c)
        if full:
            return self._covered(text, clause, full)
        contradiction = self._contradiction(text, clause, claims)
        if contradiction is not None:
            return contradiction
        if only is not None and not clause.negated and claims and self._matched(clause, claims) == set(clause.content) \
                and self._amounts(clause, claims) == ([], []):
            # a citation names its claims: together they may cover a clause that restates more than one of them
            used = [c for c in claims if self._matched(clause, [c])]
            return Reading(text, "asserts", tuple(c.id for c in used), "covered by the cited claims together")
        return self._uncovered(text, clause, claims)

    def directive(self, text: str) -> bool:
        """The clause proposes a course of action: "let's...", "we should...", or an imperative (a verb in its
        base form opening the clause, followed by an article, a pronoun or a particle: "Fix the script")."""
        lists = _lists()
        low = text.lower().replace("’", "'").strip()
        if any(low.startswith(cue + " ") for cue in lists["directive"]):
            return True
        words = low.split()
        if len(words) < 2 or words[1] not in lists["objects"]:
            return False
        return any(".v." in s for s in self.lex.synsets(words[0])) and words[0] in self.lex.bases(words[0])

    def _covered(self, text: str, clause: Words, full: list[Claim]) -> Reading:
        """One claim covers every word: the one the clause restates (the claim it covers most of), by polarity."""
        def closeness(c: Claim) -> float:
            return len(set(clause.content) & c.words) / max(1, len(c.words))

        same = [c for c in full if self._polarity(clause, c) == clause.negated]
        pick = max(full, key=lambda c: (closeness(c), c in same, c.grounded))
        facet = max(pick.facets, key=lambda f: len(set(clause.content) & set(f.content)))
        if not _orderly(clause, facet):
            if pick.grounded:
                return Reading(text, "denies", (pick.id,), "roles swapped")
            return Reading(text, "uncovered", (), f"roles swapped against {pick.id}", clause.names)
        if pick in same:
            return Reading(text, "asserts", (pick.id,), "covered")
        if clause.negated and not pick.grounded or pick.grounded and closeness(pick) >= DENIAL_SHARE:
            return Reading(text, "denies", (pick.id,), "opposite polarity")
        # a clause without a negator against a claim with one: a denial of a grounded claim, or a restatement
        # of a negation in other words ("expired" for "no longer valid"); which one is not shown
        return Reading(text, "uncovered", (), f"polarity differs from {pick.id}", tuple(clause.content))

    def _contradiction(self, text: str, clause: Words, claims: list[Claim]) -> Reading | None:
        """A claim covering the clause but for an antonym, or a number of the same measure with another value."""
        for c in sorted(claims, key=lambda c: not c.grounded):
            left = set(clause.content) - self._matched(clause, [c])
            opposed = {w: v for w in left for v in c.words if v in self.keys.antonyms(w)}
            missing, conflicts = self._amounts(clause, [c])
            if missing or (left and set(opposed) != left):
                continue
            if conflicts:
                a, b, _ = conflicts[0]
                return Reading(text, "denies", (c.id,), f"text says {a.written}, {c.id} says {b.written}")
            if opposed:
                w, v = next(iter(opposed.items()))
                return Reading(text, "denies", (c.id,), f"antonym: text says '{w}', {c.id} says '{v}'")
        return None

    def _uncovered(self, text: str, clause: Words, claims: list[Claim]) -> Reading:
        """The words (and numbers) the closest claim does not cover: what the clause says beyond it."""
        closest = max(claims, key=lambda c: len(self._matched(clause, [c])), default=None)
        if closest is None:
            return Reading(text, "uncovered", (), "not covered", tuple(clause.content))
        matched = self._matched(clause, [closest])
        missing, _ = self._amounts(clause, [closest])
        words = [w for w in clause.content if w not in matched] + [a.written for a in missing]
        return Reading(text, "uncovered", (), f"not covered by {closest.id} or any claim",
                       tuple(dict.fromkeys(words)) or tuple(clause.content))

    # -- causal clauses ----------------------------------------------------------------------------------------

    def _side(self, ids: Iterable[str]) -> list[Claim]:
        return [self.claims[i] for i in ids if i in self.claims]

    def _covers(self, part: Words, side: list[Claim], extra: Iterable[str] = ()) -> bool:
        """Every word and amount of ``part`` covered by ``side``, or by the words ``extra`` (a question's)."""
        extra = set(extra)
        left = {w for w in part.content if w not in extra} - self._matched(part, side)
        extra_keys = {k for w in extra for k in self.keys.claim(w)}
        left = {w for w in left if not (self.keys.own(w) & extra_keys)}
        return not left and not self._amounts(part, side)[0]

    def _causal(self, text: str, clause: Words, split: tuple[str, str], claims: list[Claim]) -> Reading | None:
        """A causal clause: covered by a hypothesis stating that direction, denying one stating the other."""
        cause, effect = read(split[0]), read(split[1])
        if not cause.content or not effect.content:
            return None
        found: dict[str, list[Claim]] = {"forward": [], "reversed": []}
        for h in claims:
            if not h.explains and not any(causal_pairs(f.text) for f in h.facets):
                continue
            pairs = []
            own = [h]
            explained = self._side(h.explains)
            q_words = {w for e in h.explains for w in self.question_words.get(e, ())}
            pairs.append((own, explained, q_words))
            for f in h.facets:
                for cause_text, effect_text in causal_pairs(f.text):
                    pairs.append(([self._one(read(cause_text), h)], [self._one(read(effect_text), h)], set()))
            for c_side, e_side, q in pairs:
                if self._covers(cause, c_side) and self._covers(effect, e_side, q):
                    found["forward"].append(h)
                    break
                if self._covers(cause, e_side, q) and self._covers(effect, c_side):
                    found["reversed"].append(h)
                    break
        forward, backward = found["forward"], found["reversed"]
        if clause.negated:
            forward, backward = backward, forward
        if any(h.grounded for h in forward):
            return Reading(text, "asserts", tuple(h.id for h in forward if h.grounded)[:1], "causal, covered")
        if any(h.grounded for h in backward):
            return Reading(text, "denies", tuple(h.id for h in backward if h.grounded)[:1], "reversed causation")
        if forward:
            return Reading(text, "asserts", (forward[0].id,), "causal, covered")
        return Reading(text, "uncovered", (), "causal claim that no hypothesis in standing states",
                       tuple(clause.content))

    def closest(self, text: str) -> tuple[str, float] | None:
        """The claim covering the largest share of ``text``'s content words, and that share (for reports)."""
        words = read(text)
        if not self.claims:
            return None
        if not words.content:
            return next(iter(self.claims)), 0.0
        best = max(self.claims.values(), key=lambda c: len(self._matched(words, [c])))
        return best.id, len(self._matched(words, [best])) / len(words.content)

    def read_parts(self, text: str, only: set[str] | None = None) -> list[Reading]:
        """The readings of one clause: whole, or, when no claim covers it whole, of its parts when every part
        with content is covered or contradicted ("X rose, and Y fell": one claim each)."""
        whole = self.read_clause(text, only)
        if whole is None or whole.stance != "uncovered" or causal_split(text):
            return [whole] if whole else []
        parts = [r for p in _PARTS.split(text) if p.strip() and (r := self.read_clause(p, only)) is not None]
        if len(parts) > 1 and all(r.stance != "uncovered" for r in parts):
            return parts
        return [whole]

    def read_text(self, text: str, only: set[str] | None = None) -> list[Reading]:
        return [r for c in clauses(text) for r in self.read_parts(c, only)]


def _equal(a: Amount, b: Amount) -> bool:
    return abs(a.value - b.value) <= 1e-9 * max(1.0, abs(a.value))


__all__ = ["Coverage", "Reading", "causal_split", "clauses", "read"]
