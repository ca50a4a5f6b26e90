"""asp/history.lp over a stream of candidate utterances, two ways.

``IncrementalHistory`` is the live mode: each utterance adds its typed facts
and grounds, in order, ``step(s,u)`` with the point before it, ``freeze(s,u)``
with the points around it, then ``close(u)`` and ``last(u)``.  Every part reads
earlier steps only through frozen events, so gringo decides the history while
grounding and a new turn never re-grounds an old one.

``OneShotHistory`` answers for a whole log at once: the same rules, their part
parameters turned into variables (bridge/asp_oneshot.py), one ground call and
one solve.  Turn by turn, each new part instance costs time proportional to the
history before it (gringo indexes each new rule afresh); in one shot every rule
is indexed once, which is what ``grounded check`` uses.

Both read the answer into the same ``HistoryAnswer``.  ``rules`` adds rule files
written in history.lp's vocabulary: the ASP twin of an operation added in
Prolog (docs/extending.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import clingo
from clorm import FactBase, unify
from clorm.clingo import control_add_facts

from grounded.core.errors import InputError
from grounded.core.literals import atom_of, negate
from grounded.core.turns import assign_turn
from grounded.dmap.model import Header
from grounded.dmap.operations import OperationRegistry, UtteranceBase
from grounded.epistemic.verdicts import FLAGS, LITERAL_KINDS, Verdict, truth
from grounded.solvers import facts as F
from grounded.solvers.asp import encoding, new_control
from grounded.solvers.oneshot import add_one_shot

HISTORY = ("history.lp", "queries.lp")


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


class HistoryFacts:
    """The typed input facts of a header and a stream of candidate utterances."""

    def __init__(self, header: Header, registry: OperationRegistry):
        self.registry = registry
        self.candidates: list[Candidate] = []
        self._next_step = 1
        self._literals: set[str] = set()
        self._decide: dict[str, int] = {}  # atom -> candidate decision ids given so far
        self._resolves: dict[str, int] = {}  # atom -> Resolve operations on it so far
        self.base = FactBase()
        for name, agent in header.agents.items():
            self.base.add(F.Agent(name, "true" if agent.authority else "false"))
        if not header.agents:
            self.base.add(F.OpenAgents())
        if header.acyclic:
            self.base.add(F.Acyclic())
        if header.world is not None:
            self.base.add(F.WorldModel())
        for p in header.props:
            self.base.add(F.Prop0(p.id, p.kind))
            if p.aware:
                self.base.add(F.Aware0(p.id))
            self._literal_facts(p.id, self.base)

    def add(self, u: UtteranceBase, turn: int,
            verdicts: Mapping[int, list[Verdict]] | None = None) -> tuple[Candidate, FactBase]:
        """The facts of one utterance; ``verdicts``: what the world model found per operation."""
        index = len(self.candidates) + 1
        facts = FactBase([F.Utterance(index, turn, u.speaker)])
        first = self._next_step
        for i, op in enumerate(u.ops):  # type: ignore[attr-defined]
            s = first + i
            facts.add(F.Step(s, index, i, op.op))
            for v in (verdicts or {}).get(i, ()):
                facts.add(self._verdict_fact(s, v))
                if v[0] in ("problem", *LITERAL_KINDS):
                    self._literal_facts(v[1], facts)
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
        close = first + len(u.ops)  # type: ignore[attr-defined]
        facts.add(F.Close(index, close))
        self._next_step = close + 1
        candidate = Candidate(index, turn, u.speaker, [op.op for op in u.ops], first, close)  # type: ignore[attr-defined]
        self.candidates.append(candidate)
        return candidate, facts

    @staticmethod
    def _verdict_fact(s: int, v: Verdict):
        kind = v[0]
        if kind == "agent":
            return F.EpAgent(s, v[1])
        if kind in FLAGS:
            return F.EpFlag(s, kind, truth(v[1]))
        if kind == "problem":
            return F.EpProblem(s, v[1], truth(v[2]), truth(v[3]), truth(v[4]))
        return F.EpLit(s, kind, v[1])

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

    def view_point(self, upto: int | None = None) -> int:
        """The point after candidate ``upto`` (default: the last): where a view is read."""
        return 3 * self.candidates[(upto or len(self.candidates)) - 1].close_step


class _History:
    """What both modes share: validating utterances and reading the answer."""

    facts: HistoryFacts

    @property
    def candidates(self) -> list[Candidate]:
        return self.facts.candidates

    def _utterance(self, utterance: UtteranceBase | dict) -> UtteranceBase:
        return self.facts.registry.utterance(utterance)

    def _answer(self, ctl: clingo.Control) -> HistoryAnswer:
        models: list[list[clingo.Symbol]] = []
        ctl.configuration.solve.models = 0  # all of them: there must be exactly one
        result = ctl.solve(on_model=lambda m: models.append(list(m.symbols(shown=True))))
        if not result.satisfiable or len(models) != 1:  # pragma: no cover - the encoding is deterministic
            raise RuntimeError(f"asp/history.lp has {len(models)} answer sets, expected exactly one")
        return read_answer(self.candidates, models[0])


def read_answer(candidates: list[Candidate], symbols: list[clingo.Symbol]) -> HistoryAnswer:
    facts = unify(F.ANSWER, symbols)
    step_of = {}
    for c in candidates:
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
    answer = HistoryAnswer(candidates, accepted, violations, facts)
    created = sorted(a.a for a in facts.query(F.FArg).all() if step_of[a.a][0] in accepted)
    answer.arg_id = {s: i + 1 for i, s in enumerate(created)}
    answer.step_turn = {s: candidates[u - 1].turn for s, (u, _) in step_of.items()}
    return answer


class IncrementalHistory(_History):
    """The live mode: one utterance at a time, each grounded once, never again."""

    def __init__(self, header: Header, registry: OperationRegistry, rules: Iterable[str] = ()):
        self.facts = HistoryFacts(header, registry)
        self.ctl = new_control()
        for path in (*map(encoding, HISTORY), *map(str, rules)):
            self.ctl.load(path)
        control_add_facts(self.ctl, self.facts.base)
        self.ctl.ground([("base", [])])
        self._last_turn: int | None = None

    def add(self, utterance: UtteranceBase | dict, verdicts: Mapping[int, list[Verdict]] | None = None) -> Candidate:
        """Ground one candidate utterance (accepted or not, the encoding decides)."""
        u = self._utterance(utterance)
        turn = assign_turn(u.turn, self._last_turn)
        candidate, facts = self.facts.add(u, turn, verdicts)
        self._ground(candidate, facts)
        if self.is_fact(F.Accepted(candidate.u)):
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
        x = self.facts.view_point(upto)
        n = clingo.Number
        if self.ctl.symbolic_atoms[clingo.Function("now", [n(x)])] is None:
            self.ctl.ground([("point", [n(x), n(0)]), ("view", [n(x)]), ("query", [n(x)])])
        for atom in self.ctl.symbolic_atoms.by_signature("now", 1):
            self.ctl.assign_external(atom.symbol, atom.symbol.arguments[0].number == x)

    def solve(self) -> HistoryAnswer:
        return self._answer(self.ctl)


class OneShotHistory(_History):
    """A whole log at once: collect the facts, then ground and solve once.

    Every utterance must carry its turn (a log's lines always do): without
    grounding there is no knowing which earlier utterance was accepted.
    """

    def __init__(self, header: Header, registry: OperationRegistry, rules: Iterable[str] = ()):
        self.facts = HistoryFacts(header, registry)
        self.rules = tuple(map(str, rules))
        self._added = FactBase(self.facts.base)
        self.statistics: dict = {}

    def add(self, utterance: UtteranceBase | dict, verdicts: Mapping[int, list[Verdict]] | None = None) -> Candidate:
        u = self._utterance(utterance)
        if u.turn is None:
            raise InputError(f"utterance {len(self.candidates) + 1} has no turn: a whole log "
                             "is checked in one shot only when every utterance says its turn")
        candidate, facts = self.facts.add(u, u.turn, verdicts)
        self._added.update(facts)
        return candidate

    def solve(self, upto: int | None = None) -> HistoryAnswer:
        """Ground everything and read the answer, with the view after candidate ``upto``."""
        # --eq=0: clasp's equivalence preprocessing (clingo 5.8.3) reports some of
        # these programs unsatisfiable although they are stratified; adding a rule
        # for an otherwise unused atom was enough to flip a reproduced case.  The
        # program is decided by propagation, so nothing is lost without it.
        ctl = new_control(["--eq=0"])
        add_one_shot(ctl, [*(encoding(name) for name in (*HISTORY, "oneshot.lp")), *self.rules])
        control_add_facts(ctl, self._added)
        x = self.facts.view_point(upto) if self.candidates else 0
        control_add_facts(ctl, FactBase([F.TheView(x)]))
        ctl.ground([("base", [])])
        ctl.assign_external(clingo.Function("now", [clingo.Number(x)]), True)
        answer = self._answer(ctl)
        self.statistics = ctl.statistics
        return answer
