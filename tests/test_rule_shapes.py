"""The rules' work per operation does not grow with the history (issue 23, item 1).

Each test repeats one operation on a growing map and compares the rules'
logical inferences (SWI-Prolog's count: deterministic, the same under any
load) of the last operations with the first: a predicate that walks what the
history has piled up shows as a ratio that grows with the count.
"""

from __future__ import annotations

from collections.abc import Callable

from grounded import Engine

HEADER = {"agents": {"a": {"authority": True}, "b": {}}}
FLAT = 1.2  # the bench's bound on last / first (bench/ingest.py)


def inferences_per_op(engine: Engine, step: Callable[[int], dict], count: int, window: int = 20) -> tuple[float, float]:
    """Inferences of the first and the last ``window`` of ``count`` utterances made by ``step(i)``."""
    rules, costs = engine.rules.rules, []
    for i in range(count):
        before = rules.inferences()
        engine.apply(step(i))  # raises when the rules reject it
        costs.append(rules.inferences() - before)
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
