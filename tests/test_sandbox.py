"""An extension may only define its own operation's clauses over the author layer: whatever would
write the engine's state (assert/retract, a module-qualified call, a call outside the layer, I/O, a
goal built at run time, a directive) is refused by ``grounded lint`` and at load, by name and line,
with nothing loaded."""

from __future__ import annotations

import pytest

from grounded import Engine, InputError
from grounded.authoring import lint
from grounded.solvers.prolog import PrologRules, rules_dir

from .test_rule_modules import hypothesize_in_order

HEAD = ('operation(plant, "plants an attack", [field(target, literal, required)]).\n'
        "transition(plant, commit).\n")
COMMIT = "effect(plant, U, Op, commit(S, A)) :-\n    speaker(U, S), field(Op, target, T), standing_arg(T, A),\n"

CASES = [
    # what the body does, the line it is on, the finding's kind and what it names
    ("    assertz(foo(A)).\n", "writes", "assertz/1"),
    ("    retract(att(A, A)).\n", "writes", "retract/1"),
    ("    state:store(att(A, A)).\n", "qualified", "state:store/1"),
    ("    vocabulary:fmt(_, \"x\", []).\n", "qualified", "vocabulary:fmt/3"),
    ("    store(att(A, A)).\n", "calls", "store/1"),
    ("    G = assertz(att(A, A)), call(G).\n", "runtime", "a variable goal"),
    ("    maplist(assertz, [att(A, A)]).\n", "writes", "assertz/1"),
    ("    format(\"~w\", [A]).\n", "writes", "format/2"),
    ("    nb_setval(seen, A).\n", "writes", "nb_setval/2"),
]


@pytest.mark.parametrize(("body", "kind", "named"), CASES, ids=[c[2] for c in CASES])
def test_a_state_writing_extension_is_refused_by_lint_and_at_load(tmp_path, body, kind, named):
    rogue = tmp_path / "plant.pl"
    rogue.write_text(HEAD + COMMIT + body)
    found = lint(rogue)
    assert [(f.line, f.kind, f.predicate) for f in found] == [(5, kind, named)]
    before = hypothesize_in_order()
    with pytest.raises(InputError) as info:
        Engine(extensions=[rogue])
    assert f"{rogue}:5: extension refused: calls {named}" in str(info.value)
    assert "plant" not in PrologRules.get().registry().specs
    assert hypothesize_in_order() == before


def test_a_directive_is_refused_by_line(tmp_path):
    rogue = tmp_path / "plant.pl"
    rogue.write_text(HEAD + ":- use_module(library(lists)).\n:- initialization(assertz(att(1, 1))).\n")
    assert [(f.line, f.kind) for f in lint(rogue)] == [(4, "directive")]
    with pytest.raises(InputError, match=r"plant.pl:4: extension refused: runs the directive initialization"):
        Engine(extensions=[rogue])


def test_the_self_attack_of_the_issue_cannot_be_planted(tmp_path):
    """The rule that planted att(1, 1) into the state through a qualified call: refused before it runs,
    and every finding of a file is listed by lint, in line order."""
    rogue = tmp_path / "plant.pl"
    rogue.write_text(HEAD + COMMIT + "    state:store(att(1, 1)),\n    assertz(state:att(1, 1)).\n")
    assert [(f.line, f.predicate) for f in lint(rogue)] == [(5, "state:store/1"), (6, "assertz/1")]
    with pytest.raises(InputError, match=r"calls state:store/1: .*\(and 1 more: grounded lint lists them\)"):
        Engine(extensions=[rogue])


def test_pure_library_calls_and_closures_over_the_layer_pass(tmp_path):
    fine = tmp_path / "plant.pl"
    fine.write_text(HEAD + ":- discontiguous effect/4.\n" + COMMIT
                    + "    findall(X, claims(X, T), Xs), maplist(in_standing, Xs), sum_list([1], _),\n"
                    + "    format(atom(_), \"~w\", [T]), aggregate_all(count, attacks(_, A), _),\n"
                    + "    pairs_keys([T-A], _), ord_union([[T]], _).\n")
    assert lint(fine) == []
    engine = Engine({"agents": {"alice": {}, "bob": {}}}, extensions=[fine])
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    engine.apply({"speaker": "bob", "ops": [{"op": "plant", "target": "o1"}]})
    assert engine.commitments()["bob"] == ["o1"]
    engine.close()


def test_lint_names_an_operation_without_transition_2_and_the_load_lets_it_pass(tmp_path):
    bare = tmp_path / "bare.pl"
    effect = COMMIT.replace("plant", "bare").rstrip(",\n") + ".\n"
    bare.write_text('operation(bare, "commits", [field(target, literal, required)]).\n' + effect)
    assert [(f.line, f.kind, f.predicate) for f in lint(bare)] == [(1, "undeclared", "bare")]
    Engine(extensions=[bare]).close()


@pytest.mark.parametrize("path", sorted((rules_dir() / "ops").glob("*.pl")), ids=lambda p: p.stem)
def test_each_built_in_operation_keeps_to_the_sandbox(path):
    """The shipped operations load without the sandbox's reading (it would double the rules' start-up):
    this holds them to it instead."""
    assert lint(path) == []
