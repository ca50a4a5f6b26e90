"""What a script can rely on from the command line: exit codes, literal arguments, --version, progress.

Issue 10's cases: `grounded verify FILE -a3` failed as an unknown option
though the help suggests `-a3`; an unknown claim to `affected` printed an
empty answer with exit 0; `check --at -1` was accepted while `verify --at -1`
was refused; there was no `--version`; long loads and checks printed nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import grounded

from .inprocess import run_cli

ROOT = Path(__file__).resolve().parent.parent
PHASE2 = ROOT / "scenarios" / "phase2.yaml"
PHASE3 = ROOT / "scenarios" / "phase3.yaml"


def run(*args, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grounded", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.mark.slow
def test_a_negative_literal_is_an_argument_not_an_option():
    result = run("verify", PHASE3, "-a3", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["claim"] == "-a3"
    affected = run("affected", PHASE3, "-a3", "--at", "19", "--json")
    assert affected.returncode == 0 and json.loads(affected.stdout)["claim"] == "-a3"
    # a literal spelled like one of the command's own short options goes after --
    after = run_cli("verify", PHASE3, "--json", "--", "-x3")
    assert after[0] == 1 and json.loads(after[1])["status"] == "no_anchor"
    status, _, err = run_cli("verify", PHASE3, "-x3")
    assert status == 2 and "--extension 3: no such rule file (the literal -x3 goes after --" in err


@pytest.mark.parametrize("args,code", [
    (["verify", PHASE2, "h4"], 0),  # answered, grounded
    (["verify", PHASE2, "h2"], 1),  # answered, not grounded
    (["verify", PHASE2, "nothing_here"], 1),  # no anchor
    (["verify", PHASE2, "--text", "The moon is made of cheese."], 1),  # abstain: no anchor
    (["verify", PHASE2, "not a literal"], 2),
    (["affected", PHASE2, "o5"], 0),
    (["affected", PHASE2, "h1"], 0),  # known, nothing rests on it: an answer
    (["affected", PHASE2, "-o5"], 0),
    (["affected", PHASE2, "o404"], 1),
    (["affected", PHASE2, "o5", "--at", "-1"], 2),
    (["check", PHASE2, "--at", "-1"], 2),
    (["state", PHASE2, "--at", "-1"], 2),
    (["extensions", PHASE2, "--at", "-1"], 2),
])
def test_exit_codes_of_the_query_commands(args, code):
    status, out, err = run_cli(*args)
    assert status == code, out + err
    if code == 2:
        assert err.startswith("error: ") and len(err.strip().splitlines()) == 1


def test_an_unknown_claim_to_affected_says_so():
    assert "o404: unknown to the state" in run_cli("affected", PHASE2, "o404")[1]
    answer = json.loads(run_cli("affected", PHASE2, "o404", "--json")[1])
    assert answer["known"] is False and answer["claims"] == []
    known = json.loads(run_cli("affected", PHASE2, "h1", "--json")[1])
    assert known["known"] is True and known["claims"] == []
    assert "Affected*(h1): nothing" in run_cli("affected", PHASE2, "h1")[1]


def test_check_at_minus_one_is_refused_like_verify():
    check = run("check", PHASE2, "--at", "-1")
    verify = run_cli("verify", PHASE2, "h1", "--at", "-1")
    assert check.returncode == verify[0] == 2
    assert check.stderr == verify[2] == "error: at=-1: a turn is a non-negative integer\n"


def test_version_comes_from_the_package_metadata():
    version = metadata.version("grounded")
    assert grounded.__version__ == version
    result = run("--version")
    assert result.returncode == 0 and result.stdout.startswith(f"grounded {version} (rules {version}+rules.")


@pytest.mark.slow
def test_progress_goes_to_stderr_on_a_terminal_only(tmp_path):
    log = tmp_path / "talk.jsonl"
    with grounded.Engine({"agents": {"alice": {}}}, log=log) as engine:
        for i in range(20):
            engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": f"o{i}"}]})
    piped = run("check", log)
    assert piped.returncode == 0 and piped.stderr == ""
    terminal = run("check", log, env={**os.environ, "FORCE_COLOR": "1"})  # rich draws as on a terminal
    assert terminal.returncode == 0 and "reading talk.jsonl" in terminal.stderr
    assert "all agree" in terminal.stdout and "reading" not in terminal.stdout


def test_a_bad_tenant_name_is_an_input_error(tmp_path):
    """`grounded keys create "a b"`: the name is the user's mistake, said as one (not an internal error),
    and no key or tenant is created."""
    db = tmp_path / "keys.db"
    status, out, err = run_cli("keys", "create", "a b", "--db", db)
    assert status == 2 and out == ""
    assert err.startswith("error: tenant id 'a b'") and len(err.strip().splitlines()) == 1, err
    assert run_cli("keys", "list", "--db", db)[1] == ""
