"""The muddy children: the muddy ones know in round m, for every n and m tried."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from grounded.epistemic.semantics import truth
from grounded.epistemic.updates import announce

from .kripke import KripkeModel
from .muddy import father, knows_own, muddy, muddy_model, nobody_knows

SMALL = [(n, m) for n in range(1, 7) for m in range(1, n + 1)]


@pytest.mark.parametrize("n,m", SMALL + [(10, 3), (12, 7), pytest.param(20, 2, marks=pytest.mark.slow)])
def test_the_muddy_children_know_in_round_m_and_the_clean_ones_one_round_later(n, m):
    run = muddy(n, m)
    assert run.rounds == m
    assert not run.clean_know_early and run.clean_know_next
    # W: all 2^n worlds; the father removes one; round k removes the worlds with exactly k muddy
    assert run.sizes == [2 ** n, 2 ** n - 1] + [sum(comb(n, j) for j in range(k + 1, n + 1)) for k in range(1, m)]


@pytest.mark.parametrize("n", [3, 4])
def test_the_kripke_evaluator_tells_the_same_story(n):
    fast = muddy_model(n, 2)
    worlds = fast.worlds()
    cells = {g: list(fast.cells[g]) for g in fast.agents}
    ranks = {g: [0] * len(worlds) for g in fast.agents}
    slow = KripkeModel.from_spec(worlds, cells, ranks)
    steps = [father(n)] + [nobody_knows(n)] * (n - 1)
    for f in steps:
        fast, slow = announce(fast, f), slow.announce(f)
        for i in range(1, n + 1):
            got = {int(w) for w in np.flatnonzero(fast.alive & truth(fast, knows_own(i)))}
            assert got == slow.truth(knows_own(i))


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError):
        muddy_model(0, 0)
    with pytest.raises(ValueError):
        muddy(3, 0)


def test_the_readme_states_the_world_counts_grounded_run_prints():
    """The README and docs/epistemic.md quote |W| per turn of Phase 1: they must be what `grounded run` prints."""
    import re
    from pathlib import Path

    from grounded.engine import Engine
    from grounded.scenario import Scenario, run

    scenario = Scenario.load(Path(__file__).parents[1] / "scenarios" / "phase1.yaml")
    engine = Engine(scenario.header)
    for _ in run(scenario, engine):
        pass
    counts = [len(engine.worlds(at=t)) for t in [-1, *range(1, engine.turn + 1)]]
    quoted = f"|W| = {counts[0]} before the first turn, then {', '.join(map(str, counts[1:]))})"
    for doc in ("README.md", "docs/epistemic.md"):
        text = re.sub(r"\s+", " ", (Path(__file__).parents[1] / doc).read_text())
        assert quoted in text, f"{doc} does not say {quoted!r}"
