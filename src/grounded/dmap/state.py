"""The bridge's incremental copy of the dependency map D_t, with its history.

The Prolog rules decide every change; this module only applies the
effects they report (``apply``, typed in ``effects.py``), in the same order,
and keeps what the fast queries need:

* ``claimants``: literal -> arguments claiming it (the anchor lookup of Verify);
* ``rev``: literal -> arguments whose Dep contains it, the reverse dependency
  index that makes Affected* cost independent of conversation length;
* per argument, its standing history and the turn each Dep entry arrived.

Everything is append-only, in turn order, so the state as of an earlier turn
is a prefix of each list (found by bisection): that is how every query takes
``at=t`` without replaying anything.  ``to_data``/``from_data`` write the
state as plain data and read it back (a snapshot beside a log).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from sys import intern
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.columns import Events
from grounded.dmap.notes import AgentRecord, StandingNote

if TYPE_CHECKING:  # the effect classes (made when first used) and the models: a snapshot's state needs neither
    from grounded.dmap.effects import (
        AddAttack,
        AddDep,
        AddExplains,
        Aware,
        Commit,
        Dissent,
        Effect,
        NewAgent,
        NewArg,
        NewProp,
        Problem,
        RetractCommitment,
        SetStanding,
        Turn,
    )
    from grounded.dmap.model import Argument, Header
    from grounded.dmap.notes import PlainHeader

ACTIVE = "active"

T = TypeVar("T")
Seq: TypeAlias = "list[T] | tuple[T, ...]"
"""One of the state's append-only sequences (see ``added``)."""

NONE: tuple = ()
"""The Dep, explanations and their turns of an argument that has none: one shared empty tuple, not four
empty lists per argument (10^5 utterances hold 3*10^4 arguments, most of them observations with no Dep)."""


def added(entries: Seq[T], item: T) -> Seq[T]:
    """``entries`` with ``item`` at the end: a tuple while it holds one entry, a list (grown in place) from
    the second.

    Most of the state's sequences (an argument's standing history, Dep and explanations, a literal's
    claimants and dependents) keep one entry for good.  Python's cyclic garbage collector scans every list
    at each full collection, which came about every 10^4 arguments: with a list each, a map of 10^5
    arguments held ten lists per argument, and each collection cost more as the map grew (the figures:
    docs/benchmarks.md, the Dep chain).  A tuple of strings and integers is
    dropped from the collector's lists by the first collection that sees it (a tuple holding one, a
    standing change, by the next at the latest): one entry costs the collections nothing."""
    if type(entries) is list:
        entries.append(item)
        return entries
    return [*entries, item] if entries else (item,)


def changed(turn: int, history: list[tuple]) -> Seq[tuple]:
    """An argument's standing history read back from plain data, kept as ``ArgRecord.changes``: NONE when it
    holds only the entry the argument was made with."""
    return NONE if history == [(turn, ACTIVE, None)] else packed(history)


def packed(entries: Sequence[T]) -> Seq[T]:
    """A sequence read back from plain data, as ``added`` keeps it: empty, one entry, or a list."""
    if not entries:
        return NONE
    return (entries[0],) if len(entries) == 1 else list(entries)


@dataclass(slots=True)
class ArgRecord:
    """One argument.  ``standing`` is current; ``history`` has every change.

    ``changes`` keeps the history once the standing changed (NONE until then): nearly every argument keeps
    only the entry it was made with, active at its turn with no cause, and a tuple of that entry in a tuple
    each was 110 bytes an argument (3.3 MB of the Python heap at 10^5 utterances), so ``history``
    makes that entry when asked instead."""

    id: int
    claim: str
    kind: str
    speaker: str
    turn: int
    text: str
    op: str  # the operation that created it, ...
    op_index: int  # ... its position in the utterance ...
    utterance: str  # ... and the utterance's text (provenance)
    standing: str = ACTIVE
    changes: Seq[tuple[int, str, str | None]] = NONE  # the history once the standing changed (``added``)
    deps: Seq[str] = NONE
    dep_turns: Seq[int] = NONE
    explains: Seq[str] = NONE
    explain_turns: Seq[int] = NONE
    answer: object = field(default=None, compare=False, repr=False)
    """Verify's answer about this argument's claim that depends on the record alone, frozen, made once
    rather than per query: resting on nothing, it grounds its claim (``grounded.queries.verify.leaf``: claim
    and id); out of standing, it is why not (``verify.out``: claim and the latest standing change, the
    reason worded once).  Emptied by ``change`` and by a Dep added (``_add_dep``), so that Verify returns a
    kept answer without reading the standing or Dep."""

    def change(self, turn: int, standing: str, cause: str | None) -> None:
        """The standing changes at ``turn`` (``cause``: the literal that caused it): the one place it does, so
        the answer kept for the old standing goes with it (an argument back in standing would else still
        answer why it was out)."""
        self.standing = standing
        self.changes = added(self.history, (turn, standing, cause))
        self.answer = None

    @property
    def history(self) -> Seq[tuple[int, str, str | None]]:
        """Every standing change, the first the argument's making (active at its turn, no cause)."""
        return self.changes or ((self.turn, ACTIVE, None),)

    def standing_at(self, t: int | None) -> str | None:
        """Standing as of turn t; None if the argument did not exist yet."""
        if t is None:
            return self.standing
        if self.turn > t:
            return None
        entry = self.history[0]
        for change in self.history:
            if change[0] > t:
                break
            entry = change
        return entry[1]

    def change_at(self, t: int | None) -> tuple[int, str, str | None]:
        """The standing change in force at turn t (the latest one if t is None)."""
        if t is None:
            return self.history[-1]
        entry = self.history[0]
        for change in self.history:
            if change[0] > t:
                break
            entry = change
        return entry

    def deps_at(self, t: int | None) -> Sequence[str]:
        if t is None:
            return self.deps
        return self.deps[: bisect_right(self.dep_turns, t)]

    def explains_at(self, t: int | None) -> Sequence[str]:
        if t is None:
            return self.explains
        return self.explains[: bisect_right(self.explain_turns, t)]


@dataclass(slots=True)
class PropRecord:
    id: str
    text: str
    kind: str
    turn: int | None  # None: declared in the header
    aware_turn: int | None  # None: not (yet) in anyone's awareness


class DependencyMap:
    """Arguments, attacks, Dep, commitments and open problems, with history."""

    def __init__(self, header: Header | PlainHeader):
        self.header = header
        self.agents: dict[str, AgentRecord] = {name: AgentRecord(a.role, a.authority)
                                               for name, a in header.agents.items()}
        self.open_agents = not header.agents
        self.acyclic = header.acyclic
        self.props: dict[str, PropRecord] = {
            p.id: PropRecord(p.id, p.text, p.kind, None, -1 if p.aware else None)
            for p in header.props
        }
        self.args: list[ArgRecord] = []
        self.claimants: dict[str, Seq[int]] = {}  # these three and ``attackers``: tuples of one, lists of more
        self.rev: dict[str, Seq[int]] = {}
        self.rev_turns: dict[str, Seq[int]] = {}
        self.attacks: list[tuple[int, int, int]] = []  # (attacker, target, turn)
        self.attackers: dict[int, Seq[int]] = {}
        self.committed: dict[str, dict[int, None]] = {}  # insertion-ordered sets
        self.commit_events: Events[tuple[int, str, int, bool]] = Events("isib")  # (turn, agent, arg, added)
        self.dissent: dict[int, list[str]] = {}
        self.open_problems: dict[str, None] = {}
        self.problem_events: Events[tuple[int, str, bool]] = Events("isb")  # (turn, literal, open)
        self.agent_turns: dict[str, int] = {}
        self.last_turn: int | None = None
        self._handlers: dict[type, Callable[..., None]] | None = None

    # -- lookups ---------------------------------------------------------------

    def arg(self, arg_id: int) -> ArgRecord:
        return self.args[arg_id - 1]

    def note(self, literal: str, t: int | None = None) -> StandingNote:
        """How the newest argument for ``literal`` reached its standing as of turn t
        (the rules' claim_standing/4; ``str()`` renders it: 'abandoned at T9 by o9')."""
        newest = self.args[self.claimants_at(literal, t)[-1] - 1]
        turn, standing, cause = newest.change_at(t)
        return StandingNote(standing, turn, cause)

    def __len__(self) -> int:
        return len(self.args)

    # -- applying the rules' effects ---------------------------------------------

    def apply(self, effects: list[Effect], turn: int, speaker: str, utterance_text: str, ops: Sequence) -> None:
        """Mirror what the rules applied for one accepted utterance, in order.

        ``ops`` are the utterance's operations (an effect's ``index`` names one),
        kept for provenance: the text and operation behind each new argument.
        """
        handlers = self._handlers or self._effect_handlers()
        for e in effects:
            handlers[type(e)](e, turn, speaker, utterance_text, ops)

    def _effect_handlers(self) -> dict[type, Callable[..., None]]:
        """Each effect class's handler, made when the first effects are applied (the classes are generated when
        first asked for: a state read from a snapshot, which applies none, makes none: grounded.dmap.effects; nor
        is that module imported)."""
        from grounded.dmap import effects as fx

        self._handlers = {
            fx.Turn: self._turn, fx.NewAgent: self._new_agent, fx.NewProp: self._new_prop, fx.Aware: self._aware,
            fx.NewArg: self._new_arg, fx.SetStanding: self._set_standing, fx.AddDep: self._add_dep,
            fx.AddExplains: self._add_explains, fx.AddAttack: self._add_attack, fx.Commit: self._add_commitment,
            fx.RetractCommitment: self._retract_commitment, fx.Dissent: self._dissent, fx.Problem: self._problem,
            **{cls: self._model for cls in fx.FOR_THE_MODEL},
        }
        return self._handlers

    def _turn(self, e: Turn, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        self.last_turn = e.turn

    def _new_agent(self, e: NewAgent, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        self.agents[e.agent] = AgentRecord("", False)
        self.agent_turns[e.agent] = turn

    def _new_prop(self, e: NewProp, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        atom = intern(e.atom)
        self.props[atom] = PropRecord(atom, getattr(ops[e.index], "text", "") or "", intern(e.kind), turn, None)

    def _aware(self, e: Aware, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        self.props[e.atom].aware_turn = turn

    def _new_arg(self, e: NewArg, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        op = ops[e.index]
        claim = intern(e.claim)  # one string per literal however many facts name it (the rules' reply is
        # read into fresh strings each time)
        record = ArgRecord(e.arg, claim, intern(e.kind), intern(speaker), turn, getattr(op, "text", "") or "",
                           op.op, e.index, text)
        if record.id != len(self.args) + 1:
            raise AssertionError(f"rules allocated argument {record.id}, bridge expected {len(self.args) + 1}")
        self.args.append(record)
        self.claimants[claim] = added(self.claimants.get(claim, NONE), record.id)

    def _set_standing(self, e: SetStanding, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        self.args[e.arg - 1].change(turn, e.standing, e.cause)

    def _add_dep(self, e: AddDep, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        record = self.args[e.arg - 1]
        literal = intern(e.literal)
        record.deps, record.dep_turns = added(record.deps, literal), added(record.dep_turns, turn)
        record.answer = None  # a kept answer that it rests on nothing no longer holds
        self.rev[literal] = added(self.rev.get(literal, NONE), record.id)
        self.rev_turns[literal] = added(self.rev_turns.get(literal, NONE), turn)

    def _add_explains(self, e: AddExplains, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        record = self.args[e.arg - 1]
        literal = intern(e.literal)
        record.explains, record.explain_turns = added(record.explains, literal), added(record.explain_turns, turn)

    def _add_attack(self, e: AddAttack, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        self.attacks.append((e.attacker, e.target, turn))
        self.attackers[e.target] = added(self.attackers.get(e.target, NONE), e.attacker)

    def _add_commitment(self, e: Commit, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        agent = intern(e.agent)
        self.committed.setdefault(agent, {})[e.arg] = None
        self.commit_events.append((turn, agent, e.arg, True))

    def _retract_commitment(self, e: RetractCommitment, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        del self.committed[e.agent][e.arg]
        self.commit_events.append((turn, e.agent, e.arg, False))

    def _dissent(self, e: Dissent, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        self.dissent.setdefault(e.arg, []).append(e.agent)

    def _problem(self, e: Problem, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        literal = intern(e.literal)
        if e.status == "open":
            self.open_problems[literal] = None
        else:
            del self.open_problems[literal]
        self.problem_events.append((turn, literal, e.status == "open"))

    def _model(self, e: Effect, turn: int, speaker: str, text: str, ops: Sequence) -> None:
        """What an operation does to M is carried out by the engine's world model."""

    # -- views as of a turn ------------------------------------------------------

    def visible(self, arg_id: int, t: int | None) -> bool:
        return t is None or self.args[arg_id - 1].turn <= t

    def in_standing(self, arg_id: int, t: int | None = None) -> bool:
        return self.args[arg_id - 1].standing_at(t) in GOOD_STANDING

    def claimants_at(self, literal: str, t: int | None) -> Sequence[int]:
        ids = self.claimants.get(literal, NONE)
        if t is None:
            return ids
        return [a for a in ids if self.args[a - 1].turn <= t]

    def attackers_at(self, arg_id: int, t: int | None) -> Sequence[int]:
        if t is None:
            return self.attackers.get(arg_id, NONE)
        return [a for a, b, turn in self.attacks if b == arg_id and turn <= t]

    def commitments_at(self, t: int | None) -> dict[str, list[int]]:
        if t is None:
            return {agent: list(ids) for agent, ids in self.committed.items()}
        result: dict[str, dict[int, None]] = {}
        for turn, agent, arg_id, added in self.commit_events:
            if turn > t:
                break
            ids = result.setdefault(agent, {})
            if added:
                ids[arg_id] = None
            else:
                ids.pop(arg_id, None)
        return {agent: list(ids) for agent, ids in result.items()}

    def open_problems_at(self, t: int | None) -> list[str]:
        if t is None:
            return list(self.open_problems)
        status: dict[str, bool] = {}
        for turn, literal, is_open in self.problem_events:
            if turn > t:
                break
            status.pop(literal, None)
            status[literal] = is_open
        return [lit for lit, is_open in status.items() if is_open]

    def props_at(self, t: int | None) -> list[PropRecord]:
        return [p for p in self.props.values() if t is None or p.turn is None or p.turn <= t]

    def argument_json(self, arg_id: int, t: int | None = None) -> dict[str, Any]:
        """One argument as of turn t in its JSON shape, the ``Argument`` model's (``argument`` validates it
        into the model), made without pydantic: the state's JSON lists every argument."""
        r = self.args[arg_id - 1]
        return {"id": r.id, "claim": r.claim, "speaker": r.speaker, "turn": r.turn, "kind": r.kind, "text": r.text,
                "standing": r.standing_at(t), "deps": list(r.deps_at(t)), "explains": list(r.explains_at(t)),
                "history": [{"turn": h[0], "standing": h[1], "cause": h[2]} for h in r.history
                            if t is None or h[0] <= t],
                "created_by": {"op": r.op, "index": r.op_index, "turn": r.turn, "speaker": r.speaker,
                               "utterance": r.utterance}}

    def argument(self, arg_id: int, t: int | None = None) -> Argument:
        """The public, typed view of one argument as of turn t."""
        from grounded.dmap.model import Argument

        return Argument.model_validate(self.argument_json(arg_id, t))

    def snapshot(self) -> dict:
        """Everything this state holds, as plain data: equal snapshots, equal states."""
        return {
            "agents": {n: {"role": a.role, "authority": a.authority} for n, a in self.agents.items()},
            "open_agents": self.open_agents,
            "props": {k: (p.text, p.kind, p.turn, p.aware_turn) for k, p in self.props.items()},
            "args": [
                (r.id, r.claim, r.kind, r.speaker, r.turn, r.text, r.op, r.op_index, r.utterance, r.standing,
                 list(r.history), list(r.deps), list(r.dep_turns), list(r.explains), list(r.explain_turns))
                for r in self.args
            ],
            "rev": {k: (list(v), list(self.rev_turns[k])) for k, v in self.rev.items()},
            "claimants": {k: list(v) for k, v in self.claimants.items()},
            "attacks": list(self.attacks),
            "committed": {k: list(v) for k, v in self.committed.items()},
            "commit_events": list(self.commit_events),
            "dissent": {k: list(v) for k, v in self.dissent.items()},
            "open_problems": list(self.open_problems),
            "problem_events": list(self.problem_events),
            "agent_turns": dict(self.agent_turns),
            "last_turn": self.last_turn,
        }

    # -- as plain data, for a snapshot (grounded.io.snapshot) ----------------------------

    def to_data(self) -> dict:
        """This state as plain data (lists, tuples, dicts, str, int, None); ``from_data`` with the
        same header gives it back, equal."""
        return {
            "agents": [[n, a.role, a.authority] for n, a in self.agents.items()],
            "props": [[p.id, p.text, p.kind, p.turn, p.aware_turn] for p in self.props.values()],
            "args": [[r.id, r.claim, r.kind, r.speaker, r.turn, r.text, r.op, r.op_index, r.utterance, r.standing,
                      list(r.history), list(r.deps), list(r.dep_turns), list(r.explains), list(r.explain_turns)]
                     for r in self.args],
            "rev": [[k, list(v), list(self.rev_turns[k])] for k, v in self.rev.items()],
            "attacks": self.attacks,
            "committed": [[k, list(v)] for k, v in self.committed.items()],
            "commit_events": list(self.commit_events),
            "dissent": [[k, v] for k, v in self.dissent.items()],
            "open_problems": list(self.open_problems),
            "problem_events": list(self.problem_events),
            "agent_turns": [[k, v] for k, v in self.agent_turns.items()],
            "last_turn": self.last_turn,
        }

    @classmethod
    def from_data(cls, header: Header | PlainHeader, data: dict) -> DependencyMap:
        """The state ``to_data`` wrote (for the same header).  Raises ValueError, KeyError or
        TypeError on data of another shape."""
        dm = cls(header)
        dm.agents = {n: AgentRecord(role, authority) for n, role, authority in data["agents"]}
        dm.props = {i: PropRecord(i, text, kind, turn, aware) for i, text, kind, turn, aware in data["props"]}
        args = dm.args
        claimants = dm.claimants
        for (i, claim, kind, speaker, turn, text, op, op_index, utterance, standing, history, deps, dep_turns,
             explains, explain_turns) in data["args"]:
            if i != len(args) + 1:
                raise ValueError(f"argument {i} out of order")
            args.append(ArgRecord(i, intern(claim), intern(kind), intern(speaker), turn, text, op, op_index,
                                  utterance, standing, changed(turn, [tuple(h) for h in history]), packed(deps),
                                  packed(dep_turns), packed(explains), packed(explain_turns)))
            claimants[claim] = added(claimants.get(claim, NONE), i)
        for k, ids, turns in data["rev"]:
            dm.rev[k] = packed(ids)
            dm.rev_turns[k] = packed(turns)
        dm.attacks = [(a, b, t) for a, b, t in data["attacks"]]
        for a, b, _ in dm.attacks:
            dm.attackers[b] = added(dm.attackers.get(b, NONE), a)
        dm.committed = {k: dict.fromkeys(v) for k, v in data["committed"]}
        dm.commit_events = Events("isib", ((t, g, a, bool(added)) for t, g, a, added in data["commit_events"]))
        dm.dissent = {int(k): v for k, v in data["dissent"]}
        dm.open_problems = dict.fromkeys(data["open_problems"])
        dm.problem_events = Events("isb", ((t, lit, bool(o)) for t, lit, o in data["problem_events"]))
        dm.agent_turns = dict(data["agent_turns"])
        dm.last_turn = data["last_turn"]
        return dm
