"""What if: a hypothetical utterance, answered from a scratch engine; the asking engine is untouched.

After every whatif the engine's log has the same bytes, its state the same
snapshot, the rules the same facts and its world model the same history, and
its next real utterance does exactly what it would have done without the
question.  The answer equals applying the utterance to the conversation cut
at that turn.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine, PreconditionError
from grounded.dmap.effects import SetStanding
from grounded.scenario import Scenario, run

from .test_properties import HEADER, SPEAKERS, budget, draw_stream, ops_for

ROOT = Path(__file__).resolve().parents[1]


def phase2_logged(path: Path) -> Engine:
    scenario = Scenario.load(ROOT / "scenarios" / "phase2.yaml")
    engine = Engine(scenario.header, log=path)
    for _ in run(scenario, engine):
        pass
    return engine


def fingerprint(engine: Engine, log: Path) -> tuple:
    world = engine.world
    return (log.read_bytes(), engine.snapshot(), engine.prolog_state(),
            None if world is None else ([(t, m.size, id(m)) for t, m in world.history], dict(world.first_seen)))


def test_whatif_leaves_the_engine_and_its_log_untouched(tmp_path):
    log = tmp_path / "talk.jsonl"
    engine = phase2_logged(log)
    before = fingerprint(engine, log)
    w = engine.whatif({"speaker": "bob", "ops": [{"op": "revise", "target": "o5", "by": "o9"}]}, at=12)
    assert w.accepted and w.turn == 13 and w.at == 12
    assert w.flagged == {"o5": ["h3", "h4"]}  # h1 rests on o5 only from T13 on
    assert SetStanding(0, 5, "abandoned", "o9") in w.update.effects
    assert w.engine.standing("o5") == "abandoned" and engine.standing("o5") == "active"
    assert fingerprint(engine, log) == before
    # rejected: the violations, and still nothing changed
    w = engine.whatif({"speaker": "bob", "ops": [{"op": "support", "target": "h2", "by": "o8"}]})
    assert not w.accepted and w.codes == ["support_target_abandoned"] and w.turn == 14
    assert "h2 is abandoned at T9 by o9" in w.violations[0].message
    assert fingerprint(engine, log) == before
    # the engine goes on as if nothing had been asked
    nxt = {"speaker": "carol", "ops": [{"op": "observe", "claim": "o11", "text": "Redis recovers."}]}
    update = engine.apply(nxt)
    control = phase2_logged(tmp_path / "control.jsonl")
    assert control.apply(nxt).effects == update.effects
    assert control.snapshot() == engine.snapshot() and control.prolog_state() == engine.prolog_state()
    assert log.read_bytes() == (tmp_path / "control.jsonl").read_bytes()
    engine.close()
    control.close()


@budget(15)
@given(data=st.data())
def test_whatif_equals_the_conversation_cut_there_and_changes_nothing(data):
    engine = Engine(HEADER)
    accepted = draw_stream(data, engine, max_size=12)
    before = (engine.snapshot(), engine.prolog_state())
    at = data.draw(st.none() | st.integers(0, engine.turn or 0), label="at")
    ops = data.draw(st.lists(ops_for(engine.state), min_size=1, max_size=2), label="ops")
    utterance = {"speaker": data.draw(st.sampled_from(SPEAKERS), label="speaker"), "ops": ops}
    w = engine.whatif(utterance, at=at)
    assert (engine.snapshot(), engine.prolog_state()) == before
    cut = Engine(HEADER)
    for u in accepted:
        if at is None or u["turn"] <= at:
            cut.apply(u)
    try:
        update = cut.apply(utterance)
    except PreconditionError as exc:
        assert not w.accepted and w.codes == exc.codes
    else:
        assert w.accepted and w.update.effects == update.effects
        assert w.engine.snapshot() == cut.snapshot()
    engine.close()
    cut.close()


@pytest.mark.slow
def test_whatif_command(tmp_path):
    def whatif(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "grounded", "whatif", "scenarios/phase2.yaml", *args],
                              capture_output=True, text=True, cwd=ROOT, timeout=120)

    r = whatif("--at", "12", "--json", "-u",
               json.dumps({"speaker": "bob", "ops": [{"op": "revise", "target": "o5", "by": "o9"}]}))
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout)
    assert answer["accepted"] and answer["turn"] == 13 and answer["flagged"] == {"o5": ["h3", "h4"]}
    assert "o5 abandoned by o9" in answer["changes"]
    r = whatif("-u", json.dumps({"speaker": "bob", "ops": [{"op": "support", "target": "h2", "by": "o8"}]}))
    assert r.returncode == 1 and "support_target_abandoned" in r.stdout and "nothing is recorded" in r.stdout


def test_whatif_command_refuses_bad_json(monkeypatch, capsys):
    from grounded.cli import main

    monkeypatch.setattr(sys, "argv", ["grounded", "whatif", str(ROOT / "scenarios" / "phase2.yaml"),
                                      "-u", '{"speaker": "bob"'])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith("error: --utterance: invalid JSON at column 18")
