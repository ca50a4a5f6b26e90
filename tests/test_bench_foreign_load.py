"""``python -m bench.foreign_load`` (bench/foreign_load.py): a foreign log's load, split into the rules and the rest."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bench import foreign_load
from grounded.solvers.prolog import PrologRules

pytestmark = pytest.mark.bench  # a benchmark's parts


def test_a_small_load_is_split_into_the_rules_and_python(tmp_path, monkeypatch):
    """The rules' share is what their batch requests took, timed here beneath the benchmark's own clock (which
    wraps this one): it may only add the wrapping to it.  The rest is positive, and the load's CPU is part of
    what ``measure`` spent in all (a warm-up load came before it)."""
    path = tmp_path / "foreign.jsonl"
    n = foreign_load.write_foreign(path, 600)
    batches: list[float] = []  # CPU seconds of each apply_batch request, the warm-up load's first
    request = PrologRules.request

    def timed(self: PrologRules, req: tuple, shape: Any = "any") -> Any:
        start = time.process_time()
        try:
            return request(self, req, shape)
        finally:
            if req[0] == "apply_batch":
                batches.append(time.process_time() - start)

    monkeypatch.setattr(PrologRules, "request", timed)
    spent = time.process_time()
    found = foreign_load.measure(path, n)  # raises if any line was applied from a record, not judged
    spent = time.process_time() - spent
    assert found["utterances"] == n > 500 and found["batches"] == -(-n // 256)  # 256 lines per request
    assert len(batches) == 2 * found["batches"], batches  # the warm-up's requests, then the measured load's
    here, rules = sum(batches[found["batches"]:]), found["rules_us"] * n / 1e6
    assert 0 < here <= rules < 1.2 * here + 1e-3, (here, rules)
    assert found["python_us"] > 0 and 0 < found["cpu_us"] * n / 1e6 < spent
    assert 300 < found["inferences"] < 1_000  # the rules' work per utterance of this stream, as counted
    assert len(found["tenths"]) == 10 and found["last_over_first"] is not None


def test_the_command_names_its_arguments_when_they_are_wrong(capsys):
    assert foreign_load.main(["ten"]) == 2
    assert "usage: python -m bench.foreign_load K [ROUNDS]" in capsys.readouterr().err
