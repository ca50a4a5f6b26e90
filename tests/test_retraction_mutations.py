"""Planted bugs in the Prolog rules make the retraction check fail, naming the turn and the literal.

Each test copies prolog/ to a temporary directory, replaces one clause there
(found by its head, so the planting fails loudly if the rule files move on),
turns off the invariant checks that would otherwise reject the bug at once
(Lemma 2.4 in prolog/invariants.pl), and runs ``grounded check --retraction``
in a fresh process whose engine loads that copy (``GROUNDED_RULES_DIR``).
The reference semantics (asp/history.lp) is untouched, so the three-way check
disagrees too; what is asserted here is that the retraction check fails on
its own, at the turn the bug bites, for the literals it names.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grounded.solvers.prolog import RULES_DIR_VARIABLE, rules_dir

ROOT = Path(__file__).resolve().parents[1]
PHASE2 = ROOT / "scenarios" / "phase2.yaml"


def plant(rules: Path, file: str, head: str, replacement: str) -> None:
    """Replace the one clause of ``file`` whose text starts with ``head`` (a whole line) by ``replacement``."""
    path = rules / file
    lines = path.read_text().splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith(head)]
    if len(starts) != 1:
        raise AssertionError(f"{file}: {len(starts)} clauses start with {head!r}; re-point this mutation")
    end = starts[0]
    while not lines[end].rstrip().endswith("."):
        end += 1
    lines[starts[0]:end + 1] = [replacement + ("\n" if replacement else "")]
    path.write_text("".join(lines))


def without_lemma_2_4(rules: Path) -> None:
    """Turn off what prolog/invariants.pl checks about standing: attacked arguments may stand, and return."""
    plant(rules, "invariants.pl", "broken_invariant(add_attack(_, T), attack_on_standing, M) :-", "")
    plant(rules, "invariants.pl", "broken_invariant(set_standing(A, S, _), attack_on_standing, M) :-", "")
    plant(rules, "invariants.pl", "standing_may_change(Old, New) :-", "standing_may_change(_, _).")


MUTATIONS = {
    "undermine_does_not_weaken": [
        ("ops/undermine.pl", "effect(undermine, _, Op, set_standing(A, weakened, by(E))) :-", ""),
    ],
    "revise_does_not_abandon": [
        ("vocabulary.pl", "retraction_effect(_, T, _, Cause, set_standing(A, abandoned, Cause)) :-", ""),
    ],
    "resolve_leaves_attacked_argument_resolved": [
        ("ops/resolve.pl", "effect(resolve, _, Op, set_standing(A, resolved, none)) :-",
         "effect(resolve, _, Op, set_standing(A, resolved, none)) :-\n"
         "    field(Op, target, T), claims(A, T), \\+ standing_of(A, abandoned)."),
    ],
    "attack_left_on_standing_argument": [  # Revise records its attack backwards: on the standing `by`
        ("vocabulary.pl", "retraction_effect(_, T, B, _, add_attack(B, A)) :-",
         "retraction_effect(_, T, B, _, add_attack(A, B)) :-\n    B \\== none, claims(A, T)."),
    ],
}


def unguarded_rules(tmp: Path, name: str) -> Path:
    """A copy of the shipped rules in ``tmp`` with Lemma 2.4's checks off (for GROUNDED_RULES_DIR)."""
    rules = tmp / f"rules-{name}"
    shutil.copytree(rules_dir(), rules, ignore=shutil.ignore_patterns("__pycache__"))
    without_lemma_2_4(rules)
    return rules


def mutated_rules(tmp: Path, name: str) -> Path:
    rules = unguarded_rules(tmp, name)
    for file, head, replacement in MUTATIONS[name]:
        plant(rules, file, head, replacement)
    return rules


def conversation(tmp: Path, *turns: tuple[str, list[dict]], **header: object) -> Path:
    """A JSON Lines event log: alice has decision authority, bob does not (``header``: more header keys)."""
    log = tmp / "talk.jsonl"
    lines = [{"grounded": 1, "agents": {"alice": {"authority": True}, "bob": {}}, **header}]
    lines += [{"turn": t, "speaker": s, "text": "", "ops": ops} for t, (s, ops) in enumerate(turns, 1)]
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return log


OPENING = (("bob", [{"op": "observe", "claim": "o1"}, {"op": "question", "claim": "q1"}]),
           ("alice", [{"op": "hypothesize", "claim": "h1", "deps": ["o1"], "explains": ["q1"]}]),
           ("bob", [{"op": "observe", "claim": "o2"}]))


def check(path: Path, rules: Path | None, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != RULES_DIR_VARIABLE}
    if rules is not None:
        env[RULES_DIR_VARIABLE] = str(rules)
    return subprocess.run([sys.executable, "-m", "grounded", "check", str(path), "--retraction", *args],
                          capture_output=True, text=True, timeout=120, env=env)


def revise_log(tmp: Path) -> Path:
    """Turn 4: bob revises alice's h1 with his observation o2."""
    return conversation(tmp, *OPENING, ("bob", [{"op": "revise", "target": "h1", "by": "o2"}]))


def resolve_log(tmp: Path) -> Path:
    """Turn 4: o2 undermines h1; turn 5: alice, who has decision authority, resolves h1 anyway."""
    return conversation(tmp, *OPENING, ("bob", [{"op": "undermine", "target": "h1", "by": "o2"}]),
                        ("alice", [{"op": "resolve", "target": "h1"}]))


CASES = [
    # mutation, conversation, the failure line it must print (turn, literals, cause)
    ("undermine_does_not_weaken", lambda tmp: PHASE2,
     "turn 7: Proposition 2.5 and Corollary 2.6 fail retracting h1, h2, mis_monitor, o1, o10, o2, o3, o4 and 4 more: "
     "S' = S_t \\ X is not conflict-free in AF|X (o9 #13 attacks h2 #12)"),
    ("revise_does_not_abandon", revise_log,
     "turn 4: Proposition 2.5 and Corollary 2.6 fail retracting h1, o2: "
     "S' = S_t \\ X is not conflict-free in AF|X (o2 #3 attacks h1 #2)"),
    ("resolve_leaves_attacked_argument_resolved", resolve_log,
     "turn 5: Proposition 2.5 and Corollary 2.6 fail retracting decide_h1, h1, o2: "
     "S' = S_t \\ X is not conflict-free in AF|X (o2 #3 attacks h1 #2)"),
    ("attack_left_on_standing_argument", revise_log,
     "turn 4: Proposition 2.5 and Corollary 2.6 fail retracting h1, o2: "
     "no preferred extension of AF|X contains S' (o2 #3 cannot be defended)"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("mutation", "log", "failure"), CASES, ids=[c[0] for c in CASES])
def test_a_planted_bug_fails_the_retraction_check_at_its_turn(tmp_path, mutation, log, failure):
    path = log(tmp_path)
    from grounded.crosscheck.check import check as check_in_process  # the shipped rules: it all holds

    sound = check_in_process(path, retraction=True)
    assert sound.ok and sound.retraction is not None and sound.retraction.failed == []

    result = check(path, mutated_rules(tmp_path, mutation))
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(failure)]
    assert len(starts) == 1, result.stdout
    at = starts[0]
    # the work behind the first failing retraction: X, S' and the preferred extensions of AF|X
    assert lines[at + 2].strip().startswith("X = Affected(")
    assert lines[at + 3].strip().startswith("S' = S_t \\ X = {")
    assert lines[at + 4].strip().startswith("preferred extensions of AF|X containing S': 0 of 1")
    assert "Proposition 2.5 or Corollary 2.6 fails for" in lines[-1]


def test_planting_names_a_clause_that_is_not_there(tmp_path):
    rules = tmp_path / "rules"
    shutil.copytree(rules_dir(), rules, ignore=shutil.ignore_patterns("__pycache__"))
    with pytest.raises(AssertionError, match="re-point this mutation"):
        plant(rules, "ops/undermine.pl", "effect(undermine, _, Op, no_such_effect) :-", "")
    plant(rules, "ops/undermine.pl", "effect(undermine, _, Op, set_standing(A, weakened, by(E))) :-", "")
    assert "set_standing(A, weakened" not in (rules / "ops/undermine.pl").read_text()
    assert "add_attack(B, A)" in (rules / "ops/undermine.pl").read_text()  # the clause before it is intact


def test_retractions_json_names_the_counterexample_and_the_number_of_extensions(tmp_path):
    """A failing retraction's JSON holds how many preferred extensions AF|X has and one that drops S'."""
    env = {**os.environ, RULES_DIR_VARIABLE: str(mutated_rules(tmp_path, "attack_left_on_standing_argument"))}
    done = subprocess.run([sys.executable, "-m", "grounded", "retractions", str(revise_log(tmp_path)), "-p", "o2",
                           "--at", "4", "--json"], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    (failed, *_) = [r for r in report["retractions"] if not r["holds"]]
    assert failed["preferred_extensions"] == 1 and failed["extensions"] == []
    counter = failed["counterexample"]
    assert counter is not None and not set(failed["kept"]) <= set(counter)
    assert report["arguments"]["3"] == "o2" and 3 in failed["kept"] and 3 not in counter
    held = [r for r in report["retractions"] if r["holds"]]
    assert all(r["counterexample"] is None and r["preferred_extensions"] >= 1 for r in held)
