"""asp/history.lp over a stream of candidate utterances, grounded part by part.

Each utterance adds its typed facts and grounds, in order, ``step(s,u)`` with
the point before it, ``freeze(s,u)`` with the points around it, then
``close(u)``.  Because every part reads earlier steps only through frozen
events, gringo decides the whole history while grounding: each utterance costs
the same however long the history is (the incremental mode), and nothing is
left to search.  ``from_scratch`` grounds a prefix in a fresh control, which is
what recomputing a long log at every turn would cost.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources

import clingo
from clorm import FactBase, unify
from clorm.clingo import control_add_facts

from . import asp_facts as F
from .literals import atom_of, negate
from .model import Header
from .operations import OperationRegistry, UtteranceBase


def encoding(name: str) -> str:
    return str(resources.files("grounded.asp") / name)


@dataclass
class Candidate:
    """One utterance of the stream, as the encoding numbers it."""

    u: int
    turn: int
    speaker: str
    ops: list[str]
    first_step: int
    close_step: int


@dataclass
class HistoryAnswer:
    """What the encoding decided, keyed the way the engine keys it."""

    candidates: list[Candidate]
    accepted: set[int]
    violations: dict[int, set[tuple[int, str]]]
    facts: FactBase
    arg_id: dict[int, int] = field(default_factory=dict)  # creating step -> argument id
    step_turn: dict[int, int] = field(default_factory=dict)


class AspHistory:
    def __init__(self, header: Header, registry: OperationRegistry):
        self.registry = registry
        self.ctl = clingo.Control(["--warn=none"])
        self.ctl.load(encoding("history.lp"))
        self.ctl.load(encoding("queries.lp"))
        self.candidates: list[Candidate] = []
        self._next_step = 1
        self._literals: set[str] = set()
        self._decide: dict[str, int] = {}  # atom -> candidate decision ids given so far
        self._resolves: dict[str, int] = {}  # atom -> Resolve operations on it so far
        self._last_turn: int | None = None
        base = FactBase()
        for name, agent in header.agents.items():
            base.add(F.Agent(name, "true" if agent.authority else "false"))
        if not header.agents:
            base.add(F.OpenAgents())
        if header.acyclic:
            base.add(F.Acyclic())
        for p in header.props:
            base.add(F.Prop0(p.id, p.kind))
            if p.aware:
                base.add(F.Aware0(p.id))
            self._literal_facts(p.id, base)
        control_add_facts(self.ctl, base)
        self.ctl.ground([("base", [])])

    # -- feeding the stream ----------------------------------------------------------

    def add(self, utterance: UtteranceBase | dict) -> Candidate:
        """Ground one candidate utterance (accepted or not, the encoding decides)."""
        u = self.registry.utterance(utterance)
        turn = u.turn if u.turn is not None else (0 if self._last_turn is None else self._last_turn) + 1
        index = len(self.candidates) + 1
        facts = FactBase([F.Utterance(index, turn, u.speaker)])
        first = self._next_step
        for i, op in enumerate(u.ops):  # type: ignore[attr-defined]
            s = first + i
            facts.add(F.Step(s, index, i, op.op))
            for spec in self.registry.specs[op.op].fields:
                value = getattr(op, spec.name)
                if spec.type == "literal" and value is not None:
                    facts.add(F.Field(s, spec.name, value))
                    self._literal_facts(value, facts)
                elif spec.type == "literals":
                    for v in value:
                        facts.add(F.Item(s, spec.name, v))
                        self._literal_facts(v, facts)
            if op.op == "resolve":
                self._decide_names(atom_of(op.target), facts)
        close = first + len(u.ops)
        facts.add(F.Close(index, close))
        self._next_step = close + 1
        candidate = Candidate(index, turn, u.speaker, [op.op for op in u.ops], first, close)  # type: ignore[attr-defined]
        self.candidates.append(candidate)
        self._ground(candidate, facts)
        if self.is_fact(F.Accepted(index)):
            self._last_turn = turn
        return candidate

    def _ground(self, c: Candidate, facts: FactBase) -> None:
        n = clingo.Number
        # Facts go in through the backend: a program part per utterance would make
        # every later ground call scan all of them.
        control_add_facts(self.ctl, facts)
        for s in range(c.first_step, c.close_step):
            self.ctl.ground([("step", [n(s), n(c.u)]), ("point", [n(3 * s), n(c.u)])])
            self.ctl.ground([("freeze", [n(s), n(c.u)]), ("point", [n(3 * s + 1), n(c.u)]),
                             ("point", [n(3 * s + 2), n(c.u)])])
        self.ctl.ground([("close", [n(c.u)])])
        self.ctl.ground([("last", [n(c.u)])])

    def _literal_facts(self, literal: str, facts: FactBase) -> None:
        for lit in (literal, negate(literal)):
            if lit not in self._literals:
                self._literals.add(lit)
                facts.add(F.Literal(lit, atom_of(lit), int(lit.startswith("-"))))
                facts.add(F.Negation(lit, negate(lit)))

    def _decide_names(self, atom: str, facts: FactBase) -> None:
        """Enough candidate decision ids for this Resolve: one more than could be taken.

        Taken are the decisions of earlier resolves on the atom and any literal
        of the family (decide_P, decide_P_2, ...) seen so far.
        """
        base = f"decide_{atom}"
        family = sum(1 for lit in self._literals if lit == base or lit.startswith(base + "_"))
        self._resolves[atom] = self._resolves.get(atom, 0) + 1
        have = self._decide.get(atom, 0)
        want = self._resolves[atom] + family + 1
        for n in range(have + 1, want + 1):
            name = base if n == 1 else f"{base}_{n}"
            facts.add(F.DecideName(atom, n, name))
            self._literal_facts(name, facts)
        self._decide[atom] = max(have, want)

    # -- reading the answer -------------------------------------------------------------

    def is_fact(self, predicate) -> bool:
        atom = self.ctl.symbolic_atoms[predicate.raw]
        return atom is not None and atom.is_fact

    def all_decided(self) -> bool:
        """True when grounding alone decided every atom of the history (nothing left to
        search); only the view answers switched by the external now/1 are open."""
        return all(a.is_fact for a in self.ctl.symbolic_atoms
                   if not a.is_external and not a.symbol.name.startswith("now_"))

    def view(self, upto: int | None = None) -> None:
        """Ground the state after candidate ``upto`` (default: the last) as the current view."""
        c = self.candidates[(upto or len(self.candidates)) - 1]
        x = 3 * c.close_step
        n = clingo.Number
        if self.ctl.symbolic_atoms[clingo.Function("now", [n(x)])] is None:
            self.ctl.ground([("point", [n(x), n(0)]), ("view", [n(x)]), ("query", [n(x)])])
        for atom in self.ctl.symbolic_atoms.by_signature("now", 1):
            self.ctl.assign_external(atom.symbol, atom.symbol.arguments[0].number == x)

    def solve(self) -> HistoryAnswer:
        symbols: list[clingo.Symbol] = []
        result = self.ctl.solve(on_model=lambda m: symbols.extend(m.symbols(shown=True)))
        if not result.satisfiable:  # pragma: no cover - the encoding always has its one answer set
            raise RuntimeError("asp/history.lp has no answer set")
        facts = unify(F.ANSWER, symbols)
        step_of = {}
        for c in self.candidates:
            for i in range(len(c.ops)):
                step_of[c.first_step + i] = (c.u, i)
        accepted = {a.u for a in facts.query(F.Accepted).all()}
        violations: dict[int, set[tuple[int, str]]] = {}
        for v in facts.query(F.Uviol).all():
            violations.setdefault(v.u, set()).add((-1, v.code))
        for kind in (F.Pviol, F.Iviol):
            for v in facts.query(kind).all():
                u, i = step_of[v.s]
                violations.setdefault(u, set()).add((i, v.code))
        answer = HistoryAnswer(self.candidates, accepted, violations, facts)
        created = sorted(a.a for a in facts.query(F.FArg).all() if step_of[a.a][0] in accepted)
        answer.arg_id = {s: i + 1 for i, s in enumerate(created)}
        answer.step_turn = {s: self.candidates[u - 1].turn for s, (u, _) in step_of.items()}
        return answer


def history(header: Header, registry: OperationRegistry, utterances: Iterable) -> AspHistory:
    h = AspHistory(header, registry)
    for u in utterances:
        h.add(u)
    return h
