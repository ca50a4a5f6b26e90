"""Histories drawn until every transition an operation declares has fired.

Each operation file declares the transitions it can emit on the map
(``transition(Op, T)``: an effect's name, or ``set_standing(From, To)``).  A
bug the rules and their ASP twin share -- an effect forgotten in both files
alike -- passes the three-way check, since the two agree; it shows here as a
declared transition that never fires.  Histories are random conversations of
well-formed operations of every kind the engine knows (built in and the
extensions given), drawn from each operation's own field list, with the
operation under test drawn more often; every standing change any operation
emits is checked against what that operation declares (an operation that
says it abandons must abandon, and do nothing else to standing).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from grounded import Engine, InputError, PreconditionError
from grounded.dmap.effects import NewArg, SetStanding
from grounded.dmap.operations import OperationSpec
from grounded.solvers.prolog import PrologRules

HEADER = {
    "agents": {"alice": {"authority": True}, "bob": {}, "carol": {}},
    "props": [{"id": "latent", "aware": False}, {"id": "x4", "kind": "assumption"}],
}
SPEAKERS = ["alice", "bob", "carol"]
ATOMS = ["x0", "x1", "h0", "h1", "h2", "latent"]
RETRIES = 8
DRIVER_EFFECTS = {"problem", "new_agent", "turn"}
"""The driver's own effects (admission, open problems): no operation declares them."""

Transition = str | tuple[str, str, str]


def declared_transitions() -> dict[str, set[Transition]]:
    """Operation -> the transitions it declares, as the loaded rules hold them."""
    out: dict[str, set[Transition]] = {}
    for _, op, t in PrologRules.get().request(("transitions",)):
        out.setdefault(op, set()).add(t if isinstance(t, str) else tuple(t))
    return out


def shown(t: Transition) -> str:
    return t if isinstance(t, str) else f"{t[0]}({t[1]}, {t[2]})"


@dataclass
class Coverage:
    """What one run of histories saw."""

    op: str
    declared: set[Transition]
    fired: set[Transition] = field(default_factory=set)
    undeclared: list[str] = field(default_factory=list)
    utterances: int = 0

    def problems(self) -> list[str]:
        never = sorted(shown(t) for t in self.declared - self.fired)
        out = [f"{self.op} never emitted {t} (declared by transition({self.op}, {t})) in "
               f"{self.utterances} utterances" for t in never]
        if not self.declared:
            out.append(f"{self.op} declares no transition/2: declare what it does to the map")
        return out + self.undeclared


class Drawer:
    """Operations drawn from their field lists against the engine's current map."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.fresh = 0

    def literal(self, engine: Engine, name: str) -> str:
        rng, dm = self.rng, engine.state
        claimed = sorted(dm.claimants)
        if name == "explains" and dm.open_problems and rng.random() < 0.8:
            return rng.choice(sorted(dm.open_problems))
        if name in ("deps", "assumptions") and rng.random() < 0.8:
            return rng.choice(sorted(dm.props) or ATOMS)
        if name == "claim" and rng.random() < 0.7:
            if rng.random() < 0.2:
                self.fresh += 1
                return f"n{self.fresh}"
            atom = rng.choice(ATOMS)
            return atom if rng.random() < 0.8 else f"-{atom}"
        if claimed and rng.random() < 0.85:  # a claim, its kind drawn first: the few hypotheses come up too
            by_kind: dict[str, list[str]] = {}
            for literal in claimed:
                by_kind.setdefault(dm.args[dm.claimants[literal][-1] - 1].kind, []).append(literal)
            return rng.choice(by_kind[rng.choice(sorted(by_kind))])
        return rng.choice(ATOMS)

    def operation(self, engine: Engine, spec: OperationSpec) -> dict:
        op: dict = {"op": spec.name}
        for f in spec.fields:
            if f.type == "text" or (not f.required and self.rng.random() < 0.5):
                continue
            if f.type == "literals":
                n = self.rng.randint(1 if f.required else 0, 2)
                op[f.name] = list(dict.fromkeys(self.literal(engine, f.name) for _ in range(n)))
            else:
                op[f.name] = self.literal(engine, f.name)
        return op


def cover(op: str, extensions: Iterable[str | Path] = (), *, seed: int = 0, histories: int = 400,
          length: int = 30, seconds: float = 60.0) -> Coverage:
    """Draw histories (at most ``histories`` of ``length`` utterances, and ``seconds``) until every
    transition ``op`` declares has fired; check every standing change against its operation's
    declaration on the way."""
    rng = random.Random(seed)
    drawer = Drawer(rng)
    extensions = tuple(extensions)
    coverage: Coverage | None = None
    deadline = time.monotonic() + seconds
    for _ in range(histories):
        engine = Engine(HEADER, extensions=extensions)
        if coverage is None:
            declared = declared_transitions()
            coverage = Coverage(op, declared.get(op, set()))
            specs = list(engine.registry.specs.values())
            target = engine.registry.specs[op]
        # swarm testing: each history draws from its own subset of the operations, so that
        # some histories are dense in what a demanding operation needs (say, hypotheses)
        swarm = [s for s in specs if rng.random() < 0.5] or specs
        voices = rng.sample(SPEAKERS, rng.randint(1, len(SPEAKERS)))  # and its own speakers
        standing: dict[int, str] = {}
        for turn in range(length):
            # the first third of a history sets the scene, then the operation under test comes
            # one turn in two, else any; each redrawn until its preconditions hold (a few tries)
            spec = target if turn >= length // 3 and rng.random() < 0.5 else rng.choice(swarm)
            for _ in range(RETRIES):
                ops = [drawer.operation(engine, spec)]
                try:
                    update = engine.apply({"speaker": rng.choice(voices), "ops": ops})
                    break
                except (PreconditionError, InputError):
                    continue
            else:
                continue
            coverage.utterances += 1
            for e in update.effects:
                if e.name in DRIVER_EFFECTS:
                    continue
                name = ops[e.index]["op"]
                t: Transition = e.name
                if isinstance(e, SetStanding):
                    t = ("set_standing", standing[e.arg], e.standing)
                    standing[e.arg] = e.standing
                    if t not in declared.get(name, set()):
                        coverage.undeclared.append(
                            f"{name} emitted {shown(t)} at T{update.turn} (argument {e.arg}), which it does not "
                            f"declare: its standing diagram is {sorted(map(shown, declared.get(name, set())))}")
                elif isinstance(e, NewArg):
                    standing[e.arg] = "active"
                if name == op:
                    coverage.fired.add(t)
        if coverage.fired >= coverage.declared or time.monotonic() > deadline:
            break
    assert coverage is not None
    return coverage
