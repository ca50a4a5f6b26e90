"""``python -m bench textcli``: a smoke run at the smallest size, and its arguments checked."""

from __future__ import annotations

import pytest

from .bench_helpers import bench, run_bench

pytestmark = pytest.mark.bench  # runs of python -m bench textcli


def test_textcli_times_whole_verify_text_processes_on_the_numpy_runtime(tmp_path):
    data = bench("textcli", tmp_path, "--runtimes", "numpy,torch")
    assert list(data["runtimes"]) == ["numpy"] and data["runs"] == 1  # --quick: one run of the first runtime
    numpy = data["runtimes"]["numpy"]
    assert numpy["read_by"] == "offline (sentence embeddings, all-MiniLM-L6-v2)"
    assert numpy["verdict"].startswith("ACCEPT")
    assert len(numpy["wall_s"]) == len(numpy["cpu_s"]) == 1
    assert 0 < numpy["cpu"]["median"] and numpy["cpu"]["min"] <= numpy["cpu"]["max"]
    assert 0 < numpy["wall"]["median"] < 600 and data["target_s"] == 2.0
    assert "| numpy |" in (tmp_path / "textcli.md").read_text()


def test_textcli_refuses_an_unknown_runtime_and_a_bad_run_count(tmp_path):
    bad = run_bench("textcli", "--runtimes", "numpy,onnx", "--out", tmp_path)
    assert bad.returncode == 2 and "--runtimes: unknown onnx (known: numpy, torch)" in bad.stderr
    bad = run_bench("textcli", "--runs", "0", "--out", tmp_path)
    assert bad.returncode == 2 and "--runs 0: expected 1 to 100" in bad.stderr
