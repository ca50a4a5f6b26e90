"""Negative literals cost no more to look up than atoms (prolog/state.pl: claim_key/3, problem_key/3).

SWI-Prolog indexes an argument holding -(P) by its functor alone once atoms
share it, so without the keys every Observe of p (does -p stand?) and every
open problem re-decided tried every fact holding a negation: 10^4 negations
beside 10^4 atoms made each utterance many times dearer than on a small
state.  The cost is a benchmark's to measure (bench/README.md: 2x10^4 such
utterances, 23x slower in the last tenth than the first before the keys, flat
after); this test holds what the keys must not change: every answer on a
state with 10^4 negations beside 10^4 atoms, negations and atoms told apart.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grounded import Engine

N = 10_000
HEADER = {"agents": {"a": {}, "b": {}}}


def conversation(path: Path, n: int) -> Engine:
    """n turns: a negation observed, an atom observed, a hypothesis resting on both; read from its log."""
    lines: list[dict] = [{"grounded": 1, **HEADER}]
    for i in range(1, n + 1):
        lines.append({"turn": i, "speaker": "a", "ops": [
            {"op": "observe", "claim": f"-n{i}"}, {"op": "observe", "claim": f"p{i}"},
            {"op": "hypothesize", "claim": f"h{i}", "deps": [f"-n{i}", f"p{i}"], "explains": [f"p{i}"]}]})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return Engine.load(path)


@pytest.mark.slow
def test_ten_thousand_negations_are_answered_by_their_keys(tmp_path: Path):
    big = conversation(tmp_path / "big.jsonl", N)
    assert len(big.open_problems()) == 2 * N  # each observation is open (none explained by a resolved argument)
    big.apply({"speaker": "b", "ops": [{"op": "observe", "claim": "x1"}, {"op": "observe", "claim": "-m1"},
                                       {"op": "support", "target": "-n1", "by": "x1"}]})
    # each is answered by its key: the negation closes when it leaves standing, the atom is told apart
    assert big.affected("x1").arguments and big.verify("h1").grounded
    big.apply({"speaker": "b", "ops": [{"op": "revise", "target": f"-n{N}"}]})
    assert f"-n{N}" not in big.open_problems() and "-n1" in big.open_problems()
    assert big.standing(f"n{N}") is None and big.standing(f"-n{N}") == "abandoned"
    assert not big.verify(f"h{N}").grounded
