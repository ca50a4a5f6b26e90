"""The standing audit (crosscheck/audit.py, run by ``check --retraction``): a misreading the rule and
its twin share passes the three-way check, and the audit, which reads only standings and attacks,
names it."""

from __future__ import annotations

import json

import pytest

from grounded.crosscheck.audit import Standing, audit_framework
from grounded.crosscheck.check import check_history
from grounded.dmap.model import Header

from .test_cli import grounded

# doubt: weakens its target "by" the evidence, and records no attack: the rule and its twin agree
DOUBT_PL = """% doubt.pl -- weakens a claim by another, without the attack (a shared misreading).
operation(doubt, "A speaker doubts target because of by.",
          [field(target, literal, required), field(by, literal, required)]).
violation(doubt, _, Op, doubt_unknown, M) :-
    field(Op, target, T), \\+ stands(T), fmt(M, "~w does not stand", [T]).
effect(doubt, _, Op, set_standing(A, weakened, by(E))) :-
    field(Op, target, T), field(Op, by, E), standing_arg(T, A).
transition(doubt, set_standing(active, weakened)).
"""
DOUBT_LP = """#program doubt(s).
violation(s, doubt_unknown) :- field(s, target, T), not stands(s, T).
effect(s, set_standing(A, weakened, by(E))) :- field(s, target, T), field(s, by, E), standing_arg(s, T, A).
"""
HEADER = {"agents": {"alice": {}, "bob": {}}}
HISTORY = [{"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}, {"op": "observe", "claim": "o2"}]},
           {"speaker": "bob", "ops": [{"op": "doubt", "target": "o1", "by": "o2"}]}]


@pytest.mark.slow
def test_a_shared_misreading_passes_the_three_way_check_and_fails_the_audit(tmp_path):
    (tmp_path / "doubt.pl").write_text(DOUBT_PL)
    (tmp_path / "doubt.lp").write_text(DOUBT_LP)
    ext = [tmp_path / "doubt.pl"]
    plain = check_history(Header.model_validate(HEADER), HISTORY, ext)
    assert plain.ok and plain.audit is None  # Python, Prolog and ASP agree
    report = check_history(Header.model_validate(HEADER), HISTORY, ext, retraction=True)
    assert not report.ok and not report.mismatches
    assert report.audit == [
        "audit (Python): o1 #1 is weakened with no attack recorded on it: Dung's semantics accept an unattacked "
        "argument in every extension, and only an attack weakens",
        "audit (Prolog): o1 #1 is weakened with no attack recorded on it: Dung's semantics accept an unattacked "
        "argument in every extension, and only an attack weakens"]
    assert "standing audit: 2 standings the paper excludes" in report.summary()
    log = tmp_path / "doubt.jsonl"
    lines = [{"grounded": 1, **HEADER}] + [{"turn": n, **u} for n, u in enumerate(HISTORY, 1)]
    log.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    done = grounded("check", str(log), "-x", str(ext[0]), "--retraction")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "audit (Python): o1 #1 is weakened with no attack recorded on it" in done.stdout


def test_the_audit_reads_each_excluded_case_and_passes_the_paper_s_own():
    claims = {1: "o1", 2: "o2", 3: "h1", 4: "h2"}
    ok = {1: Standing("weakened", "o2"), 2: Standing("active", None), 3: Standing("abandoned", None),
          4: Standing("abandoned", "o2")}
    assert audit_framework("x", ok, [(2, 1), (2, 4)], claims) == []
    bad = {1: Standing("active", None), 2: Standing("resolved", None), 4: Standing("abandoned", "o2")}
    assert audit_framework("x", bad, [(2, 1), (1, 1)], claims) == [
        "audit (x): o1 #1 is active while attacked by o1 #1, o2 #2, in good standing (Lemma 2.4: S_t is "
        "conflict-free)",
        "audit (x): h2 #4 is abandoned by o2 with no attack recorded on it"]


def test_a_checked_scenario_passes_the_audit():
    done = grounded("check", "scenarios/phase2.yaml", "--retraction")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every standing agrees with the attacks of AF_t (standing audit)" in done.stdout
