"""``pip install .`` without extras, into a fresh virtual environment: the core imports, answers Verify from a log,
and a command needing an extra says which one (exit 2).  Uses pip's cache; about a minute (marked ``slow``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def run(*args: object, cwd: Path, timeout: int = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}  # only the venv's packages
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)


@pytest.fixture(scope="module")
def core(tmp_path_factory) -> Path:
    """A venv holding grounded from this checkout and its required dependencies only; its bin directory."""
    venv = tmp_path_factory.mktemp("core-venv")
    made = run(sys.executable, "-m", "venv", venv, cwd=venv)
    assert made.returncode == 0, made.stderr
    bin_ = venv / "bin"
    installed = run(bin_ / "python", "-m", "pip", "install", "-q", ROOT, cwd=venv, timeout=600)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return bin_


def test_the_core_installs_without_the_extras_and_without_the_benchmarks(core, tmp_path):
    probe = ("import importlib.util as u, grounded; "
             "print([m for m in ('grounded.bench', 'graphviz', 'sklearn', 'openai', 'fastapi', 'matplotlib') "
             "if u.find_spec(m) is not None])")
    result = run(core / "python", "-c", probe, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
    # the figure `grounded interpret` quotes is package data of the interpreter, not of the benchmarks
    shipped = run(core / "python", "-c", "import importlib.util as u, json, pathlib; "
                  "d = pathlib.Path(u.find_spec('grounded.interpreter').submodule_search_locations[0]); "
                  "print(json.loads((d / 'rules_baseline.json').read_text())['split'])", cwd=tmp_path)
    assert (shipped.returncode, shipped.stdout.strip()) == (0, "test"), shipped.stderr


def test_the_core_answers_verify_from_a_log(core, tmp_path):
    log = tmp_path / "phase2.jsonl"
    written = run(core / "grounded", "scenario-to-log", ROOT / "scenarios" / "phase2.yaml", log, cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    verified = run(core / "grounded", "verify", log, "h4", "--json", cwd=tmp_path)
    assert verified.returncode == 0, verified.stderr
    answer = json.loads(verified.stdout)
    assert answer["grounded"] is True and answer["chain"][0] == "h4"
    stale = run(core / "grounded", "verify", log, "h2", cwd=tmp_path)
    assert stale.returncode == 1 and "abandoned at T9" in stale.stdout


@pytest.mark.parametrize(("command", "extra", "module"), [
    (("show", "{log}", "-o", "{tmp}/p.svg"), "views", "graphviz"),
    (("verify", "{log}", "--text", "Redis is the cause"), "interpreter", "snowballstemmer"),
    (("openapi",), "serve", "fastapi"),
    (("mcp", "--key", "gk_x"), "serve", "mcp"),
])
def test_a_command_needing_a_missing_extra_names_it_and_exits_2(core, tmp_path, command, extra, module):
    log = tmp_path / "phase2.jsonl"
    assert run(core / "grounded", "scenario-to-log", ROOT / "scenarios" / "phase2.yaml", log,
               cwd=tmp_path).returncode == 0
    args = [a.format(log=log, tmp=tmp_path) for a in command]
    result = run(core / "grounded", *args, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.strip() == (f"error: grounded {command[0]} needs the '{extra}' extra: "
                                     f"pip install 'grounded[{extra}]' ({module} is not installed)")
    assert "Traceback" not in result.stderr
