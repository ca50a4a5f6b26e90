"""The rules' work per operation does not grow with the history (issue 23, item 1).

Each test repeats one operation on a growing map and compares the rules'
logical inferences (SWI-Prolog's count: deterministic, the same under any
load) of the last operations with the first: a predicate that walks what the
history has piled up shows as a ratio that grows with the count.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from grounded import Engine
from grounded.dmap.effects import Dissent

HEADER = {"agents": {"a": {"authority": True}, "b": {}}}
FLAT = 1.2  # the bench's bound on last / first (bench/ingest.py)


def inferences(engine: Engine, utterance: dict) -> int:
    """The rules' inferences to apply ``utterance`` (which raises when the rules reject it)."""
    rules = engine.rules.rules
    before = rules.inferences()
    engine.apply(utterance)
    return rules.inferences() - before


def inferences_per_op(engine: Engine, step: Callable[[int], dict], count: int, window: int = 20) -> tuple[float, float]:
    """Inferences of the first and the last ``window`` of ``count`` utterances made by ``step(i)``."""
    costs = [inferences(engine, step(i)) for i in range(count)]
    return sum(costs[:window]) / window, sum(costs[-window:]) / window


def test_an_authoritative_resolve_repeated_on_one_claim_costs_the_same_each_time():
    """decide_h1, decide_h1_2, ...: the fresh id is found from where the last search stopped, not from 1."""
    e = Engine(HEADER)
    e.apply({"speaker": "a", "ops": [{"op": "observe", "claim": "o0"}, {"op": "observe", "claim": "o1"},
                                     {"op": "hypothesize", "claim": "h1", "deps": ["o0"]}]})
    e.apply({"speaker": "b", "ops": [{"op": "undermine", "target": "h1", "by": "o1"}]})  # b dissents from then on
    first, last = inferences_per_op(e, lambda i: {"speaker": "a", "ops": [{"op": "resolve", "target": "h1"}]}, 600)
    decisions = [a.claim for a in e.arguments() if a.kind == "decision"]
    assert decisions[:3] == ["decide_h1", "decide_h1_2", "decide_h1_3"] and len(decisions) == 600
    assert last / first <= FLAT, (first, last)


def test_a_resolve_costs_the_same_however_many_arguments_attack_its_target():
    """Its dissenters are the agents committed to an attacker, counted per agent, not found by walking attackers."""
    e = Engine(HEADER)
    e.apply({"speaker": "a", "ops": [{"op": "observe", "claim": "o0"},
                                     {"op": "hypothesize", "claim": "h1", "deps": ["o0"]}]})
    costs = []
    for i in range(1, 601):
        e.apply({"speaker": "b", "ops": [{"op": "observe", "claim": f"o{i}"},
                                         {"op": "undermine", "target": "h1", "by": f"o{i}"}]})
        if i % 30 == 0:
            costs.append(inferences(e, {"speaker": "a", "ops": [{"op": "resolve", "target": "h1", "claim": f"d{i}"}]}))
    assert len([a for a in e.arguments() if a.kind == "decision"]) == 20
    assert costs[-1] / costs[0] <= FLAT, costs


def test_a_restored_state_counts_the_dissenters_and_forgets_those_who_revised(tmp_path: Path):
    """The counts are rebuilt from the facts of a snapshot, and fall when a commitment to an attacker goes."""
    utterances = [
        {"turn": 1, "speaker": "a", "ops": [{"op": "observe", "claim": "o0"},
                                            {"op": "hypothesize", "claim": "h1", "deps": ["o0"]}]},
        {"turn": 2, "speaker": "b", "ops": [{"op": "observe", "claim": "o1"},
                                            {"op": "undermine", "target": "h1", "by": "o1"}]},
    ]
    path = tmp_path / "talk.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in [{"grounded": 1, **HEADER}, *utterances]))
    Engine.load(path, snapshot=True).close()  # writes the snapshot
    e = Engine.load(path, snapshot=True)
    assert e.log_status is not None and e.log_status.restored == 2
    update = e.apply({"speaker": "a", "ops": [{"op": "resolve", "target": "h1", "claim": "d1"}]})
    assert [x.agent for x in update.effects if isinstance(x, Dissent)] == ["b"]
    e.apply({"speaker": "b", "ops": [{"op": "revise", "target": "o1"}]})
    update = e.apply({"speaker": "a", "ops": [{"op": "resolve", "target": "h1", "claim": "d2"}]})
    assert not [x for x in update.effects if isinstance(x, Dissent)]
