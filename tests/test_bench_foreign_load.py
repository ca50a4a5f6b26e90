"""``python -m bench ingest --foreign-only`` (bench/ingest.py): a foreign log's load, the rules and the rest."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from bench import ingest
from grounded.solvers.prolog import PrologRules
from tests.synthetic import realistic

from .bench_helpers import run_bench

pytestmark = pytest.mark.bench  # a benchmark's parts


def test_a_small_load_is_split_into_the_rules_and_python(tmp_path):
    result = run_bench("ingest", "--foreign-only", "--realistic", "600", "--rounds", "2", "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    found = json.loads((tmp_path / "ingest.json").read_text())
    assert found["settings"]["foreign_only"] is True and {"bulk", "live", "deep", "cli"}.isdisjoint(found)
    foreign = found["foreign"]
    n = foreign["utterances"]
    assert foreign["turns"] == 600 and n > 500 and len(foreign["rounds"]) == 2
    for load in foreign["rounds"]:
        assert load["utterances"] == n and load["bulk"] == 0 and load["load_check"] is None  # all judged by the rules
        assert load["batches"] == -(-n // 256)  # 256 lines per request
        assert 0 < load["rules_us"] < load["cpu_us"] and load["python_us"] > 0
        assert 300 < load["inferences"] < 1_000  # the rules' work per utterance of this stream, as counted
        assert len(load["tenths"]) == 10 and load["last_over_first"] is not None
    assert result.stdout.startswith("## A log written elsewhere: `Engine.load` of the realistic stream of 600 turns")
    assert "| load | utterances/s (wall) | utterances/s (CPU) | CPU us per utterance | rules us | Python us |" in (
        result.stdout)
    assert "load 2: seconds per tenth: " in result.stdout and (tmp_path / "ingest.md").read_text() in result.stdout


def test_the_rules_share_is_what_their_requests_took(tmp_path, monkeypatch):
    """The rules' share is what their batch requests took, timed here beneath the benchmark's own clock (which
    wraps this one): it may only add the wrapping to it.  The rest is positive, and the load's CPU is part of
    what the call spent in all."""
    path = tmp_path / "foreign.jsonl"
    utterances = realistic(600, 0).history
    ingest.write_foreign(path, utterances)
    n = len(utterances)
    batches: list[float] = []  # CPU seconds of each apply_batch request
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
    found = ingest.timed_load(path, n, "the foreign log", record=False)
    spent = time.process_time() - spent
    assert found["load_check"] is None and found["batches"] == len(batches) == -(-n // 256)
    here, rules = sum(batches), found["rules_us"] * n / 1e6
    assert 0 < here <= rules < 1.2 * here + 1e-3, (here, rules)
    assert found["python_us"] > 0 and 0 < found["cpu_us"] * n / 1e6 <= spent


def test_a_load_that_did_not_read_its_lines_as_expected_says_so(tmp_path):
    """``timed_load``'s own check: a log written elsewhere has no record beside it, so a load asked to apply
    every line from the record finds none of them there; the figures are kept, the failure beside them."""
    path = tmp_path / "foreign.jsonl"
    utterances = realistic(40, 0).history
    ingest.write_foreign(path, utterances)
    n = len(utterances)
    judged = ingest.timed_load(path, n, "the foreign log", record=False)
    assert judged["load_check"] is None and judged["bulk"] == 0 and judged["cpu_us"] > 0
    found = ingest.timed_load(path, n, "the foreign log", record=True)
    assert found["load_check"] == f"the foreign log: 0 of {n:,} lines applied from its record, expected all"
    assert ingest.failed_checks({"foreign": {"rounds": [judged, found]}}) == [found["load_check"]]
    short = ingest.timed_load(path, n + 1, "the foreign log")
    assert short["load_check"] == f"the foreign log: {n:,} of {n + 1:,} utterances loaded"


def test_one_part_alone_at_a_time(tmp_path):
    result = run_bench("ingest", "--foreign-only", "--deep-only", "--out", tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: --deep-only and --foreign-only each run one part alone: choose one"
    assert not (tmp_path / "out").exists()
