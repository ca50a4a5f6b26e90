"""Property tests over random utterance streams, valid and invalid.

After every utterance: the standing invariant (Lemma 2.4), the A2 restriction,
the reverse index against one rebuilt from scratch, Affected and Affected*
against the naive fixpoint of Definition 2.3, Verify against a naive least
fixpoint, the open problems against their definition, and the Prolog state
against the bridge's.  A rejected utterance must leave both states identical;
a log must reload into the same state; every query at an earlier turn must
equal the same query on the conversation cut at that turn.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from types import SimpleNamespace

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounded import Engine, PreconditionError, Update
from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.effects import AddDep, NewArg, SetStanding
from grounded.dmap.model import Header
from grounded.dmap.state import DependencyMap
from grounded.queries.affected import affected as fast_affected
from grounded.queries.verify import verify as fast_verify
from grounded.solvers.prolog import PrologRules, level_facts, state_facts

from .oracles import (
    naive_affected,
    naive_grounded,
    naive_hops,
    naive_verify,
    reverse_index_from_scratch,
    standing_invariant,
)

HEADER = {
    "agents": {"alice": {"authority": True}, "bob": {}, "carol": {}},
    "props": [{"id": "latent", "aware": False}, {"id": "x4", "kind": "assumption"}],
}

POOL = ["x0", "x1", "x2", "x3", "x4", "-x0", "-x1", "-x4", "h0", "h1", "h2", "h3", "latent"]
QUESTIONS = ["q0", "q1", "q2"]
DECISIONS = ["d0", "d1"]
SPEAKERS = ["alice", "bob", "carol"] * 6 + ["dave"]
ALL = POOL + QUESTIONS + DECISIONS + ["y0", "decide_x0", "decide_h0"]


def ops_for(dm: DependencyMap):
    """Operations drawn against the current state: mostly well-formed, some noise.

    References go to claimed literals, Dep to known propositions and
    `explains` to open problems four times out of five; the rest come from a
    small fixed pool, so rejections, contradictions, supersession and attack
    cycles all still happen.
    """
    claimed = sorted(dm.claimants)
    known = sorted(dm.props) + ["-x0", "-x4"]
    open_ = list(dm.open_problems)
    pool = st.sampled_from(POOL)

    def mostly(values: list[str]):
        """Three draws in four from ``values``, the rest from the pool."""
        if not values:
            return pool
        return st.sampled_from(values * (3 * len(POOL) // len(values) + 1) + POOL)

    ref, problem = mostly(claimed), mostly(open_)
    deps = st.lists(mostly(known), max_size=3, unique=True)
    observe = st.builds(lambda c, s: {"op": "observe", "claim": c, "supersedes": s},
                        pool, st.lists(ref, max_size=1) | st.just([]))
    hypothesize = st.builds(lambda c, d, x: {"op": "hypothesize", "claim": c, "deps": d, "explains": x},
                            pool, deps, st.lists(problem, min_size=1, max_size=2, unique=True))
    return st.one_of(
        observe, hypothesize,
        st.builds(lambda t, b: {"op": "support", "target": t, "by": b}, ref, ref),
        st.builds(lambda t, b: {"op": "undermine", "target": t, "by": b}, ref, ref),
        st.builds(lambda t, b: {"op": "revise", "target": t, "by": b}, ref, st.none() | ref),
        st.builds(lambda c: {"op": "expand_awareness", "claim": c}, st.sampled_from(["latent", "y0", "x0"])),
        st.builds(lambda t, s, c, a: {"op": "resolve", "target": t, "subsumes": s, "claim": c, "assumptions": a},
                  ref, st.lists(ref, max_size=1), st.none() | st.sampled_from(DECISIONS), deps),
        st.builds(lambda c: {"op": "question", "claim": c}, st.sampled_from(QUESTIONS + ["x0"])),
    )


def draw_stream(data, engine: Engine, check=None, max_size: int = 40) -> list[dict]:
    """Draw and apply utterances one at a time; return the accepted ones with their turns."""
    accepted = []
    for _ in range(data.draw(st.integers(max_size // 3, max_size), label="length")):
        who = data.draw(st.sampled_from(SPEAKERS), label="speaker")
        size = data.draw(st.sampled_from([1, 1, 1, 2, 3]), label="ops per utterance")
        ops = data.draw(st.lists(ops_for(engine.state), min_size=size, max_size=size), label="ops")
        u = {"speaker": who, "ops": ops}
        before, prolog_before = engine.snapshot(), engine.prolog_state()
        try:
            update = engine.apply(u)
        except PreconditionError:
            assert engine.snapshot() == before, "a rejected utterance changed the bridge's state"
            assert engine.prolog_state() == prolog_before, "a rejected utterance changed the rules' state"
            continue
        accepted.append({**u, "turn": update.turn})
        if check is not None:
            check(engine, update)
    return accepted


SCALE = float(os.environ.get("GROUNDED_PROPERTY_SCALE", "1"))
"""Multiply every example budget, e.g. GROUNDED_PROPERTY_SCALE=20 for a soak run."""


def budget(n: int) -> settings:
    return settings(max_examples=int(n * SCALE), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def expected_open_problems(dm: DependencyMap) -> set[str]:
    """DESIGN.md section 2, read directly off the state: a question, and an observation in
    S_t, stay open until an argument that explains them is resolved."""
    def settled(literal: str) -> bool:
        return any(e.standing == "resolved" and literal in e.explains for e in dm.args)

    result = {p.id for p in dm.props.values() if p.kind == "question" and not settled(p.id)}
    result |= {r.claim for r in dm.args
               if r.kind == "observation" and r.standing in GOOD_STANDING and not settled(r.claim)}
    return result


def check_state(engine: Engine, update: Update) -> None:
    dm = engine.state
    # Lemma 2.4, in Python and in the rules
    assert standing_invariant(dm)
    assert engine.rules.invariant_holds()
    rank = {"active": 2, "resolved": 2, "weakened": 1, "abandoned": 0}
    for r in dm.args:
        ranks = [rank[h[1]] for h in r.history]
        assert ranks == sorted(ranks, reverse=True), f"{r.claim} went back into standing: {r.history}"
    # A2
    if dm.acyclic:
        assert nx.is_directed_acyclic_graph(nx.DiGraph([(a, b) for a, b, _ in dm.attacks]))
    # the reverse index equals one rebuilt from scratch
    assert {k: sorted(v) for k, v in dm.rev.items()} == reverse_index_from_scratch(dm)
    assert set(dm.open_problems) == expected_open_problems(dm)
    grounded = naive_grounded(dm)
    for p in ALL:
        for closure in (True, False):
            fast = engine.affected(p, closure=closure)
            assert set(fast.arguments) == naive_affected(dm, p, closure)
            assert len(fast.arguments) == len(set(fast.arguments))
            assert set(fast.losing_arguments) == {a for a in fast.arguments if dm.in_standing(a)}
            if closure:
                assert dict(zip(fast.arguments, fast.hops, strict=True)) == naive_hops(dm, p)
        v = engine.verify(p)
        assert v.grounded == naive_verify(dm, p)
        assert (v.status == "no_anchor") == (p not in dm.claimants)
        if v.grounded:
            chain = v.arguments
            assert dm.arg(chain[0]).claim == p and set(chain) <= grounded
            chain_claims = {dm.arg(a).claim for a in chain}
            assert all(set(dm.arg(a).deps) <= chain_claims for a in chain)  # the witness is closed
        else:
            assert v.reason
    # the rules hold exactly the bridge's facts
    dumped = engine.prolog_state()
    assert len(dumped) == len(set(dumped)) and set(dumped) == set(state_facts(dm))  # the facts a snapshot restores
    # what the rules decide and the bridge answers on its own, held equal (issue 9 item 4)
    rules_agree_with_python(engine, update)


def rules_agree_with_python(engine: Engine, update: Update) -> None:
    """Reinstatable, the standing notes, the open problems and the flagged set: the
    Prolog rules' answers (engine.rules) equal the bridge's, and the definitions."""
    dm = engine.state
    assert engine.rules.reinstatable() == engine.reinstatable()
    reinstatable = [r.id for r in dm.args if r.standing not in GOOD_STANDING and dm.attackers.get(r.id)
                    and not any(dm.in_standing(b) for b in dm.attackers[r.id])]
    assert engine.reinstatable() == reinstatable
    assert engine.rules.notes() == {claim: dm.note(claim) for claim in dm.claimants}
    assert engine.rules.open_problems() == engine.open_problems()
    # the claims this utterance took out of S_t: an argument for it left good standing,
    # and none stands now
    left = dict.fromkeys(dm.arg(e.arg).claim for e in update.of(SetStanding) if e.standing not in GOOD_STANDING)
    assert update.left == tuple(c for c in left if not any(dm.in_standing(a) for a in dm.claimants[c]))
    assert update.flagged == {c: engine.affected(c).lose_support for c in update.left
                              if engine.affected(c).lose_support}


@pytest.mark.slow
@budget(120)
@given(data=st.data(), acyclic=st.booleans())
def test_invariants_hold_after_every_utterance(data, acyclic):
    engine = Engine(HEADER, acyclic=acyclic)
    draw_stream(data, engine, check_state)
    engine.close()


@budget(30)
@given(data=st.data(), acyclic=st.booleans(), part=st.integers(1, 12))
def test_the_levels_made_in_python_are_those_the_rules_rebuild(data, acyclic, part):
    """``level_facts`` (what a server sends with a cold engine's facts, made off the rules' thread) are the levels
    the rules' own ``rebuild_levels`` makes from the same state: a state given them in parts holds the same levels
    (and marks) as one restored at once."""
    from pyswip import Prolog

    engine = Engine(HEADER, acyclic=acyclic)
    draw_stream(data, engine)
    facts, levels = state_facts(engine.state), level_facts(engine.state)
    assert levels is not None  # the rules keep Dep (and the attacks under A2) acyclic
    prolog = PrologRules.get()
    rebuilt = prolog.new_state(facts)
    given, putting = prolog.state_in_parts(facts, part, levels)
    for _ in putting:
        pass

    def levels_of(module: str) -> list[str]:
        query = (f"findall(X, ( member(H, [dep_level(_, _, _), rested_on(_, _), att_level(_, _)]), '{module}':H, "
                 f"format(atom(X), '~w', [H]) ), Xs), atomic_list_concat(Xs, ' ', S)")
        return sorted(str(next(Prolog.query(query))["S"]).split())

    assert levels_of(given.module) == levels_of(rebuilt.module)
    assert given.facts() == rebuilt.facts()
    for state in (rebuilt, given):
        prolog.release(state.module)
    engine.close()


@pytest.mark.slow
@budget(60)
@given(data=st.data())
def test_a_log_reloads_into_the_engine_that_wrote_it(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.jsonl"
        live = Engine(HEADER, log=path)
        draw_stream(data, live)
        live.close()
        loaded = Engine.load(path)
        assert loaded.snapshot() == live.snapshot()
        assert loaded.prolog_state() == live.prolog_state()


@pytest.mark.slow
@budget(40)
@given(data=st.data())
def test_queries_at_an_earlier_turn_equal_the_conversation_cut_there(data):
    live = Engine(HEADER)
    accepted = draw_stream(data, live)
    for t in sorted({0} | {u["turn"] for u in accepted}):
        cut = Engine(HEADER)
        for u in accepted:
            if u["turn"] <= t:
                cut.apply(u)
        for p in ALL:
            assert verdict(live.verify(p, at=t)) == verdict(cut.verify(p))
            for closure in (True, False):
                a, b = live.affected(p, closure, at=t), cut.affected(p, closure)
                assert (a.arguments, a.hops, a.claims, a.lose_support) == \
                    (b.arguments, b.hops, b.claims, b.lose_support)
            assert live.standing(p, at=t) == cut.standing(p)
            assert live.dep(p, at=t) == cut.dep(p)
        assert live.open_problems(at=t) == cut.open_problems()
        assert live.commitments(at=t) == cut.commitments()
        assert live.reinstatable(at=t) == cut.reinstatable()
        assert live.dissent(at=t) == cut.dissent()
        assert [a.model_dump() for a in live.arguments(at=t)] == [a.model_dump() for a in cut.arguments()]
        cut.close()


def verdict(v):
    return (v.grounded, v.status, v.chain, v.arguments, v.reason, v.failing)


# -- the query algorithms on arbitrary dependency maps, cycles included -------------

def synthetic_map(n_args: int, claims: list[int], deps: list[list[int]], standings: list[str]) -> DependencyMap:
    """A dependency map built without the rules, so circular support can occur."""
    dm = DependencyMap(Header())
    ops = [SimpleNamespace(op="observe", text="")]
    effects: list = []
    for i in range(n_args):
        effects.append(NewArg(0, i + 1, f"c{claims[i]}", "observation"))
        for d in deps[i]:
            effects.append(AddDep(0, i + 1, f"c{d}"))
        if standings[i] != "active":
            effects.append(SetStanding(0, i + 1, standings[i], None))
    dm.apply(effects, 1, "s", "", ops)
    return dm


@st.composite
def dependency_maps(draw):
    n = draw(st.integers(1, 12))
    k = draw(st.integers(1, 8))
    claims = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    deps = draw(st.lists(st.lists(st.integers(0, k), max_size=3, unique=True), min_size=n, max_size=n))
    standings = draw(st.lists(st.sampled_from(["active", "active", "resolved", "weakened", "abandoned"]),
                              min_size=n, max_size=n))
    return synthetic_map(n, claims, deps, standings), k


@pytest.mark.slow
@budget(400)
@given(case=dependency_maps())
def test_verify_and_affected_equal_the_naive_fixpoints_with_cycles(case):
    dm, k = case
    grounded = naive_grounded(dm)
    for c in range(k + 1):
        p = f"c{c}"
        v = fast_verify(dm, p)
        assert v.grounded == any(dm.arg(a).claim == p for a in grounded)
        if v.grounded:
            assert set(v.arguments) <= grounded
        for closure in (True, False):
            assert set(fast_affected(dm, p, closure).arguments) == naive_affected(dm, p, closure)
        fast = fast_affected(dm, p)
        assert dict(zip(fast.arguments, fast.hops, strict=True)) == naive_hops(dm, p)


def test_circular_support_grounds_nothing():
    # c0 <- c1 <- c0, both in standing: neither is grounded
    dm = synthetic_map(2, [0, 1], [[1], [0]], ["active", "active"])
    v = fast_verify(dm, "c0")
    assert not v.grounded and "circular support" in v.reason
    # an independent argument for c1 grounds both
    dm = synthetic_map(3, [0, 1, 1], [[1], [0], []], ["active"] * 3)
    assert fast_verify(dm, "c0").grounded and fast_verify(dm, "c1").grounded


@pytest.mark.slow
@budget(25)
@given(data=st.data())
def test_chatter_admitted_without_the_rules_is_what_the_rules_admit(data):
    """``Engine.apply`` admits an utterance without operations by a known speaker after the
    last turn without a rule run (a fast path for chatter). The log it writes is then read
    back by the rules alone (``Engine.load`` judges every line): they must accept every line
    and reach the same state, so the fast path never admits what the rules would refuse."""
    header = HEADER if data.draw(st.booleans(), label="declared agents") else {**HEADER, "agents": {}}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.jsonl"
        live = Engine(header, log=path)
        for _ in range(data.draw(st.integers(5, 30), label="length")):
            u: dict = {"speaker": data.draw(st.sampled_from(SPEAKERS), label="speaker")}
            if data.draw(st.booleans(), label="operations"):
                u["ops"] = data.draw(st.lists(ops_for(live.state), min_size=1, max_size=2), label="ops")
            if data.draw(st.booleans(), label="explicit turn"):
                u["turn"] = data.draw(st.integers(0, (live.turn or 0) + 2), label="turn")
            try:
                live.apply(u)
            except PreconditionError as exc:
                assert not u.get("ops") or exc.violations
        live.close()
        loaded = Engine.load(path, effects=False)  # every line by the rules
        assert loaded.snapshot() == live.snapshot()
        assert loaded.prolog_state() == live.prolog_state()
        loaded.close()
