"""Propositional entailment and minimal premise sets with clingo.

One clingo program per scenario holds every premise that ever occurs in it
(original context and all edits), grounded over the scenario's constants:

* each ground atom is a free choice ``{ t(I) }``;
* each sub-formula gets an auxiliary atom ``n(J)`` defined by rules
  (a Tseitin-style translation; the definitions are acyclic, so every
  answer set is exactly one truth assignment of the atoms);
* premise P is switched on by the external ``on(P)``:
  ``:- on(P), not n(root(P)).``;
* the conclusion C can be denied (``#external deny. [free] :- deny, n(C).``) or
  affirmed (``#external affirm. [free] :- affirm, not n(C).``).

Premises S entail C iff solving under the assumptions ``on(P)`` for P in S
plus ``deny`` is unsatisfiable; they entail ¬C iff the same with ``affirm``
is.  The unsatisfiable core clingo reports (``on_core``) is a subset of the
assumptions that is already contradictory; deleting its members one at a
time while the rest stays contradictory leaves a subset-minimal premise set:
the conclusion's Dep.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import clingo

from bench.reviseqa.fol import Atom, Formula, Not, Quantified
from grounded.solvers.asp import new_control

TRUE, FALSE, UNCERTAIN = "True", "False", "Uncertain"


class Entailment:
    """Entailment queries over a fixed pool of ground premises (ids) and one ground conclusion."""

    def __init__(self, premises: dict[str, Formula], conclusion: Formula):
        self._atoms: dict[Atom, int] = {}
        self._nodes: dict[Formula, int] = {}
        self._rules: list[str] = []
        self.premise_ids = list(premises)
        roots = {pid: self._node(f) for pid, f in premises.items()}
        goal = self._node(conclusion)
        program = [f"{{ t({i}) }}." for i in self._atoms.values()] + self._rules
        for k, pid in enumerate(self.premise_ids):
            program += [f"#external on({k}). [free]", f":- on({k}), not n({roots[pid]})."]
        program += ["#external deny. [free]", f":- deny, n({goal}).",
                    "#external affirm. [free]", f":- affirm, not n({goal})."]
        self._ctl = new_control()
        self._ctl.add("base", [], "\n".join(program))
        self._ctl.ground([("base", [])])
        self._index = {pid: k for k, pid in enumerate(self.premise_ids)}
        self._literal = {}
        for sa in self._ctl.symbolic_atoms.by_signature("on", 1):
            self._literal[sa.literal] = self.premise_ids[sa.symbol.arguments[0].number]
        self.solves = 0

    # -- translation ------------------------------------------------------------

    def _node(self, f: Formula) -> int:
        if f in self._nodes:
            return self._nodes[f]
        if isinstance(f, Quantified):
            raise ValueError("Entailment takes ground formulas: ground() them first")
        j = len(self._nodes)
        self._nodes[f] = j
        head = f"n({j})"
        if isinstance(f, Atom):
            i = self._atoms.setdefault(f, len(self._atoms))
            self._rules.append(f"{head} :- t({i}).")
        elif isinstance(f, Not):
            self._rules.append(f"{head} :- not n({self._node(f.body)}).")
        else:
            a, b = f"n({self._node(f.left)})", f"n({self._node(f.right)})"
            bodies = {
                "and": [f"{a}, {b}"],
                "or": [a, b],
                "implies": [f"not {a}", b],
                "iff": [f"{a}, {b}", f"not {a}, not {b}"],
                "xor": [f"{a}, not {b}", f"not {a}, {b}"],
            }[f.op]
            self._rules += [f"{head} :- {body}." for body in bodies]
        return j

    # -- queries ------------------------------------------------------------------

    def _assumptions(self, active: Iterable[str], goal: str | None) -> list:
        lits = [(clingo.Function("on", [clingo.Number(self._index[p])]), True) for p in active]
        if goal is not None:
            lits.append((clingo.Function(goal), True))
        return lits

    def _unsat(self, active: Iterable[str], goal: str | None) -> tuple[bool, list[str]]:
        """Is (active premises + goal assumption) unsatisfiable?  With the premises in the core."""
        core: list[int] = []
        self.solves += 1
        result = self._ctl.solve(assumptions=self._assumptions(active, goal), on_core=core.extend)
        # the core is reported as program literals of the assumptions (either sign)
        premises = dict.fromkeys(self._literal[abs(lit)] for lit in core if abs(lit) in self._literal)
        return bool(result.unsatisfiable), list(premises)

    def consistent(self, active: Sequence[str]) -> bool:
        return not self._unsat(active, None)[0]

    def entails(self, active: Sequence[str], negated: bool = False) -> bool:
        """Do the premises entail the conclusion (its negation with ``negated``)?"""
        return self._unsat(active, "affirm" if negated else "deny")[0]

    def verdict(self, active: Sequence[str]) -> str:
        """True / False / Uncertain, as ReviseQA answers (True if both: inconsistent premises)."""
        if self.entails(active):
            return TRUE
        if self.entails(active, negated=True):
            return FALSE
        return UNCERTAIN

    def preferred_consistent(self, by_priority: Sequence[str]) -> list[str]:
        """The premises kept when the preferred ones win: greedily, each kept if consistent with those kept.

        ``by_priority`` lists the premises most preferred first.  The result
        is the lexicographically preferred maximal consistent subset (each
        premise left out contradicts preferred ones that were kept).
        """
        kept: list[str] = []
        for p in by_priority:
            if self.consistent(kept + [p]):
                kept.append(p)
        return kept

    def minimal_support(self, active: Sequence[str], negated: bool = False) -> list[str] | None:
        """A subset-minimal set of the active premises entailing the conclusion (or its negation).

        None if the active premises do not entail it.  Starts from clingo's
        unsatisfiable core, then drops each member whose removal keeps the
        rest contradictory; the order of ``active`` decides among equally
        minimal sets.
        """
        goal = "affirm" if negated else "deny"
        unsat, core = self._unsat(active, goal)
        if not unsat:
            return None
        order = {p: k for k, p in enumerate(active)}
        support = sorted(set(core) & set(order), key=order.__getitem__)
        if not self._unsat(support, goal)[0]:  # never seen, but a core is only a hint: fall back
            support = list(active)
        for p in list(support):
            rest = [q for q in support if q != p]
            if self._unsat(rest, goal)[0]:
                support = rest
        return support
