"""The hand-written walk against the ASP reference encoding (asp/queries.lp)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine
from grounded.queries.affected import affected
from grounded.queries.verify import verify

from .asp_oracle import ask
from .test_properties import HEADER, budget, dependency_maps, draw_stream


def agree(dm, literal):
    answer = ask(dm, literal)
    v = verify(dm, literal)
    assert v.grounded == answer["verified"]
    if v.grounded:
        assert set(v.arguments) <= answer["grounded"]
    assert set(affected(dm, literal, closure=False).arguments) == answer["affected_one"]
    star = affected(dm, literal)
    assert set(star.arguments) == answer["affected"]
    assert dict(zip(star.arguments, star.hops, strict=True)) == answer["hop"]


@pytest.mark.slow
@budget(150)
@given(case=dependency_maps())
def test_python_equals_asp_on_maps_with_cycles(case):
    dm, k = case
    for c in range(k + 1):
        agree(dm, f"c{c}")


@pytest.mark.slow
@budget(25)
@given(data=st.data())
def test_python_equals_asp_on_engine_histories(data):
    engine = Engine(HEADER)
    draw_stream(data, engine)
    for literal in set(engine.state.claimants) | set(engine.state.rev):
        agree(engine.state, literal)
    engine.close()


def test_phase2_retractions_in_asp():
    from pathlib import Path

    from grounded.scenario import Scenario, run

    scenario = Scenario.load(Path(__file__).resolve().parent.parent / "scenarios" / "phase2.yaml")
    engine = Engine(scenario.header)
    list(run(scenario, engine))
    claims = {a: engine.state.arg(a).claim for a in range(1, len(engine.state.args) + 1)}
    assert {claims[a] for a in ask(engine.state, "o5")["affected"]} == {"h3", "h4", "h1"}
    assert {claims[a] for a in ask(engine.state, "o5")["affected_one"]} == {"h3"}
    assert not ask(engine.state, "h2")["verified"] and ask(engine.state, "h1")["verified"]
