"""Probing a log's states with generated utterances: preconditions held equal on both sides.

A log holds accepted utterances only, so the three-way check of a log never
sees a rejection: a twin (``op.lp``) that lacks one of its ``.pl``'s
preconditions agrees on every line.  Here the states a log goes through are
tried with candidate utterances of every operation, built from the literals
of that state (its claims, their negations, what Dep holds, its open
problems, one fresh name), and the engine (Prolog) and ``asp/history.lp``
must accept the same ones and reject the others with the same violation
codes; a candidate both accept must have the same transitions.

Bounded and repeatable: at most ``PROBE_STATES`` states (all of them for a
shorter log, else a seeded sample with the last state always in), and
``per_op`` candidates per operation and state, drawn with ``random.Random``
from the seed; the seed is printed, and ``--seed`` repeats a run.

The probe runs inside the check of the log (``Probing``, given to
crosscheck.check.check_history), and each probed state costs what its
candidates add, not a check of the log up to it:

* the engine side: when the check's replay reaches a probed state, the
  candidates are drawn from it and applied, one after the other, to a scratch
  engine holding that state, restored from its Python state as a snapshot is
  (the rules' facts made from it: ``Engine.take_state``), and with a world
  model, which the Python state does not hold, a fork of the check engine's
  (``ConversationModel.fork``: the models are shared, never changed in place);
* the ASP side: once the check's one-shot history is decided, each probed
  state's candidates are decided by one control seeded with the events the
  check decided up to that state, as a window of the one-shot history is
  seeded with the windows before it (solvers/history.py ``seeds_after``); the log
  is never grounded again.

A candidate's acceptance, violation codes, transitions and flagged claims are
compared as the check compares a log's utterance, and the first disagreement
of each state is a line of the report.  From ``APART_FROM`` utterances on,
the probed states' controls are grounded in a process of their own
(solvers/apart.py), so that the check's process does not keep what clingo
made for them; a process that ends without an answer is a line naming the
states it was deciding, never dropped.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import clingo
from pydantic import ValidationError

from grounded.core.bounds import MAX_TURN
from grounded.core.errors import InputError
from grounded.core.turns import assign_turn
from grounded.dmap.model import Header
from grounded.dmap.operations import OperationSpec
from grounded.dmap.state import DependencyMap
from grounded.engine import Engine
from grounded.solvers.apart import ApartFailed, headroom, run_apart
from grounded.solvers.history import HistoryAnswer, HistoryFacts, decide_seeded, read_answer, seeds_after
from grounded.solvers.ruleset import asp_twins

PROBE_STATES = 6
"""States probed per log: every one up to this many, a seeded sample above."""
PER_OP = 3
"""Candidate utterances per operation and probed state (``--probes``)."""
FRESH = "probe_fresh"
"""A literal no state holds: the candidates also try the operations on something unknown."""


@dataclass
class ProbeReport:
    seed: int
    states: list[int] = field(default_factory=list)
    """The probed states, as the number of log utterances before each (0: the empty state)."""
    probes: int = 0
    """Candidate utterances tried."""
    mismatches: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return f"probed {len(self.states)} states with {self.probes} candidate utterances (seed {self.seed})"

    def to_json(self) -> dict:
        return {"seed": self.seed, "states": self.states, "probes": self.probes, "mismatches": self.mismatches}


def default_seed(candidates: list[dict]) -> int:
    """A seed read off the history itself: the same log is probed the same way unless --seed says otherwise."""
    text = json.dumps(candidates, sort_keys=True, default=str).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:4], "big")


def pick_states(n: int, rng: random.Random, limit: int = PROBE_STATES) -> list[int]:
    """Which states to probe among the n + 1 a history of n utterances goes through (the last always)."""
    every = list(range(1, n + 1))
    if len(every) <= limit:
        return every
    return sorted({n, *rng.sample(every[:-1], limit - 1)})


def literal_pool(dm: DependencyMap) -> list[str]:
    """The literals a state offers a candidate: its claims, their negations, what Dep holds, open problems."""
    found = set(dm.claimants) | set(dm.rev) | set(dm.open_problems)
    found |= {p[1:] if p.startswith("-") else f"-{p}" for p in set(dm.claimants)}
    return sorted(found) + [FRESH]


def draw_operation(spec: OperationSpec, pool: list[str], rng: random.Random) -> dict[str, Any]:
    """One operation of ``spec`` with fields drawn from ``pool``: required ones always, optional ones half the time."""
    op: dict[str, Any] = {"op": spec.name}
    for f in spec.fields:
        if not f.required and rng.random() < 0.5:
            continue
        if f.type == "literal":
            op[f.name] = rng.choice(pool)
        elif f.type == "literals":
            op[f.name] = rng.sample(pool, min(len(pool), rng.randint(1 if f.required else 0, 2)))
        elif f.required:
            op[f.name] = "probe"
    return op


@dataclass
class ProbedState:
    """One probed state as the engine side left it, for the ASP side to decide."""

    k: int
    """The log utterances before it."""
    probes: list[dict]
    outcomes: list[Any]
    """What the engine did with each candidate (crosscheck.check's ``Outcome``)."""
    before: list[Any]
    """The ASP candidates of the log's first ``k`` utterances (``history.Candidate``)."""
    candidates: list[Any]
    """The candidates' own, numbered on from ``k + 1``."""
    facts: list[str]
    """The candidates' input facts and every literal's known at them, as text."""


Apply = Callable[[Engine, dict], Any]
"""How the check applies one utterance to an engine and what it keeps of the outcome."""


class Probing:
    """The probe of one check: ``take`` at each probed state of the check's replay, ``decide`` once the
    check's history is decided, ``found`` with the lines the check's comparison gave for a state."""

    def __init__(self, header: Header, candidates: list[dict], extensions=(), *, seed: int | None = None,
                 per_op: int = PER_OP, states: int = PROBE_STATES):
        self.report = ProbeReport(default_seed(candidates) if seed is None else seed)
        self._rng = random.Random(self.report.seed)
        self.report.states = pick_states(len(candidates), self._rng, states) if per_op > 0 else []
        self.wanted = set(self.report.states)
        self.header, self.extensions, self.per_op = header, tuple(extensions), per_op
        self.taken: list[ProbedState] = []

    def take(self, k: int, engine: Engine, facts: HistoryFacts, apply: Apply) -> None:
        """The state after the log's ``k``-th utterance, ``engine``'s now: draw its candidates and apply
        them to a scratch engine holding it (``facts``: the ASP input facts of the log so far)."""
        probes = self._draw(engine)
        self.report.probes += len(probes)
        if not probes:
            return
        fork = facts.fork()  # the facts as of this state, continued by the candidates alone
        before, known = list(fork.candidates), len(fork.literals)
        outcomes, added = [], []
        scratch = self._scratch(engine)
        try:
            for i, probe in enumerate(probes, k + 1):
                try:
                    outcomes.append(apply(scratch, probe))
                except InputError as exc:  # a candidate the engine refuses as malformed: no disagreement
                    self.report.mismatches.append(f"probes after utterance {k}: not run (utterance {i}: "
                                                  f"{exc.detail})")
                    return
                _, new = fork.add(scratch.registry.utterance(probe), probe["turn"], scratch.last_verdicts)
                added += new
        finally:
            scratch.close()
        text = [str(f.raw) for f in (*fork.literals[:known], *added)]
        self.taken.append(ProbedState(k, probes, outcomes, before, fork.candidates[k:], text))

    def _scratch(self, engine: Engine) -> Engine:
        """An engine holding ``engine``'s state and world model, copies that go on on their own (the log
        up to a state with a world model was replayed for each probed state: quadratic in the states)."""
        scratch = Engine(self.header, extensions=self.extensions)
        scratch.take_state(DependencyMap.from_data(engine.state.header, engine.state.to_data()),
                           None if engine.world is None else engine.world.fork())
        return scratch

    def _draw(self, engine: Engine) -> list[dict]:
        """The candidate utterances of ``engine``'s state: ``per_op`` of every operation with an ASP twin."""
        _, twinless = asp_twins(self.extensions)
        speakers = sorted(self.header.agents) or ["probe_agent"]
        specs = [s for name, s in sorted(engine.registry.specs.items()) if name not in twinless]
        pool = literal_pool(engine.state)
        turn = engine.state.last_turn
        probes = []
        for spec in specs:
            for _ in range(self.per_op):
                if turn is not None and turn >= MAX_TURN:  # no turn left after this state to try anything at
                    break
                turn = assign_turn(None, turn)
                probe = {"turn": turn, "speaker": self._rng.choice(speakers),
                         "ops": [draw_operation(spec, pool, self._rng)]}
                try:
                    engine.registry.utterance(probe)
                except (InputError, ValidationError):
                    continue
                probes.append(probe)
        return probes

    def decide(self, files: list[str], views: list[str], operations: tuple[str, ...], base: list[str],
               answer: HistoryAnswer, apart: bool) -> Iterator[tuple[ProbedState, HistoryAnswer]]:
        """ASP's answer on each probed state's candidates, from the check's ``answer`` up to that state
        (``files``, ``views``: the one-shot encoding's two stages; ``base``: the header's facts as text).
        With ``apart``, the states are grounded in a process of their own."""
        jobs = []
        for state in self.taken:
            k, step = state.k, state.before[-1].close_step
            archive = [a for a in answer.facts if not (a.name == "joined" and a.arguments[1].number > k)]
            jobs.append(([*base, *state.facts], list(map(str, seeds_after(state.before, archive))), step, k))
        try:
            shown = (run_apart(f"the ASP of the probed states {self.report.states}", decide_seeded, files,
                               views, operations, jobs) if apart else decide_seeded(files, views, operations, jobs))
        except ApartFailed as exc:  # its process ended without an answer (killed, the C library aborting)
            if exc.died and headroom() is not None:  # under --memory-limit: a memory-budget stop (budget.py)
                raise
            self.report.mismatches.extend(f"probes after utterance {s.k}: not completed ({type(exc).__name__}: "
                                          f"{exc})" for s in self.taken)
            return
        for state, texts, (*_, step, _) in zip(self.taken, shown, jobs, strict=True):
            new = read_answer([*state.before, *state.candidates], list(map(clingo.parse_term, texts)))
            ids = {s: i for s, i in answer.arg_id.items() if s <= step}  # the engine numbers on from these
            yield state, replace(new, candidates=state.candidates,
                                 arg_id={**ids, **{s: i + len(ids) for s, i in new.arg_id.items()}})

    def found(self, state: ProbedState, lines: list[str]) -> None:
        """The first disagreement on one of the state's candidates (the log's own lines are the check's)."""
        for line in lines:
            words = line.split(" ", 2)
            if words[0] == "utterance" and words[1].isdigit() and int(words[1]) > state.k:
                probe = state.probes[int(words[1]) - state.k - 1]
                self.report.mismatches.append(
                    f"probe {int(words[1]) - state.k} of the state after utterance {state.k} (seed "
                    f"{self.report.seed}): {line}; the candidate: {json.dumps(probe)}")
                return
