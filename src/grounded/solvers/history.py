"""asp/history.lp over a stream of candidate utterances, two ways.

``IncrementalHistory`` is the live mode: each utterance adds its typed facts
and grounds, in order, ``point(2s,u)`` with ``step(s)`` and the operation's
part, ``freeze(s)`` with the point after it, then ``close(u)``, then ``last(u)``
(with ``after(u)`` when u took something out of S_t).  Every
part reads earlier steps only through the facts they derived, so gringo
decides the history while grounding and a new turn never re-grounds an old
one.  A view of the state is selected with the external ``now(x)``; the
previous view's external is released, so old views cost nothing afterwards.

``OneShotHistory`` answers for a whole log at once: the same rules, their part
parameters turned into variables (src/grounded/solvers/oneshot.py), one ground call
and one solve, decided by propagation alone.  That is what ``grounded check``
uses.

Both read the answer into the same ``HistoryAnswer``.  The rule files are the
driver (history.lp), the rule-author layer (vocabulary.lp), good standing (standing.lp), one file per
operation (ops/<op>.lp), the queries (queries.lp) and any extension twins
(docs/extending.md).  An extension operation without a twin is not skipped
wholesale: its effects (or violations) as the engine recorded them are given
as facts for the steps that use it (``given``).
"""

from __future__ import annotations

import copy
import time
from collections import defaultdict
from collections.abc import Collection, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from itertools import chain, pairwise
from typing import cast

import clingo
from clorm import Predicate
from clorm.clingo import control_add_facts

from grounded.core.errors import InputError
from grounded.core.literals import atom_of, negate
from grounded.core.turns import assign_turn
from grounded.dmap.model import Header
from grounded.dmap.operations import OperationRegistry, UtteranceBase
from grounded.epistemic.verdicts import FLAGS, LITERAL_KINDS, Verdict, truth
from grounded.queries import registry
from grounded.solvers import facts as F
from grounded.solvers.apart import APART_BOUND, peak_bytes, run_apart
from grounded.solvers.asp import encoding, new_control
from grounded.solvers.oneshot import add_one_shot

DRIVER = ("history.lp", "vocabulary.lp", "standing.lp")
VIEW_ANSWERS = frozenset({"taken_out", "flagged", "now_grounded", "now_affected_one", "now_hop", "now_note"})
"""The view's answers kept besides those the query registry names (``Query.asp``: ``view_answers``)."""
QUERIES = ("queries.lp",)
_VIEW_STATE = frozenset({"v_arg", "v_claim", "v_dep", "v_standing"})
"""The view as queries.lp reads it (asp/oneshot_view.lp shows it)."""
_AFFECTED = frozenset({"now_affected_one", "now_hop"})


def view_answers() -> frozenset[str]:
    """The predicates of a view's answer: VIEW_ANSWERS and every registered query's ``#show`` predicate."""
    return VIEW_ANSWERS | {q.asp for q in registry.QUERIES.values() if q.asp is not None}


def builtin_ops() -> tuple[str, ...]:
    """The ASP twins the package ships, ``ops/<op>.lp``: one per built-in operation (prolog/ops/<op>.pl)."""
    return tuple(sorted(f"ops/{entry.name}" for entry in resources.files("grounded.asp").joinpath("ops").iterdir()
                        if entry.name.endswith(".lp")))


def rule_files(overrides: Mapping[str, str] | None = None) -> list[str]:
    """The encoding's files in load order; ``overrides`` replaces some (by name) with other paths."""
    overrides = overrides or {}
    names = (*DRIVER, *builtin_ops(), *QUERIES)
    unknown = set(overrides) - set(names) - {"oneshot.lp", "oneshot_view.lp"}
    if unknown:
        raise InputError(f"no ASP rule file named {sorted(unknown)} (known: {list(names)})")
    return [rule_file(name, overrides) for name in names]


def rule_file(name: str, overrides: Mapping[str, str]) -> str:
    """The path of the shipped rule file ``name`` (asp/), or of the file ``overrides`` puts in its place:
    one answer for the history's files, the one-shot stages, the queries and the probe's (crosscheck)."""
    return str(overrides.get(name, encoding(name)))


class DecisionNames:
    """The helpers the rules call: decision ids (``@decide_parse``, ``@decide_name``) and
    ``@effect_known`` (for extension operations).

    Which decision id an authoritative Resolve takes is decided by the rules
    (resolve.lp: the first N whose id is not yet a proposition); these only
    spell ``decide_P`` / ``decide_P_N`` and read a literal back as the members of
    such families it could be.  They work on the escaped strings of facts.py,
    whose escapes never touch the prefix or the ``_N`` suffix.
    """

    PREFIX = "decide_"


    @staticmethod
    def effect_known(effect: clingo.Symbol) -> clingo.Symbol:
        """1 if ``effect`` is in the effect vocabulary (name and arity), else 0."""
        known = (effect.type == clingo.SymbolType.Function and effect.name in F.EFFECTS
                 and len(effect.arguments) == len(F.EFFECTS[effect.name]))
        return clingo.Number(int(known))

    @staticmethod
    def decide_name(atom: clingo.Symbol, n: clingo.Symbol) -> list[clingo.Symbol]:
        # gringo may ask while grounding a #min that could still be empty (#sup): no name then
        if atom.type != clingo.SymbolType.String or n.type != clingo.SymbolType.Number or n.number < 1:
            return []
        base = DecisionNames.PREFIX + atom.string
        return [clingo.String(base if n.number == 1 else f"{base}_{n.number}")]

    @staticmethod
    def readings(text: str) -> list[tuple[str, int]]:
        """Every (P, N) such that ``text`` is the N-th decision id for P."""
        if not text.startswith(DecisionNames.PREFIX) or len(text) == len(DecisionNames.PREFIX):
            return []
        rest = text[len(DecisionNames.PREFIX):]
        found = [(rest, 1)]
        head, sep, tail = rest.rpartition("_")
        if sep and head and tail.isdigit() and tail.isascii() and not tail.startswith("0") and int(tail) >= 2:
            found.append((head, int(tail)))
        return found

    @staticmethod
    def decide_parse(name: clingo.Symbol) -> list[clingo.Symbol]:
        if name.type != clingo.SymbolType.String:
            return []
        return [clingo.Tuple_([clingo.String(p), clingo.Number(n)]) for p, n in DecisionNames.readings(name.string)]


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
    facts: F.Answer
    step_of: dict[int, tuple[int, int]] = field(default_factory=dict)
    """step -> (utterance, operation index): the precomputed map every reader uses."""
    arg_id: dict[int, int] = field(default_factory=dict)
    """creating step -> argument id (the engine numbers accepted arguments 1, 2, ...)."""
    step_turn: dict[int, int] = field(default_factory=dict)

    def ok(self, step: int) -> bool:
        """Was the utterance of ``step`` accepted?"""
        return self.step_of[step][0] in self.accepted


class HistoryFacts:
    """The typed input facts of a header and a stream of candidate utterances."""

    def __init__(self, header: Header, registry: OperationRegistry):
        self.registry = registry
        self.candidates: list[Candidate] = []
        self._next_step = 1
        self._literals: set[str] = set()
        self._max_turn: int | None = None
        self.literals: list[Predicate] = []
        """Every fact about a literal given so far (a fresh control needs them all)."""
        self.base: list[Predicate] = []
        for name, agent in header.agents.items():
            self.base.append(F.Agent(name, "true" if agent.authority else "false"))
        if not header.agents:
            self.base.append(F.OpenAgents())
        if header.acyclic:
            self.base.append(F.Acyclic())
        if header.world is not None:
            self.base.append(F.WorldModel())
        self.base.extend(F.Builtin(name) for name in registry.specs if name in registry.builtins)
        for spec in registry.specs.values():
            for f in spec.fields:
                self.base.append(F.OperationField(spec.name, f.name, f.type,
                                               "required" if f.required else "optional"))
        for p in header.props:
            self.base.append(F.Prop0(p.id, p.kind))
            if p.aware:
                self.base.append(F.Aware0(p.id))
            self._literal_facts(p.id, self.base)

    def fork(self) -> HistoryFacts:
        """A copy that goes on on its own (a probed state's candidates after the log's utterances so far):
        what never changes shared, what ``add`` grows copied."""
        other = copy.copy(self)
        other.candidates, other.literals, other._literals = list(self.candidates), list(self.literals), set(
            self._literals)
        return other

    @property
    def next_step(self) -> int:
        """The step number the next utterance's first operation will get."""
        return self._next_step

    def add(self, u: UtteranceBase, turn: int, verdicts: Mapping[int, list[Verdict]] | None = None,
            given: Mapping[int, Sequence[clingo.Symbol | str]] | None = None) -> tuple[Candidate, list[Predicate]]:
        """The facts of one utterance.

        ``verdicts``: what the world model found per operation index; ``given``:
        per operation index of an operation without an ASP twin, the effects
        (symbols, ``facts.effect_symbol``) or violation codes (str) the engine
        recorded for it.
        """
        index = len(self.candidates) + 1
        facts: list[Predicate] = [F.Utterance(index, turn, u.speaker)]
        if self._max_turn is None or turn > self._max_turn:
            facts.append(F.Ahead(index))
        self._max_turn = turn if self._max_turn is None else max(self._max_turn, turn)
        first = self._next_step
        ops = u.ops
        for i, op in enumerate(ops):
            s = first + i
            facts.append(F.Step(s, index, i, op.op))
            for v in (verdicts or {}).get(i, ()):
                facts.append(self._verdict_fact(s, v))
                if v[0] in ("problem", *LITERAL_KINDS):
                    self._literal_facts(v[1], facts)
            for spec in self.registry.specs[op.op].fields:
                value = getattr(op, spec.name)
                if spec.type == "literal" and value is not None:
                    facts.append(F.Field(s, spec.name, value))
                    self._literal_facts(value, facts)
                elif spec.type == "literals":
                    for v in value:
                        facts.append(F.Item(s, spec.name, v))
                        self._literal_facts(v, facts)
            for item in (given or {}).get(i, ()):
                facts.append(F.GivenViolation(s, item) if isinstance(item, str) else F.GivenEffect(s, item))
        close = first + len(ops)
        facts.append(F.Close(index, close))
        self._next_step = close + 1
        candidate = Candidate(index, turn, u.speaker, [op.op for op in ops], first, close)
        self.candidates.append(candidate)
        return candidate, facts

    @staticmethod
    def _verdict_fact(s: int, v: Verdict) -> F.Predicate:
        kind = v[0]
        if kind == "agent":
            return F.EpAgent(s, v[1])
        if kind in FLAGS:
            return F.EpFlag(s, kind, truth(v[1]))
        if kind == "problem":
            return F.EpProblem(s, v[1], truth(v[2]), truth(v[3]), truth(v[4]))
        return F.EpLit(s, kind, v[1])

    def _literal_facts(self, literal: str, facts: list[Predicate]) -> None:
        """What the rules read about a literal and its negation (once each): its atom, its
        negation, whether it is negated, the decision families its atom belongs to."""
        for lit in (literal, negate(literal)):
            if lit in self._literals:
                continue
            self._literals.add(lit)
            atom = atom_of(lit)
            new: list[Predicate] = [F.AtomOf(lit, atom), F.Negation(lit, negate(lit))]
            if lit.startswith("-"):
                new.append(F.Negated(lit))
            else:
                new.extend(F.DecideName(p, atom, n) for p, n in DecisionNames.readings(atom))
            facts.extend(new)
            if facts is not self.base:
                self.literals.extend(new)

    def view_point(self, upto: int | None = None) -> int:
        """The point where the state after candidate ``upto`` (default: the last) is read."""
        return 2 * self.candidates[(upto or len(self.candidates)) - 1].close_step + 1


class _History:
    """What both modes share: validating utterances and reading the answer."""

    facts: HistoryFacts
    statistics: dict

    @property
    def candidates(self) -> list[Candidate]:
        return self.facts.candidates

    def _utterance(self, utterance: UtteranceBase | dict) -> UtteranceBase:
        return self.facts.registry.utterance(utterance)

    def _answer(self, ctl: clingo.Control) -> HistoryAnswer:
        shown = one_model(ctl)
        self.statistics = ctl.statistics
        return read_answer(self.candidates, shown)


def one_model(ctl: clingo.Control) -> list[clingo.Symbol]:
    """The shown atoms of the one answer set of ``ctl``'s program: every answer set is asked for, and
    none or more than one is an error (the encoding decides a history by propagation alone)."""
    models: list[list[clingo.Symbol]] = []
    cast(clingo.Configuration, ctl.configuration.solve).models = 0  # all: there must be exactly one
    result = ctl.solve(on_model=lambda m: models.append(list(m.symbols(shown=True))))
    if not result.satisfiable or len(models) != 1:
        raise RuntimeError(f"asp/history.lp has {len(models)} answer sets, expected exactly one")
    return models[0]


def read_answer(candidates: list[Candidate], symbols: list[clingo.Symbol]) -> HistoryAnswer:
    facts = F.Answer(symbols, F.ANSWER)
    step_of = {c.first_step + i: (c.u, i) for c in candidates for i in range(len(c.ops))}
    accepted = {a.u for a in facts.query(F.Accepted).all()}
    violations: dict[int, set[tuple[int, str]]] = {}
    for v in facts.query(F.Uviol).all():
        violations.setdefault(v.u, set()).add((-1, v.code))
    for kind in (F.Pviol, F.Iviol):
        for v in facts.query(kind).all():
            u, i = step_of[v.s]
            violations.setdefault(u, set()).add((i, v.code))
    created = sorted(a.a for a in facts.query(F.FArg).all() if step_of[a.a][0] in accepted)
    return HistoryAnswer(candidates, accepted, violations, facts, step_of,
                         arg_id={s: i + 1 for i, s in enumerate(created)},
                         step_turn={s: candidates[u - 1].turn for s, (u, _) in step_of.items()})


class IncrementalHistory(_History):
    """The live mode: one utterance at a time, each grounded once, never again.

    Every ground call costs gringo time in proportion to the atoms of the
    predicates its rules read, so a control that held the whole history would
    make each turn slower than the last.  Every ``window`` utterances the
    control is replaced by a fresh one that starts from the events decided so
    far (as facts): a turn then costs about the same at turn 100 and at turn
    20,000.  The answer is the same, the union of what each control decided.
    """

    def __init__(self, header: Header, registry: OperationRegistry, rules: Iterable[str] = (),
                 overrides: Mapping[str, str] | None = None, window: int = 1000):
        self.facts = HistoryFacts(header, registry)
        self.files = [*rule_files(overrides), *map(str, rules)]
        self.context = DecisionNames()
        self.window = window
        self._archive: set[clingo.Symbol] = set()  # what the controls before this one decided
        self._start = 0  # the first candidate this control grounds
        self._last_turn: int | None = None
        self.statistics = {}
        self._new_control([])

    @classmethod
    def resume(cls, history: OneShotHistory, answer: HistoryAnswer, window: int = 1000) -> IncrementalHistory:
        """Go on turn by turn from a history decided in one shot (a long log, then live turns)."""
        live = cls.__new__(cls)
        live.facts, live.files, live.context, live.window = history.facts, history.files, DecisionNames(), window
        live._archive, live._start, live.statistics = set(answer.facts), len(history.candidates), {}
        live._last_turn = last_accepted_turn(history.candidates, answer.accepted)
        live._new_control(live._seed())
        return live

    def _new_control(self, seed: list[clingo.Symbol]) -> None:
        self.ctl = new_control()
        for path in self.files:
            self.ctl.load(path)
        control_add_facts(self.ctl, [*self.facts.base, *self.facts.literals])
        with self.ctl.backend() as backend:
            for symbol in seed:
                backend.add_rule([backend.add_atom(symbol)])
        self.ctl.ground([("base", [])], context=self.context)
        self._view: int | None = None
        self._pending: list[tuple[str, list[clingo.Symbol]]] = []

    def _rotate(self) -> None:
        self._flush()
        self._archive.update(self._shown())
        self._start = len(self.candidates)
        self._new_control(self._seed())

    def _seed(self) -> list[clingo.Symbol]:
        return seed_of(self.candidates[:self._start], self._archive, self._last_turn)

    def _shown(self) -> list[clingo.Symbol]:
        models: list[list[clingo.Symbol]] = []
        self.ctl.solve(on_model=lambda m: models.append(list(m.symbols(shown=True))))
        return [s for s in models[0] if not s.name.startswith("now_")]

    def add(self, utterance: UtteranceBase | dict, verdicts: Mapping[int, list[Verdict]] | None = None,
            given: Mapping[int, Sequence[clingo.Symbol | str]] | None = None) -> Candidate:
        """Ground one candidate utterance (accepted or not, the encoding decides)."""
        if len(self.candidates) - self._start >= self.window:
            self._rotate()
        u = self._utterance(utterance)
        turn = assign_turn(u.turn, self._last_turn)
        candidate, facts = self.facts.add(u, turn, verdicts, given)
        self._ground(candidate, facts)
        if self.is_fact(F.Accepted(candidate.u)):
            self._last_turn = turn
        return candidate

    def _ground(self, c: Candidate, facts: list[Predicate]) -> None:
        """Ground utterance ``c`` in as few calls as keep each call stratified.

        A step's parts (its point, the driver's step, its operation) go in one
        call, and last(u-1), which makes u-1's acceptance count, joins u's first
        step; the freezing of a step goes in the next call, and that of u's last
        step takes close(u) along.  A step and the freezing of the one before it
        cannot share a call (events feed the state, the state feeds events), nor
        close(u) with last(u-1) or last(u): a turn's acceptance reads the one before.
        """
        n = clingo.Number
        # Facts go in through the backend: a program part per utterance would make
        # every later ground call scan all of them.
        control_add_facts(self.ctl, facts)
        parts, self._pending = self._pending, []
        for s, op in enumerate(c.ops, c.first_step):
            if s > c.first_step:
                self._call(self._freeze(s - 1, c.u))
            self._call(parts + [("point", [n(2 * s), n(c.u)]), ("step", [n(s)]), (op, [n(s)])])
            parts = []
        if c.ops:
            parts = self._freeze(c.close_step - 1, c.u)
        elif parts:
            self._call(parts)
            parts = []
        self._call(parts + [("close", [n(c.u)])])
        self._pending = [("last", [n(c.u)])]
        if self.is_fact(F.TakesOut(c.u)):  # only then is there a flagged set to read
            self._pending += [("point", [n(2 * c.close_step), n(0)]), ("after", [n(c.u)])]

    @staticmethod
    def _freeze(s: int, u: int) -> list[tuple[str, list[clingo.Symbol]]]:
        n = clingo.Number
        return [("freeze", [n(s)]), ("point", [n(2 * s + 1), n(u)])]

    def _call(self, parts: list[tuple[str, list[clingo.Symbol]]]) -> None:
        self.ctl.ground(parts, context=self.context)

    def _flush(self) -> None:
        """Ground the parts the next utterance would have taken along (before a view or an answer)."""
        if self._pending:
            self._call(self._pending)
            self._pending = []

    def is_fact(self, predicate: F.Predicate) -> bool:
        atom = self.ctl.symbolic_atoms[predicate.raw]
        return atom is not None and atom.is_fact

    def all_decided(self) -> bool:
        """True when grounding alone decided every atom of the history (nothing left to
        search); only the view answers switched by the external now/1 (and the
        released externals of earlier views) are open."""
        self._flush()
        return all(a.is_fact for a in self.ctl.symbolic_atoms
                   if not a.is_external and not a.symbol.name.startswith("now"))

    def view(self, upto: int | None = None) -> None:
        """Ground the state after candidate ``upto`` (default: the last) as the current view.

        The previous view's ``now`` external is released: its answers leave the
        solver's program, so a view per turn does not make later solves slower.
        """
        if upto is not None and upto <= self._start:
            raise InputError(f"the view after utterance {upto} is no longer held: this history "
                             f"keeps views from utterance {self._start + 1} on")
        x = self.facts.view_point(upto)
        n = clingo.Number
        self._flush()
        if x == self._view:
            return
        if self._view is not None:
            self.ctl.release_external(clingo.Function("now", [n(self._view)]))
        self.ctl.ground([("point", [n(x), n(0)]), ("view", [n(x)]), ("query", [n(x)])], context=self.context)
        self.ctl.assign_external(clingo.Function("now", [n(x)]), True)
        self._view = x

    def solve(self) -> HistoryAnswer:
        self._flush()
        answer = self._answer(self.ctl)
        if not self._archive:
            return answer
        return read_answer(self.candidates, [*self._archive.union(answer.facts)])


def seeds_after(before: list[Candidate], archive: Collection[clingo.Symbol]) -> list[clingo.Symbol]:
    """Everything a fresh one-shot control that goes on after the candidates ``before`` is seeded with:
    the decided history (``seed_of``, the last turn ``archive`` accepted among them) and the problems
    queued (``queue_seed``).  A window of the one-shot history and a probed state (crosscheck/probe.py)
    are seeded so."""
    accepted = _accepted(archive)
    ok = _ok_steps(before, accepted)
    return [*seed_of(before, archive, last_accepted_turn(before, accepted), ok), *queue_seed(before, archive, ok)]


def last_accepted_turn(candidates: list[Candidate], accepted: Container[int]) -> int | None:
    """The turn of the last of ``candidates`` whose utterance is ``accepted``, None if none is."""
    return next((c.turn for c in reversed(candidates) if c.u in accepted), None)


def _accepted(archive: Iterable[clingo.Symbol]) -> set[int]:
    """The utterances ``archive`` (what controls showed) says were accepted."""
    return {a.arguments[0].number for a in archive if a.name == "accepted"}


def _ok_steps(before: list[Candidate], accepted: Container[int]) -> set[int]:
    """The steps of the candidates ``before`` whose utterance is ``accepted``."""
    return {c.first_step + i for c in before if c.u in accepted for i in range(len(c.ops))}


def seed_of(before: list[Candidate], archive: Iterable[clingo.Symbol], last_turn: int | None,
            ok: set[int] | None = None) -> list[clingo.Symbol]:
    """The decided history as facts for a fresh control that goes on after the candidates
    ``before``: the events of accepted utterances, which steps they are, the last accepted
    turn (``last_turn``), who joined.  ``archive``: what the controls before it showed;
    ``ok``: the accepted steps if read already (``_ok_steps``)."""
    ok = _ok_steps(before, _accepted(archive)) if ok is None else ok
    seed: list[clingo.Symbol] = [F.OkStep(s).raw for s in sorted(ok)]
    seed += [F.StepTurn(c.first_step + i, c.turn).raw for c in before for i in range(len(c.ops))]
    standing: dict[int, clingo.Symbol] = {}  # only the newest standing event of each argument counts
    commitment: dict[tuple[clingo.Symbol, int], clingo.Symbol] = {}  # and the newest commitment event
    for a in archive:
        kind = a.name  # read once: each read of a symbol's name or arguments is a call into clingo
        if kind not in _SEEDED and kind not in ("st_event", "f_com", "joined"):
            continue
        args = a.arguments
        if kind in _SEEDED and args[_SEEDED[kind]].number in ok:
            seed.append(a)
        elif kind == "st_event" and args[2].number in ok:
            key, newest = args[0].number, standing.get(args[0].number)
            if newest is None or _order(a) > _order(newest):
                standing[key] = a
        elif kind == "f_com" and args[2].number in ok:
            held = commitment.get((args[0], args[1].number))
            if held is None or args[2].number > held.arguments[2].number:
                commitment[(args[0], args[1].number)] = a
        elif kind == "joined":
            seed.append(a)
        if kind == "f_arg" and args[2].name == "decision" and args[0].number in ok:
            name = F.decode(args[1].string)
            seed += [F.DecideName(p, name, n).raw for p, n in DecisionNames.readings(name)]
    seed += [clingo.Function("f_st", a.arguments) for a in standing.values()]
    seed += [a for a in commitment.values() if a.arguments[3].name == "add"]
    # a question declared in the header enters the queue only once a step touches it
    seed += [clingo.Function("f_touched", [a.arguments[1], a.arguments[0]]) for a in archive
             if a.name == "header_question_touched" and a.arguments[1].number in ok]
    if before:
        seed.append(F.CarriedTurn(len(before), -1 if last_turn is None else last_turn).raw)
    return seed


def queue_seed(before: list[Candidate], archive: Iterable[clingo.Symbol], ok: set[int]) -> list[clingo.Symbol]:
    """The problems queued after the candidates ``before`` (those whose newest problem event
    of an accepted step, ``ok``, opened them), as ``q_carried(L, U)`` facts for asp/oneshot.lp's
    summarised queue, U the last of ``before``."""
    newest: dict[clingo.Symbol, clingo.Symbol] = {}
    for a in archive:
        if a.name == "prob" and a.arguments[1].number in ok:
            held = newest.get(a.arguments[0])
            if held is None or a.arguments[1].number > held.arguments[1].number:
                newest[a.arguments[0]] = a
    return [clingo.Function("q_carried", [a.arguments[0], clingo.Number(len(before))])
            for a in newest.values() if a.arguments[2].name == "open"]



_SEEDED = {"f_arg": 0, "f_dep": 2, "f_expl": 2, "f_att": 2, "f_dis": 2, "f_prop": 2, "f_aware": 1}
"""Events carried into a fresh control whole (by the position of their step)."""
_CARRIED = {**_SEEDED, "st_event": 2, "f_com": 2, "header_question_touched": 1}
"""What a fresh control shows again of its seeds (by the position of their step)."""


def _order(st_event: clingo.Symbol) -> tuple[int, int]:
    return st_event.arguments[2].number, st_event.arguments[3].number


class OneShotHistory(_History):
    """A whole log at once: collect the facts, then ground and solve once per window.

    Every utterance must carry its turn (a log's lines always do): without
    grounding there is no knowing which earlier utterance was accepted.

    The ground program of the history grows with it (about 160 atoms a turn),
    so a long history is decided ``window`` utterances at a time (more once the
    history before a window is longer than ``WINDOW_GROWTH`` windows): each window is
    a fresh control that starts from the events the windows before it decided
    (as facts, ``seed_of``, as the live mode's fresh controls do), and is
    released before the next.  The answer is the union of what they decided.
    Likewise Affected and Affected* of the final view are asked ``batch``
    literals at a time (``affected``).

    ``apart``: each window, the view and each batch of Affected* is grounded in
    a process of its own (solvers/apart.py), which hands back its answer as text:
    clingo never frees a symbol it made, so grounding them all in one process
    holds every window's atoms at the end (the check's peak would grow with the
    history).  A process takes the next window (or batch) while its peak RSS
    is below ``bound`` bytes.  The answer is the same.
    """

    def __init__(self, header: Header, registry: OperationRegistry, rules: Iterable[str] = (),
                 overrides: Mapping[str, str] | None = None, window: int = 1000, batch: int = 1000,
                 apart: bool = False, bound: int = APART_BOUND):
        self.facts = HistoryFacts(header, registry)
        self.overrides = dict(overrides or {})
        self.files = [*rule_files(overrides), *map(str, rules)]
        self._of: list[list[Predicate]] = []  # each candidate's own facts (beside facts.base: the input)
        self.window = window
        self.batch = batch
        self.apart, self.bound = apart, bound
        self.statistics = {}
        self.timings: dict[str, float] = {}
        self._view_state: tuple[int, list[clingo.Symbol]] | None = None

    def add(self, utterance: UtteranceBase | dict, verdicts: Mapping[int, list[Verdict]] | None = None,
            given: Mapping[int, Sequence[clingo.Symbol | str]] | None = None) -> Candidate:
        u = self._utterance(utterance)
        if u.turn is None:
            raise InputError(f"utterance {len(self.candidates) + 1} has no turn: a whole log "
                             "is checked in one shot only when every utterance says its turn")
        candidate, facts = self.facts.add(u, u.turn, verdicts, given)
        self._of.append(facts)
        return candidate

    def solve(self, upto: int | None = None, affected: bool = True) -> HistoryAnswer:
        """Ground everything and read the answer, with the view after candidate ``upto``.

        Two ground calls: the history (acceptance and events, decided by
        propagation), then the states after each utterance and the final view,
        read off those events as facts (decided by grounding alone).  Without
        ``affected`` the answer holds no Affected or Affected*: ask ``affected()``
        for them a batch at a time.
        """
        operations = tuple(self.facts.registry.specs)
        decided, texts = self._decide(operations)
        history = list(decided)
        del decided
        start = time.perf_counter()
        x = self.facts.view_point(upto) if self.candidates else 0
        files = [*self.files, rule_file("oneshot_view.lp", self.overrides)]
        if texts is not None:  # apart: the view's process is sent the text the windows' were, not made again
            views_text, state_text = run_apart("the ASP view", _view_as_text, files, operations, texts, x)
            del texts
            views, state = list(map(clingo.parse_term, views_text)), list(map(clingo.parse_term, state_text))
        else:
            views, state = _view(files, operations, [f.raw for f in chain(self.facts.base, *self._of)], history, x)
        self.timings["views"] = time.perf_counter() - start
        self._view_state = (x, state)
        if affected:
            start = time.perf_counter()
            views += [s for batch in self._batches() for s in self._affected_batch(batch)]
            self.timings["affected"] = time.perf_counter() - start
        return read_answer(self.candidates, [*history, *views])

    def _decide(self, operations: tuple[str, ...]) -> tuple[set[clingo.Symbol], list[list[str]] | None]:
        """The events the windows of the history decide (``timings`` ground and solve) and, if ``apart``,
        what the view's process is sent (``_view_as_text``): the text the processes of windows were sent,
        each fact and each decided atom made text once (``solve`` made both again), the literals' facts
        left out (every one is among its utterance's too)."""
        decided: set[clingo.Symbol] = set()
        files = [*self.files, rule_file("oneshot.lp", self.overrides)]
        base, literals = [f.raw for f in self.facts.base], [f.raw for f in self.facts.literals]
        first, ground, solve = 0, 0.0, 0.0
        if self.apart:  # as text once: each process of windows is sent what is left of it
            base_text, literals_text, of_text = _texts(base), _texts(literals), [_texts(f) for f in self._of]
            decided_text: list[str] = []
        while True:
            if self.apart:  # windows in a process until it has grown past APART_BOUND, then in another
                first, shown, self.statistics, times = run_apart(
                    f"the ASP history from utterance {first + 1}", _windows_as_text, files, operations,
                    base_text, literals_text, of_text[first:], self.candidates, self.window, decided_text,
                    first, self.bound)
                decided_text += shown
                decided.update(map(clingo.parse_term, shown))
            else:
                of = [[f.raw for f in facts] for facts in self._of]
                first, self.statistics, times = _windows(files, operations, base, literals, of, self.candidates,
                                                         self.window, decided, first)
            ground, solve = ground + times[0], solve + times[1]
            if first >= len(self.candidates):
                break
        self.timings["ground"], self.timings["solve"] = ground, solve
        return decided, ([base_text, *of_text, decided_text] if self.apart else None)

    def forget_facts(self) -> None:
        """Let the input facts go once ``solve`` has read them (``affected`` needs only the view):
        a check then holds no fact of the whole history while it compares the last turn."""
        self._of = []

    def affected(self, answer: HistoryAnswer) -> Iterator[AffectedBatch]:
        """Affected* (argument id -> hop) and Affected (argument ids) by literal, ``batch`` literals at a
        time, of the view the last ``solve`` read: the caller compares a batch and lets it go."""
        if self._view_state is None:
            raise RuntimeError("OneShotHistory.affected is asked after solve")
        for hops, steps in self._affected_rows(self._batches()):
            yield affected_batch(hops, steps, answer.arg_id)

    def _batches(self) -> list[list[clingo.Symbol]]:
        """The literals some Dep holds at the view, ``batch`` at a time."""
        assert self._view_state is not None
        queried = sorted({v.arguments[2] for v in self._view_state[1] if v.name == "v_dep"})
        return [queried[first:first + self.batch] for first in range(0, len(queried), self.batch)]

    def _affected_batch(self, batch: list[clingo.Symbol]) -> list[clingo.Symbol]:
        """Affected and Affected* (with hops) of ``batch`` by queries.lp over the view state, in a
        control of its own released before the next (in a process of its own if ``apart``)."""
        assert self._view_state is not None
        x, state = self._view_state
        queries = rule_file("queries.lp", self.overrides)
        if not self.apart:
            return _affected(queries, state, x, batch)
        found = run_apart(f"Affected* of {len(batch)} literals in ASP", _affected_as_text, queries,
                          list(map(str, state)), x, list(map(str, batch)))
        return list(map(clingo.parse_term, found))

    def _affected_rows(self, batches: list[list[clingo.Symbol]]) -> Iterator[AffectedRows]:
        """``_affected_batch`` of each batch as plain rows; if ``apart``, batches in a process until it
        has grown past APART_BOUND, then in another, so that the symbols of the closures are never
        made in this one."""
        assert self._view_state is not None
        x, state = self._view_state
        if not self.apart:
            for batch in batches:
                yield _rows(self._affected_batch(batch))
            return
        queries, state_text = rule_file("queries.lp", self.overrides), list(map(str, state))
        todo = [list(map(str, batch)) for batch in batches]
        while todo:
            done = run_apart(f"Affected* of {sum(map(len, todo))} literals in ASP", _affected_rows_as_text,
                             queries, state_text, x, todo, self.bound)
            del todo[:len(done)]
            while done:
                yield done.pop(0)


AffectedBatch = tuple[dict[str, dict[int, int]], dict[str, set[int]]]
"""Affected* (argument id -> hop) and one-step Affected of a batch of literals, by literal."""
AffectedRows = tuple[list[tuple[str, int, int]], list[tuple[str, int]]]
"""(literal, creating step, hop) of Affected* and (literal, creating step) of Affected, as plain data."""


def affected_batch(hops: Iterable[tuple[str, int, int]], steps: Iterable[tuple[str, int]],
                   ids: Mapping[int, int]) -> AffectedBatch:
    """Rows (literal, creating step, hop) of Affected* and (literal, creating step) of Affected by
    literal, the steps named by the engine's argument ids (``ids``: ``HistoryAnswer.arg_id``)."""
    star: dict[str, dict[int, int]] = defaultdict(dict)
    one: dict[str, set[int]] = defaultdict(set)
    for lit, a, hop in hops:
        star[lit][ids[a]] = hop
    for lit, a in steps:
        one[lit].add(ids[a])
    return dict(star), dict(one)


# -- the pieces of a one-shot solve: each runs in this process or, as text, in one of its own -----

def _texts(facts: Iterable[Predicate | clingo.Symbol]) -> list[str]:
    return [str(f if isinstance(f, clingo.Symbol) else f.raw) for f in facts]


def _facts_control(files: list[str], operations: Iterable[str], symbols: Iterable[clingo.Symbol],
                   options: Sequence[str] = ()) -> clingo.Control:
    ctl = new_control(list(options))
    add_one_shot(ctl, files, operations)
    with ctl.backend() as backend:
        for symbol in symbols:
            backend.add_rule([backend.add_atom(symbol)])
    return ctl


def _decide(files: list[str], operations: Sequence[str], facts: list[clingo.Symbol], seeds: list[clingo.Symbol]
            ) -> tuple[list[clingo.Symbol], dict, tuple[float, float]]:
    """One window of the history: its shown atoms, clingo's statistics, (ground, solve) seconds."""
    # --eq=0: clasp's equivalence preprocessing (clingo 5.8.3) reported some of
    # these programs unsatisfiable although they are stratified; the program is
    # decided by propagation, so nothing is lost without it.
    ctl = _facts_control(files, operations, [*facts, *seeds], ["--eq=0"])
    start = time.perf_counter()
    ctl.ground([("base", [])], context=DecisionNames())
    with ctl.backend() as backend:
        for link in queue_chain(ctl.symbolic_atoms):
            backend.add_rule([backend.add_atom(link)])
    ctl.ground([("queue", [])])
    grounded_at = time.perf_counter()
    shown = one_model(ctl)
    return shown, ctl.statistics, (grounded_at - start, time.perf_counter() - grounded_at)


def queue_chain(atoms: clingo.SymbolicAtoms) -> Iterator[clingo.Symbol]:
    """asp/oneshot.lp's chain of the candidate problem events of each literal, from the ground base
    program: ``q_next(L, U, N)``, N the next utterance after U with a candidate event on L (``prob/3``,
    each atom the program could derive), or the window's last utterance.  The first link of a
    literal carried queued into the window (``q_carried(L, U)``) starts at U.  Linear in the candidates:
    pairing every candidate that may open L with every later one grows with their square (a question
    a thousand competing hypotheses explain)."""
    utterance_of = {a.symbol.arguments[0].number: a.symbol.arguments[1].number
                    for a in atoms.by_signature("step", 4)}
    last = max((a.symbol.arguments[0].number for a in atoms.by_signature("utterance", 3)), default=0)
    chains: dict[clingo.Symbol, set[int]] = defaultdict(set)
    for a in atoms.by_signature("prob", 3):
        chains[a.symbol.arguments[0]].add(utterance_of[a.symbol.arguments[1].number])
    for a in atoms.by_signature("q_carried", 2):
        chains[a.symbol.arguments[0]].add(a.symbol.arguments[1].number)
    for literal, held in chains.items():
        at = sorted(held)
        if at[-1] < last:
            at.append(last)
        for u, n in pairwise(at):
            yield clingo.Function("q_next", [literal, clingo.Number(u), clingo.Number(n)])


def decide_seeded(files: list[str], views: list[str], operations: Sequence[str],
                  jobs: list[tuple[list[str], list[str], int, int]]) -> list[list[str]]:
    """Windows that each go on from a decided history: per job, its input facts and its seeds (``seeds_after``)
    as text, and the last step and utterance the seeds cover; what each decided about its
    own steps and utterances, as text, with what its accepted utterances took out of S_t and flagged
    (the view stage, ``views``: the files of ``_view``, read with no view asked).  The probe
    (crosscheck/probe.py) decides a probed state's candidates so, from the events the check decided up
    to that state, in this process or one apart."""
    parse = clingo.parse_term
    found = []
    for facts, seeds, step, u in jobs:
        given = [*map(parse, facts), *map(parse, seeds)]
        shown = _decide(files, operations, given, [])[0]
        ctl = _facts_control(views, operations, [*given, *shown])
        ctl.ground([("base", [])], context=DecisionNames())
        after = [s for s in one_model(ctl) if s.name in ("taken_out", "flagged")]
        found.append([str(s) for s in (*shown, *after) if not _carried(s, step, u)])
    return found


def _carried(atom: clingo.Symbol, step: int, u: int) -> bool:
    """Is ``atom`` a seed shown again (an event of a step up to ``step``, a joining up to utterance ``u``)?"""
    if atom.name == "joined":
        return atom.arguments[1].number <= u
    at = _CARRIED.get(atom.name)
    return at is not None and atom.arguments[at].number <= step


WINDOW_GROWTH, WINDOW_MOST = 4, 2
"""A window of the one-shot history holds at least a quarter as many utterances as came before it,
up to twice ``window``.  Each window is seeded with the state decided before it (``seeds_after``: every
argument, its standing, Dep, explanations, the problems still queued), which grows with the history:
windows of a fixed size w seed a history of K utterances with K^2 / 2w facts in all.  Windows that
grow with the history before them seed it with a few times K; but a window's program grows with its
own utterances (on a fan of competing hypotheses about 230 atoms each, against 20 per earlier
utterance), so past twice ``window`` the windows stop growing and hold the peak memory instead (on
20,000 turns of deep chains: 851 MB for the process tree, 1,211 MB with no bound): from 8,000
utterances before a window on, the seeding grows as K^2 / 4w again."""


def _windows(files: list[str], operations: Sequence[str], base: list[clingo.Symbol], literals: list[clingo.Symbol],
             of: Sequence[list[clingo.Symbol]], candidates: list[Candidate], window: int, decided: set[clingo.Symbol],
             first: int, bound: int | None = None) -> tuple[int, dict, tuple[float, float]]:
    """Decide the history from candidate ``first`` on, into ``decided``, a window at a time (``window``
    candidates, or a WINDOW_GROWTH-th of those before it up to WINDOW_MOST windows; ``of``: each candidate's facts;
    the windows before ``first`` are in ``decided``).  With ``bound``, stop after a window that leaves
    this process's peak RSS above ``bound`` bytes.  Returns the first candidate left, the last window's
    statistics, the (ground, solve) seconds."""
    ground = solve = 0.0
    statistics: dict = {}
    while True:
        size = max(window, min(first // WINDOW_GROWTH, WINDOW_MOST * window))
        facts = [*base, *(f for facts in of[first:first + size] for f in facts)]
        seeds: list[clingo.Symbol] = []
        if first:
            facts += literals
            seeds = seeds_after(candidates[:first], decided)
        shown, statistics, times = _decide(files, operations, facts, seeds)
        decided.update(shown)
        ground, solve, first = ground + times[0], solve + times[1], first + size
        if first >= len(candidates) or (bound is not None and peak_bytes() > bound):
            return first, statistics, (ground, solve)


def _windows_as_text(files: list[str], operations: Sequence[str], base: list[str], literals: list[str],
                     of: list[list[str]], candidates: list[Candidate], window: int, decided: list[str], first: int,
                     bound: int) -> tuple[int, list[str], dict, tuple[float, float]]:
    """``_windows`` in a process of its own (``of`` from candidate ``first`` on), up to ``bound``:
    the first candidate left and what its windows decided."""
    parse = clingo.parse_term
    held = set(map(parse, decided))
    known = set(held)
    facts: list[list[clingo.Symbol]] = [[] for _ in range(first)] + [list(map(parse, texts)) for texts in of]
    first, statistics, times = _windows(files, operations, list(map(parse, base)), list(map(parse, literals)), facts,
                                        candidates, window, held, first, bound)
    return first, [str(s) for s in held - known], statistics, times


def _view(files: list[str], operations: Sequence[str], added: Iterable[clingo.Symbol],
          history: Iterable[clingo.Symbol], x: int) -> tuple[list[clingo.Symbol], list[clingo.Symbol]]:
    """The view at point ``x`` over the decided ``history``: its answers, and the state queries.lp reads."""
    ctl = _facts_control(files, operations, chain(added, history, [F.TheView(x).raw]))
    ctl.ground([("base", [])], context=DecisionNames())
    ctl.assign_external(clingo.Function("now", [clingo.Number(x)]), True)
    shown = one_model(ctl)
    return [v for v in shown if v.name in view_answers()], [v for v in shown if v.name in _VIEW_STATE]


def _view_as_text(files: list[str], operations: Sequence[str], texts: list[list[str]], x: int
                  ) -> tuple[list[str], list[str]]:
    """``_view`` in a process of its own, of ``texts``: the added facts and the decided history as text,
    each read into the control as it is parsed (``_drained``): the largest piece of a long check
    holds neither the text nor a Python list of the symbols while it grounds."""
    views, state = _view(files, operations, _drained(texts), (), x)
    return list(map(str, views)), list(map(str, state))


def _drained(held: list[list[str]]) -> Iterator[clingo.Symbol]:
    """The symbols of the texts of each list of ``held`` in order, each list taken out of ``held``
    and let go once read."""
    while held:
        texts = held.pop(0)
        yield from map(clingo.parse_term, texts)
        del texts


def _affected(queries: str, state: list[clingo.Symbol], x: int, batch: list[clingo.Symbol]) -> list[clingo.Symbol]:
    ctl = new_control()
    ctl.load(queries)  # Affected reads no standing: without standing.lp, only its S_t (unasked here) is empty
    with ctl.backend() as backend:
        for symbol in [*state, *(clingo.Function("v_query", [clingo.Number(x), p]) for p in batch)]:
            backend.add_rule([backend.add_atom(symbol)])
    ctl.ground([("query", [clingo.Number(x)])])
    ctl.assign_external(clingo.Function("now", [clingo.Number(x)]), True)
    return [v for v in one_model(ctl) if v.name in _AFFECTED]


def _affected_as_text(queries: str, state: list[str], x: int, batch: list[str]) -> list[str]:
    return list(map(str, _affected(queries, list(map(clingo.parse_term, state)), x,
                                   list(map(clingo.parse_term, batch)))))


def _rows(symbols: list[clingo.Symbol]) -> AffectedRows:
    answer = F.Answer(symbols, (F.NowHop, F.NowAffectedOne))
    return ([(h.lit, h.a, h.hop) for h in answer.query(F.NowHop).all()],
            [(h.lit, h.a) for h in answer.query(F.NowAffectedOne).all()])


def _affected_rows_as_text(queries: str, state: list[str], x: int, batches: list[list[str]], bound: int
                           ) -> list[AffectedRows]:
    """The rows of ``batches`` in a process of its own, as many as it does before it grows past ``bound``."""
    view = list(map(clingo.parse_term, state))
    done = []
    for batch in batches:
        done.append(_rows(_affected(queries, view, x, list(map(clingo.parse_term, batch)))))
        if peak_bytes() > bound:
            break
    return done
