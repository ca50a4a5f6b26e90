"""Questions per turn (issue 22 item 6): loaded with errors at their line, answered by the engine, checked by run.

The engine's answer is computed from the query at the turn, never read from
the file: a question without ``answer`` still has one on the page, and a
lecturer's ``answer`` that disagrees with the engine is a FAIL of ``grounded run``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grounded.core.errors import InputError
from grounded.present.book import collect
from grounded.present.sealed import unseal
from grounded.scenario import Scenario, run
from grounded.scenario.questions import matches, normalise
from tests.inprocess import grounded

ROOT = Path(__file__).resolve().parents[1]

HEAD = """\
grounded: 1
agents: {ana: {}, ben: {}}
props:
  - {id: later, text: "Declared ahead."}
turns:
  - turn: 1
    speaker: ana
    ops:
      - {op: observe, claim: o1}
      - {op: hypothesize, claim: h1, deps: [o1], explains: [o1]}
      - {op: hypothesize, claim: h2, deps: [h1], explains: [o1]}
  - turn: 2
    speaker: ben
    ops:
      - {op: observe, claim: o2}
      - {op: undermine, target: h1, by: o2}
    questions:
"""


def scenario(tmp_path: Path, *questions: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + "".join(f"      - {q}\n" for q in questions), encoding="utf-8")
    return path


@pytest.mark.parametrize("question,message", [
    ('{ask: "Why?", query: "explain h1"}', "s.yaml:18: turn 2: question: `query` is one of verify LITERAL"),
    ('{ask: "Why?", query: "verify"}', "s.yaml:18: turn 2: question: `query` is one of"),
    ('{ask: "Why?", query: "verify h9"}', "s.yaml:18: turn 2: question: `query` asks about 'h9', which no operation"),
    ('{ask: "Why?", query: "verify o1", answer: maybe}', "s.yaml:18: turn 2: question: the answer to a verify "
     "question is yes or no, not 'maybe'"),
    ('{ask: "Why?", query: "standing h1", answer: gone}', "the answer to a standing question is one of active"),
    ('{ask: "Why?", query: "affected* o1", answer: 3}', "the answer to an Affected or Dep question is a list"),
    ('{ask: "Why?", query: "verify o1", hint: x}', "s.yaml:18: turn 2: question: unknown keys ['hint']"),
    ('{query: "verify o1"}', "s.yaml:18: turn 2: a question is a mapping {ask: TEXT, query: QUERY"),
    ('{ask: "", query: "verify o1"}', "s.yaml:18: turn 2: question: `ask` must be a text"),
])
def test_a_bad_question_is_refused_at_its_line_and_run_exits_2(tmp_path, question, message):
    path = scenario(tmp_path, question)
    with pytest.raises(InputError) as info:
        Scenario.load(path)
    assert message in str(info.value)
    result = grounded("run", path)
    assert result.returncode == 2 and message in result.stderr, result.stderr


def test_a_literal_named_only_by_a_later_turn_is_unknown_but_a_declared_prop_is_known(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(HEAD.replace("    questions:\n", "") + "    questions:\n      - {ask: x, query: verify later}\n"
                    + "  - turn: 3\n    speaker: ana\n    ops: [{op: observe, claim: o3}]\n", encoding="utf-8")
    assert Scenario.load(path).turns[1].questions[0].literal == "later"
    early = path.read_text().replace("query: verify later", "query: verify o3")
    path.write_text(early, encoding="utf-8")
    with pytest.raises(InputError, match=r"s.yaml:\d+: turn 2: question: `query` asks about 'o3'"):
        Scenario.load(path)


def test_the_engine_answers_every_query_kind_after_the_turn(tmp_path):
    path = scenario(tmp_path, "{ask: a, query: verify h2}", "{ask: b, query: standing h1}",
                    "{ask: c, query: affected* o1}", "{ask: d, query: affected o1}", "{ask: e, query: dep h2}",
                    "{ask: f, query: standing later}")
    outcomes = list(run(Scenario.load(path)))
    answers = {q.query: a for q, a in outcomes[1].answers}
    assert answers["verify h2"]["value"] == "no" and "h1" in answers["verify h2"]["detail"]
    assert answers["standing h1"]["value"] == "weakened"
    assert answers["affected* o1"]["shown"] == ["h1", "h2"] and answers["affected o1"]["shown"] == ["h1"]
    assert answers["dep h2"]["value"] == ["h1"]
    assert answers["standing later"]["value"] == "none"  # declared, claimed by no argument
    assert outcomes[1].checks == []  # no `answer` given: nothing to check, the questions are only asked


def test_run_checks_a_given_answer_sets_ignoring_order(tmp_path):
    path = scenario(tmp_path, "{ask: a, query: verify h2, answer: no}",
                    "{ask: b, query: affected* o1, answer: [h2, h1]}",
                    "{ask: c, query: standing h1, answer: active}")
    result = grounded("run", path)
    assert result.returncode == 1
    out = result.stdout
    assert "question: a (verify h2) engine: no" in out
    assert "PASS answer to 'a' (verify h2): no" in out
    assert "PASS answer to 'b' (affected* o1): h1, h2" in out
    assert "FAIL answer to 'c' (standing h1): active (the engine answers weakened)" in out
    assert ": 2 passed, 1 failed" in out


def test_answers_compare_by_their_shape():
    assert matches("set", "h2 h1,h1", ["h1", "h2"]) and not matches("set", "h1", ["h1", "h2"])
    assert matches("set", "", []) and matches("set", "{h1}", ["h1"])
    assert matches("yes_no", True, "YES") and not matches("yes_no", False, "yes")
    assert normalise("choice", " Abandoned ") == "abandoned"


def test_the_page_carries_the_engines_answers_not_the_files(tmp_path):
    path = scenario(tmp_path, "{ask: a, query: verify h2, answer: yes}", "{ask: b, query: affected* o1}")
    frames = collect(path).frames
    asked = frames[2].questions
    assert [q["ask"] for q in asked] == ["a", "b"]
    answers = [unseal(q["sealed"], q["key"]) for q in asked]  # sealed in the page, unsealed on Check
    assert "answer" not in asked[0] and answers[0]["value"] == "no"  # the lecturer wrote yes: the engine's answer
    assert asked[0]["choices"] == ["yes", "no"] and asked[1]["choices"] == []
    assert answers[1]["shown"] == ["h1", "h2"] and asked[1]["shape"] == "set"
    assert frames[1].questions == []
