"""The start-up benchmark's own run (``python -m bench startup --quick``): its shape and its refusals."""

from __future__ import annotations

import pytest

from bench.startup import HEAVY, WHOLE

from .bench_helpers import bench, run_bench

pytestmark = pytest.mark.bench


def test_bench_startup_times_the_four_processes_and_reports_their_imports(tmp_path):
    data = bench("startup", tmp_path)
    assert data["runs"] == 1 and data["k"] == 30  # --quick
    names = ["python -c pass", "grounded --version", "grounded verify (snapshot)", "grounded affected (snapshot)"]
    assert list(data["median"]) == names and list(data["heavy_imports"]) == names
    for name in names:
        assert len(data["wall_s"][name]) == len(data["cpu_s"][name]) == 1
        assert data["median"][name]["cpu"] > 0 and data["median"][name]["wall"] > 0
        assert data["heavy_imports"][name] == []
    assert set(data["ratio_to_version"]) == set(names[2:]) and data["version_target_s"] == 0.25
    assert data["answer"].startswith(data["claim"] + ":")
    table = (tmp_path / "startup.md").read_text()
    assert "| grounded --version |" in table and ", ".join(HEAVY) in table


def test_bench_startup_refuses_a_bad_run_count_and_size(tmp_path):
    bad = run_bench("startup", "--runs", "0", "--out", tmp_path)
    assert bad.returncode == 2 and "--runs 0: expected 1 to 100" in bad.stderr
    bad = run_bench("startup", "-k", "5", "--out", tmp_path)
    assert bad.returncode == 2 and "-k 5: expected 10 to 100000" in bad.stderr


def test_bench_snapquery_times_the_index_against_version_and_the_whole_snapshot(tmp_path):
    data = bench("snapquery", tmp_path)
    (one,) = data["by_k"]
    assert data["runs"] == 1 and one["k"] == 30  # --quick: the realistic stream of 30 turns
    names = ["python -c pass", "grounded --version", "grounded verify (snapshot)", "grounded affected (snapshot)",
             WHOLE]
    assert list(one["median"]) == names and set(one["ratio_to_version"]) == set(names[2:])
    assert one["answer"].startswith(one["claim"] + ":")
    assert "a snapshot of 30 turns" in (tmp_path / "snapquery.md").read_text()
    bad = run_bench("snapquery", "--ks", "10,5", "--out", tmp_path)
    assert bad.returncode == 2 and "--ks 10,5: each expected 10 to 100000" in bad.stderr
