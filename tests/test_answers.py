"""Verify's and Affected*'s answers: frozen dataclasses built in one place, read lazily (issues 20 and 23).

Each kind of answer (an anchor resting on nothing, a witness the
single-claimant walk found, one the fixpoint found, a failure either found,
no anchor, an Affected* answer) is a frozen dataclass nobody can write to,
whoever holds it.  A failure the walk found words its reason from where the
walk stopped, without the fixpoint; what an Affected* answer computes when
read is as of the question's turn.
"""

from __future__ import annotations

import dataclasses

import pytest

from grounded import Engine
from grounded.dmap.state import ArgRecord
from grounded.queries import verify as verify_module
from grounded.queries.affected import Affected
from grounded.queries.verify import Verification

from .frames import python_calls
from .test_properties import synthetic_map

HEADER = {"agents": {"alice": {"authority": True}, "bob": {}}}


def _say(e: Engine, speaker: str, *ops: dict) -> None:
    e.apply({"speaker": speaker, "ops": list(ops)})


def _conversation() -> Engine:
    """o1 <- h1 <- h2 (a chain), o2 abandoned under h3, h4 resting on a literal nobody claims, the
    literal o5 claimed twice (the fixpoint's case), h6 and h7 resting on each other."""
    e = Engine(HEADER)
    _say(e, "alice", {"op": "observe", "claim": "o1"}, {"op": "observe", "claim": "o2"},
         {"op": "observe", "claim": "o5"})
    _say(e, "bob", {"op": "hypothesize", "claim": "h1", "deps": ["o1"]})
    _say(e, "bob", {"op": "hypothesize", "claim": "h2", "deps": ["h1", "o1"]})
    _say(e, "bob", {"op": "hypothesize", "claim": "h3", "deps": ["o2"]})
    _say(e, "alice", {"op": "revise", "target": "o2"})
    _say(e, "bob", {"op": "observe", "claim": "o5"})
    _say(e, "bob", {"op": "hypothesize", "claim": "h5", "deps": ["o5"]})
    return e


def test_every_kind_of_answer_is_a_frozen_dataclass():
    e = _conversation()
    answers = {
        "leaf": e.verify("o1"),
        "walked": e.verify("h2"),
        "failed below": e.verify("h3"),
        "failed anchor": e.verify("o2"),
        "fixpoint": e.verify("h5"),  # o5 has two claimants: the walk hands over
        "at a turn": e.verify("h2", at=5),
        "no anchor": e.verify("nobody"),
    }
    assert [v.grounded for v in answers.values()] == [True, True, False, False, True, True, False]
    star = e.affected("o1")
    for name, answer in [*answers.items(), ("affected", star), ("nothing rests", e.affected("h2"))]:
        assert dataclasses.is_dataclass(answer), name
        for attribute in ("claim", "at", "grounded", "status", "literal", "closure", "_basis"):
            if hasattr(answer, attribute):
                with pytest.raises(dataclasses.FrozenInstanceError):
                    setattr(answer, attribute, None)
    assert isinstance(star, Affected) and all(isinstance(v, Verification) for v in answers.values())
    assert (star.claims, star.arguments, star.hops) == (["h1", "h2"], [4, 5], [1, 1])
    e.close()


def test_an_anchor_resting_on_nothing_has_one_answer_made_once():
    e = _conversation()
    first = e.verify("o1")
    assert first is e.verify("o1") is verify_module.verify(e.state, "o1")  # shared: it is frozen
    assert (first.claim, first.chain, first.arguments, first.at) == ("o1", ("o1",), (1,), None)
    assert e.verify("o1", at=1) is not first and e.verify("o1", at=1).at == 1  # a turn: an answer of its own
    _say(e, "alice", {"op": "revise", "target": "o1"})
    later = e.verify("o1")
    assert not later.grounded and later.reason == "o1 abandoned at T8"  # its standing is checked each time
    assert first.grounded and first.chain == ("o1",)  # the answer given before is unchanged
    e.close()


def _no_fixpoint(*args: object) -> None:
    raise AssertionError("the reason of a failure the walk found needs no fixpoint")


def test_a_failure_the_walk_found_is_worded_without_the_fixpoint(monkeypatch):
    e = _conversation()
    _say(e, "bob", {"op": "hypothesize", "claim": "h8", "deps": ["h3", "o1"]})
    expected = {
        "o2": ("o2 abandoned at T5", "o2"),
        "h3": ("o2 -> h3: o2 abandoned at T5", "o2"),
        "h8": ("o2 -> h3 -> h8: o2 abandoned at T5", "o2"),
    }
    general = {p: verify_module._verify_at(e.state, p, None) for p in expected}
    assert {p: (v.reason, v.failing) for p, v in general.items()} == expected  # the fixpoint's words
    monkeypatch.setattr(verify_module, "least_fixpoint", _no_fixpoint)
    for p, (reason, failing) in expected.items():
        v = e.verify(p)
        assert (v.reason, v.failing, v.status) == (reason, failing, "ungrounded")
        assert v == general[p] and hash(v) == hash(general[p])
    e.close()


def test_nobody_claiming_a_literal_and_circular_support_are_worded_without_the_fixpoint(monkeypatch):
    """Maps the rules would refuse: c0 rests on c1 and c3 (nobody claims c3); c1 on c2, c2 on c1."""
    dm = synthetic_map(3, [0, 1, 2], [[3], [2], [1]], ["active"] * 3)
    general = {p: verify_module._verify_at(dm, p, None) for p in ("c0", "c1")}
    assert (general["c0"].reason, general["c0"].failing) == ("c3 -> c0: no argument claims c3", "c3")
    assert (general["c1"].reason, general["c1"].failing) == ("c1 -> c2 -> c1: circular support, c1 rests on itself",
                                                             "c1")
    monkeypatch.setattr(verify_module, "least_fixpoint", _no_fixpoint)
    for p, v in general.items():
        fast = verify_module.verify(dm, p)
        assert (fast.reason, fast.failing) == (v.reason, v.failing) and fast == v


def test_an_affected_answer_read_late_reads_hops_and_standings_as_of_its_question():
    """The hops are found when first read, after h1 has come to rest on o2 as well (an index entry
    made after the question) and h2 has been abandoned."""
    e = Engine(HEADER)
    _say(e, "alice", {"op": "observe", "claim": "o1"}, {"op": "observe", "claim": "o2"})
    _say(e, "bob", {"op": "hypothesize", "claim": "h0", "deps": ["o1"]})
    _say(e, "bob", {"op": "hypothesize", "claim": "h2", "deps": ["h0"]})
    _say(e, "bob", {"op": "hypothesize", "claim": "h1", "deps": ["h2"]})
    star = e.affected("o1")
    _say(e, "alice", {"op": "support", "target": "h1", "by": "o2"})
    _say(e, "alice", {"op": "revise", "target": "h2"})
    assert star.claims == ["h0", "h2", "h1"] and star.hops == [1, 2, 3]
    assert star.claim_hops == {"h0": 1, "h2": 2, "h1": 3} and star.lose_support == ["h0", "h2", "h1"]
    assert e.affected("o1").lose_support == ["h0", "h1"]
    e.close()


def test_answers_are_slotted_with_one_field_and_keep_what_is_read_once():
    """Each answer holds one tuple field and no instance dictionary (cheaper to make: bench/compare.py);
    what it computes when first read is made once and kept, whichever instance reads it."""
    e = _conversation()
    _say(e, "bob", {"op": "hypothesize", "claim": "h6", "deps": ["h3"]})
    answers = [e.verify("o1"), e.verify("h2"), e.verify("h3"), e.verify("h5"), e.verify("nobody"),
               e.verify("h6", at=5), e.affected("o1"), e.affected("h2")]
    for answer in answers:
        assert not hasattr(answer, "__dict__"), type(answer).__name__
        assert [f.name for f in dataclasses.fields(answer)] == ["_f"]
        with pytest.raises(dataclasses.FrozenInstanceError):
            answer._f = ()  # type: ignore[misc]
    star, unknown = e.affected("o1"), e.verify("h6", at=5)
    assert star.arguments is not star.arguments and star.arguments == [4, 5]  # a copy of what is kept
    assert star._reached is star._reached  # made once
    assert unknown.reason == "no argument claims h6 (no anchor)"
    ungrounded = e.verify("h3", at=6)
    assert ungrounded._why is ungrounded._why and ungrounded.failing == "o2"
    e.close()


def test_answers_and_a_state_holding_them_survive_pickle():
    """The service's text readers get the state pickled, and a state keeps the answer of a leaf anchor:
    pickle's default would set the frozen slot and fail (a 500 on every Verify by text)."""
    import pickle

    engine = _conversation()
    for claim in ("o1", "o2", "h1", "h2", "h3", "o5", "never_said"):
        v = engine.verify(claim)
        assert pickle.loads(pickle.dumps(v)) == v
        back = pickle.loads(pickle.dumps(v))
        assert (back.status, back.chain, back.reason) == (v.status, v.chain, v.reason)
        a = engine.affected(claim)
        back_a = pickle.loads(pickle.dumps(a))
        assert (back_a.arguments, back_a.hops) == (a.arguments, a.hops)
    state = pickle.loads(pickle.dumps(engine.state, protocol=pickle.HIGHEST_PROTOCOL))
    assert any(r.answer is not None for r in state.args)  # a leaf's answer kept in the state, and carried


def test_a_question_is_one_python_frame_over_the_walk():
    """Engine.verify and Engine.affected are the query walks, methods of the engine (issue 23): no frame
    of the engine's between the caller and the walk, none to build the answer, one to word an anchor's
    standing as the reason (the authors' engine answers in one frame)."""
    e = _conversation()
    e.verify("o1")  # an anchor resting on nothing: its answer is made on the first question only,
    e.verify("o2")  # as is an anchor's out of standing (``out``), which a failure below it words its reason with
    walks = {  # the question -> the Python frames it runs
        "leaf": (lambda: e.verify("o1"), ["verify_over"]),
        "walked": (lambda: e.verify("h1"), ["verify_over"]),
        "walked, a level resting on something": (lambda: e.verify("h2"), ["verify_over", "_walk_below"]),
        "failed below": (lambda: e.verify("h3"), ["verify_over"]),
        "anchor out of standing": (lambda: e.verify("o2"), ["verify_over"]),
        "affected, walked": (lambda: e.affected("o1"), ["affected_over"]),
        "affected, a first level alone": (lambda: e.affected("h1"), ["affected_over"]),
        "nothing rests on it": (lambda: e.affected("h2"), ["affected_over"]),
        "one step": (lambda: e.affected("o1", closure=False), ["affected_over"]),
    }
    for name, (ask, frames) in walks.items():
        assert python_calls(ask) == frames, name
    out = e.verify("o2")
    assert python_calls(lambda: out.reason) == ["reason"] and out.reason == "o2 abandoned at T5"
    e.close()


def test_a_restored_state_is_the_one_the_queries_walk(tmp_path):
    """The walks are bound to the map when ``Engine.state`` is set: a state put in afterwards (as a snapshot
    restores one) is the one answered from, not the map the engine was made with."""
    e = _conversation()
    other = Engine(HEADER)
    _say(other, "alice", {"op": "observe", "claim": "o9"})
    assert e.verify("o9").status == "no_anchor"
    e.state = other.state
    assert e.verify("o9").grounded and e.affected("o9").claims == [] and e.verify("h2").status == "no_anchor"
    e.close()
    other.close()


def test_an_anchor_given_dep_after_its_answer_was_kept_is_walked_again():
    """The answer kept for an anchor resting on nothing stands only while its Dep is empty: Support can give
    it Dep later (found by the property tests when the kept answer was returned before Dep was looked at)."""
    e = Engine(HEADER)
    _say(e, "alice", {"op": "observe", "claim": "x1"}, {"op": "observe", "claim": "x0"})
    assert e.verify("x0").grounded  # kept on x0's record
    _say(e, "alice", {"op": "support", "target": "x0", "by": "x1"})
    assert e.verify("x0").chain == ("x0", "x1")  # walked again: the kept answer had no x1
    _say(e, "alice", {"op": "undermine", "target": "x1", "by": "x0"})
    v = e.verify("x0")
    assert not v.grounded and v.failing == "x1" and v.reason.startswith("x1 -> x0: x1 weakened at T3")
    e.close()


class _Watched(ArgRecord):
    """An argument record that notes each field of it read (a subclass, so it has a dict for ``read``)."""

    def __getattribute__(self, name: str) -> object:
        if name != "read" and not name.startswith("__"):
            object.__getattribute__(self, "read").append(name)
        return object.__getattribute__(self, name)


def _watched(e: Engine, claim: str) -> list[str]:
    """Puts a ``_Watched`` copy of ``claim``'s newest record in ``e``'s map; the fields read of it after."""
    i = e.state.claimants[claim][-1] - 1
    record = e.state.args[i]
    watched = _Watched(*(getattr(record, f.name) for f in dataclasses.fields(ArgRecord)))
    watched.read = []  # type: ignore[attr-defined]  # the subclass's own dict
    e.state.args[i] = watched
    return watched.read  # type: ignore[attr-defined,no-any-return]


def test_a_kept_answer_is_returned_before_anything_else_of_the_record_is_read():
    """Issue 23: Verify of an observation read 1.0x the authors' engine (one dict look-up for them); the
    answer kept on its record is now read first, before its standing and Dep (3 fields read before); a Dep
    added or a standing change empties it, and the answer is found again from the record."""
    e = _conversation()
    e.verify("o1")
    e.verify("o2")
    for claim in ("o1", "o2"):  # a leaf's kept answer, and an out of standing anchor's
        kept = e.verify(claim)
        read = _watched(e, claim)
        again = e.verify(claim)
        assert again is kept and read == ["answer"], (claim, read)
    _say(e, "alice", {"op": "observe", "claim": "x1"}, {"op": "observe", "claim": "x0"})
    leaf = e.verify("x0")
    assert leaf.grounded and e.state.args[e.state.claimants["x0"][-1] - 1].answer is leaf
    _say(e, "alice", {"op": "support", "target": "x0", "by": "x1"})
    record = e.state.args[e.state.claimants["x0"][-1] - 1]
    assert record.answer is None  # a Dep added: the answer that it rests on nothing no longer holds
    assert e.verify("x0").chain == ("x0", "x1") and record.answer is None
    e.close()


def test_an_out_of_standing_claimants_answer_and_reason_are_made_once_per_standing_change():
    """Issue 23: reading ``.reason`` of an answer whose claimant is out of standing cost 1.7x the authors'
    whole answer, most of it the f-string.  That answer is kept on the claimant's record, its reason worded
    when it is made: asked again, the same answer and the same string, with no further Python frame; a
    failure below that claimant words its last step with them."""
    fresh = _conversation()
    assert python_calls(lambda: fresh.verify("h3")) == ["verify_over", "out"]  # the first question makes it
    assert python_calls(lambda: fresh.verify("h3")) == ["verify_over"]
    fresh.close()
    e = _conversation()
    first = e.verify("o2")
    assert e.verify("o2") is first and first.reason is first.reason == "o2 abandoned at T5"
    below = e.verify("h3")
    assert below.reason == "o2 -> h3: o2 abandoned at T5" and below.reason.endswith(first.reason)
    assert below._f[2][2] is first  # its last step is the claimant's kept answer, words and all
    e.close()


def test_a_kept_reason_gives_way_to_the_next_standing_change():
    """A reason kept on a record must not outlive the standing it words: after the next change, asking again
    gives the new words (at the anchor, one level below it and two), while answers given before still say
    what held when they were asked."""
    e = Engine(HEADER)
    _say(e, "alice", {"op": "observe", "claim": "o1"}, {"op": "observe", "claim": "o2"})
    _say(e, "bob", {"op": "hypothesize", "claim": "h1", "deps": ["o1"]})
    _say(e, "bob", {"op": "hypothesize", "claim": "h2", "deps": ["h1"]})
    _say(e, "bob", {"op": "hypothesize", "claim": "h3", "deps": ["h2"]})
    _say(e, "alice", {"op": "undermine", "target": "h1", "by": "o2"})
    then = [e.verify(c) for c in ("h1", "h2", "h3")]
    weakened = ["h1 weakened at T5 by o2", "h1 -> h2: h1 weakened at T5 by o2",
                "h1 -> h2 -> h3: h1 weakened at T5 by o2"]
    assert [v.reason for v in then] == weakened
    _say(e, "alice", {"op": "revise", "target": "h1"})
    now = [e.verify(c) for c in ("h1", "h2", "h3")]
    assert [v.reason for v in now] == ["h1 abandoned at T6", "h1 -> h2: h1 abandoned at T6",
                                       "h1 -> h2 -> h3: h1 abandoned at T6"]
    assert [v.reason for v in then] == weakened and now[0] is not then[0]
    e.close()


def test_an_argument_back_in_standing_keeps_no_answer_of_why_it_was_out():
    """The record's answer slot holds either why it is out or what it grounds: a standing change empties it
    (the rules may move an argument back into S_t; the mirror applies what they report), so an argument back
    in standing grounds its claim instead of answering with the reason it was out."""
    from types import SimpleNamespace

    from grounded.dmap.effects import SetStanding
    from grounded.queries.verify import verify

    dm = synthetic_map(2, [0, 1], [[], [0]], ["weakened", "active"])
    ops = [SimpleNamespace(op="observe", text="")]
    assert verify(dm, "c0").reason == "c0 weakened at T1" and verify(dm, "c1").reason == "c0 -> c1: c0 weakened at T1"
    dm.apply([SetStanding(0, 1, "active", None)], 2, "s", "", ops)
    assert verify(dm, "c0").grounded and verify(dm, "c1").chain == ("c1", "c0")
    dm.apply([SetStanding(0, 1, "abandoned", "c1")], 3, "s", "", ops)
    assert verify(dm, "c0").reason == "c0 abandoned at T3 by c1" and verify(dm, "c1").failing == "c0"
