"""The command line, run as users run it: real files; in this process (tests/inprocess.py), except the
smoke tests marked below, which start ``python -m grounded`` as a user would."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grounded import Engine
from grounded.cli.app import app
from grounded.engine.applied_lines import applied_lines
from grounded.solvers.prolog import RULES_DIR_VARIABLE, rules_dir
from tests.inprocess import grounded

ROOT = Path(__file__).resolve().parent.parent
PHASE2 = ROOT / "scenarios" / "phase2.yaml"
PHASE3 = ROOT / "scenarios" / "phase3.yaml"


def grounded_process(*args: str) -> subprocess.CompletedProcess:
    """A real ``python -m grounded`` process (the smoke tests: entry point, imports, exit status)."""
    return subprocess.run([sys.executable, "-m", "grounded", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_demo_runs_offline_end_to_end():  # smoke test: a real process
    result = grounded_process("demo")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "T13 alice" in out and "h2 abandoned by o9" in out
    assert "16/16 decisions correct" in out and "12/16 decisions correct" in out
    assert "-> reject: asserts h2, which is not grounded: h2 abandoned at T9 by o9" in out  # stale
    assert "-> accept: asserts h4 (grounded)" in out  # covered by a grounded claim
    assert "-> reject: contradicts h4, which is grounded (reverses its causal direction" in out
    assert "\"Roll back the token refresh change\": not covered by h3 or any claim: 'refresh', 'change'" in out
    assert "-> abstain: cannot confirm: not covered by o3 or any claim: 'moon', 'cheese'" in out


@pytest.mark.parametrize("scenario", [PHASE2, PHASE3])
def test_run_passes_the_paper_scenarios(scenario):
    result = grounded("run", scenario, "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 failed" in result.stdout


def test_run_exits_1_on_a_failed_expectation(tmp_path):  # smoke test: a real process
    path = tmp_path / "wrong.yaml"
    path.write_text(PHASE2.read_text().replace("grounded: [h4]\n", "grounded: [h2]\n", 1))
    result = grounded_process("run", path)
    assert result.returncode == 1
    assert "FAIL grounded h2 (not: {'h2': 'h2 abandoned at T9 by o9'})" in result.stdout
    assert "1 failed" in result.stdout


def test_verify_json_and_at():
    result = grounded("verify", PHASE2, "h2", "--json")
    assert json.loads(result.stdout) == {"claim": "h2", "grounded": False, "chain": [], "arguments": [],
                                         "reason": "h2 abandoned at T9 by o9", "status": "ungrounded",
                                         "failing": "h2", "at": None, "complete": True}
    assert result.returncode == 1  # answered, not grounded
    earlier = json.loads(grounded("verify", PHASE2, "h2", "--at", "6", "--json").stdout)
    assert earlier["grounded"] and earlier["chain"] == ["h2", "o8"]
    grounded_h1 = json.loads(grounded("verify", PHASE2, "h1", "--json").stdout)
    assert grounded_h1["chain"] == ["h1", "o8", "h4", "h3", "o5", "o6", "o9"]
    assert "NO ANCHOR" in grounded("verify", PHASE2, "nothing_here").stdout


def test_affected_json_one_step_and_closure():
    star = json.loads(grounded("affected", PHASE2, "o5", "--json").stdout)
    assert {k: v for k, v in star.items() if k not in ("arguments", "losing_arguments")} == {
        "claim": "o5", "closure": True, "at": None, "known": True, "claims": ["h3", "h4", "h1"],
        "lose_support": ["h3", "h4", "h1"], "hops": {"h3": 1, "h4": 2, "h1": 3}, "complete": True}
    assert len(star["arguments"]) == 3 and star["losing_arguments"] == star["arguments"]
    one = json.loads(grounded("affected", PHASE2, "o5", "--one-step", "--json").stdout)
    assert one["claims"] == ["h3"] and one["hops"] == {"h3": 1}
    cf = json.loads(grounded("affected", PHASE3, "a3", "--at", "19", "--json").stdout)
    assert set(cf["claims"]) == {"alpha16", "alpha18"} and cf["lose_support"] == ["alpha18"]


def test_commands_read_event_logs_too(tmp_path):
    from grounded import Engine
    from grounded.scenario import Scenario

    scenario = Scenario.load(PHASE2)
    log = tmp_path / "phase2.jsonl"
    with Engine(scenario.header, log=log) as engine:
        for turn in scenario.turns:
            engine.apply(turn.utterance())
    assert json.loads(grounded("verify", log, "h4", "--json").stdout)["grounded"]
    run = grounded("run", log)
    assert run.returncode == 0 and "13 turns, 15 arguments" in run.stdout
    assert "h2" in grounded("state", log, "--at", "7").stdout


def test_state_shows_commitments_dissent_and_reinstatable():
    out = grounded("state", PHASE3, "--at", "19").stdout
    assert "alpha18" in out and "resolved" in out
    assert "dissent: alpha18: bob" in out
    assert "reinstatable: alpha12, P5, alpha15" in out
    assert "commitments: alice: " in out and "bob: " in out


def test_schema_is_json_schema_of_both_line_kinds():
    schema = json.loads(grounded("schema").stdout)
    assert schema["oneOf"] == [{"$ref": "#/$defs/HeaderLine"}, {"$ref": "#/$defs/Utterance"}]
    ops = {"Observe", "Hypothesize", "Support", "Undermine", "Revise", "ExpandAwareness", "Resolve", "Question"}
    assert ops <= set(schema["$defs"])
    assert schema["$defs"]["Hypothesize"]["required"] == ["claim", "deps"]


@pytest.mark.parametrize("args,message", [
    (["verify", "missing.jsonl", "h1"], "error: missing.jsonl: cannot read the event log"),
    (["verify", PHASE2, "not a literal"], "error: 'not a literal' is not a literal"),
    (["verify", PHASE2, "h1", "--at", "-3"], "error: at=-3: a turn is a non-negative integer"),
    (["affected", PHASE2], "error: Missing argument"),
    (["run", PHASE2, "--bogus"], "error: No such option: --bogus"),
    (["run", ROOT / "README.md"], "README.md:1: invalid JSON"),
])
def test_errors_are_one_line_on_stderr_with_exit_2(args, message):
    result = grounded(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_a_torn_final_line_is_reported_and_the_log_answers(tmp_path):
    log = tmp_path / "cut.jsonl"
    from grounded import Engine

    with Engine({"agents": {"a": {}}}, log=log) as engine:
        engine.apply({"speaker": "a", "ops": [{"op": "observe", "claim": "o1"}]})
        engine.apply({"speaker": "a", "ops": [{"op": "observe", "claim": "o2"}]})
    log.write_bytes(log.read_bytes()[:-10])  # the last write was interrupted: never acknowledged
    result = grounded("verify", log, "o1", "--json")
    assert result.returncode == 0 and json.loads(result.stdout) == {
        "claim": "o1", "grounded": True, "chain": ["o1"], "arguments": [1], "reason": None, "failing": None,
        "status": "grounded", "at": None, "complete": True, "torn_line": 3}
    assert "warning: " in result.stderr and "cut.jsonl:3: torn final line ignored" in result.stderr
    run = grounded("run", log)
    assert run.returncode == 0 and "1 turns" in run.stdout and "cut.jsonl:3: torn" in run.stderr


@pytest.mark.slow
def test_check_says_all_agree_and_decides_the_propositions():
    result = grounded("check", PHASE2, "--retraction")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "all agree (Python, Prolog and ASP): 13 utterances (13 accepted)" in result.stdout
    assert "Proposition 2.5 and Corollary 2.6 hold for 240 retractions: every literal at 11 turns" in result.stdout
    report = json.loads(grounded("check", PHASE3, "--json", "--at", "13").stdout)
    assert report["ok"] and report["accepted"] == 13 and report["mismatches"] == []


@pytest.mark.slow
def test_check_exits_1_when_a_rule_diverges_from_the_reference(tmp_path):
    # A user's edit of the shipped rules that asp/history.lp does not share: questions commit the asker to
    # argument 1 (in a copy of the rules, as a user edits them; an extension may add hooks to its own
    # operations only, tests/test_rule_modules.py).
    rules = tmp_path / "rules"
    shutil.copytree(rules_dir(), rules, ignore=shutil.ignore_patterns("__pycache__"))
    with (rules / "ops" / "question.pl").open("a") as op:
        op.write("\neffect(question, U, _, commit(S, 1)) :- speaker(U, S), standing_arg(_, 1).\n")
    result = subprocess.run([sys.executable, "-m", "grounded", "check", str(PHASE2)], capture_output=True,
                            text=True, timeout=300, env={**os.environ, RULES_DIR_VARIABLE: str(rules)})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "transitions of op [2] question element: Prolog ('commit', 'alice', 1) but ASP absent" in result.stdout
    assert "disagreements" in result.stdout


def test_check_of_a_log_cut_short_checks_the_lines_before(tmp_path):
    log = tmp_path / "talk.jsonl"
    with Engine({"agents": {"alice": {}}}, log=log) as engine:
        engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
        engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o2"}]})
    log.write_bytes(log.read_bytes()[:-20])  # the last write was interrupted
    result = grounded("check", log, "--json")
    assert result.returncode == 0
    report = json.loads(result.stdout)
    assert report["ok"] and report["utterances"] == 1 and report["complete"] and report["torn_line"] == 3
    assert "warning: " in result.stderr and "talk.jsonl:3: torn final line ignored" in result.stderr


def test_extensions_of_the_conversation():
    grounded_ext = json.loads(grounded("extensions", PHASE2, "--semantics", "grounded", "--json").stdout)
    preferred = json.loads(grounded("extensions", PHASE2, "--json").stdout)
    assert preferred == grounded_ext  # acyclic (A2): one extension under every semantics
    (ext,) = preferred
    assert "h4" in ext and "h2" not in ext  # o9 attacks h2
    early = json.loads(grounded("extensions", PHASE2, "--at", "6", "-s", "stable", "--json").stdout)
    assert early == [["o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "mis_monitor", "o10", "h1", "h2"]]
    text = grounded("extensions", PHASE3)
    assert "1 preferred extension(s)" in text.stdout and "alpha12 (weakened)" in text.stdout
    bad = grounded("extensions", PHASE2, "--semantics", "ideal")
    assert bad.returncode == 2 and bad.stderr.startswith("error: --semantics ideal: expected one of")


def test_each_command_lives_in_a_module_named_for_it():
    """`grounded run`, `extensions` and `state` are in cli/run.py, cli/extensions.py and cli/state.py
    (not replay.py and views.py), and the lines Engine.load applied come from engine/applied_lines.py."""
    for name in ("run", "extensions", "state"):  # a command is registered when its module is first imported
        importlib.import_module(f"grounded.cli.{name}")
    where = {(c.name or c.callback.__name__): c.callback.__module__ for c in app.registered_commands if c.callback}
    assert {name: where[name] for name in ("run", "extensions", "state")} == {
        "run": "grounded.cli.run", "extensions": "grounded.cli.extensions", "state": "grounded.cli.state"}
    for gone in ("grounded.cli.replay", "grounded.cli.views", "grounded.engine.replay"):
        assert importlib.util.find_spec(gone) is None, gone
    assert applied_lines.__module__ == "grounded.engine.applied_lines"
