"""The queries' fast paths against their general algorithms, and answers that stay put.

``verify`` answers a literal with one claimant by a single depth-first walk
and ``affected`` answers without copying the reverse index; both build their
result objects lazily.  These tests hold the fast paths to the general
algorithm field by field (witness order and reason included), on dependency
maps with circular support and shared dependencies, and check that an answer
read long after it was given still says what was true when it was asked.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine
from grounded.dmap.notes import standing_text
from grounded.queries.affected import affected
from grounded.queries.verify import _DEEPEST, _verify_at, verify

from .oracles import naive_affected, naive_grounded, naive_hops
from .test_properties import ALL, HEADER, budget, draw_stream, synthetic_map, verdict


@st.composite
def single_claimant_maps(draw):
    """Every literal claimed at most once (the fast walk's case), Dep drawn freely: cycles, shared
    dependencies, missing literals; a few repeated claims now and then to force the fallback."""
    n = draw(st.integers(1, 14))
    k = n + draw(st.integers(0, 3))  # literals c_n .. c_k-1 are claimed by nobody
    claims = draw(st.permutations(range(n)))
    if draw(st.integers(0, 4)) == 0:
        claims = [*claims[:-1], claims[0]]
    deps = draw(st.lists(st.lists(st.integers(0, k - 1), max_size=4), min_size=n, max_size=n))
    standings = draw(st.lists(st.sampled_from(["active"] * 6 + ["resolved", "weakened", "abandoned"]),
                              min_size=n, max_size=n))
    return synthetic_map(n, list(claims), deps, standings), k


@budget(300)
@given(case=single_claimant_maps())
def test_the_single_claimant_walk_gives_the_general_answer(case):
    dm, k = case
    grounded = naive_grounded(dm)
    for c in range(k):
        p = f"c{c}"
        fast, general = verify(dm, p), _verify_at(dm, p, None)
        assert verdict(fast) == verdict(general)
        assert fast == general and hash(fast) == hash(general)
        assert fast.grounded == any(dm.arg(a).claim == p for a in grounded)
        for closure in (True, False):
            a = affected(dm, p, closure)
            assert set(a.arguments) == naive_affected(dm, p, closure)
            assert len(a) == len(a.arguments) == len(a.hops)
            assert a.claims == list(dict.fromkeys(dm.arg(x).claim for x in a.arguments))
        star = affected(dm, p)
        assert dict(zip(star.arguments, star.hops, strict=True)) == naive_hops(dm, p)


@pytest.mark.slow
@budget(30)
@given(data=st.data())
def test_answers_read_later_say_what_held_when_asked(data):
    """Unread answers kept across later utterances equal the ones read at once."""
    engine = Engine(HEADER)
    kept: list[tuple[object, object, tuple, tuple]] = []

    def ask(e: Engine, _update=None) -> None:
        for p in ALL[::2]:
            v, a = e.verify(p), e.affected(p)
            now_v, now_a = e.verify(p), e.affected(p)
            kept.append((v, a, verdict(now_v), (now_a.arguments, now_a.hops, now_a.claims, now_a.lose_support,
                                                 now_a.losing_arguments, now_a.claim_hops)))

    draw_stream(data, engine, ask, max_size=20)
    for v, a, v_then, a_then in kept:
        assert verdict(v) == v_then
        assert (a.arguments, a.hops, a.claims, a.lose_support, a.losing_arguments, a.claim_hops) == a_then
    engine.close()


def _reasons_checked(e: Engine, literals, kept: list[tuple[Any, Any, str, str]]) -> None:
    """Each not-grounded answer's reason, as of the engine's turn, against the general algorithm's (the
    fixpoint, worded by ``dm.note``: nothing kept) and, for an anchor out of standing, the formula the kept
    words replaced (``standing_text`` of the claimant's latest change); the answers are kept to be read again."""
    dm, t = e.state, e.state.last_turn
    for p in literals:
        v, unread = e.verify(p), e.verify(p)
        if v.grounded:
            continue
        general = e.verify(p, at=t)
        assert (v.reason, v.failing) == (general.reason, general.failing), p
        if type(v).__name__ == "_Out":
            assert v.reason == f"{p} {standing_text(*dm.arg(dm.claimants[p][-1]).history[-1])}"
        kept.append((v, unread, general.reason, general.failing))


def _still_as_asked(kept: list[tuple[Any, Any, str, str]]) -> None:
    for v, unread, reason, failing in kept:
        assert (v.reason, v.failing) == (unread.reason, unread.failing) == (reason, failing)


@budget(12)
@given(data=st.data())
def test_a_reason_kept_on_a_record_is_the_general_algorithms_over_random_streams(data):
    """Issue 23: an out-of-standing claimant's answer, and its reason, are kept on its record and reused by
    failures below it.  After every utterance of a random stream, each not-grounded answer's reason is the
    general algorithm's as of that turn (``_reasons_checked``); read again at the end, after later standing
    changes, each still says what held when it was asked."""
    engine = Engine(HEADER)
    kept: list[tuple[Any, Any, str, str]] = []
    draw_stream(data, engine, lambda e, _update=None: _reasons_checked(e, ALL, kept), max_size=16)
    _still_as_asked(kept)
    engine.close()


@budget(25)
@given(seed=st.integers(0, 10**6), k=st.integers(20, 120), depth=st.sampled_from([0, 3, 12]))
def test_a_reason_kept_on_a_record_is_the_general_algorithms_over_realistic_streams(seed, k, depth):
    """As above, over the bench's realistic stream (every operation, long Dep chains when ``depth``): the one
    rich in anchors out of standing and failures below them, replayed into a fresh engine and checked after
    every utterance."""
    from .synthetic import HEADER as SYNTHETIC
    from .synthetic import realistic

    conv = realistic(k, seed, depth)
    conv.engine.close()
    engine = Engine(SYNTHETIC)
    kept: list[tuple[Any, Any, str, str]] = []
    for u in conv.history:
        engine.apply(u)
        _reasons_checked(engine, list(engine.state.claimants), kept)
    _still_as_asked(kept)
    engine.close()


def _engine() -> Engine:
    e = Engine({"agents": {"alice": {"authority": True}, "bob": {}}})
    e.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    e.apply({"speaker": "bob", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["o1"]}]})
    return e


def test_an_answer_does_not_grow_with_later_dependents_or_change_with_later_standings():
    e = _engine()
    star, one = e.affected("o1"), e.affected("o1", closure=False)
    v = e.verify("h1")
    e.apply({"speaker": "bob", "ops": [{"op": "hypothesize", "claim": "h2", "deps": ["o1", "h1"]}]})
    e.apply({"speaker": "alice", "ops": [{"op": "revise", "target": "o1"}]})
    assert star.claims == one.claims == ["h1"] and star.arguments == [2]
    assert star.lose_support == ["h1"]  # h1 was in S_t when asked
    assert v.grounded and v.chain == ("h1", "o1") and v.arguments == (2, 1)
    assert e.affected("o1").claims == ["h1", "h2"]
    late = e.verify("h1")
    e.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})  # o1 claimed again
    assert not late.grounded and late.reason == "o1 -> h1: o1 abandoned at T4" and late.failing == "o1"
    assert e.verify("h1").grounded
    e.close()


def test_verification_fields_are_read_only_and_serialise():
    e = _engine()
    v = e.verify("h1")
    with pytest.raises(AttributeError):
        v.claim = "x"  # type: ignore[misc]  # the point of the test
    with pytest.raises(AttributeError):
        v.grounded = False  # type: ignore[misc]
    assert v.to_json() == {"claim": "h1", "grounded": True, "chain": ["h1", "o1"], "reason": None,
                           "status": "grounded", "at": None}
    none = e.verify("o9")
    assert (none.status, none.reason, none.chain, none.arguments) == \
        ("no_anchor", "no argument claims o9 (no anchor)", (), ())
    assert e.verify("h1", at=1).status == "no_anchor" and e.verify("h1", at=1).at == 1
    assert "grounded=True" in repr(v) and v != none and v == e.verify("h1")
    e.close()


@pytest.mark.parametrize("bottom", ["active", "abandoned"])
def test_a_chain_deeper_than_the_walk_recurses_is_answered_by_the_fixpoint(bottom):
    n = 3 * _DEEPEST
    standings = ["active"] * (n - 1) + [bottom]
    dm = synthetic_map(n, list(range(n)), [[i + 1] if i + 1 < n else [] for i in range(n)], standings)
    top = verify(dm, "c0")
    assert verdict(top) == verdict(_verify_at(dm, "c0", None))
    assert top.grounded == (bottom == "active")
    if top.grounded:
        assert top.arguments == tuple(range(1, n + 1))
    else:
        assert top.failing == f"c{n - 1}"
    shallow = verify(dm, f"c{n - _DEEPEST // 2}")  # within reach of the walk
    assert verdict(shallow) == verdict(_verify_at(dm, f"c{n - _DEEPEST // 2}", None))


def test_a_first_level_nothing_else_rests_on_is_answered_without_a_walk():
    """c1 and c2 rest on c0 and nothing on them: Affected*(c0) is a prefix of the index's own list; once
    c3 rests on c2, it is walked."""
    dm = synthetic_map(3, [0, 1, 2], [[], [0], [0]], ["active"] * 3)
    leaves = affected(dm, "c0")
    assert leaves._basis[1] is dm.rev["c0"] and leaves._basis[3] is None  # not walked, not copied
    assert (leaves.claims, leaves.hops, leaves.lose_support) == (["c1", "c2"], [1, 1], ["c1", "c2"])
    deeper = synthetic_map(4, [0, 1, 2, 3], [[], [0], [0], [2]], ["active"] * 4)  # c3 rests on c2
    star = affected(deeper, "c0")
    assert star._basis[1] is not deeper.rev["c0"] and (star.claims, star.hops) == (["c1", "c2", "c3"], [1, 1, 2])


class _CountingLookups(dict):
    """The claimants index, counting each literal's look-ups."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.counts: dict[str, int] = {}

    def __getitem__(self, key: str) -> list[int]:
        self.counts[key] = self.counts.get(key, 0) + 1
        return super().__getitem__(key)


def test_the_walk_looks_each_literal_of_the_witness_up_once():
    """c3 rests on c0 (resting on nothing), then c2, which rests on c1 and c0: the anchor's level is
    walked once, whatever comes after a literal resting on nothing."""
    dm = synthetic_map(4, [0, 1, 2, 3], [[], [], [1, 0], [0, 2]], ["active"] * 4)
    dm.claimants = _CountingLookups(dm.claimants)
    v = verify(dm, "c3")
    assert dm.claimants.counts == {"c3": 1, "c0": 1, "c2": 1, "c1": 1}  # c0 once, though met twice
    assert v.grounded and v.chain == ("c3", "c0", "c2", "c1") and v.arguments == (4, 1, 3, 2)
    assert v == _verify_at(dm, "c3", None)
