"""A second, independent evaluator: plausibility models as Python sets of pairs.

Nothing here shares code with ``model``/``semantics``/``updates`` beyond the
formula tree.  Worlds are integers, the valuation a dict, and each agent's
plausibility ``<=_i`` an explicit set of pairs; knowledge, belief and common
knowledge are read off those relations as the definitions say, and the
updates rewrite the relations pair by pair.  It is quadratic and slow on
purpose: the property tests hold the fast evaluator equal to it on random
models, formulas and update sequences (SMCDEL's approach: two model checkers
that must agree).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from grounded.epistemic.formula import A, And, Atom, B, Bot, C, Formula, Iff, Implies, K, Not, Or, Top, Xor, atoms

Pair = tuple[int, int]


@dataclass(frozen=True)
class KripkeModel:
    worlds: frozenset[int]
    val: Mapping[int, frozenset[str]]
    leq: Mapping[str, frozenset[Pair]]  # (w, v) in leq[i]: w at least as plausible as v for i
    aware: Mapping[str, frozenset[str]]

    @classmethod
    def from_spec(cls, worlds: list[Iterable[str]], cells: Mapping[str, list[int]],
                  ranks: Mapping[str, list[int]], aware: Mapping[str, Iterable[str]] | None = None) -> KripkeModel:
        ws = range(len(worlds))
        leq = {g: frozenset((w, v) for w in ws for v in ws if cells[g][w] == cells[g][v] and ranks[g][w] <= ranks[g][v])
               for g in cells}
        every = frozenset(a for w in worlds for a in w)
        awareness = {g: frozenset(aware[g]) if aware and g in aware else every for g in cells}
        return cls(frozenset(ws), {w: frozenset(worlds[w]) for w in ws}, leq, awareness)

    # -- relations ---------------------------------------------------------------------

    def sim(self, agent: str, w: int) -> set[int]:
        """w's information cell: the worlds comparable with w (~_i = <=_i united with its converse)."""
        rel = self.leq[agent]
        return {v for v in self.worlds if (w, v) in rel or (v, w) in rel}

    def minimal(self, agent: str, xs: set[int]) -> set[int]:
        rel = self.leq[agent]
        return {x for x in xs if all((x, y) in rel for y in xs if (y, x) in rel or (x, y) in rel)}

    def reachable(self, group: Iterable[str], w: int) -> set[int]:
        seen, todo = {w}, [w]
        while todo:
            x = todo.pop()
            for g in group:
                for y in self.sim(g, x):
                    if y not in seen:
                        seen.add(y)
                        todo.append(y)
        return seen

    # -- truth -------------------------------------------------------------------------

    def truth(self, f: Formula) -> set[int]:
        return {w for w in self.worlds if self.sat(w, f)}

    def sat(self, w: int, f: Formula) -> bool:
        if isinstance(f, Atom):
            return f.name in self.val[w]
        if isinstance(f, Top):
            return True
        if isinstance(f, Bot):
            return False
        if isinstance(f, Not):
            return not self.sat(w, f.arg)
        if isinstance(f, And):
            return all(self.sat(w, a) for a in f.args)
        if isinstance(f, Or):
            return any(self.sat(w, a) for a in f.args)
        if isinstance(f, Implies):
            return not self.sat(w, f.left) or self.sat(w, f.right)
        if isinstance(f, Iff):
            return self.sat(w, f.left) == self.sat(w, f.right)
        if isinstance(f, Xor):
            return self.sat(w, f.left) != self.sat(w, f.right)
        if isinstance(f, K):
            return all(self.sat(v, f.arg) for v in self.sim(f.agent, w))
        if isinstance(f, B):
            return all(self.sat(v, f.arg) for v in self.minimal(f.agent, self.sim(f.agent, w)))
        if isinstance(f, C):
            return all(self.sat(v, f.arg) for v in self.reachable(f.group, w))
        if isinstance(f, A):
            return atoms(f.arg) <= self.aware[f.agent]
        raise TypeError(f)

    # -- updates, straight from the definitions ----------------------------------------

    def announce(self, f: Formula) -> KripkeModel:
        keep = self.truth(f)
        return KripkeModel(frozenset(keep), {w: self.val[w] for w in keep},
                           {g: frozenset((w, v) for w, v in rel if w in keep and v in keep)
                            for g, rel in self.leq.items()}, self.aware)

    def lexicographic(self, f: Formula) -> KripkeModel:
        good = self.truth(f)
        new = {}
        for g, rel in self.leq.items():
            pairs = set()
            for w in self.worlds:
                for v in self.sim(g, w):
                    if (w in good and v not in good) or ((w in good) == (v in good) and (w, v) in rel):
                        pairs.add((w, v))
            new[g] = frozenset(pairs)
        return KripkeModel(self.worlds, self.val, new, self.aware)

    def conservative(self, f: Formula) -> KripkeModel:
        good = self.truth(f)
        new = {}
        for g, rel in self.leq.items():
            pairs = set()
            for w in self.worlds:
                cell = self.sim(g, w)
                best = self.minimal(g, cell & good)
                for v in cell:
                    if w in best or (v not in best and (w, v) in rel):
                        pairs.add((w, v))
            new[g] = frozenset(pairs)
        return KripkeModel(self.worlds, self.val, new, self.aware)

    def refine(self, atom: str, observers: Iterable[str] = ()) -> KripkeModel:
        """Each world w becomes (w, false) and (w, true), numbered 2w and 2w+1."""
        observers = set(observers)
        worlds = frozenset(2 * w + b for w in self.worlds for b in (0, 1))
        val = {2 * w + b: self.val[w] | ({atom} if b else frozenset()) for w in self.worlds for b in (0, 1)}
        leq = {g: frozenset((2 * w + b, 2 * v + c) for w, v in rel for b in (0, 1) for c in (0, 1)
                            if g not in observers or b == c)
               for g, rel in self.leq.items()}
        return KripkeModel(worlds, val, leq, {g: a | {atom} for g, a in self.aware.items()})
