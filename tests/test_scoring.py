"""Classification and dependency-extraction scoring, on cases computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grounded import Engine
from grounded.interpreter.dependencies import align, score_dependencies
from grounded.interpreter.scoring import parse_turns, predicted_labels, score_classification, utterance_f1
from grounded.scenario import Scenario

SCENARIO = """\
grounded: 1
agents: {a: {}, b: {}}
key_shifts: [2]
turns:
  - {turn: 1, speaker: a, text: "Logins fail. Why?", labels: [observe, question],
     ops: [{op: observe, claim: o1, text: "Logins fail since the deploy."},
           {op: question, claim: q1, text: "Why do logins fail?"}]}
  - {turn: 2, speaker: b, text: "Maybe the session cache is full.", labels: [hypothesize],
     ops: [{op: hypothesize, claim: h1, deps: [o1], explains: [q1], text: "The session cache is full."}]}
  - {turn: 3, speaker: a, text: "The cache dashboard shows 100% usage.", labels: [observe, support],
     ops: [{op: observe, claim: o2, text: "The cache dashboard shows 100% usage."},
           {op: support, target: h1, by: o2}]}
"""


@pytest.fixture
def scenario(tmp_path) -> Scenario:
    path = tmp_path / "tiny.yaml"
    path.write_text(SCENARIO)
    return Scenario.load(path)


def write_log(path: Path, lines: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(x) for x in [{"grounded": 1, "agents": {"a": {}, "b": {}}}] + lines) + "\n")
    return path


def test_utterance_f1():
    assert utterance_f1({"observe", "question"}, {"observe", "question"}) == 1.0
    assert utterance_f1({"observe"}, {"observe", "question"}) == pytest.approx(2 / 3)
    assert utterance_f1({"observe", "support", "undermine"}, {"observe", "undermine"}) == pytest.approx(0.8)
    assert utterance_f1(set(), {"revise"}) == 0.0 and utterance_f1(set(), set()) == 1.0


def test_labels_come_from_the_log_or_the_operations():
    assert predicted_labels({"labels": ["undermine"], "ops": [{"op": "observe"}, {"op": "undermine"}]}) == ["undermine"]
    assert predicted_labels({"ops": [{"op": "observe"}, {"op": "observe"}, {"op": "question"}]}) == ["observe",
                                                                                                       "question"]
    assert predicted_labels({"ops": []}) == []


def test_classification_score_by_hand(scenario, tmp_path):
    log = write_log(tmp_path / "x.jsonl", [
        {"turn": 1, "speaker": "a", "ops": [{"op": "observe", "claim": "o1"}]},  # F1 2/3, not exact
        {"turn": 2, "speaker": "b", "labels": ["hypothesize"], "ops": []},  # F1 1, exact (the key shift)
        {"turn": 3, "speaker": "a", "ops": []},  # unclassified: F1 0
    ])
    s = score_classification(log, scenario)
    assert [round(t.f1, 4) for t in s.turns] == [0.6667, 1.0, 0.0]
    assert s.overall.n == 3 and s.overall.f1 == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert s.overall.exact == pytest.approx(1 / 3)
    assert (s.key_shifts.n, s.key_shifts.f1, s.key_shifts.exact) == (1, 1.0, 1.0)
    assert s.per_operation()["observe"] == (1, 0, 1) and s.per_operation()["question"] == (0, 0, 1)
    only = score_classification(log, scenario, turns=[1, 3], key_shifts=[3])
    assert [t.turn for t in only.turns] == [1, 3] and only.key_shifts.f1 == 0.0
    short = write_log(tmp_path / "y.jsonl", [{"turn": 1, "speaker": "a", "labels": ["observe", "question"], "ops": []}])
    assert score_classification(short, scenario).missing == [2, 3]


def test_parse_turns():
    assert parse_turns("1-3,7") == [1, 2, 3, 7] and parse_turns("4, 7,9") == [4, 7, 9]
    with pytest.raises(ValueError, match="'x-2'"):
        parse_turns("x-2")


def engine_of(*utterances: dict) -> Engine:
    engine = Engine({"agents": {"a": {}, "b": {}}})
    for u in utterances:
        engine.apply(u)
    return engine


def test_dependency_extraction_aligns_by_content(scenario):
    gold = Engine(scenario.header)
    for t in scenario.turns:
        gold.apply(t.utterance())
    # the same content under other ids, one Dep edge missed and one wrong edge added
    extracted = engine_of(
        {"turn": 1, "speaker": "a", "ops": [{"op": "observe", "claim": "o7", "text": "Logins fail since the deploy."},
                                            {"op": "observe", "claim": "o8", "text": "Disk quotas were raised."},
                                            {"op": "question", "claim": "q3", "text": "Why do logins fail?"}]},
        {"turn": 2, "speaker": "b", "ops": [{"op": "hypothesize", "claim": "h5", "deps": ["o8"], "explains": ["q3"],
                                             "text": "The session cache is full."}]},
        {"turn": 3, "speaker": "a", "ops": [{"op": "observe", "claim": "o9", "text": "Cache dashboard: 100% usage."},
                                            {"op": "support", "target": "h5", "by": "o9"}]})
    alignment = align(extracted, gold)
    assert {k: g for k, (g, _) in alignment.items()} == {"o7": "o1", "h5": "h1", "o9": "o2"}
    d = score_dependencies(extracted, gold)
    assert d.gold_edges == {("h1", "o1"), ("h1", "o2")}
    assert d.extracted_edges == {("h1", "?o8"), ("h1", "o2")}
    assert (d.tp, d.precision, d.recall, d.f1) == (1, 0.5, 0.5, 0.5)
    assert (d.hypotheses_extracted, d.gold_hypotheses, d.gold_hypotheses_matched) == (1, 1, 1)
    perfect = score_dependencies(gold, gold)
    assert (perfect.precision, perfect.recall, perfect.f1) == (1.0, 1.0, 1.0)
