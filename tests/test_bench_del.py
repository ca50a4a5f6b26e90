"""The DEL benchmark runs in quick mode and prints its tables (figures are not asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.bench  # runs of python -m bench del

ROOT = Path(__file__).resolve().parent.parent


def test_the_del_benchmark_prints_its_tables():
    result = subprocess.run([sys.executable, "-m", "bench", "del", "--quick"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "Updates on 2^k worlds" in result.stdout
    assert "2^14 = 16,384" in result.stdout
    assert "muddy(n, m) end to end" in result.stdout
    assert "target: lexicographic on 2^14 worlds <= 500 ms" in result.stdout
