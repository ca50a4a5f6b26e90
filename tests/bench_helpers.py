"""Shared by the benchmark tests: where the real data is, and running ``python -m bench`` from the repository root."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.datasets import default_data_dir

ROOT = Path(__file__).resolve().parents[1]
DATA = default_data_dir()
needs_data = pytest.mark.skipif(
    DATA is None, reason="third-party benchmark data not present (../shared/data beside the repository)")


def grounded(*args: str, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grounded", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env)


def run_bench(*args: str, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    """``python -m bench ARGS`` from the repository root, where the benchmarks live (they are not installed)."""
    return subprocess.run([sys.executable, "-m", "bench", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)


def bench(name: str, out: Path, *args: str, env: dict | None = None) -> dict:
    """Run ``python -m bench NAME --quick --out OUT ...``; return its JSON results."""
    result = run_bench(name, "--quick", "--out", out, *args, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (out / f"{name}.md").read_text().startswith("# ")
    data = json.loads((out / f"{name}.json").read_text())
    assert data["command"] == name
    return data
