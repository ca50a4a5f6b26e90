"""The world model inside the engine: what each operation does to M, queries at
earlier turns, the header declaration, the log, and the paper's scenarios."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grounded import Engine, InputError, PreconditionError
from grounded.dmap.effects import Announce, NewArg, Refine, Upgrade, Withdraw
from grounded.scenario import Scenario, run

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"

MUDDY = {
    "agents": {"father": {}, "children": {}, "alice": {}, "bob": {}, "carol": {}},
    "world": {
        "atoms": ["m_a", "m_b", "m_c"],
        "agents": {"alice": {"observes": ["m_b", "m_c"]}, "bob": {"observes": ["m_a", "m_c"]},
                   "carol": {"observes": ["m_a", "m_b"]}},
        "actual": ["m_a", "m_b"],
        "formulas": {"some": "m_a | m_b | m_c", "dk_a": "~K_alice m_a & ~K_alice ~m_a",
                     "dk_b": "~K_bob m_b & ~K_bob ~m_b", "dk_c": "~K_carol m_c & ~K_carol ~m_c"},
    },
}

DEBUG = {
    "agents": {"alice": {"authority": True}, "bob": {}},
    "props": [{"id": "mis", "aware": False}],
    "world": {
        "atoms": ["x", "y"],
        "formulas": {"ox": "x", "oy": "y", "h": "hx", "g": "gx"},
        "background": ["hx -> x", "gx -> y", "mis -> ~y"],
    },
}


def obs(claim, **kw):
    return {"op": "observe", "claim": claim, **kw}


def say(engine, speaker, *ops):
    return engine.apply({"speaker": speaker, "ops": list(ops)})


def test_the_three_answers_of_round_one_are_one_simultaneous_announcement():
    e = Engine(MUDDY)
    say(e, "father", obs("some"))
    update = say(e, "children", obs("dk_a"), obs("dk_b"), obs("dk_c"))
    assert update.worlds == (7, 4)
    assert e.knows("alice", "m_a") and e.knows("bob", "m_b") and not e.knows("carol", "m_c")


def test_announced_one_after_another_the_second_answer_would_be_false():
    e = Engine(MUDDY)
    say(e, "father", obs("some"))
    say(e, "alice", obs("dk_a"))
    assert e.knows("bob", "m_b"), "after Alice's answer Bob knows"
    with pytest.raises(PreconditionError) as info:
        say(e, "bob", obs("dk_b"))
    assert info.value.codes == ["announce_false"]


def test_queries_look_back_and_the_initial_model_is_turn_minus_one():
    e = Engine(MUDDY)
    say(e, "father", obs("some"))
    say(e, "children", obs("dk_a"), obs("dk_b"), obs("dk_c"))
    assert [len(e.worlds(at=t)) for t in (-1, 1, 2)] == [8, 7, 4]
    assert not e.knows("alice", "m_a", at=1) and e.knows("alice", "m_a", at=2)
    assert e.common_knowledge("m_a | m_b | m_c") and not e.common_knowledge("m_a | m_b | m_c", at=-1)
    assert e.common_knowledge("m_a", group=["bob", "carol"])  # both see Alice
    assert e.holds("K_alice m_a & ~K_carol m_c & ~C_{alice,bob,carol} ~m_c")
    assert sorted("".join("M" if f"m_{c}" in w else "C" for c in "abc") for w in e.worlds()) == \
        ["CMM", "MCM", "MMC", "MMM"]


def test_query_errors_say_what_is_wrong():
    e = Engine(MUDDY)
    with pytest.raises(InputError, match="column 6: expected a formula after '&'"):
        e.holds("m_a &")
    with pytest.raises(InputError, match="dave is not an agent of the model"):
        e.knows("dave", "m_a")
    with pytest.raises(InputError, match="zz is not an atom of the world"):
        e.holds("K_alice zz")
    with pytest.raises(InputError, match="declares no world model"):
        Engine({"agents": {"a": {}}}).knows("a", "p")
    with pytest.raises(InputError, match="at=-2"):
        e.worlds(at=-2)
    d = Engine(DEBUG)
    with pytest.raises(InputError, match="hx is latent"):
        d.believes("alice", "h")
    assert d.holds("~A_alice hx")  # awareness may name what nobody is aware of


def test_hypothesis_support_undermine_revise_resolve_move_plausibility_and_worlds():
    e = Engine(DEBUG)
    say(e, "bob", obs("ox"), obs("oy"))
    assert len(e.worlds()) == 1
    u = say(e, "alice", {"op": "hypothesize", "claim": "h", "deps": ["ox"], "explains": ["ox"]})
    assert u.worlds == (1, 2)  # hx entered the model: W refined on it
    assert e.believes("bob", "h") and not e.knows("bob", "h")
    u = say(e, "bob", {"op": "support", "target": "h", "by": "ox"})
    assert u.of(Upgrade) == [Upgrade(0, "h", "lexicographic")]  # h was proposed to explain ox: specific evidence
    say(e, "bob", {"op": "hypothesize", "claim": "g", "deps": ["oy"], "explains": ["oy"]})
    u = say(e, "alice", {"op": "support", "target": "g", "by": "ox"})
    assert u.of(Upgrade) == [Upgrade(0, "g", "conservative")]  # generic evidence
    say(e, "alice", {"op": "undermine", "target": "g", "by": "ox"})
    assert e.believes("alice", "~g") and not e.knows("alice", "~g")
    u = say(e, "alice", {"op": "revise", "target": "g", "by": "ox"})
    assert e.knows("alice", "~g") and [a.literal for a in u.of(Announce)] == ["-g"]
    say(e, "bob", {"op": "resolve", "target": "h"})
    assert e.common_knowledge("h & ~g")


def test_revising_an_announced_fact_withdraws_it_first():
    e = Engine(DEBUG)
    say(e, "bob", obs("ox"))
    assert e.knows("alice", "x")
    u = say(e, "alice", {"op": "revise", "target": "ox"})
    assert [e.name for e in u.effects if isinstance(e, (Withdraw, Announce))] == ["withdraw", "announce"]
    assert e.knows("alice", "~x") and len(e.worlds()) == 2
    u = say(e, "bob", obs("ox"))  # observed again: the negation nobody stands for is withdrawn
    assert [w.literal for w in u.of(Withdraw)] == ["-ox"] and e.knows("alice", "x")
    say(e, "alice", obs("-ox", supersedes=["ox"]))  # and back, by supersession
    assert e.knows("bob", "~x")


def test_expand_awareness_refines_then_announces():
    e = Engine(DEBUG)
    assert e.holds("~A_alice mis")
    with pytest.raises(PreconditionError, match="use Expand-Awareness"):
        say(e, "bob", obs("mis"))
    u = say(e, "bob", {"op": "expand_awareness", "claim": "mis"})
    assert [r.atom for r in u.of(Refine)] == ["mis"] and u.worlds == (4, 2)
    assert e.holds("A_alice mis & A_bob mis") and e.common_knowledge("mis & ~y")


def test_an_authoritative_resolve_announces_nothing():
    e = Engine(DEBUG)
    say(e, "bob", {"op": "question", "claim": "q"})
    say(e, "bob", {"op": "hypothesize", "claim": "h", "deps": [], "explains": ["q"]})
    say(e, "alice", obs("oy"))
    say(e, "alice", {"op": "undermine", "target": "h", "by": "oy"})
    u = say(e, "alice", {"op": "resolve", "target": "h", "claim": "d"})
    assert u.of(NewArg) and not u.of(Announce)
    assert not e.knows("bob", "h")


@pytest.mark.parametrize("world,message", [
    ({"atoms": ["p"], "formulas": {"f": "p &"}}, "world.formulas: Value error, f: column 4: expected a formula"),
    ({"atoms": ["p"], "formulas": {"f": "K_dave p"}}, "['dave'] are not modelled agents"),
    ({"atoms": ["p"], "agents": {"dave": {}}}, "['dave'] are not agents of the conversation"),
    ({"atoms": ["p"], "background": ["K_a p"]}, "background constraints are propositional"),
    ({"atoms": ["p"], "background": ["~p"], "actual": ["p"]}, "violates the background constraint '~p'"),
    ({"atoms": ["p"], "formulas": {"f": "g", "g": "f"}}, "circular"),
    ({"atoms": ["p"], "formulas": {"p": "true"}}, "are atoms and cannot also be defined"),
    ({"atoms": ["p"], "agents": {"a": {"observes": ["z"]}}}, "['z'] are not atoms of the world"),
    ({"atoms": [f"x{i}" for i in range(23)]}, "the limit is 22"),
])
def test_a_bad_world_declaration_is_an_error_naming_the_field(world, message):
    with pytest.raises(InputError) as info:
        Engine({"agents": {"a": {}}, "world": world})
    assert str(info.value).startswith("header: world")
    assert message in str(info.value)


def test_the_log_keeps_the_world_and_replays_to_the_same_models(tmp_path):
    log = tmp_path / "talk.jsonl"
    e = Engine(MUDDY, log=log)
    say(e, "father", obs("some"))
    say(e, "children", obs("dk_a"), obs("dk_b"), obs("dk_c"))
    e.close()
    assert json.loads(log.read_text().splitlines()[0])["world"]["actual"] == ["m_a", "m_b"]
    again = Engine.load(log)
    for t in (-1, 1, 2):
        assert again.worlds(at=t) == e.worlds(at=t)
    plain = tmp_path / "plain.jsonl"
    Engine({"agents": {"a": {}}}, log=plain).close()
    assert "world" not in json.loads(plain.read_text().splitlines()[0])


def test_phase1_passes_every_expectation():
    scenario = Scenario.load(SCENARIOS / "phase1.yaml")
    engine = Engine(scenario.header)
    checks = [c for o in run(scenario, engine) for c in o.checks]
    assert len(checks) >= 20
    assert [str(c) for c in checks if not c.passed] == []
    assert [len(engine.worlds(at=t)) for t in (0, 1, 2, 5)] == [8, 7, 4, 1]


def test_phase2_plausibility_trajectory():
    scenario = Scenario.load(SCENARIOS / "phase2.yaml")
    e = Engine(scenario.header)
    for _ in run(scenario, e):
        pass
    believed = [e.believes("alice", "h2", at=t) for t in (6, 7, 8, 9)]
    known_false = [e.knows("alice", "~h2", at=t) for t in (6, 7, 8, 9)]
    assert believed == [True, False, False, False]  # downgraded at T7
    assert known_false == [False, False, False, True]  # eliminated at T9
    m = e.model
    assert all(m.levels(g, int(w)) == 1 for g in m.agents for w in m.world_ids())  # one class at T13
    assert e.model_at(12).most_levels("alice") > 1


def test_epistemic_checks_in_a_scenario_report_bad_formulas_with_their_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("agents: {a: {}}\nworld: {atoms: [p]}\nturns: []\nexpect:\n  - knows: {a: \"p &\"}\n")
    with pytest.raises(InputError, match=r"bad.yaml:5: knows: 'p &': column 4"):
        Scenario.load(path)
    path.write_text("agents: {a: {}}\nworld: {atoms: [p]}\nturns: []\nexpect:\n  - worlds: lots\n")
    with pytest.raises(InputError, match=r"bad.yaml:5: worlds: expected a number"):
        Scenario.load(path)


def test_an_extension_operation_says_what_it_does_to_the_model(tmp_path):
    rules = tmp_path / "concede.pl"
    rules.write_text('''
operation(concede, "Accept a claim publicly.", [field(target, literal, required)]).
violation(concede, _, Op, concede_not_standing, M) :-
    field(Op, target, T), \\+ stands(T), fmt(M, "~w does not stand", [T]).
effect(concede, U, Op, commit(S, A)) :- field(Op, target, T), speaker(U, S), standing_arg(T, A).
effect(concede, _, Op, announce(T)) :- world_model, field(Op, target, T).
''')
    e = Engine(DEBUG, extensions=[rules])
    say(e, "bob", {"op": "question", "claim": "q"})
    say(e, "bob", {"op": "hypothesize", "claim": "h", "deps": [], "explains": ["q"]})
    assert not e.knows("alice", "h")
    update = say(e, "alice", {"op": "concede", "target": "h"})
    assert [a.literal for a in update.of(Announce)] == ["h"] and e.knows("alice", "h")
    e.close()


@pytest.mark.slow
def test_grounded_run_prints_w_per_turn_and_the_epistemic_checks():
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "grounded", "run", str(SCENARIOS / "phase1.yaml")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "M: |W| 8 -> 7  (!some_muddy)" in out and "M: |W| 7 -> 4  (!dk_alice; !dk_bob; !dk_carol)" in out
    assert "PASS K_alice m_a, K_bob m_b" in out
    assert "PASS C_{alice,bob,carol} (m_a & m_b & ~m_c)" in out
    assert " 0 failed" in out
    state = subprocess.run([sys.executable, "-m", "grounded", "state", str(SCENARIOS / "phase1.yaml"), "--at", "2"],
                           capture_output=True, text=True, timeout=120)
    assert "world model: |W| = 4 over 3 atoms; actual world {m_a, m_b}" in state.stdout


def test_a_background_constraint_may_use_a_defined_name():
    header = {"agents": {"ann": {}}, "world": {"atoms": ["p", "q", "r"], "formulas": {"d": "p & q"},
                                               "background": ["d -> r"]}}
    assert Engine(header).model.size == 7  # the world p & q & ~r is ruled out from the start
    with pytest.raises(InputError, match="actual world violates the background constraint"):
        Engine({**header, "world": {**header["world"], "actual": ["p", "q"]}})
    modal = {**header, "world": {**header["world"], "formulas": {"d": "K_ann p"}}}
    with pytest.raises(InputError, match="background constraints are propositional"):
        Engine(modal)


def test_a_declared_atom_nobody_is_aware_of_enters_awareness_with_expand_awareness():
    header = {"agents": {"ann": {}, "bob": {}}, "props": [{"id": "p", "aware": False}],
              "world": {"atoms": ["p", "q"]}}
    e = Engine(header)
    assert not e.holds("A_ann p") and e.holds("A_ann q")
    update = say(e, "bob", {"op": "expand_awareness", "claim": "p"})
    assert e.holds("A_ann p") and e.holds("A_bob p")
    assert not e.holds("A_ann p", at=0), "the initial model is unchanged"
    assert "!p" in update.model_updates


def test_an_extension_operation_can_ask_for_definition_a2(tmp_path):
    """The rules, not the bridge, decide which operation is read against Definition A.2."""
    rules = tmp_path / "conjecture.pl"
    rules.write_text(
        'operation(conjecture, "Propose a claim, checked like a hypothesis.", [field(claim, literal, required)]).\n'
        "violation(conjecture, _, Op, conjecture_already_believed, M) :-\n"
        "    epistemic(Op, novel(false)), field(Op, claim, L), fmt(M, \"~w is already believed\", [L]).\n"
        "effect(conjecture, U, Op, E) :- introduces(U, Op, hypothesis, E).\n"
        "effect(conjecture, _, Op, abduce(L)) :- world_model, field(Op, claim, L).\n")
    header = {"agents": {"ann": {}}, "world": {"atoms": ["p"], "formulas": {"c": "p"}}}
    e = Engine(header, extensions=[rules])
    say(e, "ann", obs("p"))
    with pytest.raises(PreconditionError) as info:
        say(e, "ann", {"op": "conjecture", "claim": "c"})
    assert info.value.codes == ["conjecture_already_believed"]
    assert ("novel", False) in e.last_verdicts[0]
