"""The offline rule-based interpreter and the replay interpreter."""

from __future__ import annotations

from pathlib import Path

import pytest

from grounded import Engine
from grounded.core.errors import InputError
from grounded.interpreter.cues import cues, sentences
from grounded.interpreter.replay import ReplayInterpreter
from grounded.interpreter.rules import RuleInterpreter
from grounded.interpreter.runner import interpret_file
from grounded.interpreter.scoring import score_classification
from grounded.interpreter.session import interpret, interpret_turn
from grounded.interpreter.transcript import Said, read_transcript
from grounded.scenario import Scenario

ROOT = Path(__file__).resolve().parent.parent
PHASE2, PHASE3 = ROOT / "scenarios" / "phase2.yaml", ROOT / "scenarios" / "phase3.yaml"


@pytest.mark.parametrize("sentence,expected", [
    ("I'm seeing 401 spikes in the auth logs.", {"observe"}),
    ("Could be the frontend retrying.", {"hypothesize"}),
    ("Does Auth use Redis?", {"question"}),
    ("Can we use a central server as the sync point?", {"hypothesize"}),
    ("Is that a problem after all?", {"question"}),
    ("I don't think so.", {"revise"}),
    ("OK, so the disk alert is really about the network share, not the local disk.", {"expand_awareness"}),
    ("Yes, that's consistent with the timing.", {"support"}),
    ("But that is risky for a six-week timeline.", {"undermine"}),
    ("Agreed, let's go with the rollback.", {"resolve"}),
    ("If traffic is 3x, the pool could be overwhelmed.", {"hypothesize"}),
    ("That's strange.", {"question"}),
])
def test_cue_phrases(sentence, expected):
    assert cues(sentence) == expected


def test_sentences():
    assert sentences("Yes. Pool exhausted... but wait, why?  OK!") == ["Yes.", "Pool exhausted...", "but wait, why?",
                                                                       "OK!"]


def test_rules_link_to_the_state_by_similarity():
    engine = Engine({"agents": {"a": {}, "b": {}},
                     "props": [{"id": "share", "aware": False,
                               "text": "The disk alert comes from the network share, not the local disk."}]})
    rules = RuleInterpreter()
    said = [Said(1, "a", "I'm seeing disk alerts firing on every web server. Why?"),
            Said(2, "b", "Could be the log rotation job filling the disks on every web server."),
            Said(3, "a", "But the log rotation job did not run last night, the disks are not full."),
            Said(4, "b", "So the disk alert is really about the network share, not the local disk.")]
    results = list(interpret(engine, rules, said))
    assert [r.labels for r in results] == [["observe", "question"], ["hypothesize"], ["undermine"],
                                           ["expand_awareness"]]
    assert engine.dep("h1") == ["o1"] and engine.arguments("h1")[0].explains == ["o1"]
    assert engine.standing("h1") == "weakened"  # the undermine found its target by similarity
    assert engine.verify("share").grounded  # the latent proposition was brought into awareness
    engine.close()


def test_each_latent_proposition_comes_into_awareness_once_per_utterance():
    share = "So the disk alert is really about the network share, not the local disk."
    dns = "And the timeouts are really about DNS resolution, not the database."
    header = {"agents": {"a": {}}, "props": [
        {"id": "share", "aware": False, "text": "The disk alert comes from the network share, not the local disk."},
        {"id": "dns", "aware": False, "text": "The timeouts come from DNS resolution, not the database."}]}
    with Engine(header) as engine:
        both = interpret_turn(engine, RuleInterpreter(), Said(1, "a", f"{share} {dns}"))
        assert [op["claim"] for op in both.proposal.ops] == ["share", "dns"]
    with Engine(header) as engine:  # the second restatement cannot bring `share` in again: a new proposition
        twice = interpret_turn(engine, RuleInterpreter(), Said(1, "a", f"{share} {share}"))
        assert [op["claim"] for op in twice.proposal.ops] == ["share", "x1"] and not twice.rejections


def test_a_restated_hypothesis_is_support_and_rejected_operations_are_dropped():
    engine = Engine({"agents": {"a": {}, "b": {}}})
    rules = RuleInterpreter()
    interpret_turn(engine, rules, Said(1, "a", "I see the checkout page timing out for every user. Why?"))
    interpret_turn(engine, rules, Said(2, "b", "Maybe the payment gateway is timing out the checkout page."))
    again = interpret_turn(engine, rules, Said(3, "a", "Maybe the payment gateway is timing out the checkout page."))
    assert again.labels == ["support"]
    # a guess that names nothing it rests on is proposed as nothing: not a hypothesis, not an observation
    engine2 = Engine({"agents": {"a": {}}})
    result = interpret_turn(engine2, rules, Said(1, "a", "Could be cosmic rays."))
    assert not result.rejections and result.labels == [] and not engine2.state.args
    engine.close()
    engine2.close()


def checkout_team() -> Engine:
    engine = Engine({"agents": {"ann": {}, "ben": {"authority": True}}})
    engine.apply({"turn": 1, "speaker": "ann", "ops": [
        {"op": "observe", "claim": "o1", "text": "Checkout page timeouts for every user."}]})
    engine.apply({"turn": 2, "speaker": "ben", "ops": [
        {"op": "hypothesize", "claim": "h1", "deps": ["o1"], "explains": ["o1"],
         "text": "The payment gateway is timing out the checkout page."}]})
    return engine


def test_the_rules_decide_whether_a_resolve_is_consensual_and_name_the_decision():
    rules = RuleInterpreter()
    with checkout_team() as engine:  # h1 stands and nobody is against it: consensual, no decision argument
        agreed = interpret_turn(engine, rules, Said(3, "ann", "Agreed, the payment gateway is timing out the "
                                                              "checkout page."))
        assert agreed.labels == ["resolve"] and "claim" not in agreed.proposal.ops[0]
        assert engine.standing("h1") == "resolved" and [r.claim for r in engine.state.args] == ["o1", "h1"]
    with checkout_team() as engine:  # h1 weakened by ann's evidence: only an authority decides, over her dissent
        engine.apply({"turn": 3, "speaker": "ann", "ops": [
            {"op": "observe", "claim": "o2", "text": "The gateway dashboard shows no timeouts."},
            {"op": "undermine", "target": "h1", "by": "o2"}]})
        decided = "Decided: we go with the payment gateway timing out the checkout page."
        refused = interpret_turn(engine, rules, Said(4, "ann", decided))
        assert refused.rejections[0][0].code == "resolve_no_authority" and refused.labels == []
        result = interpret_turn(engine, rules, Said(5, "ben", decided))
        assert result.labels == ["resolve"] and "claim" not in result.proposal.ops[0]
        assert engine.arguments("decide_h1")[0].kind == "decision"  # named by decision_claim/2
        assert engine.dissent() == {"decide_h1": ["ann"]} and engine.verify("decide_h1").grounded


@pytest.mark.parametrize("scenario,floor", [(PHASE2, 0.7), (PHASE3, 0.45)])
def test_rules_interpret_the_paper_scenarios_offline(tmp_path, scenario, floor):
    log = tmp_path / "rules.jsonl"
    summary = interpret_file(scenario, RuleInterpreter(), log)
    s = Scenario.load(scenario)
    assert summary.turns == len(s.turns) and summary.unclassified == 0
    score = score_classification(log, s)
    assert score.overall.f1 >= floor  # a regression floor, well below the figures in the README
    Engine.load(log).close()  # the log replays through the rules


@pytest.mark.parametrize("scenario", [PHASE2, PHASE3])
def test_replay_reproduces_the_gold(tmp_path, scenario):
    log = tmp_path / "gold.jsonl"
    interpret_file(scenario, ReplayInterpreter(), log)
    s = Scenario.load(scenario)
    score = score_classification(log, s)
    assert (score.overall.f1, score.overall.exact, score.key_shifts.f1) == (1.0, 1.0, 1.0)
    assert score.key_shifts.n == 4
    replayed = Engine.load(log)
    gold = Engine(s.header)
    for t in s.turns:
        gold.apply(t.utterance())
    assert replayed.snapshot() == gold.snapshot()


def test_replay_needs_gold_and_logs_are_not_overwritten(tmp_path):
    transcript = tmp_path / "t.txt"
    transcript.write_text("Ann: hello there.\n")
    with pytest.raises(InputError, match="needs a scenario with gold operations"):
        interpret_file(transcript, ReplayInterpreter(), tmp_path / "out.jsonl")
    interpret_file(transcript, RuleInterpreter(), tmp_path / "ok.jsonl")
    with pytest.raises(InputError, match="exists; pass --force"):
        interpret_file(transcript, RuleInterpreter(), tmp_path / "ok.jsonl")
    interpret_file(transcript, RuleInterpreter(), tmp_path / "ok.jsonl", overwrite=True)


def test_transcripts(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("# incident\nDr. Smith: Logins fail.\n\nBob Jones:   Since when?  \n")
    t = read_transcript(path)
    assert [(s.turn, s.speaker, s.text) for s in t.turns] == [(1, "dr_smith", "Logins fail."),
                                                              (2, "bob_jones", "Since when?")]
    path.write_text("Ann: fine\nthis line has no speaker\n")
    with pytest.raises(InputError, match=r"t.txt:2: expected `speaker: text`"):
        read_transcript(path)


def test_fresh_ids_avoid_the_names_a_world_model_gives_meaning_to():
    """Phase 2 declares formulas for h1, h2, ...: a new hypothesis must not silently become one."""
    from grounded import Engine
    from grounded.interpreter.proposal import id_allocator

    engine = Engine({"agents": {"ann": {}},
                     "world": {"atoms": ["p"], "formulas": {"h1": "p", "o1": "p"}, "background": ["h2 -> p"]}})
    alloc = id_allocator(engine)
    assert [alloc.fresh("h"), alloc.fresh("o")] == ["h3", "o2"]
