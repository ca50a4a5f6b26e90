"""`python -m bench serve` end to end, small: a real server, the load client, every answer right."""

from __future__ import annotations

import pytest

from bench import serve as serve_bench

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
