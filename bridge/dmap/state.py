"""The bridge's incremental copy of the dependency map D_t, with its history.

The Prolog rules decide every change; this module only applies the
transitions they report (``apply``), in the same order, and keeps what the
fast queries need:

* ``claimants``: literal -> arguments claiming it (the anchor lookup of Verify);
* ``rev``: literal -> arguments whose Dep contains it, the reverse dependency
  index that makes Affected* cost independent of conversation length;
* per argument, its standing history and the turn each Dep entry arrived.

Everything is append-only, in turn order, so the state as of an earlier turn
is a prefix of each list (found by bisection): that is how every query takes
``at=t`` without replaying anything.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from grounded.core.literals import prolog_atom, prolog_literal
from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.model import Agent, Argument, Header, Provenance, StandingChange

ACTIVE = "active"


@dataclass(slots=True)
class ArgRecord:
    """One argument.  ``standing`` is current; ``history`` has every change."""

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
    history: list[tuple[int, str, str | None]] = field(default_factory=list)
    deps: list[str] = field(default_factory=list)
    dep_turns: list[int] = field(default_factory=list)
    explains: list[str] = field(default_factory=list)
    explain_turns: list[int] = field(default_factory=list)

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

    def deps_at(self, t: int | None) -> list[str]:
        if t is None:
            return self.deps
        return self.deps[: bisect_right(self.dep_turns, t)]

    def explains_at(self, t: int | None) -> list[str]:
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

    def __init__(self, header: Header):
        self.header = header
        self.agents: dict[str, Agent] = dict(header.agents)
        self.open_agents = not header.agents
        self.acyclic = header.acyclic
        self.props: dict[str, PropRecord] = {
            p.id: PropRecord(p.id, p.text, p.kind, None, -1 if p.aware else None)
            for p in header.props
        }
        self.args: list[ArgRecord] = []
        self.claimants: dict[str, list[int]] = {}
        self.rev: dict[str, list[int]] = {}
        self.rev_turns: dict[str, list[int]] = {}
        self.attacks: list[tuple[int, int, int]] = []  # (attacker, target, turn)
        self.attackers: dict[int, list[int]] = {}
        self.committed: dict[str, dict[int, None]] = {}  # insertion-ordered sets
        self.commit_events: list[tuple[int, str, int, bool]] = []
        self.dissent: dict[int, list[str]] = {}
        self.open_problems: dict[str, None] = {}
        self.problem_events: list[tuple[int, str, bool]] = []
        self.agent_turns: dict[str, int] = {}
        self.last_turn: int | None = None
        self._handlers = {name[3:]: getattr(self, name) for name in dir(self) if name.startswith("_t_")}

    # -- lookups ---------------------------------------------------------------

    def arg(self, arg_id: int) -> ArgRecord:
        return self.args[arg_id - 1]

    def next_turn(self) -> int:
        return 1 if self.last_turn is None else self.last_turn + 1

    def __len__(self) -> int:
        return len(self.args)

    # -- applying the rules' transitions --------------------------------------

    def apply(self, transitions: list[tuple[int, str, list[str]]], turn: int, speaker: str,
              utterance_text: str, ops: list) -> None:
        """Apply what the rules reported for one accepted utterance, in order."""
        handlers = self._handlers
        for index, name, fields in transitions:
            handlers[name](turn, speaker, utterance_text, ops, index, *fields)

    def _t_turn(self, turn, speaker, text, ops, index, t):
        self.last_turn = int(t)

    def _t_new_agent(self, turn, speaker, text, ops, index, name):
        self.agents[name] = Agent()
        self.agent_turns[name] = turn

    def _t_new_prop(self, turn, speaker, text, ops, index, atom, kind):
        self.props[atom] = PropRecord(atom, getattr(ops[index], "text", ""), kind, turn, None)

    def _t_aware(self, turn, speaker, text, ops, index, atom):
        self.props[atom].aware_turn = turn

    def _t_new_arg(self, turn, speaker, text, ops, index, arg_id, claim, kind):
        op = ops[index]
        record = ArgRecord(int(arg_id), claim, kind, speaker, turn, getattr(op, "text", "") or "",
                           op.op, index, text, history=[(turn, ACTIVE, None)])
        if record.id != len(self.args) + 1:
            raise AssertionError(f"rules allocated argument {record.id}, bridge expected {len(self.args) + 1}")
        self.args.append(record)
        self.claimants.setdefault(claim, []).append(record.id)

    def _t_set_standing(self, turn, speaker, text, ops, index, arg_id, standing, cause):
        record = self.args[int(arg_id) - 1]
        record.standing = standing
        record.history.append((turn, standing, cause or None))

    def _t_add_dep(self, turn, speaker, text, ops, index, arg_id, literal):
        record = self.args[int(arg_id) - 1]
        record.deps.append(literal)
        record.dep_turns.append(turn)
        self.rev.setdefault(literal, []).append(record.id)
        self.rev_turns.setdefault(literal, []).append(turn)

    def _t_add_explains(self, turn, speaker, text, ops, index, arg_id, literal):
        record = self.args[int(arg_id) - 1]
        record.explains.append(literal)
        record.explain_turns.append(turn)

    def _t_add_attack(self, turn, speaker, text, ops, index, attacker, target):
        a, b = int(attacker), int(target)
        self.attacks.append((a, b, turn))
        self.attackers.setdefault(b, []).append(a)

    def _t_commit(self, turn, speaker, text, ops, index, agent, arg_id):
        self.committed.setdefault(agent, {})[int(arg_id)] = None
        self.commit_events.append((turn, agent, int(arg_id), True))

    def _t_retract_commitment(self, turn, speaker, text, ops, index, agent, arg_id):
        del self.committed[agent][int(arg_id)]
        self.commit_events.append((turn, agent, int(arg_id), False))

    def _t_dissent(self, turn, speaker, text, ops, index, arg_id, agent):
        self.dissent.setdefault(int(arg_id), []).append(agent)

    def _t_problem(self, turn, speaker, text, ops, index, literal, status):
        if status == "open":
            self.open_problems[literal] = None
        else:
            del self.open_problems[literal]
        self.problem_events.append((turn, literal, status == "open"))

    # -- views as of a turn ------------------------------------------------------

    def visible(self, arg_id: int, t: int | None) -> bool:
        return t is None or self.args[arg_id - 1].turn <= t

    def in_standing(self, arg_id: int, t: int | None = None) -> bool:
        return self.args[arg_id - 1].standing_at(t) in GOOD_STANDING

    def claimants_at(self, literal: str, t: int | None) -> list[int]:
        ids = self.claimants.get(literal, [])
        if t is None:
            return ids
        return [a for a in ids if self.args[a - 1].turn <= t]

    def attackers_at(self, arg_id: int, t: int | None) -> list[int]:
        if t is None:
            return self.attackers.get(arg_id, [])
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

    def argument(self, arg_id: int, t: int | None = None) -> Argument:
        """The public, typed view of one argument as of turn t."""
        r = self.args[arg_id - 1]
        history = [h for h in r.history if t is None or h[0] <= t]
        return Argument(
            id=r.id, claim=r.claim, speaker=r.speaker, turn=r.turn, kind=r.kind, text=r.text,
            standing=r.standing_at(t), deps=list(r.deps_at(t)), explains=list(r.explains_at(t)),
            history=[StandingChange(turn=h[0], standing=h[1], cause=h[2]) for h in history],
            created_by=Provenance(op=r.op, index=r.op_index, turn=r.turn, speaker=r.speaker,
                                  utterance=r.utterance),
        )

    # -- the same state as Prolog facts ----------------------------------------

    def prolog_facts(self) -> str:
        """The Prolog rules' view of this state: what ``grounded.pl`` declares dynamic."""
        q, lit = prolog_atom, prolog_literal
        facts = [f"agent({q(name)},{str(a.authority).lower()})" for name, a in self.agents.items()]
        if self.open_agents:
            facts.append("open_agents")
        if self.acyclic:
            facts.append("option(acyclic_attacks)")
        if self.header.world is not None:
            facts.append("option(world_model)")
        for p in self.props.values():
            facts.append(f"prop({q(p.id)},{q(p.kind)})")
            if p.aware_turn is not None:
                facts.append(f"aware({q(p.id)})")
        for r in self.args:
            facts.append(f"argument({r.id},{lit(r.claim)},{q(r.kind)},{q(r.speaker)},{r.turn})")
            turn, standing, cause = r.history[-1]
            cause_term = f"by({lit(cause)})" if cause else "none"
            facts.append(f"standing({r.id},{q(standing)},{turn},{cause_term})")
            facts.extend(f"dep({r.id},{lit(d)})" for d in r.deps)
            facts.extend(f"explains({r.id},{lit(x)})" for x in r.explains)
        facts.extend(f"att({a},{b})" for a, b, _ in self.attacks)
        for agent, ids in self.committed.items():
            facts.extend(f"committed({q(agent)},{i})" for i in ids)
        for arg_id, agents in self.dissent.items():
            facts.extend(f"dissent({arg_id},{q(agent)})" for agent in agents)
        facts.extend(f"open_problem({lit(p)})" for p in self.open_problems)
        if self.last_turn is not None:
            facts.append(f"last_turn({self.last_turn})")
        facts.append(f"arg_count({len(self.args)})")
        return "[" + ",".join(facts) + "]"

    def snapshot(self) -> dict:
        """Everything this state holds, as plain data: equal snapshots, equal states."""
        return {
            "agents": {n: a.model_dump() for n, a in self.agents.items()},
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
