"""Schemathesis against a live server, with an API key: every phase (the document's examples, its coverage of
each operation's edges, fuzzing, and stateful runs that follow the links from a created conversation to the
routes about it) and every check (no 5xx, answers as documented, schema-valid requests taken, invalid ones
refused, auth enforced, the Allow header).  Bounded in examples and time; slow (CI's slow set).

tests/schemathesis/schemathesis.toml names the two refusals the document cannot state, and why.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.serve_helpers import ServerProcess, make_key

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "tests" / "schemathesis" / "schemathesis.toml"


@pytest.mark.slow
def test_schemathesis_finds_nothing_against_a_live_server_with_a_key(tmp_path):
    db = str(tmp_path / "grounded.db")
    key = make_key(db, "t1")
    with ServerProcess(db, tmp_path / "server.log") as server:
        run = subprocess.run(
            [sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG), "run",
             f"{server.url}/openapi.json", "--header", f"Authorization: Bearer {key}",
             "--phases", "examples,coverage,fuzzing,stateful", "--checks", "all", "--max-examples", "40",
             "--seed", "1", "--workers", "1", "--no-color", "--report-dir", str(tmp_path / "report")],
            capture_output=True, text=True, timeout=1200, cwd=tmp_path)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "Stateful" in run.stdout and " failed" not in run.stdout
