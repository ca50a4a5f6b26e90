"""The rule author's toolkit (grounded.authoring, docs/extending.md): lint, new-op, test-op,
scenario-to-log and fuzz, run as an author runs them, on real files, with bugs planted in
copies of the `concur` example."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grounded import Engine
from grounded.authoring import fuzz, lint, new_op, run_op_tests, scenario_to_log
from grounded.core.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "extensions"
FIRST = "ben takes on ana's diagnosis and the observation it rests on"


def grounded(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run(["grounded", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def concur(tmp_path) -> Path:
    """A copy of the concur example (rule file, twin, test file, scenario)."""
    for name in ("concur.pl", "concur.lp", "concur.test.yaml", "concur.yaml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path


def plant(path: Path, line: str) -> None:
    """Delete one line (the planted bug) from a copied rule file."""
    text = path.read_text()
    assert line in text, line
    path.write_text(text.replace(line, ""))


BASIS_PL = "effect(concur, U, Op, commit(S, B)) :-\n    speaker(U, S), concur_basis(Op, B).\n"
BASIS_LP = "effect(s, commit(G, B)) :- speaker(s, G), concur_basis(s, B).\n"
OWN_LP = "violation(s, concur_own)            :- concur_by_speaker(s).\n"


def failures(path: Path) -> list[tuple[str, str]]:
    """(case, difference) of each failing case, without where the difference is decided (tested below)."""
    _, results = run_op_tests(path)
    return [(r.case.name, re.sub(r" \(decided at [^()]*\)$", "", r.difference or "")) for r in results
            if not r.passed]


# -- test-op ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_example_passes_its_own_cases(concur):
    tests, results = run_op_tests(concur / "concur.pl")  # the test file beside the rule file
    assert len(tests.cases) == 6
    assert [r.difference for r in results] == [None] * 6


@pytest.mark.slow
def test_an_effect_both_files_forget_is_named_with_the_op_and_the_case(concur):
    """Both files alike: the three-way check sees nothing; the case that names the effect does."""
    plant(concur / "concur.pl", BASIS_PL)
    plant(concur / "concur.lp", BASIS_LP)
    done = grounded("test-op", "concur.test.yaml", cwd=concur)
    assert done.returncode == 1, done.stderr
    assert (f'FAIL concur.test.yaml:5: concur, case "{FIRST}": expected effect commit(ben, rash), '
            "Prolog and ASP: absent") in done.stdout
    assert done.stdout.rstrip().endswith("concur.test.yaml: 4 passed, 2 failed")
    assert grounded("check", "concur.yaml", "-x", "concur.pl", cwd=concur).returncode == 0


def test_a_twin_without_a_precondition_is_caught(concur):
    plant(concur / "concur.lp", OWN_LP)
    assert failures(concur / "concur.test.yaml") == [
        ("one does not concur with oneself", "expected rejection with ['concur_own'], ASP: accepted")]


def test_a_difference_names_the_clause_and_the_rule_that_decide_it(concur):
    plant(concur / "concur.lp", BASIS_LP)
    _, results = run_op_tests(concur / "concur.test.yaml")
    first = next(r for r in results if not r.passed)
    lines = (concur / "concur.pl").read_text().splitlines()
    pl_line = next(n for n, text in enumerate(lines, 1) if text.startswith("effect(concur, U, Op, commit(S, B))"))
    assert first.difference is not None
    assert first.difference.endswith(f"(decided at commit: {concur / 'concur.pl'}:28, {concur / 'concur.pl'}:"
                                     f"{pl_line}; {concur / 'concur.lp'}:14)"), first.difference


def test_a_twin_that_drops_an_effect_is_caught(concur):
    plant(concur / "concur.lp", BASIS_LP)
    assert failures(concur / "concur.test.yaml") == [
        (FIRST, "expected effect commit(ben, rash), ASP: absent"),
        ("what rests on an abandoned claim is not taken on", "expected effect commit(ben, rash), ASP: absent")]


def test_an_effect_the_case_does_not_expect_is_named(concur):
    tests = concur / "concur.test.yaml"
    tests.write_text(tests.read_text().replace("effects: [commit(ben, measles), commit(ben, rash)]\n  - name: what",
                                               "effects: [commit(ben, measles)]\n  - name: what", 1))
    assert failures(tests) == [(FIRST, "Prolog and ASP: effect commit(ben, rash), not expected")]


@pytest.mark.parametrize(("edit", "message"), [
    (("cases:", "cases: 3\nnope:"), "concur.test.yaml:2: unknown top-level keys ['nope']"),
    (("    violations: [concur_own]", "    violations: [concur_own]\n    effects: []"),
     "concur.test.yaml:17: case 'one does not concur with oneself': give exactly one of `effects`"),
    (("rules: concur.pl", "rules: missing.pl"), "concur.test.yaml:2: rules: no such rule file"),
    (("{op: revise, target: fever}", "{op: revise, target: nothing}"),
     "case \"what rests on an abandoned claim is not taken on\": history utterance 3 is rejected"),
    (("effects: [commit(ben, measles), commit(ben, rash)]\n  - name: what",
      "effects: [commit(ben, measles]\n  - name: what"),
     "concur.test.yaml:5: case \"ben takes on ana's diagnosis and the observation it rests on\": effect "
     "'commit(ben, measles': a '(' without its ')'"),
])
@pytest.mark.slow
def test_a_malformed_test_file_is_an_input_error_naming_file_and_line(concur, edit, message):
    tests = concur / "concur.test.yaml"
    tests.write_text(tests.read_text().replace(*edit, 1))
    done = grounded("test-op", "concur.test.yaml", cwd=concur)
    assert done.returncode == 2
    assert message in done.stderr, done.stderr


def test_a_rule_file_without_a_twin_is_refused(concur):
    (concur / "concur.lp").unlink()
    with pytest.raises(InputError, match="no ASP twin concur.lp beside concur.pl"):
        run_op_tests(concur / "concur.test.yaml")


# -- a mutual attack: an op that weakens only one side ------------------------------------------

REBUT_PL = """\
% rebut.pl -- two claims in good standing contradict each other: each attacks the other.

operation(rebut,
          "A speaker holds that `target` and `by`, both in good standing, contradict each other: both are weakened.",
          [ field(target, literal, required),
            field(by, literal, required),
            field(text, text, optional)
          ]).

violation(rebut, _, Op, rebut_self, M) :-
    field(Op, target, T), field(Op, by, T),
    fmt(M, "~w cannot rebut itself", [T]).
violation(rebut, _, Op, rebut_not_standing, M) :-
    ( field(Op, target, L) ; field(Op, by, L) ), \\+ stands(L),
    fmt(M, "nothing in good standing claims ~w, so there is nothing to rebut", [L]).

%  A mutual attack, each side on the other, as Undermine attacks; both sides leave S_t (Lemma 2.4).
effect(rebut, _, Op, add_attack(B, A)) :-
    field(Op, target, T), field(Op, by, E), standing_arg(T, A), standing_arg(E, B).
effect(rebut, _, Op, add_attack(A, B)) :-
    field(Op, target, T), field(Op, by, E), standing_arg(T, A), standing_arg(E, B).
effect(rebut, _, Op, set_standing(A, weakened, by(E))) :-
    field(Op, target, T), field(Op, by, E), standing_arg(T, A).
effect(rebut, _, Op, set_standing(B, weakened, by(T))) :-
    field(Op, target, T), field(Op, by, E), standing_arg(E, B).

transition(rebut, add_attack).
transition(rebut, set_standing(active, weakened)).
transition(rebut, set_standing(resolved, weakened)).
"""
REBUT_LP = """\
% rebut.lp -- the ASP twin of rebut.pl.
#program rebut(s).

violation(s, rebut_self)         :- field(s, target, T), field(s, by, T).
violation(s, rebut_not_standing) :- field(s, target, L), not stands(s, L).
violation(s, rebut_not_standing) :- field(s, by, L), not stands(s, L).

effect(s, add_attack(B, A)) :- field(s, target, T), field(s, by, E), standing_arg(s, T, A), standing_arg(s, E, B).
effect(s, add_attack(A, B)) :- field(s, target, T), field(s, by, E), standing_arg(s, T, A), standing_arg(s, E, B).
effect(s, set_standing(A, weakened, by(E))) :- field(s, target, T), field(s, by, E), standing_arg(s, T, A).
effect(s, set_standing(B, weakened, by(T))) :- field(s, target, T), field(s, by, E), standing_arg(s, E, B).
"""
REBUT_TESTS = """\
# rebut.test.yaml -- cases for rebut.pl and its twin rebut.lp: grounded test-op rebut.test.yaml
rules: rebut.pl
agents: {ana: {}, ben: {}}
acyclic: false   # a mutual attack is a cycle of two: restriction A2 off
cases:
  - name: two rival claims rebut each other and both are weakened
    history:
      - {speaker: ana, ops: [{op: observe, claim: rash},
                             {op: hypothesize, claim: measles, deps: [rash], explains: [rash]}]}
      - {speaker: ben, ops: [{op: observe, claim: fever}]}
    utterance: {speaker: ben, ops: [{op: rebut, target: measles, by: fever}]}
    effects: [add_attack(fever, measles), add_attack(measles, fever),
              set_standing(measles, weakened, by(fever)), set_standing(fever, weakened, by(measles))]
  - name: a weakened claim cannot rebut
    history:
      - {speaker: ana, ops: [{op: observe, claim: rash},
                             {op: hypothesize, claim: measles, deps: [rash], explains: [rash]}]}
      - {speaker: ben, ops: [{op: observe, claim: fever}]}
      - {speaker: ben, ops: [{op: undermine, target: measles, by: fever}]}
    utterance: {speaker: ana, ops: [{op: rebut, target: measles, by: fever}]}
    violations: [rebut_not_standing]
"""
# the planted bug, in both files alike: the `by` side is never weakened
ONE_SIDE_PL = "effect(rebut, _, Op, set_standing(B, weakened, by(T))) :-\n" \
              "    field(Op, target, T), field(Op, by, E), standing_arg(E, B).\n"
ONE_SIDE_LP = "effect(s, set_standing(B, weakened, by(T))) :- " \
              "field(s, target, T), field(s, by, E), standing_arg(s, E, B).\n"
REBUT_CASE = "two rival claims rebut each other and both are weakened"


@pytest.fixture
def rebut(tmp_path) -> Path:
    """A symmetric attack written as an author writes it: rule file, twin and test file."""
    for name, text in (("rebut.pl", REBUT_PL), ("rebut.lp", REBUT_LP), ("rebut.test.yaml", REBUT_TESTS)):
        (tmp_path / name).write_text(text)
    return tmp_path


def retractions_json(log: Path, rules: Path, extension: Path) -> subprocess.CompletedProcess:
    """`grounded retractions LOG -x EXTENSION --at 4 --json` in a process whose engine loads ``rules``."""
    env = {**os.environ, "GROUNDED_RULES_DIR": str(rules)}
    return subprocess.run([sys.executable, "-m", "grounded", "retractions", str(log), "-x", str(extension),
                           "--at", "4", "--json", "--no-cache"], capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.slow
def test_rebut_weakening_only_one_side_is_caught_by_test_op_and_by_the_retraction_check(rebut):
    """Weakening one side of a mutual attack leaves an attacked argument in S_t: the invariants reject the
    utterance (test-op names the op, the case and the code); with them off, the retraction check names the
    turn, and only its third condition fails (a preferred extension of AF|X takes the other side)."""
    from tests.test_retraction_mutations import OPENING, check, conversation, unguarded_rules

    # turn 4: bob holds that alice's h1 and his o2 contradict each other
    log = conversation(rebut, *OPENING, ("bob", [{"op": "rebut", "target": "h1", "by": "o2"}]), acyclic=False)
    rules = unguarded_rules(rebut, "rebut")
    done = grounded("test-op", "rebut.test.yaml", cwd=rebut)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("rebut.test.yaml: 2 passed, 0 failed")
    assert retractions_json(log, rules, rebut / "rebut.pl").returncode == 0  # both sides out: it all holds

    plant(rebut / "rebut.pl", ONE_SIDE_PL)
    plant(rebut / "rebut.lp", ONE_SIDE_LP)
    done = grounded("test-op", "rebut.test.yaml", cwd=rebut)
    assert done.returncode == 1, done.stderr
    assert (f'FAIL rebut.test.yaml:6: rebut, case "{REBUT_CASE}": expected acceptance, '
            "Prolog and ASP: rejected with ['attack_on_standing']") in done.stdout
    assert done.stdout.rstrip().endswith("rebut.test.yaml: 1 passed, 1 failed")

    # with Lemma 2.4's checks off the planted rebut is accepted and leaves o2 active, attacked by h1
    result = check(log, rules, "-x", str(rebut / "rebut.pl"))
    assert result.returncode == 1, result.stdout + result.stderr
    assert ("turn 4: Proposition 2.5 and Corollary 2.6 fail retracting h1, o2: "
            "some preferred extension of AF|X drops an argument of S'") in result.stdout.splitlines()

    done = retractions_json(log, rules, rebut / "rebut.pl")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    failed = [r for r in report["retractions"] if not r["holds"]]
    assert sorted((r["turn"], r["literal"]) for r in failed) == [(4, "h1"), (4, "h1"), (4, "o2"), (4, "o2")]
    assert all(r["conflict_free"] and r["in_some_preferred"] and not r["in_every_preferred"] for r in failed)
    # the extension that takes the other side: h1 in, o2 (which the engine still calls standing) out
    assert all({report["arguments"][str(a)] for a in r["counterexample"]} == {"o1", "h1"} for r in failed)


# -- new-op -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_new_op_writes_an_operation_that_passes_lint_its_test_and_check(tmp_path):
    done = grounded("new-op", "second_opinion", "--dir", "draft", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    draft = tmp_path / "draft"
    assert sorted(p.name for p in draft.iterdir()) == [
        "second_opinion.lp", "second_opinion.pl", "second_opinion.plt", "second_opinion.test.yaml",
        "second_opinion.yaml"]
    assert lint(draft / "second_opinion.pl") == []
    plunit = subprocess.run(["swipl", "-g", "run_tests", "-t", "halt", "second_opinion.plt"], cwd=draft,
                            capture_output=True, text=True, timeout=120)
    assert plunit.returncode == 0 and "All 2 tests passed" in plunit.stdout + plunit.stderr, plunit.stderr
    assert failures(draft / "second_opinion.test.yaml") == []
    assert grounded("check", "draft/second_opinion.yaml", "-x", "draft/second_opinion.pl", cwd=tmp_path
                    ).returncode == 0
    assert grounded("run", "draft/second_opinion.yaml", "-x", "draft/second_opinion.pl", cwd=tmp_path
                    ).returncode == 0
    engine = Engine(extensions=[draft / "second_opinion.pl"])
    assert engine.registry.models["second_opinion"].__name__ == "SecondOpinion"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["true", "no", "on", "null", "yes", "off", "false"])
def test_new_op_under_a_name_yaml_reads_as_another_value_writes_files_test_op_reads(tmp_path, name):
    """YAML reads `op: true` as a boolean and `op: null` as nothing: the name is quoted where it is a value."""
    new_op(name, tmp_path)
    assert failures(tmp_path / f"{name}.test.yaml") == []
    done = grounded("run", f"{name}.yaml", "-x", f"{name}.pl", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_new_op_writes_nothing_over_a_file_or_under_a_bad_name(tmp_path):
    (tmp_path / "concur.test.yaml").write_text("mine")
    for name, message in (("concur", "concur.test.yaml exists"), ("observe", "observe is a built-in operation"),
                          ("Bad-Name", "'Bad-Name' is not an operation name")):
        with pytest.raises(InputError, match=re.escape(message)):
            new_op(name, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["concur.test.yaml"]
    assert (tmp_path / "concur.test.yaml").read_text() == "mine"


# -- lint ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_lint_names_a_redefined_driver_predicate_and_an_internal_call_by_line(tmp_path):
    rogue = tmp_path / "rogue.pl"
    rogue.write_text('operation(rogue, "x", [field(target, literal, required)]).\n'
                     "creates(foo(_)).\n"
                     "stands(x).\n"
                     "rogue_helper(T) :- claimed(T).\n"
                     "effect(rogue, _, Op, commit(bob, A)) :-\n"
                     "    field(Op, target, T), rogue_helper(T), argument(A, T, _, _, _).\n")
    assert [str(f) for f in lint(rogue)] == [
        f"{rogue}:1: declares rogue with no transition/2: declare what it does to the map (grounded cover holds "
        "it to that)",
        f"{rogue}:2: defines creates/1, which the driver or the author layer already defines: rename it "
        "(start a helper's name with the operation's)",
        f"{rogue}:3: defines stands/1, which the driver or the author layer already defines: rename it "
        "(start a helper's name with the operation's)",
        f"{rogue}:6: calls argument/5, which is not in the author layer (docs/extending.md lists what an "
        "operation may read)"]
    done = grounded("lint", str(rogue), str(EXAMPLES / "concur.pl"), cwd=tmp_path)
    assert done.returncode == 1
    assert f"{EXAMPLES / 'concur.pl'}: reads only the author layer" in done.stdout
    assert grounded("lint", str(EXAMPLES / "merge.pl"), cwd=tmp_path).returncode == 0
    assert grounded("lint", "missing.pl", cwd=tmp_path).returncode == 2


# -- scenario-to-log ----------------------------------------------------------------------------


def test_scenario_to_log_writes_the_accepted_turns_as_a_log(concur):
    written = scenario_to_log(concur / "concur.yaml", concur / "concur.jsonl", [concur / "concur.pl"])
    assert (written.recorded, written.rejected, written.failed) == (4, 1, [])
    engine = Engine.load(concur / "concur.jsonl", extensions=[concur / "concur.pl"])
    assert engine.log_status is not None and engine.log_status.bulk == 4  # read back from the engine's record
    assert sorted(engine.commitments()["ben"]) == ["fever", "measles", "rash"]  # taken on at turn 3
    assert not engine.verify("measles").grounded
    with pytest.raises(InputError, match="exists"):
        scenario_to_log(concur / "concur.yaml", concur / "concur.jsonl", [concur / "concur.pl"])


def test_scenario_to_log_writes_nothing_when_an_expectation_fails(concur):
    scenario = concur / "concur.yaml"
    scenario.write_text(scenario.read_text().replace("rejected: concur_own", "rejected: concur_unknown"))
    done = grounded("scenario-to-log", "concur.yaml", "concur.jsonl", "-x", "concur.pl", cwd=concur)
    assert done.returncode == 1
    assert "FAIL concur.yaml:19: rejected with concur_unknown (got ['concur_own'])" in done.stdout
    assert sorted(p.name for p in concur.iterdir()) == ["concur.lp", "concur.pl", "concur.test.yaml", "concur.yaml"]


# -- fuzz ---------------------------------------------------------------------------------------


def test_fuzz_agrees_on_the_example_and_uses_it():
    report = fuzz([EXAMPLES / "concur.pl"], histories=5, seed=7)
    assert report.ok and report.histories == 5 and report.used["concur"] > 0


@pytest.mark.slow
def test_fuzz_names_the_first_disagreement_and_the_seed_that_redraws_it(concur):
    plant(concur / "concur.lp", "effect(s, commit(G, A)) :- field(s, target, T), speaker(s, G), "
                                "standing_arg(s, T, A).\n")
    done = grounded("fuzz", "-x", "concur.pl", "--histories", "10", "--seed", "7", cwd=concur)
    assert done.returncode == 1, done.stdout + done.stderr
    failed = re.search(r"^history (\d+) \(seed (\d+), \d+ utterances\): (.*transitions of op.*)$", done.stdout, re.M)
    assert failed and "('commit'" in failed.group(3), done.stdout
    redraw = re.search(r"^redraw it: grounded (.*)$", done.stdout, re.M)
    assert redraw is not None
    again = grounded(*redraw.group(1).split(), cwd=concur)
    assert again.returncode == 1 and f"history 1 (seed {failed.group(2)}" in again.stdout
    assert again.stdout.splitlines()[1].split(": ", 1)[1] == failed.group(0).split(": ", 1)[1]


def test_fuzz_needs_an_extension(tmp_path):
    done = grounded("fuzz", "--histories", "1", cwd=tmp_path)
    assert done.returncode == 2 and "-x FILE.pl" in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("option", [("--histories", "0"), ("--histories", "10001"), ("--length", "201")])
def test_fuzz_holds_its_options_to_their_bounds(tmp_path, option):
    done = grounded("fuzz", "-x", str(EXAMPLES / "concur.pl"), *option, cwd=tmp_path)
    assert done.returncode == 2 and option[0] in done.stderr, done.stderr


def test_an_alias_in_a_test_file_is_refused_at_its_line(concur):
    tests = concur / "concur.test.yaml"
    tests.write_text(tests.read_text().replace("agents: {ana: {}, ben: {}, cy: {}}", "agents: &a {ana: {}}\nx: *a"))
    with pytest.raises(InputError, match=r"concur.test.yaml:4: invalid YAML: alias \*a is not allowed"):
        run_op_tests(tests)
