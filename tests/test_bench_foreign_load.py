"""``python -m bench ingest --foreign-only`` (bench/ingest.py): a foreign log's load, the rules and the rest."""

from __future__ import annotations

import json

import pytest

from bench import ingest
from tests.synthetic import realistic

from .bench_helpers import run_bench
from .frames import rules_requests

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
    """The rules' share is timed around their batch requests: the load counts as many as the bridge was
    sent (256 lines each), the rules' share is positive and below the load's CPU, and the rest is positive."""
    path = tmp_path / "foreign.jsonl"
    utterances = realistic(600, 0).history
    ingest.write_foreign(path, utterances)
    n = len(utterances)
    requests = rules_requests(monkeypatch)
    found = ingest.timed_load(path, n, "the foreign log", record=False)
    assert found["load_check"] is None
    assert requests.count("apply_batch") == found["batches"] == -(-n // 256), (requests, found["batches"])
    assert found["python_us"] > 0 and 0 < found["rules_us"] < found["cpu_us"], found


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
