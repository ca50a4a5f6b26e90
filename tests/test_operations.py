"""What each of the eight operations does when its preconditions hold."""

from __future__ import annotations

import pytest

from grounded import Engine, PreconditionError
from grounded.dmap.effects import Problem

from .conftest import hyp, obs, say


def h1_explains_o2(engine):
    """Carol observes o1, o2, o3 (T1); Bob explains o2 by h1 resting on o1 (T2)."""
    say(engine, "carol", obs("o1"), obs("o2"), obs("o3"))
    say(engine, "bob", hyp("h1", ["o1"], ["o2"]))


def claims_of(engine, ids):
    return [engine.state.arg(i).claim for i in ids]


def test_observe_adds_an_argument_with_empty_dep_and_commits_the_speaker(team):
    update = say(team, "carol", obs("o1", text="auth failures"))
    (arg,) = team.arguments("o1")
    assert (arg.claim, arg.kind, arg.standing, arg.deps, arg.speaker) == ("o1", "observation", "active", [], "carol")
    assert arg.text == "auth failures" and arg.created_by.op == "observe"
    assert team.commitments() == {"carol": ["o1"]}
    assert team.verify("o1").grounded
    assert Problem(0, "o1", "open") in update.of(Problem)


def test_observe_keeps_the_declared_kind(team):
    say(team, "alice", obs("a1"))
    assert team.arguments("a1")[0].kind == "assumption"
    assert "a1" not in team.open_problems()  # only observations are surprising


def test_observe_supersedes_abandons_the_old_fact_and_attacks_it(team):
    say(team, "carol", obs("o1"))
    say(team, "bob", obs("-o1", supersedes=["o1"]))
    assert team.standing("o1") == "abandoned" and team.standing("-o1") == "active"
    assert team.verify("o1").reason == "o1 abandoned at T2 by -o1"
    new, old = team.arguments("-o1")[0].id, team.arguments("o1")[0].id
    assert (new, old, 2) in team.state.attacks


def test_hypothesize_records_deps_and_explains_and_the_problem_stays_open_until_resolved(team):
    """DESIGN.md section 2 (revised): an explanation in good standing does not settle what it
    explains; a competing one may follow; resolving one settles it."""
    say(team, "carol", obs("o1"), obs("o2"))
    update = say(team, "bob", hyp("h1", ["o1"], ["o2"]))
    (arg,) = team.arguments("h1")
    assert (arg.deps, arg.explains, arg.kind) == (["o1"], ["o2"], "hypothesis")
    assert not update.of(Problem) and "o2" in team.open_problems()
    assert team.verify("h1").chain == ("h1", "o1")
    say(team, "carol", hyp("h2", ["o1"], ["o2"]))  # a competing explanation: no attack between them
    assert team.standing("h1") == team.standing("h2") == "active" and not team.state.attacks
    update = say(team, "alice", {"op": "resolve", "target": "h2"})
    assert [(p.literal, p.status) for p in update.of(Problem)] == [("o2", "closed")]
    assert "o2" not in team.open_problems()
    with pytest.raises(PreconditionError, match="hypothesize_nothing_to_explain"):
        say(team, "bob", hyp("h3", ["o1"], ["o2"]))


def test_hypothesize_may_rest_on_a_known_but_unclaimed_literal(team):
    """Dep(alpha17) = {-a3} in Phase 3: deps need a known proposition, not a claim."""
    say(team, "carol", {"op": "question", "claim": "q1"})
    say(team, "bob", hyp("h1", ["-a1"], ["q1"]))
    v = team.verify("h1")
    assert not v.grounded and v.reason == "-a1 -> h1: no argument claims -a1" and v.failing == "-a1"
    say(team, "alice", obs("-a1"))
    assert team.verify("h1").grounded


def test_support_adds_evidence_to_dep_and_commits_the_speaker(team):
    say(team, "carol", obs("o1"), obs("o2"))
    say(team, "bob", hyp("h1", ["o1"], ["o2"]))
    say(team, "carol", {"op": "support", "target": "h1", "by": "o2"})
    assert team.dep("h1") == ["o1", "o2"]
    assert "h1" in team.commitments()["carol"]
    assert team.affected("o2").claims == ["h1"]


def test_support_of_a_weakened_claim_records_evidence_without_reinstating_it(team):
    h1_explains_o2(team)
    say(team, "alice", {"op": "undermine", "target": "h1", "by": "o3"})
    say(team, "bob", {"op": "support", "target": "h1", "by": "o2"})
    assert team.standing("h1") == "weakened"
    assert team.dep("h1") == ["o1", "o2"]


def test_undermine_attacks_and_weakens_and_reopens_what_the_target_settled(team):
    h1_explains_o2(team)
    say(team, "carol", {"op": "resolve", "target": "h1"})
    assert "o2" not in team.open_problems()
    update = say(team, "alice", {"op": "undermine", "target": "h1", "by": "o3"})
    assert team.standing("h1") == "weakened"
    assert team.verify("h1").reason == "h1 weakened at T4 by o3"
    assert ("o2", "open") in [(p.literal, p.status) for p in update.of(Problem)]
    assert "o3" in team.commitments()["alice"]
    h1 = team.arguments("h1")[0].id
    assert claims_of(team, team.state.attackers[h1]) == ["o3"]


def test_revise_abandons_releases_the_speakers_commitment_and_flags_dependents(team):
    h1_explains_o2(team)
    say(team, "carol", {"op": "revise", "target": "o1"})
    assert team.standing("o1") == "abandoned"
    assert "o1" not in team.commitments()["carol"]
    # dependents keep their stored standing but stop being grounded
    assert team.standing("h1") == "active"
    assert team.verify("h1").reason == "o1 -> h1: o1 abandoned at T3"
    assert team.affected("o1").lose_support == ["h1"]


def test_revise_of_an_abandoned_claim_records_a_new_attacker(team):
    """Phase 2 T12: the causal reversal h4 attacks the already abandoned h2."""
    h1_explains_o2(team)
    say(team, "alice", {"op": "revise", "target": "h1", "by": "o3"})
    say(team, "bob", {"op": "revise", "target": "h1", "by": "o2"})
    h1 = team.arguments("h1")[0]
    assert h1.standing == "abandoned" and [h.turn for h in h1.history] == [2, 3]
    assert claims_of(team, team.state.attackers[h1.id]) == ["o3", "o2"]


def test_expand_awareness_makes_a_latent_proposition_observable(team):
    say(team, "carol", {"op": "expand_awareness", "claim": "latent", "text": "now we see it"})
    assert team.state.props["latent"].aware_turn == 1
    assert team.verify("latent").grounded  # awareness leaves ground continuations
    say(team, "bob", obs("o2"))


def test_question_opens_a_problem_until_an_explaining_argument_is_resolved(team):
    say(team, "carol", obs("o1"), {"op": "question", "claim": "q1"})
    say(team, "bob", hyp("h1", ["o1"], ["q1"]))
    assert "q1" in team.open_problems()  # proposed, not settled
    say(team, "alice", {"op": "resolve", "target": "h1"})
    assert "q1" not in team.open_problems()
    assert team.verify("q1").status == "no_anchor"  # questions assert nothing


def test_consensual_resolve_with_subsumes_adds_the_schema_fix_edge(team):
    say(team, "carol", obs("o1"), obs("o2"), obs("o3"), {"op": "question", "claim": "q1"})
    say(team, "bob", hyp("h1", ["o1"], ["o2"]), hyp("h3", ["o3"], ["q1"]))
    say(team, "carol", {"op": "resolve", "target": "h3", "subsumes": ["h1"]})
    assert team.standing("h3") == "resolved"
    assert team.dep("h1") == ["o1", "h3"]
    assert team.affected("o3").claims == ["h3", "h1"]
    assert team.dissent() == {}


def test_authoritative_resolve_records_a_decision_with_dissent(team):
    say(team, "carol", obs("o1"), obs("o2"), {"op": "question", "claim": "q1"})
    say(team, "carol", hyp("p1", ["o1"], ["q1"]))
    say(team, "bob", obs("o3"), {"op": "undermine", "target": "p1", "by": "o3"})
    say(team, "alice", obs("a1"), {"op": "resolve", "target": "p1", "claim": "d1", "assumptions": ["a1"]})
    (d1,) = team.arguments("d1")
    assert (d1.kind, d1.standing, d1.deps) == ("decision", "resolved", ["a1"])
    assert team.standing("p1") == "weakened"  # a decision does not reinstate its target
    assert team.dissent() == {"d1": ["bob"]}
    assert "d1" in team.commitments()["alice"] and "d1" not in team.commitments()["bob"]
    assert "q1" not in team.open_problems()  # the decision settles the issue
    assert team.verify("d1").chain == ("d1", "a1")


def test_authoritative_resolve_without_a_claim_gets_a_fresh_decision_id(team):
    say(team, "carol", obs("o1"), obs("o2"), {"op": "question", "claim": "q1"})
    say(team, "carol", hyp("p1", ["o1"], ["q1"]))
    say(team, "bob", {"op": "undermine", "target": "p1", "by": "o2"})
    say(team, "alice", {"op": "resolve", "target": "p1"})
    say(team, "alice", {"op": "resolve", "target": "p1"})
    assert [a.claim for a in team.arguments() if a.kind == "decision"] == ["decide_p1", "decide_p1_2"]


def test_speakers_join_when_no_agents_are_declared():
    engine = Engine()
    say(engine, "zoe", obs("o1"))
    assert engine.commitments() == {"zoe": ["o1"]}
    assert engine.state.agents["zoe"].authority is False


def test_turns_are_assigned_when_omitted(team):
    assert say(team, "carol", obs("o1")).turn == 1
    assert say(team, "carol", obs("o2"), turn=7).turn == 7
    assert say(team, "carol", obs("o3")).turn == 8
