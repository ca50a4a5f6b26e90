"""`python -m bench serve` end to end, small: a real server, the load client, every answer right."""

from __future__ import annotations

import pytest

from bench import flood
from bench import serve as serve_bench
from bench.checks import CheckFailed

pytestmark = pytest.mark.bench  # python -m bench serve, small


def test_the_serve_load_run_measures_and_answers_right():
    result = serve_bench.run(("sqlite",), conversations=3, appends=8, verifies=30, rate=300.0, closed_verifies=30,
                             kills=0, switch_lengths=(10, 30))
    r = result["backends"]["sqlite"]
    assert r["wrong_answers"] == 0
    assert r["append"]["count"] == 24 and r["append"]["per_s"] > 0
    assert r["verify_paced"]["client_ms"]["n"] == 30 and r["verify_paced"]["server_ms"]["n"] == 30
    assert r["verify_closed"]["client_ms"]["n"] == 30 and r["verify_closed"]["server_ms"]["n"] == 30
    assert 0 < r["verify_paced"]["server_ms"]["p50"] <= r["verify_paced"]["server_ms"]["p99"]
    assert r["append"]["server_cpu_ms_each"] > 0
    lengths = [row["length"] for row in result["switching"]]
    assert lengths == [10, 30]
    assert "| sqlite | 24 |" in serve_bench.markdown(result)


def test_the_targets_run_measures_one_and_many_conversations_against_plain_sqlite():
    result = serve_bench.run(("sqlite",), conversations=2, appends=4, verifies=10, rate=300.0, closed_verifies=10,
                             kills=0, switch_lengths=(10,),
                             target_sizes={"single": 30, "conversations": 4, "each": 8, "verifies": 40},
                             # sizes whose server CPU spans many clock ticks (/proc counts in 10 ms): 80 Verify
                             # (about 5 ms) could read as 0
                             split_sizes={"conversations": 4, "appends": 100, "verifies": 2000})
    t = result["targets"]
    assert t["one"]["appends"] == 30 and t["one"]["conversations"] == 1
    assert t["many"]["appends"] == 32 and t["many"]["conversations"] == 4
    assert t["one"]["per_s"] > 0 and t["many"]["server_cpu_ms_each"] > 0
    assert t["verify"]["client_ms"]["n"] == 40 and t["verify"]["server_ms"]["n"] == 40
    assert t["verify"]["wrong_answers"] == 0
    assert t["baseline"]["one_commit_each_per_s"] > 0 and t["baseline"]["group"] == 4
    # both throughputs are reported (the table below), not compared: which is faster turns on fsync's cost and load
    assert t["baseline"]["grouped_per_s"] > 0
    assert t["met"]["verify_p99_ms"] == (t["verify"]["client_ms"]["p99"] <= serve_bench.TARGETS["verify_p99_ms"])
    split = result["cpu_split"]
    assert split["appends"] == 400 and split["samples"] > 0 and split["server_cpu_ms_per_append"] > 0
    parts = {p["part"]: p for p in split["parts"]}
    assert parts["rules (engine, Prolog)"]["share"] > 0  # an append runs the rules: some samples land there
    assert abs(sum(p["share"] for p in split["parts"]) - 1) < 0.01
    verify = split["verify"]  # and a Verify's, sampled apart from the appends
    assert verify["verifies"] == 2000 and verify["samples"] > 0 and verify["server_cpu_ms_per_verify"] > 0
    assert abs(sum(p["share"] for p in verify["parts"]) - 1) < 0.01
    text = serve_bench.markdown(result)
    assert "Where a request's server CPU goes: 400 appends" in text and "then 2000 Verify by claim" in text
    assert "| part | append samples | ms per append | Verify samples | ms per Verify |" in text
    assert "| appends/s |" in text and "plain SQLite rows/s, 4 per commit" in text


def test_the_isolation_check_fails_a_run_past_twice_the_idle_p99_or_with_a_wrong_answer():
    """``python -m bench serve`` ends with ``check failed`` (CheckFailed, exit 1) once its figures are written when
    the other tenant's Verify p99 under the flood passed 2x its p99 idle, or a Verify was answered wrong; the
    figures here are given, the check is what is tested (the run itself: tests/test_abuse.py)."""
    def run(idle: float, loaded: float, wrong: int = 0) -> dict:
        return {"idle_ms": {"n": 300, "p99": idle}, "flood_ms": {"n": 300, "p99": loaded}, "wrong_answers": wrong,
                "ratio_p99": round(loaded / idle, 2) if idle else None}

    flood.check_isolation(run(1.1, 2.2))  # 2.0x: within
    with pytest.raises(CheckFailed, match=r"^tenant isolation: another tenant's Verify p99 2\.4 ms under the flood, "
                                          r"1\.1 ms idle: 2\.18x, at most 2x$"):
        flood.check_isolation(run(1.1, 2.4))
    with pytest.raises(CheckFailed, match=r"^tenant isolation: 3 of the other tenant's Verify answered wrong$"):
        flood.check_isolation(run(1.1, 1.2, wrong=3))
    with pytest.raises(CheckFailed, match=r"idle: none, at most 2x"):
        flood.check_isolation(run(0.0, 1.2))


@pytest.mark.postgres
def test_the_scale_run_measures_each_routing_and_a_cold_build():
    """``python -m bench serve --processes``, small: one and two processes on a throw-away PostgreSQL, both
    routings, every Verify right, CPU per append in five fifths, and a cold build against another's Verify."""
    from bench import scale

    result = scale.run((1, 2), appends=10, verifies=40, rate=200.0, cold_size=2100)
    runs = {(r["processes"], r["routing"]): r for r in result["runs"]}
    assert set(runs) == {(1, "pinned"), (2, "pinned"), (2, "round-robin")}
    for r in runs.values():
        assert r["appends"] == 200 and r["appends_per_s"] > 0
        assert len(r["cpu_ms_per_append_by_fifth"]) == 5
        assert r["verify_during"]["wrong"] == 0 and r["verify_idle"]["wrong"] == 0
        assert r["verify_idle"]["client_ms"]["n"] == 40 and r["verify_idle"]["server_ms"]["n"] == 40
    cold = result["cold"]
    assert cold["size"] == 2100 and cold["build_seconds"] > 0 and cold["first_append_seconds"] > 0
    assert cold["idle"]["wrong"] == 0 and cold["during"]["wrong"] == 0 and cold["idle"]["client_ms"]["n"] == 40
    text = scale.markdown(result)
    assert "| 2 | round-robin |" in text and "built cold" in text
