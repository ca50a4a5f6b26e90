"""The latency benchmark runs, and its history-replay baseline answers correctly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.synthetic import build, replay_affected

pytestmark = pytest.mark.bench  # the latency benchmark and its baseline

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("regime", ["naive", "bounded"])
def test_history_replay_gives_the_engines_affected_star(regime):
    conv = build(400, regime, seed=3)
    assert len(conv.engine.state.args) >= 40
    if regime == "bounded":
        assert len(conv.engine.state.args) <= 50
    for p in conv.claims:
        assert replay_affected(conv.history, p) == set(conv.engine.affected(p).claims)


def test_the_benchmark_prints_its_table():
    result = subprocess.run([sys.executable, "-m", "bench.latency", "--quick", "--max-k", "100"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "Per-query medians in microseconds" in result.stdout
    assert "naive: Affected* K=100 / K=13: |A*|=0: " in result.stdout
