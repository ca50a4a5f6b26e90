"""The symbolic reader: answers MemAB-FC questions from the active store, no LLM.

The store is the engine's active set S_t (the facts still in standing after
supersession), indexed by (relation, subject) and by subject.

* Single-hop: the question template gives (relation, subject); the answer is
  the object of the active fact with that key.
* Multi-hop: the question is a free paraphrase of a relation chain.  The
  reader links the entities the question names (the longest token spans that
  are subjects in the store), walks every chain of up to ``MAX_HOPS`` active
  facts from them (an object is the next subject), and picks the chain whose
  relations best match the relations the question mentions
  (``relation_cues``) and whose last relation fits the kind of answer asked
  for ("which city", "who", ...).  The answer is the chain's last object.

It is a deterministic baseline that isolates the store: with the active set
it can only be wrong by misreading the question, never by reading a stale
fact.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from bench.memab.facts import Fact, normalise
from bench.memab.questions import parse_single_hop, relation_cues, strip_note

MAX_HOPS = 4
MAX_SPAN = 12
_EDGE = "\"'“”‘’?,!:;()"

# What kind of thing each relation's object is, and the question words asking for it.
OBJECT_KIND: dict[str, str] = {
    "author": "person", "music_genre": "genre", "headquarters": "city", "educated_at": "organisation",
    "manufacturer": "organisation", "broadcaster": "organisation", "head_of_government": "person",
    "head_of_state": "person", "official_language": "language", "capital": "city", "chairperson": "person",
    "head_coach": "person", "ceo": "person", "director": "person", "original_language": "language",
    "president": "person", "child": "person", "citizenship": "country", "religion": "religion",
    "sport": "sport", "language_spoken": "language", "country_of_origin": "country", "creator": "person",
    "spouse": "person", "birthplace": "city", "place_of_death": "city", "founded_in": "city",
    "founder": "person", "developer": "organisation", "employer": "organisation", "performer": "person",
    "work_location": "city", "continent": "continent", "famous_for": "work", "language_of_work": "language",
    "position": "position", "field_of_work": "occupation", "is": "person",
}
ASKS_FOR: tuple[tuple[str, str], ...] = (
    ("continent", r"\bcontinent\b"),
    ("language", r"\blanguages?\b"),
    ("country", r"\b(?:country|nation)\b"),
    ("city", r"\b(?:city|where|location|place)\b"),
    ("sport", r"\bsport\b"),
    ("religion", r"\breligio"),
    ("genre", r"\b(?:genre|type of music|kind of music)\b"),
    ("position", r"\bposition\b"),
    ("occupation", r"\b(?:occupation|profession|field|kind of work|role)\b"),
    ("organisation", r"\b(?:company|organi[sz]ation|university|institution|network|channel|employer)\b"),
    ("person", r"\b(?:who|whom|whose)\b"),
)
_ASKS = tuple((kind, re.compile(rx)) for kind, rx in ASKS_FOR)


@dataclass(frozen=True)
class Answer:
    text: str | None
    chain: tuple[Fact, ...] = ()


class ActiveStore:
    """The active facts, indexed for the reader."""

    def __init__(self, facts: Iterable[Fact]):
        self.by_key: dict[tuple[str, str], Fact] = {}
        self.by_subject: dict[str, list[Fact]] = {}
        for fact in sorted(facts, key=lambda f: f.serial):
            self.by_key[fact.key] = fact
        for fact in self.by_key.values():
            self.by_subject.setdefault(fact.key[1], []).append(fact)

    def lookup(self, relation: str, subject: str) -> Fact | None:
        return self.by_key.get((relation, normalise(subject)))

    # -- single hop -------------------------------------------------------------

    def answer_single_hop(self, question: str) -> Answer:
        parsed = parse_single_hop(question)
        if parsed is None:
            return self.answer_multi_hop(question)  # no template: read it as a chain of one or more
        fact = self.lookup(*parsed)
        return Answer(fact.object, (fact,)) if fact else Answer(None)

    # -- multi hop ----------------------------------------------------------------

    def entities(self, question: str) -> list[str]:
        """Normalised subjects named in the question: maximal token spans found in the store."""
        tokens = strip_note(question).split()
        found: list[tuple[int, int, str]] = []
        for i in range(len(tokens)):
            for j in range(min(len(tokens), i + MAX_SPAN), i, -1):
                span = " ".join(tokens[i:j])
                name = self._known(span)
                if name is not None:
                    found.append((i, j, name))
                    break
        maximal = [f for f in found if not any(g[0] <= f[0] and f[1] <= g[1] and g != f for g in found)]
        return list(dict.fromkeys(name for _, _, name in sorted(maximal, key=lambda f: f[0] - f[1])))

    def _known(self, span: str) -> str | None:
        for variant in _variants(span):
            key = normalise(variant)
            if key in self.by_subject:
                return key
        return None

    def chains(self, start: str) -> Iterable[tuple[Fact, ...]]:
        stack: list[tuple[str, tuple[Fact, ...]]] = [(start, ())]
        while stack:
            node, path = stack.pop()
            if path:
                yield path
            if len(path) < MAX_HOPS:
                seen = {f.key[1] for f in path}
                for fact in self.by_subject.get(node, ()):
                    nxt = normalise(fact.object)
                    if nxt not in seen and nxt != start:
                        stack.append((nxt, path + (fact,)))

    def supports(self, hop: str, question: str, gold: str) -> bool:
        """Does the store hold the gold answer where the question points?

        Single-hop: the active fact of the question's key has the gold object.
        Multi-hop: some chain of active facts from an entity the question
        names ends at the gold answer.  A question the store does not support
        has a gold answer that only a superseded fact gives: no reader of the
        active set can get it right.
        """
        target = normalise(gold)
        parsed = parse_single_hop(question) if hop == "sh" else None
        if parsed is not None:
            fact = self.lookup(*parsed)
            return fact is not None and normalise(fact.object) == target
        return any(normalise(chain[-1].object) == target
                   for entity in self.entities(question) for chain in self.chains(entity))

    def answer_multi_hop(self, question: str) -> Answer:
        cues = relation_cues(question)
        kind = asked_kind(question)
        best: tuple[tuple, tuple[Fact, ...]] | None = None
        for rank, entity in enumerate(self.entities(question)):
            for chain in self.chains(entity):
                score = (_chain_score(chain, cues, kind), -len(chain), -rank)
                if best is None or score > best[0]:
                    best = (score, chain)
        if best is None:
            return Answer(None)
        return Answer(best[1][-1].object, best[1])


def _variants(span: str) -> list[str]:
    stripped = span.strip(_EDGE)
    out = [span, stripped, stripped.rstrip(".")]
    if stripped.endswith("'s") or stripped.endswith("’s"):
        out.append(stripped[:-2])
    return out


def asked_kind(question: str) -> str | None:
    """The kind of answer the question's head asks for (its first clause)."""
    head = strip_note(question).lower()
    head = re.split(r"\b(?:of|in|by|with|that|where|whose)\b", head, maxsplit=1)[0] + " " + head[:40]
    for kind, rx in _ASKS:
        if rx.search(head):
            return kind
    return None


def _chain_score(chain: tuple[Fact, ...], cues: Counter[str], kind: str | None) -> int:
    relations = Counter(f.relation for f in chain)
    matched = sum((relations & cues).values())
    unexplained = len(chain) - matched
    missing = sum(cues.values()) - matched
    fits = kind is not None and OBJECT_KIND.get(chain[-1].relation) == kind
    return 3 * matched - unexplained - missing + (3 if fits else 0)
