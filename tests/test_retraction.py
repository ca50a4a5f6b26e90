"""Proposition 2.5 and Corollary 2.6 on random histories, decided by clingo."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine
from grounded.bench.synthetic import build
from grounded.core.vocabulary import GOOD_STANDING
from grounded.crosscheck.retraction import _DAtt, check_retraction, decide, state_facts
from grounded.dmap.model import Header
from grounded.dung import Framework

from .dung_oracles import brute_force
from .test_properties import HEADER, budget, draw_stream


@budget(30)
@given(data=st.data(), acyclic=st.booleans())
def test_selective_retraction_is_conflict_free_and_preserves_the_rest(data, acyclic):
    engine = Engine(Header.model_validate({**HEADER, "acyclic": acyclic}))
    draw_stream(data, engine, max_size=25)
    dm = engine.state
    literals = sorted(set(dm.claimants) | set(dm.rev))
    if not literals:
        return
    for p in data.draw(st.lists(st.sampled_from(literals), min_size=1, max_size=3, unique=True), label="p"):
        for closure in (False, True):
            result = check_retraction(engine, p, closure)
            assert result.holds, result.failures()
            assert result.removed == set(engine.affected(p, closure=closure).arguments)
            standing = {r.id for r in dm.args if r.standing in GOOD_STANDING}
            assert result.kept == standing - result.removed
            rest = Framework.from_engine(engine).restrict(result.removed)
            if len(rest) <= 9:  # the definitions, by enumeration
                preferred = brute_force(rest)["preferred"]
                assert any(result.kept <= e for e in preferred)
                assert all(result.kept <= e for e in preferred)
    engine.close()


@budget(8)
@given(k=st.integers(20, 160), regime=st.sampled_from(["naive", "bounded"]), seed=st.integers(0, 10**6),
       data=st.data())
def test_retraction_in_longer_conversations(k, regime, seed, data):
    """Synthetic conversations (bench/synthetic.py): dozens of arguments, attacks and Dep chains."""
    engine = build(k, regime, seed).engine
    literals = sorted(set(engine.state.rev) | set(engine.state.claimants))  # a short one may have no Dep yet
    for p in data.draw(st.lists(st.sampled_from(literals), min_size=1, max_size=4, unique=True), label="p"):
        for closure in (False, True):
            result = check_retraction(engine, p, closure)
            assert result.holds, result.failures()
            assert result.removed == set(engine.affected(p, closure=closure).arguments)
    engine.close()


def test_a_state_breaking_lemma_2_4_is_caught(team):
    from .conftest import hyp, obs, say

    say(team, "bob", obs("o1"), {"op": "question", "claim": "q1"})
    say(team, "alice", hyp("h1", ["o1"], ["q1"]))
    say(team, "bob", obs("o2"))
    facts = state_facts(team, "o2", closure=True, at=None)
    facts.add(_DAtt(3, 2))  # o2 attacks h1 while both stand: impossible through the operations
    result = decide(facts, "o2", closure=True)
    assert not result.holds
    assert result.conflicts == [(3, 2)]
    assert not result.in_every_preferred and not result.in_some_preferred
    assert "not conflict-free" in result.failures()[0]
