"""Dependency-extraction scoring: extracted Dep against gold Dep, after aligning ids by content.

An Interpreter names claims its own way (o11, h5), so its claims are first
aligned to the gold claims: one-to-one, maximising the summed similarity of
their texts (TF-IDF, ``similarity.py``; the text of every argument for the
claim), with a small bonus for claims introduced at the same turn to break
ties between near-duplicates and one for claims of the same kind (a
hypothesis for a hypothesis), and no pair below ``threshold``.  Each Dep
entry is then an edge (claim, literal) mapped through the alignment (a
negated literal maps through its atom); precision and recall are over the
edge sets of every argument (the paper's E1 counts the seven Dep edges of
Phase 2's four hypotheses after T13).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from grounded.core.literals import atom_of
from grounded.engine import Engine
from grounded.interpreter.similarity import similarity_matrix
from grounded.interpreter.texts import claim_texts

ALIGN_THRESHOLD = 0.1
SAME_TURN_BONUS = 0.1
SAME_KIND_BONUS = 0.1


@dataclass
class DependencyScore:
    alignment: dict[str, tuple[str, float]]
    """Extracted atom -> (gold atom, similarity)."""
    gold_edges: set[tuple[str, str]]
    extracted_edges: set[tuple[str, str]]
    """Extracted edges mapped to gold ids (unaligned ids keep their own name, prefixed '?')."""
    hypotheses_extracted: int
    gold_hypotheses: int
    gold_hypotheses_matched: int

    @property
    def tp(self) -> int:
        return len(self.gold_edges & self.extracted_edges)

    @property
    def precision(self) -> float:
        return self.tp / len(self.extracted_edges) if self.extracted_edges else 0.0

    @property
    def recall(self) -> float:
        return self.tp / len(self.gold_edges) if self.gold_edges else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_json(self) -> dict:
        return {"precision": round(self.precision, 4), "recall": round(self.recall, 4), "f1": round(self.f1, 4),
                "tp": self.tp, "extracted": len(self.extracted_edges), "gold": len(self.gold_edges),
                "hypotheses_extracted": self.hypotheses_extracted,
                "gold_hypotheses_matched": f"{self.gold_hypotheses_matched}/{self.gold_hypotheses}",
                "alignment": {k: {"gold": g, "score": round(s, 4)} for k, (g, s) in self.alignment.items()}}


def _claims(engine: Engine, at: int | None) -> dict[str, tuple[str, int, str]]:
    """Atom -> (text of its arguments, first turn, kind) for every claimed atom (p and -p are one atom)."""
    dm = engine.state
    out: dict[str, tuple[str, int, str]] = {}
    for claim, said in claim_texts(engine, at).items():
        first = dm.arg(dm.claimants_at(claim, at)[0])
        atom = atom_of(claim)
        text, turn, kind = out.get(atom, ("", first.turn, first.kind))
        out[atom] = (f"{text} {' '.join(said)}".strip(), min(turn, first.turn), kind)
    return out


def _edges(engine: Engine, at: int | None) -> set[tuple[str, str]]:
    return {(r.claim, d) for r in engine.state.args if engine.state.visible(r.id, at) for d in r.deps_at(at)}


def align(extracted: Engine, gold: Engine, at_extracted: int | None = None, at_gold: int | None = None,
          threshold: float = ALIGN_THRESHOLD) -> dict[str, tuple[str, float]]:
    """Extracted atom -> (gold atom, similarity), one-to-one, by content (see the module docstring)."""
    return _align(_claims(extracted, at_extracted), _claims(gold, at_gold), threshold)


def _align(ex: dict[str, tuple[str, int, str]], go: dict[str, tuple[str, int, str]],
           threshold: float) -> dict[str, tuple[str, float]]:
    ex_ids, go_ids = list(ex), list(go)
    sim = similarity_matrix([ex[k][0] for k in ex_ids], [go[k][0] for k in go_ids])
    if sim.size == 0:
        return {}
    same_turn = np.array([[ex[a][1] == go[b][1] for b in go_ids] for a in ex_ids], dtype=float)
    same_kind = np.array([[ex[a][2] == go[b][2] for b in go_ids] for a in ex_ids], dtype=float)
    gain = sim + (SAME_TURN_BONUS * same_turn + SAME_KIND_BONUS * same_kind) * (sim > 0)
    rows, cols = linear_sum_assignment(-gain)
    return {ex_ids[r]: (go_ids[c], float(sim[r, c])) for r, c in zip(rows, cols, strict=True) if sim[r, c] >= threshold}


def score_dependencies(extracted: Engine, gold: Engine, at_extracted: int | None = None,
                       at_gold: int | None = None, threshold: float = ALIGN_THRESHOLD) -> DependencyScore:
    ex, go = _claims(extracted, at_extracted), _claims(gold, at_gold)
    alignment = _align(ex, go, threshold)

    def mapped(literal: str) -> str:
        atom = atom_of(literal)
        name = alignment[atom][0] if atom in alignment else f"?{atom}"
        return ("-" if literal.startswith("-") else "") + name

    gold_edges = _edges(gold, at_gold)
    extracted_edges = {(mapped(c), mapped(d)) for c, d in _edges(extracted, at_extracted)}
    gold_hyps = {k for k, (_, _, kind) in go.items() if kind == "hypothesis"}
    matched = {g for g, _ in alignment.values()} & gold_hyps
    return DependencyScore(alignment, gold_edges, extracted_edges,
                           sum(kind == "hypothesis" for _, _, kind in ex.values()), len(gold_hyps), len(matched))
