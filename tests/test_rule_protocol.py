"""The typed protocol between the rules and Python (issue 9 item 3).

Effects and violations come back as frozen dataclasses read through the
foreign interface; engines keep their own state in the rule base without ever
reloading it; with a world model the rules run once per utterance and call the
model back; an utterance the bridge cannot record leaves the rules as they were.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from grounded import Engine, PreconditionError
from grounded.dmap.effects import (
    AddAttack,
    Announce,
    Commit,
    NewArg,
    Problem,
    Refine,
    RetractCommitment,
    SetStanding,
    Turn,
)
from grounded.engine.world import ConversationModel

from .conftest import TEAM, hyp, obs, say
from .frames import rules_requests
from .test_abduction import SEEN, tell
from .test_abduction import hyp as abduction_hyp
from .test_abduction import world as abduction_world
from .test_epistemic_engine import DEBUG


def test_effects_come_back_typed_and_exact(team):
    say(team, "carol", obs("o1"), obs("o2"))
    say(team, "bob", hyp("h1", ["o1"], ["o2"]))
    update = say(team, "carol", {"op": "revise", "target": "o1", "by": "-o2"} | {"by": "o2"})
    assert update.effects[0] == Turn(-1, 3)
    assert SetStanding(0, 1, "abandoned", "o2") in update.effects
    assert AddAttack(0, 2, 1) in update.effects and RetractCommitment(0, "carol", 1) in update.effects
    assert update.left == ("o1",) and update.flagged == {"o1": ["h1"]}
    with pytest.raises(dataclasses.FrozenInstanceError):
        update.effects[0].turn = 9  # type: ignore[misc]
    update = say(team, "bob", obs("-o1"))
    (new,) = update.of(NewArg)
    assert new == NewArg(0, 4, "-o1", "observation") and update.of(Commit) == [Commit(0, "bob", 4)]
    assert [(p.literal, p.status) for p in update.of(Problem)] == [("-o1", "open")]
    with pytest.raises(PreconditionError) as info:
        say(team, "bob", {"op": "support", "target": "zz", "by": "none"})
    assert [(v.index, v.op, v.code) for v in info.value.violations] == [
        (0, "support", "support_target_unknown"), (0, "support", "support_by_unknown")]
    assert info.value.violations[1].message == "evidence none is not claimed by any argument: Observe it first"


def test_a_cause_none_and_a_literal_named_none_stay_apart():
    e = Engine()
    say(e, "a", obs("none"), obs("o1"))
    update = say(e, "a", {"op": "revise", "target": "o1", "by": "none"}, {"op": "revise", "target": "none"})
    assert update.of(SetStanding) == [SetStanding(0, 2, "abandoned", "none"), SetStanding(1, 1, "abandoned", None)]
    assert str(e.state.note("o1")) == "abandoned at T2 by none" and str(e.state.note("none")) == "abandoned at T2"


def test_interleaved_engines_never_reload_their_state(monkeypatch):
    a, b = Engine(TEAM), Engine(TEAM)
    for i in range(30):
        say(a, "carol", obs(f"o{i}"))
    requests = rules_requests(monkeypatch)
    for i in range(30):
        say(b, "carol", obs(f"p{i}"))
        say(a, "bob", hyp(f"h{i}", [f"o{i}"], [f"o{i}"]))
    # one request per utterance, nothing moved between engines; b's state enters the rules at its first
    # utterance (an engine starts its rule base when first asked: Engine._rule_base)
    assert requests == ["new_state"] + ["apply"] * 60
    assert len(a.state.args) == 60 and len(b.state.args) == 30
    assert not any("o1" in fact for fact in b.prolog_state())


def test_with_a_world_model_the_rules_run_once_per_utterance(monkeypatch):
    """No dry run: the rules ask the world model about each operation as they decide it."""
    e = abduction_world()
    tell(e, *SEEN)
    requests = rules_requests(monkeypatch)
    with pytest.raises(PreconditionError, match="hypothesize_not_explanatory"):
        tell(e, "ann", [abduction_hyp("h_cloud")])
    assert e.last_verdicts[0][0] == ("agent", "ann")
    tell(e, "ann", [abduction_hyp("h_rain")])
    assert requests == ["apply", "apply"]


def test_a_latent_atom_named_by_a_later_operation_enters_before_anything_is_read():
    """The model is prepared for the whole utterance, as a reading of all its operations at
    once would: here the second operation brings `mis` in (and its constraint mis -> ~y)."""
    e = Engine(DEBUG)
    update = say(e, "bob", obs("ox"), {"op": "expand_awareness", "claim": "mis"})
    assert update.of(Refine) == [Refine(1, "mis")] and [a.literal for a in update.of(Announce)] == ["ox", "mis"]
    header = e.header
    world = ConversationModel(header.world, list(header.agents), ["mis"])
    frame = world.prepare(world.current, ["ox", "mis", "mis"])
    masks = world.masks(frame, ["ox", "mis"])
    for effects in ([Announce(0, "ox")], [Refine(1, "mis"), Announce(1, "mis")]):
        frame = world.run(frame, effects, masks)
    assert e.model.atoms == frame.model.atoms
    assert np.array_equal(e.model.alive, frame.model.alive) and np.array_equal(e.model.val, frame.model.val)
    assert update.model_updates == frame.applied == ("!ox", "!mis")


def test_an_utterance_the_log_cannot_take_leaves_the_rules_as_they_were(tmp_path):
    """The bridge records an accepted utterance inside the rules' transaction: when the log
    write fails (here a file-size limit), the rules roll back with everything else."""
    script = textwrap.dedent(f"""
        import resource, signal
        from grounded import Engine
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        e = Engine({{"agents": {{"alice": {{}}}}}}, log={str(tmp_path / "log.jsonl")!r})
        e.apply({{"speaker": "alice", "ops": [{{"op": "observe", "claim": "o1"}}]}})
        before, rules = e.snapshot(), e.prolog_state()
        size = {str(tmp_path / "log.jsonl")!r}
        import os
        resource.setrlimit(resource.RLIMIT_FSIZE, (os.path.getsize(size) + 10, resource.RLIM_INFINITY))
        from grounded.core.errors import LogWriteError
        try:
            e.apply({{"speaker": "alice", "text": "x" * 100, "ops": [{{"op": "observe", "claim": "o2"}}]}})
        except LogWriteError as exc:
            print("refused:", type(exc).__name__)
        assert e.snapshot() == before and e.prolog_state() == rules, "a refused utterance changed a state"
        resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        e.apply({{"speaker": "alice", "ops": [{{"op": "observe", "claim": "o2"}}]}})  # the rules take o2 as new
        e.close()
        print("then:", [a.claim for a in e.arguments()], [a.claim for a in Engine.load(size).arguments()])
    """)
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr[-800:]
    assert "refused: LogWriteError" in child.stdout and "then: ['o1', 'o2'] ['o1', 'o2']" in child.stdout
