"""What `grounded check` says when a side is wrong, and that it can be trusted with any id.

Each mutation below is planted in a copy of one shipped ASP rule file, and the
check is pointed at the copy: the report must name the differing element (the
utterance, the operation, the transition, the claim) with both sides' values.
The moved semantics (reinstatable arguments, the flagged set, the standing note,
the authoritative decision's id) are among them: they are checked, not assumed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounded.crosscheck.check import check_history
from grounded.dmap.model import Header
from grounded.engine import Engine
from grounded.solvers.asp import encoding
from grounded.solvers.history import OneShotHistory

HEADER = {"agents": {"alice": {"authority": True}, "bob": {}, "carol": {}}}


def u(turn: int, who: str, *ops: dict, text: str = "") -> dict:
    return {"turn": turn, "speaker": who, "text": text, "ops": list(ops)}


# o3 undermines h1 (weakened), o2 and o3 are revised (h2 rests on o2: flagged; h1's only
# attacker leaves S_t: reinstatable), alice resolves the weakened h1 by authority
# (decision decide_h1), bob asks a question and undermines h2 with o1 (h2 stays out of
# S_t while o1 stands: not reinstatable).
STORY = [
    u(1, "alice", {"op": "observe", "claim": "o1"}, {"op": "observe", "claim": "o2"}),
    u(2, "bob", {"op": "hypothesize", "claim": "h1", "deps": ["o1"], "explains": ["o1"]}),
    u(3, "carol", {"op": "hypothesize", "claim": "h2", "deps": ["o2"], "explains": ["o1"]}),
    u(4, "carol", {"op": "observe", "claim": "o3"}),
    u(5, "bob", {"op": "undermine", "target": "h1", "by": "o3"}),
    u(6, "carol", {"op": "revise", "target": "o2"}),
    u(7, "alice", {"op": "revise", "target": "o3"}),
    u(8, "alice", {"op": "resolve", "target": "h1"}),
    u(9, "bob", {"op": "question", "claim": "q1"}, {"op": "undermine", "target": "h2", "by": "o1"}),
]


def test_the_story_agrees_three_ways():
    report = check_history(Header.model_validate(HEADER), STORY)
    assert report.ok, report.mismatches
    assert report.accepted == 9 and report.transitions > 40


MUTATIONS = {
    # rule file, text replaced, replacement, what the report must say
    "undermine abandons": (
        "ops/undermine.lp", "set_standing(A, weakened, by(E))", "set_standing(A, abandoned, by(E))",
        "utterance 5 (turn 5) transitions of op [0] undermine element: Prolog ('set_standing', 3, 'weakened', 'o3') "
        "but ASP ('set_standing', 3, 'abandoned', 'o3')"),
    "reinstatable ignores defenders": (
        "history.lp", "att_at(_, A, x), not defended(A, x).", "att_at(_, A, x).",
        "reinstatable arguments"),
    "standing note a turn late": (
        "history.lp", "step_turn(S1, T).\n", "step_turn(S1, T0), T = T0 + 1.\n",
        "standing notes['decide_h1']: Python 'resolved at T8' but ASP 'resolved at T9'"),
    "flagged forgets standing": (
        "history.lp", "aff(L, A, 2*C), in_s(A, 2*C)", "aff(L, A, 2*C), not in_s(A, 2*C)",
        "utterance 6 (turn 6) flagged claims ['o2'] element: Python 'h2' but ASP absent"),
    "decision takes the second id": (
        "ops/resolve.lp", "D = @decide_name(P, N).", "D = @decide_name(P, N + 1).",
        "utterance 8 (turn 8) transitions of op [0] resolve element: Prolog ('aware', 'decide_h1') but ASP "
        "('aware', 'decide_h1_2')"),
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_a_planted_mutation_is_named_by_its_element(name, tmp_path):
    rule, old, new, expected = MUTATIONS[name]
    original = Path(encoding(rule)).read_text()
    assert old in original, f"{rule} no longer holds {old!r}: update the mutation"
    mutated = tmp_path / Path(rule).name
    mutated.write_text(original.replace(old, new))
    report = check_history(Header.model_validate(HEADER), STORY, asp_overrides={rule: str(mutated)})
    assert not report.ok
    assert any(expected in line for line in report.mismatches), report.mismatches
    assert all(len(line) < 600 for line in report.mismatches)


# -- competing hypotheses (DESIGN.md section 2) -----------------------------------------

DIAGNOSIS = [
    u(1, "alice", {"op": "observe", "claim": "fever"}),
    u(2, "bob", {"op": "hypothesize", "claim": "flu", "deps": ["fever"], "explains": ["fever"]}),
    # a second, competing explanation of the same symptom is accepted: fever is still open
    u(3, "carol", {"op": "hypothesize", "claim": "covid", "deps": ["fever"], "explains": ["fever"]}),
    u(4, "carol", {"op": "observe", "claim": "negative_test"}),
    u(5, "carol", {"op": "revise", "target": "covid", "by": "negative_test"}),
    u(6, "alice", {"op": "resolve", "target": "flu"}),
]


def test_competing_explanations_agree_three_ways_at_every_turn():
    header = Header.model_validate(HEADER)
    for turn in range(1, len(DIAGNOSIS) + 1):
        report = check_history(header, DIAGNOSIS[:turn])
        assert report.ok, (turn, report.mismatches)
        assert report.accepted == turn
    with Engine(header) as engine:
        for utterance in DIAGNOSIS:
            engine.apply(utterance)
            if utterance["turn"] in (3, 5):
                assert "fever" in engine.open_problems()
        assert "fever" not in engine.open_problems()  # settled once flu is resolved
        assert engine.verify("flu").grounded and not engine.verify("covid").grounded


# -- hostile ids and texts ----------------------------------------------------------
# Ids may use letters, digits and _ . : - (src/grounded/core/literals.py); texts anything.
# Both go to clingo as typed symbols (clorm), never as program text.

HOSTILE_TEXT = "it's \"quoted\" \\ back).\n:- #show x. % comment\x00 NUL, ünïcödé ✓ 日本"
HOSTILE_IDS = ["a:-b.", "p.q.r", "x:y:-z", "not", "_", "0", "decide_h1", "h1.", "o1:", "show", "P3", "a-b"]


def rename(history: list[dict], names: dict[str, str]) -> list[dict]:
    """The same history with every literal's atom and every speaker renamed, every text hostile."""
    def lit(x: str) -> str:
        return "-" + names[x[1:]] if x.startswith("-") else names[x]

    out = []
    for utterance in history:
        ops = []
        for op in utterance["ops"]:
            new = {"op": op["op"], "text": HOSTILE_TEXT}
            for key, value in op.items():
                if key in ("op", "text"):
                    continue
                new[key] = [lit(v) for v in value] if isinstance(value, list) else lit(value)
            ops.append(new)
        out.append({**utterance, "speaker": names[utterance["speaker"]], "text": HOSTILE_TEXT, "ops": ops})
    return out


def plain_names(history: list[dict]) -> list[str]:
    found = {u["speaker"] for u in history}
    for utterance in history:
        for op in utterance["ops"]:
            for key, value in op.items():
                if key not in ("op", "text"):
                    found.update(v.lstrip("-") for v in (value if isinstance(value, list) else [value]))
    return sorted(found)


def comparable(report) -> tuple:
    return report.ok, report.utterances, report.accepted, report.transitions, report.events, report.claims


# ids built from the characters of ASP and Prolog syntax that an id may hold
hostile_id = st.one_of(
    st.sampled_from(HOSTILE_IDS),
    st.builds(lambda head, tail: head + tail, st.sampled_from(["_", "a", "0", "P", "n"]),
              st.text(alphabet=":-._a0Z", min_size=1, max_size=10)))


@pytest.mark.slow
@settings(max_examples=6, deadline=None)
@given(choice=st.lists(hostile_id, min_size=len(plain_names(STORY)), max_size=len(plain_names(STORY)),
                       unique=True))
def test_hostile_ids_and_texts_give_the_same_answer_three_ways(choice):
    names = dict(zip(plain_names(STORY), choice, strict=True))
    hostile_header = {"agents": {names[g]: a for g, a in HEADER["agents"].items()}}
    plain = check_history(Header.model_validate(HEADER), STORY)
    hostile = check_history(Header.model_validate(hostile_header), rename(STORY, names))
    assert hostile.ok, hostile.mismatches
    assert comparable(hostile) == comparable(plain)


def test_hostile_ids_reach_clingo_as_data():
    """The ASP answer with hostile ids is the plain answer with the ids renamed (none among them,
    which the Prolog text protocol cannot carry yet: ASP alone here)."""
    names = dict(zip(plain_names(STORY), ["none", "a:-b.", "p.q", "x:y", "_1", "0", "not", "h1.", "o:",
                                          "decide_q", "P3"], strict=False))
    header = Header.model_validate(HEADER)
    hostile_header = Header.model_validate({"agents": {names[g]: a for g, a in HEADER["agents"].items()}})
    with Engine(header) as engine:
        registry = engine.registry
    answers = []
    for h, history in ((header, STORY), (hostile_header, rename(STORY, names))):
        asp = OneShotHistory(h, registry)
        for utterance in history:
            asp.add(utterance)
        answers.append(asp.solve())
    plain, hostile = answers
    assert plain.accepted == hostile.accepted and plain.violations == hostile.violations
    back = {v: k for k, v in names.items()}

    def unname(text: str) -> str:
        if text.startswith("-"):
            return "-" + unname(text[1:])
        if text.startswith("decide_") and text not in back:  # the id an authoritative Resolve made up
            return "decide_" + back[text[len("decide_"):]]
        return back[text]

    from grounded.solvers import facts as F
    assert sorted((a.a, a.claim, a.kind, a.speaker) for a in plain.facts.query(F.FArg).all()) == sorted(
        (a.a, unname(a.claim), a.kind, unname(a.speaker)) for a in hostile.facts.query(F.FArg).all())
    assert sorted((f.u, f.lit, f.claim) for f in plain.facts.query(F.Flagged).all()) == sorted(
        (f.u, unname(f.lit), unname(f.claim)) for f in hostile.facts.query(F.Flagged).all())


def test_facts_escape_what_clingo_strings_cannot_hold():
    from grounded.solvers.facts import decode, encode

    for text in ["", "a\x00b", "back\\slash", "\\0", "lone \ud800 surrogate", "plain", "decide_x_2"]:
        assert decode(encode(text)) == text
        assert "\x00" not in encode(text)
    assert encode("decide_x_2") == "decide_x_2"  # the decision-name helpers read it unchanged


# -- the memory bound ------------------------------------------------------------------

@pytest.mark.slow
def test_check_stops_at_its_memory_budget_with_exit_2(tmp_path):
    from tests.synthetic import build

    log = tmp_path / "talk.jsonl"
    build(1500, "naive", 3, log=log).engine.close()
    done = subprocess.run([sys.executable, "-m", "grounded", "check", str(log), "--memory-limit", "0.05"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "memory budget of 0.05 GB" in done.stderr and "--memory-limit" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_error_that_only_mentions_memory_is_not_a_memory_budget_error():
    from grounded.core.errors import InputError
    from grounded.crosscheck.budget import MemoryBudgetError, memory_bound

    with pytest.raises(InputError, match="memory_leak"), memory_bound(2**34):
        raise InputError("talk.jsonl:3: ops[0].target: memory_leak is not known")
    with pytest.raises(MemoryBudgetError), memory_bound(2**34):
        raise RuntimeError("std::bad_alloc")


def test_a_piece_apart_that_died_under_the_budget_is_a_memory_budget_stop_one_that_failed_is_not():
    import pickle

    from grounded.crosscheck.budget import MemoryBudgetError, memory_bound
    from grounded.solvers.apart import GLIBC_ALLOCATION_ABORT, ApartFailed

    for status in (-11, -6, GLIBC_ALLOCATION_ABORT):
        with pytest.raises(MemoryBudgetError, match="memory budget"), memory_bound(2**34):
            raise ApartFailed("the check of talk.jsonl: its process ended without an answer", status)
    with pytest.raises(ApartFailed), memory_bound(2**34):
        raise ApartFailed("the check of talk.jsonl: its process ended without an answer", 1)
    again = pickle.loads(pickle.dumps(ApartFailed("a piece", -9)))
    assert again.died and str(again) == "a piece"
