"""The paper's Phase 2 and Phase 3 scenarios, and the scenario format itself."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from grounded import Engine, InputError
from grounded.crosscheck.check import check
from grounded.scenario import Scenario, run
from tests.inprocess import grounded

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def outcomes(path):
    scenario = Scenario.load(path)
    engine = Engine(scenario.header)
    return engine, list(run(scenario, engine))


@pytest.mark.parametrize("name,minimum", [("phase2.yaml", 30), ("phase3.yaml", 25), ("differential.yaml", 30)])
def test_every_expectation_of_the_paper_scenarios_passes(name, minimum):
    _, results = outcomes(SCENARIOS / name)
    checks = [c for o in results for c in o.checks]
    assert len(checks) >= minimum
    assert [str(c) for c in checks if not c.passed] == []


def test_phase2_hypothesis_lifecycles_turn_by_turn():
    engine, _ = outcomes(SCENARIOS / "phase2.yaml")
    life = {h: [engine.standing(h, at=t) for t in (5, 6, 7, 9, 11, 12, 13)] for h in ("h1", "h2", "h3", "h4")}
    assert life == {
        "h1": ["active", "active", "active", "active", "active", "active", "resolved"],
        "h2": [None, "active", "weakened", "abandoned", "abandoned", "abandoned", "abandoned"],
        "h3": [None, None, None, None, "active", "active", "resolved"],
        "h4": [None, None, None, None, None, "active", "resolved"],
    }


def test_phase3_counterfactual_flags_exactly_the_decision():
    engine, _ = outcomes(SCENARIOS / "phase3.yaml")
    assert set(engine.affected("a3", closure=False, at=19).claims) == {"alpha16", "alpha18"}
    assert engine.verify("alpha18", at=19).grounded
    after = engine.verify("alpha18")
    assert not after.grounded and after.failing == "a3"
    assert engine.verify("alpha17").grounded and not engine.verify("alpha17", at=19).grounded
    for untouched in ("alpha1", "alpha2"):
        assert engine.verify(untouched).grounded and engine.dep(untouched) == ["timeline"]


def test_retraction_flags_what_rests_on_the_retracted_claim():
    _, results = outcomes(SCENARIOS / "phase3.yaml")
    flags = {o.turn.turn: o.update.flagged for o in results if o.turn is not None and o.update.flagged}
    assert flags == {20: {"a3": ["alpha18"]}}  # alpha16 left S_t at T17 already
    _, results = outcomes(SCENARIOS / "phase2.yaml")
    assert all(not o.update.flagged for o in results if o.turn is not None)  # nothing rested on h2


def test_competing_explanations_of_one_symptom():
    """differential.yaml: the second explanation of s2 is accepted while the first stands,
    neither attacks the other, and s2 stays open until one is resolved."""
    engine, results = outcomes(SCENARIOS / "differential.yaml")
    assert [o.turn.turn for o in results if o.turn is not None and o.rejection is not None] == [8]
    assert [(a, b) for a, b, _ in engine.state.attacks] == [(engine.arguments("culture")[0].id,
                                                            engine.arguments("h_viral")[0].id)]
    assert ["s2" in engine.open_problems(at=t) for t in range(1, 9)] == [True] * 6 + [False] * 2
    flags = {o.turn.turn: o.update.flagged for o in results if o.update is not None and o.update.flagged}
    assert flags == {6: {"h_viral": ["plan_supportive"]}}
    assert [engine.verify("plan_supportive", at=t).grounded for t in (3, 5, 6, 8)] == [True, True, False, False]


@pytest.mark.parametrize("turn", range(1, 9))
def test_grounded_check_agrees_three_ways_on_the_differential_at_every_turn(turn):
    report = check(SCENARIOS / "differential.yaml", at=turn)
    assert report.asp and report.ok, report.mismatches[:3]
    assert report.utterances == turn


def test_the_rules_own_answers_equal_the_bridges_on_phase3():
    """Reinstatable and the standing notes are decided by rules too (issue 9 item 4)."""
    engine, _ = outcomes(SCENARIOS / "phase3.yaml")
    assert engine.rules.reinstatable() == engine.reinstatable() != []
    notes = engine.rules.notes()
    assert notes == {claim: engine.state.note(claim) for claim in engine.state.claimants}
    assert str(notes["a3"]) == "abandoned at T20 by -a3"


def test_a_wrong_expectation_fails(tmp_path):
    text = (SCENARIOS / "phase2.yaml").read_text().replace("standing: {h2: weakened}\n", "standing: {h2: active}\n", 1)
    path = tmp_path / "wrong.yaml"
    path.write_text(text)
    _, results = outcomes(path)
    failed = [str(c) for o in results for c in o.checks if not c.passed]
    assert failed == ["FAIL standing {h2: active} (got {h2: weakened})"]


def test_a_turn_may_expect_its_own_rejection(tmp_path):
    path = tmp_path / "reject.yaml"
    path.write_text("""
grounded: 1
agents: {alice: {}}
props: [{id: secret, aware: false}]
turns:
  - turn: 1
    speaker: alice
    ops: [{op: observe, claim: secret}]
    expect:
      - rejected: [observe_unaware]
  - turn: 2
    speaker: alice
    ops: [{op: expand_awareness, claim: secret}]
    expect:
      - grounded: [secret]
""")
    _, results = outcomes(path)
    assert [str(c) for o in results for c in o.checks] == ["PASS rejected with observe_unaware", "PASS grounded secret"]


def test_rejected_true_expects_any_rejection_and_an_unexpected_one_fails_without_stopping(tmp_path):
    path = tmp_path / "reject.yaml"
    path.write_text("""
grounded: 1
agents: {alice: {}}
turns:
  - turn: 1
    speaker: alice
    note: "Support needs a target that exists: watch the code."
    ops: [{op: support, target: nothing, by: nobody}]
    expect:
      - rejected: true
  - turn: 2
    speaker: alice
    ops: [{op: support, target: nothing, by: nobody}]
  - turn: 3
    speaker: alice
    ops: [{op: observe, claim: o1}]
    expect:
      - rejected: true
      - grounded: [o1]
""")
    scenario = Scenario.load(path)
    assert scenario.turns[0].note == "Support needs a target that exists: watch the code."
    _, results = outcomes(path)
    got = [str(c) for o in results for c in o.checks]
    assert got[0] == "PASS rejected"
    assert got[1].startswith("FAIL accepted (rejected: T2 alice: rejected: op 0 (support): [support_target_unknown]")
    assert got[2:] == ["FAIL rejected (got accepted)", "PASS grounded o1"]


@pytest.mark.parametrize("content,message", [
    ("grounded: 1\nturns: [{turn: 1, speaker: a, ops: []}]\nexpect:\n  - standng: {h: active}\n",
     "s.yaml:4: a check names exactly one of"),
    ("grounded: 1\nturns:\n  - {turn: 1, speaker: a, ops: [], extra: 1}\n", "s.yaml:3: turn: unknown keys ['extra']"),
    ("grounded: 1\nturns:\n  - {turn: one, speaker: a}\n", "s.yaml:3: turn: `turn` must be an integer"),
    ("grounded: 1\nturns:\n  - {turn: true, speaker: a}\n", "s.yaml:3: turn: `turn` must be an integer"),
    ("grounded: 1\nturns: [{turn: 1, speaker: a, ops: []}]\nexpect:\n  - {open_problems: [], at: yes}\n",
     "s.yaml:4: `at` must be a turn number, not True"),
    ("grounded: 1\nagents: {a: {authority: maybe}}\nturns: []\n", "s.yaml:1: header: agents.a.authority"),
    ("grounded: 1\nturns: [\n", "s.yaml:3: invalid YAML: expected the node content"),
    ("grounded: 1\ntitel: x\nturns: []\n", "s.yaml:1: unknown top-level keys ['titel']"),
    ("grounded: 1\nturns:\n  - turn: 1\n    speaker: a\n    ops: []\n    expect: [{rejected: false}]\n",
     "s.yaml:6: `rejected` takes true (any rejection), a code or a list of codes, not False"),
    ("grounded: 1\nturns:\n  - turn: 1\n    speaker: a\n    ops: []\n    expect: [{rejected: []}]\n",
     "s.yaml:6: `rejected` takes true"),
    ("grounded: 1\nturns:\n  - {turn: 1, speaker: a, ops: [], note: [x]}\n",
     "s.yaml:3: turn 1: `note` must be a text"),
    ("grounded: 1\nturns:\n  - turn: 1\n    speaker: a\n    ops: [{op: observe}]\n",
     "s.yaml:3: turn 1: ops[0].claim: Field required"),
    ("grounded: 1\nturns: []\nexpect:\n  - rejected: [x]\n", "s.yaml:4: `rejected` checks a turn"),
])
def test_scenario_errors_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "s.yaml"
    path.write_text(content)
    with pytest.raises(InputError) as info:
        list(run(Scenario.load(path)))
    assert message in str(info.value)


def alias_bomb(levels: int = 9) -> str:
    """The billion laughs in YAML: each anchor a list of nine aliases of the one before (484 bytes at nine
    levels, 2.2 GB once expanded; the test uses six, 9^6 strings, so that a regression fails without
    exhausting the machine)."""
    lines = ["grounded: 1", "a0: &a0 [lol]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "\n".join([*lines, f"title: *a{levels}", "turns: []", ""])


@pytest.mark.parametrize("name,what", [("deep.yaml", "scenario"), ("deep.test.yaml", "operation test file")])
def test_yaml_nested_too_deep_is_refused_at_its_line(tmp_path, name, what):
    """400 levels of brackets (806 bytes) were a RecursionError, an internal error; now an input error at the
    line where the nesting passes MAX_YAML_DEPTH, for every YAML file grounded reads (scenarios, test files)."""
    from grounded.core.bounds import MAX_YAML_DEPTH

    path = tmp_path / name
    path.write_text("grounded: 1\nturns:\n  - " + "[" * 400 + "]" * 400 + "\n")
    result = grounded("run" if what == "scenario" else "test-op", path)
    assert result.returncode == 2
    assert f"{name}:3: invalid YAML: nested more than {MAX_YAML_DEPTH} levels deep" in result.stderr
    assert "internal error" not in result.stderr
    path.write_text("grounded: 1\nturns: " + "[" * (MAX_YAML_DEPTH - 1) + "]" * (MAX_YAML_DEPTH - 1) + "\n")
    assert "nested more" not in grounded("run" if what == "scenario" else "test-op", path).stderr


def test_a_yaml_alias_bomb_is_refused_at_its_first_alias(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb(6))
    started = time.monotonic()
    with pytest.raises(InputError, match=r"bomb.yaml:3: invalid YAML: alias \*a0 is not allowed \(write the value"):
        Scenario.load(path)  # was: 2.2 GB and a MemoryError after 27 s
    result = grounded("run", path)
    assert result.returncode == 2 and "bomb.yaml:3: invalid YAML: alias *a0 is not allowed" in result.stderr
    assert time.monotonic() - started < 5


def test_grounded_run_prints_each_turns_note_before_what_the_rules_did_and_the_answers():
    """A course scenario read aloud from `grounded run`: a turn's note prepares what the rules do, so it comes
    right after the utterance and its operations, before the changes, the engine's answers and the checks."""
    r = grounded("run", str(Path(__file__).resolve().parents[1] / "scenarios" / "pendulum.yaml"))
    assert r.returncode == 0, r.stderr
    turns = re.split(r"\n(?=T\d+ )", r.stdout)
    with_notes = [t for t in turns if "\n  note: " in t]
    assert len(with_notes) == 10
    for t in with_notes:
        lines = t.splitlines()
        assert lines[1].startswith("  ops: ") and lines[2].startswith("  note: "), lines[:4]
