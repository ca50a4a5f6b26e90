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
from the seed; the seed is printed, and ``--seed`` repeats a run.  Each state
costs one three-way check of the log up to that state plus its candidates,
so the probing costs at most ``PROBE_STATES`` checks of the log.

A log of ``APART_FROM`` utterances or more has each probed check run in a
process of its own, one after the other (solvers/apart.py): its memory goes
back to the system when it ends, so the probe adds no probed check's peak to
the main check's (issue 23: the last probed state is the whole log).  A probed
check whose process ends without an answer (killed, the C library aborting)
is a line of the report naming the state it probed, never dropped; one that
runs out of the check's memory budget stops the check, as the main check would.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from grounded.core.bounds import MAX_TURN
from grounded.core.errors import InputError, PreconditionError
from grounded.core.turns import assign_turn
from grounded.dmap.model import Header
from grounded.dmap.operations import OperationSpec
from grounded.dmap.state import DependencyMap
from grounded.engine import Engine
from grounded.solvers.apart import APART_FROM, ApartFailed, give_back, run_apart
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


def probe_history(header: Header, candidates: list[dict], check_history: Callable[..., Any], extensions=(), *,
                  seed: int | None = None, per_op: int = PER_OP, states: int = PROBE_STATES,
                  asp_overrides: Mapping[str, str] | None = None, apart: bool | None = None) -> ProbeReport:
    """Probe the states ``candidates`` (a log's utterances) go through; the first disagreement of each state.

    ``check_history`` is crosscheck.check's (passed in: that module calls this one); with
    ``apart`` (by default for ``APART_FROM`` utterances or more) each probed check runs in a
    process of its own, so ``check_history`` is then a module-level function."""
    report = ProbeReport(default_seed(candidates) if seed is None else seed)
    rng = random.Random(report.seed)
    report.states = pick_states(len(candidates), rng, states)
    if per_op <= 0 or not report.states:
        report.states = []
        return report
    apart = len(candidates) >= APART_FROM if apart is None else apart
    drawn = _draw(header, candidates, set(report.states), extensions, per_op, rng)
    if apart:
        give_back()  # the main check's and the drawing engine's memory, before the probed checks' processes
    for k, probes in drawn:
        report.probes += len(probes)
        _probe_state(report, header, candidates[:k], probes, extensions, asp_overrides, check_history, apart)
    return report


def _draw(header: Header, candidates: list[dict], wanted: set[int], extensions, per_op: int,
          rng: random.Random) -> list[tuple[int, list[dict]]]:
    """The candidate utterances of each wanted state (by its number of log utterances before it).

    All drawn first, by one engine that replays the log once and is released
    before any probed check runs: a probed check of the whole log then does not
    share the process with a second engine holding the whole log (issue 23: the
    probe was the check's peak on argument-heavy logs)."""
    _, twinless = asp_twins(extensions)
    speakers = sorted(header.agents) or ["probe_agent"]
    drawn: list[tuple[int, list[dict]]] = []
    with Engine(header, extensions=extensions) as engine:
        specs = [s for name, s in sorted(engine.registry.specs.items()) if name not in twinless]
        for k, data in enumerate(candidates, 1):
            try:
                engine.apply(data)
            except PreconditionError:  # a scenario's rejected turn: the state is as it was
                pass
            if k not in wanted:
                continue
            pool = literal_pool(engine.state)
            turn = engine.state.last_turn
            probes = []
            for spec in specs:
                for _ in range(per_op):
                    if turn is not None and turn >= MAX_TURN:  # no turn left after this state to try anything at
                        break
                    turn = assign_turn(None, turn)
                    probe = {"turn": turn, "speaker": rng.choice(speakers), "ops": [draw_operation(spec, pool, rng)]}
                    try:
                        engine.registry.utterance(probe)
                    except (InputError, ValidationError):
                        continue
                    probes.append(probe)
            drawn.append((k, probes))
    return drawn


def _probe_state(report: ProbeReport, header: Header, prefix: list[dict], probes: list[dict], extensions,
                 asp_overrides, check_history, apart: bool) -> None:
    """The first disagreement on a candidate (the log's own lines are the main check's business)."""
    if not probes:
        return
    k = len(prefix)
    arguments = (check_history, header, prefix + probes, tuple(extensions), asp_overrides)
    try:
        found = (run_apart(f"the probed check of the state after utterance {k}", probed_check, *arguments)
                 if apart else probed_check(*arguments))
    except InputError as exc:  # a candidate the engine refuses as malformed: say so, it is no disagreement
        report.mismatches.append(f"probes after utterance {k}: not run ({exc.detail})")
        return
    except ApartFailed as exc:  # its process ended without an answer (killed, the C library aborting)
        report.mismatches.append(f"probes after utterance {k}: not completed ({type(exc).__name__}: {exc})")
        return
    except MemoryError as exc:  # past the check's memory budget: the check stops there (budget.py), saying where
        raise MemoryError(f"the probed check of the state after utterance {k}: {exc}") from exc
    for line in found:
        words = line.split(" ", 2)
        if words[0] == "utterance" and words[1].isdigit() and int(words[1]) > k:
            probe = probes[int(words[1]) - k - 1]
            report.mismatches.append(
                f"probe {int(words[1]) - k} of the state after utterance {k} (seed {report.seed}): {line}; "
                f"the candidate: {json.dumps(probe)}")
            return


def probed_check(check_history: Callable[..., Any], header: Header, candidates: list[dict], extensions: tuple,
                 asp_overrides: Mapping[str, str] | None) -> list[str]:
    """One probed check, as the lines it found: all a probed state's report needs (plain data, so that it
    comes back from a process of its own)."""
    return list(check_history(header, candidates, extensions, label="probe", asp_overrides=asp_overrides).mismatches)
