"""The paper's conversations (the packaged scenarios phase2/phase3) replayed into engines: the tests' fixtures,
and the benchmarks' (bench/verifier.py), which run from the repository beside them."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from grounded.engine import Engine
from grounded.scenario import Scenario


def scenario(phase: int) -> Scenario:
    return Scenario.load(Path(str(resources.files("grounded.scenarios") / f"phase{phase}.yaml")))


def scenario_engine(phase: int, until: int | None = None) -> Engine:
    """An engine holding the gold conversation of a phase up to turn ``until`` (all of it when None)."""
    return replayed(scenario(phase), until)


def replayed(sc: Scenario, until: int | None = None) -> Engine:
    """An engine holding a scenario's gold turns up to turn ``until`` (all of them when None)."""
    engine = Engine(sc.header)
    for turn in sc.turns:
        if until is None or turn.turn <= until:
            engine.apply(turn.utterance())
    return engine
