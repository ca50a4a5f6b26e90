"""Random utterance streams in a conversation with a world model.

After every utterance: W is never empty (an announcement the model rules out
is rejected), a declared actual world stays possible (announcements are
truthful), and a rejected utterance leaves M exactly as it was.  A log replays
into the same models turn by turn, and M at an earlier turn equals M of the
conversation cut there.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from grounded import Engine, PreconditionError

from .test_properties import HEADER, SPEAKERS, budget, ops_for

EPISTEMIC_CODES = {"hypothesize_not_surprising", "hypothesize_not_explanatory", "hypothesize_disbelieved",
                   "hypothesize_already_believed", "hypothesize_tautology", "hypothesize_restates"}

WORLD = {
    "atoms": ["x0", "x1", "x2"],
    "formulas": {"h0": "x0 | x1", "h1": "x2 & z", "h2": "K_alice x0", "h3": "~x1", "x3": "x0 -> x2",
                 "x4": "x1 ^ x2", "y0": "z", "h4": "B_bob x2"},
    "background": ["z -> x0", "latent -> ~x2"],
}


def header(actual: bool) -> dict:
    world = {**WORLD, "agents": {"alice": {"observes": ["x0"]}, "bob": {}, "carol": {"observes": ["x1", "z"]}}}
    if actual:
        world["actual"] = ["x0", "x2", "z"]
    return {**HEADER, "world": world}


def stream(data, engine: Engine, max_size: int = 25) -> list[dict]:
    accepted = []
    for _ in range(data.draw(st.integers(max_size // 3, max_size), label="length")):
        who = data.draw(st.sampled_from(SPEAKERS), label="speaker")
        size = data.draw(st.sampled_from([1, 1, 2, 3]), label="ops per utterance")
        ops = data.draw(st.lists(ops_for(engine.state), min_size=size, max_size=size), label="ops")
        model, frames = engine.model, len(engine.world.history)
        try:
            update = engine.apply({"speaker": who, "ops": ops})
        except PreconditionError as exc:
            assert engine.model is model and len(engine.world.history) == frames, "a rejection changed M"
            for code in exc.codes:
                if code.startswith("announce_") or code in EPISTEMIC_CODES:
                    event(f"rejected: {code}")
            continue
        accepted.append({"speaker": who, "ops": ops, "turn": update.turn})
        m = engine.model
        assert m.size >= 1, "W became empty"
        assert m.actual is None or m.actual_alive(), "the actual world was eliminated"
        assert update.worlds == (model.size, m.size)
        event("M changed" if m is not model else "M unchanged")
    return accepted


@pytest.mark.slow
@budget(25)
@given(data=st.data(), actual=st.booleans())
def test_m_stays_consistent_and_rejections_leave_it_alone(data, actual):
    engine = Engine(header(actual))
    stream(data, engine)
    engine.close()


@pytest.mark.slow
@budget(15)
@given(data=st.data())
def test_the_log_and_earlier_turns_give_the_same_models(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.jsonl"
        live = Engine(header(True), log=path)
        accepted = stream(data, live, max_size=15)
        live.close()
        loaded = Engine.load(path)
        turns = [-1] + [u["turn"] for u in accepted]
        for t in turns:
            assert loaded.worlds(at=t) == live.worlds(at=t)
            cut = Engine(header(True))
            for u in accepted:
                if u["turn"] <= t:
                    cut.apply(u)
            assert cut.worlds() == live.worlds(at=t)
            for agent in ("alice", "bob", "carol"):
                assert cut.model.ranks[agent].tolist() == live.model_at(t).ranks[agent].tolist()
            cut.close()
