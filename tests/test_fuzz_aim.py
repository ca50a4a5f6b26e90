"""The aiming fuzzer (grounded.authoring.aim, fuzz, coverage): it reaches the states where bugs
live, and says when it tested too little.

Each planted bug below passes a fuzz that never declares a world model, or
never puts three hypotheses on one question: the twin agrees with the rule
everywhere else.  The aimed fuzz draws those states and names the
disagreement; an operation never accepted, or a declared transition never
fired, fails the run by name.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from grounded.authoring import fuzz
from grounded.authoring.aim import draw

from .test_cli import grounded

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "extensions"


def concur_copy(tmp_path: Path, pl_extra: str = "", lp_extra: str = "") -> Path:
    """The concur example with clauses added to its rule file and its twin."""
    for suffix, extra in ((".pl", pl_extra), (".lp", lp_extra)):
        (tmp_path / f"concur{suffix}").write_text((EXAMPLES / f"concur{suffix}").read_text() + extra)
    return tmp_path / "concur.pl"


def test_histories_reach_world_models_competing_hypotheses_each_standing_and_cycles():
    seen = {"world": 0, "no world": 0, "three on one question": 0, "cycle": 0}
    standings: set[str] = set()
    for i in range(40):
        head, drawn = draw(random.Random(i), [EXAMPLES / "concur.pl"], 12)
        seen["world" if head.world is not None else "no world"] += 1
        explainers: dict[str, set[str]] = {}
        attacks: set[tuple[int, int]] = set()
        for d in drawn:
            if d.update is None:
                continue
            for e in d.update.effects:
                if e.name == "set_standing":
                    standings.add(e.standing)
                if e.name == "add_explains":
                    explainers.setdefault(e.literal, set()).add(e.arg)
                if e.name == "add_attack":
                    attacks.add((e.attacker, e.target))
        seen["three on one question"] += any(len(v) >= 3 for v in explainers.values())
        seen["cycle"] += any((b, a) in attacks for a, b in attacks)
    assert all(n > 0 for n in seen.values()), seen
    assert standings >= {"weakened", "abandoned", "resolved"}


WORLD_ONLY_PL = """
%  under a world model, concurring upgrades the hypothesis in M
effect(concur, _, Op, upgrade(T, conservative)) :- world_model, field(Op, target, T).
"""
WORLD_ONLY_LP = """
effect(s, upgrade(T, lexicographic)) :- world_model, field(s, target, T).
"""


@pytest.mark.slow
def test_a_twin_that_drifts_only_under_a_world_model_is_caught(tmp_path):
    rule = concur_copy(tmp_path, WORLD_ONLY_PL, WORLD_ONLY_LP)
    report = fuzz([rule], histories=30, seed=0)
    assert report.failure is not None, "the world-model-only drift was not found"
    assert "upgrade" in report.failure[3] and "concur" in report.failure[3]


THREE_PL = """
%  a crowded question: at least three hypotheses explain what the target explains
concur_crowded(T) :- standing_arg(T, A), explains(A, X),
    aggregate_all(count, (explains(B, X), in_standing(B)), N), N >= 3.
violation(concur, _, Op, concur_crowded, M) :-
    field(Op, target, T), concur_crowded(T),
    fmt(M, "~w competes with two or more others: concurring now takes a side", [T]).
"""
# the twin's count is off by one: it sees a crowd only from four hypotheses on
THREE_LP = """
concur_crowded(s) :- field(s, target, T), standing_arg(s, T, A), explains(s, A, X),
    #count{ B : explains(s, B, X), in_standing(s, B) } >= 4.
violation(s, concur_crowded) :- concur_crowded(s).
"""


def test_a_bug_that_needs_three_competing_hypotheses_is_caught(tmp_path):
    rule = concur_copy(tmp_path, THREE_PL, THREE_LP)
    report = fuzz([rule], histories=40, seed=0)
    assert report.failure is not None, "the three-hypotheses bug was not found"
    assert "concur_crowded" in report.failure[3] or "concur" in report.failure[3]


NEVER = """% never.pl -- an operation no state accepts.
operation(never, "refused always", [field(target, literal, required)]).
violation(never, _, Op, never_ever, M) :- field(Op, target, T), fmt(M, "~w: never", [T]).
effect(never, U, Op, commit(S, A)) :- field(Op, target, T), speaker(U, S), standing_arg(T, A).
transition(never, commit).
"""


def test_an_operation_never_accepted_fails_the_run_by_name(tmp_path):
    (tmp_path / "never.pl").write_text(NEVER)
    (tmp_path / "never.lp").write_text("#program never(s).\nviolation(s, never_ever) :- field(s, target, _).\n"
                                       "effect(s, commit(G, A)) :- field(s, target, T), speaker(s, G), "
                                       "standing_arg(s, T, A).\n")
    report = fuzz([tmp_path / "never.pl"], histories=3, seed=0)
    assert report.failure is None and not report.ok
    assert any(p.startswith("never was never accepted") for p in report.problems), report.problems
    done = grounded("fuzz", "-x", str(tmp_path / "never.pl"), "--histories", "3", "--seed", "0")
    assert done.returncode == 1, done.stdout
    assert "MISSED never was never accepted" in done.stdout
    assert "never: accepted 0 (0 with a world model), rejected" in done.stdout


def test_a_declared_transition_that_never_fires_fails_cover_and_fuzz(tmp_path):
    """concur declares it abandons; it never does (a bug both files share, invisible to the three-way check)."""
    rule = concur_copy(tmp_path, "transition(concur, set_standing(active, abandoned)).\n")
    done = grounded("cover", str(rule), "--histories", "20", "--length", "12")
    assert done.returncode == 1, done.stdout
    assert ("MISSED concur never emitted set_standing(active, abandoned) (declared by "
            "transition(concur, set_standing(active, abandoned)))") in done.stdout
    report = fuzz([rule], histories=4, seed=0)
    assert report.failure is None
    assert any("never emitted set_standing(active, abandoned)" in p for p in report.problems)


@pytest.mark.slow
def test_two_hundred_histories_of_an_example_agree_and_cover_it():
    """The run the guide shows: every declared transition fired, every code reached (timed by
    bench, not here)."""
    report = fuzz([EXAMPLES / "concur.pl"], histories=200, seed=0)
    assert report.ok, report.problems or report.failure
    (concur,) = report.coverage.values()
    assert concur.accepted_in_world > 0 and concur.codes == set(concur.reached)
