"""Proposition 2.5 and Corollary 2.6 decided by clingo from the raw history (crosscheck/retraction.py).

Two kinds of history:

* arbitrary ones, written straight into a DependencyMap through its
  transition handlers with no rule in the way, so attacked arguments may
  stand, standings may come back, attacks may cycle: the decision must equal
  the definitions (S_t from the events, X by Definition 2.3, the preferred
  extensions of AF|X by enumerating every subset) at every turn, for every
  literal, whatever the history;
* the engine's own, valid ones: there every proposition must hold at every turn.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine
from grounded.core.vocabulary import GOOD_STANDING, STANDINGS
from grounded.crosscheck.retraction import Retraction, check_retraction, check_retractions
from grounded.dmap.effects import AddAttack, NewArg, SetStanding, effect
from grounded.dmap.model import Header
from grounded.dmap.state import DependencyMap
from grounded.dung import Framework
from tests.synthetic import build

from .conftest import hyp, obs, say
from .dung_oracles import brute_force
from .oracles import naive_affected
from .test_properties import HEADER, budget, draw_stream

LITERALS = ["a", "b", "c", "-a", "d"]
OP = [SimpleNamespace(op="observe", text="")]


@st.composite
def raw_histories(draw) -> DependencyMap:
    """Up to 7 arguments over 6 turns with any standings, Dep entries and attacks (self-attacks too)."""
    dm = DependencyMap(Header())
    n = draw(st.integers(1, 7), label="arguments")
    created = sorted(draw(st.lists(st.integers(1, 6), min_size=n, max_size=n), label="creation turns"))
    events = []
    for i, turn in enumerate(created, 1):
        events.append((turn, 0, "new_arg", (i, draw(st.sampled_from(LITERALS), label="claim"), "observation")))
        for later, standing in draw(st.lists(st.tuples(st.integers(turn, 6), st.sampled_from(STANDINGS)),
                                             max_size=3), label="standings"):
            events.append((later, 1, "set_standing", (i, standing, None)))
        for later, literal in draw(st.lists(st.tuples(st.integers(turn, 6), st.sampled_from(LITERALS)),
                                            max_size=2, unique_by=lambda x: x[1]), label="dep"):
            events.append((later, 1, "add_dep", (i, literal)))
    for a, b in draw(st.lists(st.tuples(st.integers(1, n), st.integers(1, n)), max_size=6, unique=True),
                     label="attacks"):
        events.append((max(created[a - 1], created[b - 1], draw(st.integers(1, 6))), 2, "add_attack", (a, b)))
    for turn, _, name, fields in sorted(events, key=lambda e: (e[0], e[1])):
        dm.apply([effect(0, (name, *fields))], turn, "x", "", OP)
    return dm


@budget(60)
@given(dm=raw_histories())
def test_the_decision_is_the_definition_on_any_history(dm):
    report = check_retractions(dm, every_turn=True)
    assert report.mismatches == []
    event_turns = {r.turn for r in dm.args} | {h[0] for r in dm.args for h in r.history}
    event_turns |= {t for r in dm.args for t in r.dep_turns} | {t for _, _, t in dm.attacks}
    assert report.turns == sorted(event_turns)
    decided = {(r.turn, r.literal, r.closure): r for r in report.results}
    for t in report.turns:
        args = [r for r in dm.args if r.turn <= t]
        literals = {r.claim for r in args} | {d for r in args for d in r.deps_at(t)}
        standing = {r.id for r in args if r.standing_at(t) in GOOD_STANDING}
        af = Framework.of([r.id for r in args], [(a, b) for a, b, turn in dm.attacks if turn <= t])
        for p in literals:
            for closure in (False, True):
                r = decided.pop((t, p, closure))
                x = naive_affected(dm, p, closure, t)
                kept = standing - x
                rest = af.restrict(x)
                preferred = brute_force(rest)["preferred"]
                assert r.removed == x and r.kept == kept
                assert r.conflict_free == rest.conflict_free(kept)
                assert r.in_some_preferred == any(kept <= e for e in preferred)
                assert r.in_every_preferred == all(kept <= e for e in preferred)
                assert set(report.extensions(r)) == preferred
                assert set(report.containing(r)) == {e for e in preferred if kept <= e}
    assert decided == {}, "decided a retraction that is not a literal of the state"


@pytest.mark.slow
@budget(25)
@given(data=st.data(), acyclic=st.booleans())
def test_every_proposition_holds_at_every_turn_of_a_valid_history(data, acyclic):
    engine = Engine(Header.model_validate({**HEADER, "acyclic": acyclic}))
    draw_stream(data, engine, max_size=25)
    report = check_retractions(engine.state, every_turn=True)
    assert report.ok, report.failure_lines() + report.mismatches
    pairs = sum(len({r.claim for r in engine.state.args if r.turn <= t}
                    | {d for r in engine.state.args for d in r.deps_at(t)}) for t in report.turns)
    assert len(report.results) == 2 * pairs == 2 * report.pairs
    engine.close()


@budget(6)
@given(k=st.integers(20, 200), regime=st.sampled_from(["naive", "bounded"]), seed=st.integers(0, 10**6))
def test_longer_conversations_every_turn(k, regime, seed):
    """Synthetic conversations (tests/synthetic.py): dozens of arguments, attacks and Dep chains."""
    engine = build(k, regime, seed).engine
    report = check_retractions(engine.state, every_turn=True)
    assert report.ok and not report.sampled, report.failure_lines() + report.mismatches
    engine.close()


def test_a_sample_is_every_turn_with_a_seeded_share_of_its_literals():
    engine = build(300, "naive", 5).engine
    first = check_retractions(engine.state, every_turn=False, seed=11)
    again = check_retractions(engine.state, every_turn=False, seed=11)
    other = check_retractions(engine.state, every_turn=False, seed=12)
    pairs = [(r.turn, r.literal, r.closure) for r in first.results]
    assert first.sampled and first.seed == 11 and "seed 11" in first.summary()
    assert pairs == [(r.turn, r.literal, r.closure) for r in again.results]
    assert pairs != [(r.turn, r.literal, r.closure) for r in other.results]
    assert {r.turn for r in first.results} == set(first.turns)
    assert len(first.results) < 2 * first.pairs
    assert first.ok
    unseeded = check_retractions(engine.state, every_turn=False)
    assert unseeded.seed is not None and f"seed {unseeded.seed}" in unseeded.summary()
    engine.close()


def test_an_attack_on_a_standing_argument_fails_at_its_turn_for_the_literals_it_breaks(team):
    say(team, "bob", obs("o1"), {"op": "question", "claim": "q1"})
    say(team, "alice", hyp("h1", ["o1"], ["q1"]))
    say(team, "bob", obs("o2"))
    say(team, "carol", obs("o3"))
    dm = team.state
    assert check_retractions(dm).ok
    dm.apply([AddAttack(0, 3, 2)], 3, "bob", "", OP)  # o2 attacks h1 while both stand: no rule does this
    report = check_retractions(dm)
    assert not report.ok
    failed = {(r.turn, r.literal) for r in report.failed}
    # retracting o1 takes h1 out with X (h1 rests on o1), so it still holds; every other literal fails
    assert failed == {(3, "h1"), (3, "o2"), (4, "h1"), (4, "o2"), (4, "o3")}
    r = next(r for r in report.failed if (r.turn, r.literal, r.closure) == (3, "o2", False))
    assert r.conflicts == ((3, 2),) and not r.in_some_preferred and not r.in_every_preferred
    assert report.containing(r) == [] and report.extensions(r) == [frozenset({1, 3})]
    lines = report.failure_lines()
    assert lines[0].startswith("turn 3: Proposition 2.5 and Corollary 2.6 fail retracting h1, o2:")
    assert "o2 #3 attacks h1 #2" in lines[0]
    assert "fails for 10 of 20 retractions, first at turn 3 retracting h1" in report.summary()


def test_a_cyclic_framework_is_decided_exactly():
    """S' partly outside the grounded extension of a cyclic AF|X: clingo searches the preferred extensions.

    a and b attack each other (both out of standing), b attacks c (standing): the
    preferred extensions are {a, c} and {b}, so some contains S' = {c} and not every one.
    """
    dm = DependencyMap(Header(acyclic=False))
    for i, claim in enumerate(("a", "b", "c"), 1):
        dm.apply([NewArg(0, i, claim, "observation")], 1, "x", "", OP)
    for i in (1, 2):
        dm.apply([SetStanding(0, i, "weakened", None)], 2, "x", "", OP)
    for a, b in ((1, 2), (2, 1), (2, 3)):
        dm.apply([AddAttack(0, a, b)], 2, "x", "", OP)
    report = check_retractions(dm, turns=[2])
    r = next(r for r in report.results if r.literal == "a" and not r.closure)
    assert r.conflict_free and r.outside == (3,)
    assert r.in_some_preferred and not r.in_every_preferred
    assert set(report.extensions(r)) == {frozenset({1, 3}), frozenset({2})}
    assert report.containing(r) == [frozenset({1, 3})]
    assert "some preferred extension of AF|X drops an argument of S'" in r.failures()


def test_one_retraction_at_one_turn(team):
    say(team, "bob", obs("o1"), {"op": "question", "claim": "q1"})
    say(team, "alice", hyp("h1", ["o1"], ["q1"]))
    say(team, "bob", obs("o2"))
    r = check_retraction(team, "o1", closure=True)
    assert r.holds and r.turn == 3 and r.removed == {2} and r.kept == {1, 3}
    early = check_retraction(team, "o2", closure=False, at=2)  # o2 is not yet said: nothing to remove
    assert early.holds and early.turn == 2 and early.removed == set() and early.kept == {1, 2}


def test_failures_are_worded_with_the_namer_given_for_argument_ids():
    """``claim`` is a parameter naming each argument id (``str`` by default), not a default slipped in
    for an annotation."""
    assert typing.get_type_hints(Retraction.failures)["claim"] == Callable[[int], str]
    r = Retraction(turn=1, literal="a", closure=False, removed=frozenset(), standing=frozenset({1, 2}),
                   conflicts=((1, 2),))
    assert r.failures() == ["S' = S_t \\ X is not conflict-free in AF|X (1 attacks 2)"]
    assert r.failures(lambda a: f"#{a}") == ["S' = S_t \\ X is not conflict-free in AF|X (#1 attacks #2)"]
