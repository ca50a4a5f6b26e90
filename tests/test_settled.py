"""A question stays settled while some explanation of it is resolved (prolog/settled.pl).

The rules keep the resolved explanations of each literal as an index beside
the facts; these tests follow it through each way an explanation becomes or
stops being resolved, and through a state restored from a snapshot (where
the index is rebuilt, not read).  The property tests (test_properties.py)
compare the open problems with their definition on random streams.
"""

from __future__ import annotations

import json
from pathlib import Path

from grounded import Engine
from grounded.dmap.effects import Dissent

HEADER = {"agents": {"a": {"authority": True}, "b": {}}}


def two_resolved_answers() -> list[dict]:
    """q0, two answers to it, both resolved (consensually), and evidence o1 against either."""
    ops = [
        [{"op": "question", "claim": "q0"}, {"op": "observe", "claim": "o0"}, {"op": "observe", "claim": "o1"}],
        [{"op": "hypothesize", "claim": "h1", "deps": ["o0"], "explains": ["q0"]}],
        [{"op": "hypothesize", "claim": "h2", "deps": ["o0"], "explains": ["q0"]}],
        [{"op": "resolve", "target": "h1"}],
        [{"op": "resolve", "target": "h2"}],
    ]
    return [{"turn": t, "speaker": "a", "ops": o} for t, o in enumerate(ops, 1)]


def undermine(engine: Engine, target: str) -> None:
    engine.apply({"speaker": "b", "ops": [{"op": "undermine", "target": target, "by": "o1"}]})


def test_a_question_reopens_only_when_its_last_resolved_answer_is_weakened():
    e = Engine(HEADER)
    for u in two_resolved_answers():
        e.apply(u)
    assert "q0" not in e.open_problems()
    undermine(e, "h1")
    assert e.standing("h1") == "weakened" and "q0" not in e.open_problems()  # h2 still settles it
    undermine(e, "h2")
    assert "q0" in e.open_problems()


def test_a_restored_state_knows_which_answers_are_resolved(tmp_path: Path):
    path = tmp_path / "talk.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in [{"grounded": 1, **HEADER}, *two_resolved_answers()]))
    Engine.load(path, snapshot=True).close()  # writes the snapshot
    e = Engine.load(path, snapshot=True)
    assert e.log_status is not None and e.log_status.restored == 5
    undermine(e, "h1")
    assert "q0" not in e.open_problems()
    undermine(e, "h2")
    assert "q0" in e.open_problems()


def test_an_authoritative_decision_settles_what_its_target_explains_until_revised():
    e = Engine(HEADER)
    e.apply({"speaker": "a", "ops": [{"op": "question", "claim": "q0"}, {"op": "observe", "claim": "o0"},
                                     {"op": "observe", "claim": "o1"}]})
    e.apply({"speaker": "a", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["o0"], "explains": ["q0"]}]})
    undermine(e, "h1")  # b is committed to o1 attacking h1: resolving h1 is a decision, b dissents
    update = e.apply({"speaker": "a", "ops": [{"op": "resolve", "target": "h1", "claim": "d1"}]})
    assert any(isinstance(x, Dissent) and x.agent == "b" for x in update.effects)
    assert "q0" not in e.open_problems()
    e.apply({"speaker": "b", "ops": [{"op": "revise", "target": "d1"}]})
    assert e.standing("d1") == "abandoned" and "q0" in e.open_problems()
