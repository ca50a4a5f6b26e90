"""``python -m bench textcli``: a smoke run at the smallest size, and its arguments checked."""

from __future__ import annotations

import pytest

from .bench_helpers import bench, run_bench

pytestmark = pytest.mark.bench  # runs of python -m bench textcli


def test_textcli_times_whole_verify_text_processes(tmp_path):
    data = bench("textcli", tmp_path)
    assert data["runs"] == 1  # --quick: one run
    call = data["call"]
    assert call["read_by"] == "coverage (WordNet 3.0)"
    assert call["verdict"].startswith("ABSTAIN")  # a paraphrase in words no claim has: not covered
    assert len(call["wall_s"]) == len(call["cpu_s"]) == 1
    assert 0 < call["cpu"]["median"] and call["cpu"]["min"] <= call["cpu"]["max"]
    assert 0 < call["wall"]["median"] < 600 and data["target_s"] == 2.0 and data["target_cpu_s"] == 1.0
    assert "| coverage (WordNet 3.0) |" in (tmp_path / "textcli.md").read_text()


def test_textcli_refuses_a_bad_run_count(tmp_path):
    bad = run_bench("textcli", "--runs", "0", "--out", tmp_path)
    assert bad.returncode == 2 and "--runs 0: expected 1 to 100" in bad.stderr
