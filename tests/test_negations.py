"""Negative literals cost no more to look up than atoms (prolog/state.pl: claim_key/3, problem_key/3).

SWI-Prolog indexes an argument holding -(P) by its functor alone once atoms
share it, so without the keys every Observe of p, asking whether -p stands,
tried every argument for a negation: 10^4 observed negations beside 10^4
atoms made each utterance many times dearer than on a fresh engine.  Here
the same utterances are timed on such a state (read in bulk from a log) and
on a fresh one; the bound leaves room for a loaded machine.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from grounded import Engine

N = 10_000
HEADER = {"agents": {"a": {}, "b": {}}}


def probe(engine: Engine, rounds: int = 3) -> float:
    """The fastest of ``rounds`` runs of 100 utterances each observing an atom, then an open negation."""
    best = float("inf")
    for r in range(rounds):
        start = time.perf_counter()
        for j in range(100):
            engine.apply({"speaker": "b", "ops": [{"op": "observe", "claim": f"x{r}_{j}"},
                                                  {"op": "observe", "claim": f"-m{r}_{j}"}]})
        best = min(best, time.perf_counter() - start)
    return best


def test_ten_thousand_negations_leave_the_cost_of_an_utterance_as_it_was(tmp_path: Path):
    path = tmp_path / "negations.jsonl"
    lines = [{"grounded": 1, **HEADER}] + [{"turn": i, "speaker": "a", "ops": [{"op": "observe", "claim": f"-n{i}"},
                                                                               {"op": "observe", "claim": f"p{i}"}]}
                                           for i in range(1, N + 1)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    loaded = Engine.load(path)
    assert len(loaded.open_problems()) == 2 * N  # each observation is an open problem, found by its key
    fresh = Engine(HEADER)
    assert probe(loaded) < 3 * probe(fresh)
    # and each is answered by its key: the negation closes when it leaves standing, the atom is told apart
    loaded.apply({"speaker": "b", "ops": [{"op": "revise", "target": f"-n{N}"}]})
    assert f"-n{N}" not in loaded.open_problems() and "-n1" in loaded.open_problems()
    assert loaded.standing(f"n{N}") is None and loaded.standing(f"-n{N}") == "abandoned"
