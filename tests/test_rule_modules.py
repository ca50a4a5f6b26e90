"""Each rule file loads into a module of its own (prolog/grounded.pl, load_rule_file/2):
an extension cannot replace a clause of the driver or of the author layer, and a
file that tries is refused by name, with nothing loaded, in a process whose later
engines then run exactly as before."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grounded import Engine, InputError
from grounded.dmap.effects import AddDep, AddExplains, Aware, NewArg, NewProp
from grounded.solvers.prolog import PrologRules, rules_dir

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "extensions"

OPERATION = 'operation(rogue, "takes over a driver predicate", [field(target, literal, required)]).\n'


def hypothesize_in_order() -> list[type]:
    """A fresh engine's Hypothesize: the driver orders the effects that create (creates/1)
    before those that refer to the new argument."""
    engine = Engine({"agents": {"alice": {}}})
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    engine.apply({"speaker": "alice", "ops": [{"op": "question", "claim": "q1"}]})
    update = engine.apply({"speaker": "alice", "ops": [
        {"op": "hypothesize", "claim": "h1", "deps": ["o1"], "explains": ["q1"]}]})
    assert update.of(AddDep) == [AddDep(0, 2, "o1")] and update.of(AddExplains) == [AddExplains(0, 2, "q1")]
    return [type(e) for e in update.effects if e.index == 0]


@pytest.mark.parametrize(("definition", "named"), [
    ("creates(new_prop(_, _)).\n", "creates/1"),                      # the driver's
    ("redundant(_) :- fail.\n", "redundant/1"),
    ("claims(A, L) :- L = A.\n", "claims/2"),                          # the author layer's
    ("store(_).\n", "store/1"),                                        # the state's
    ("grounded:helper(x).\n", "grounded:helper/1"),                    # into another module
])
def test_an_extension_redefining_a_driver_predicate_is_refused_by_name(tmp_path, definition, named):
    before = hypothesize_in_order()
    rogue = tmp_path / "rogue.pl"
    rogue.write_text(OPERATION + "\n" + definition)
    with pytest.raises(InputError) as info:
        Engine(extensions=[rogue])
    assert f"{rogue}:3: extension refused: defines {named}," in str(info.value)
    # nothing of it was loaded, and the engines after it run as the ones before it
    assert "rogue" not in PrologRules.get().registry().specs
    assert hypothesize_in_order() == before
    assert before[:3] == [NewProp, Aware, NewArg]


def test_a_refused_extension_leaves_the_others_loaded_and_known(tmp_path):
    rogue = tmp_path / "rogue.pl"
    rogue.write_text(OPERATION + "creates(_).\n")
    with pytest.raises(InputError, match="creates/1"):
        Engine(extensions=[EXAMPLES / "concede.pl", rogue])
    engine = Engine({"agents": {"alice": {}, "bob": {}}})
    assert "concede" not in engine.registry.specs
    engine = Engine({"agents": {"alice": {}, "bob": {}}}, extensions=[EXAMPLES / "concede.pl"])
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    engine.apply({"speaker": "bob", "ops": [{"op": "concede", "target": "o1"}]})
    assert engine.commitments() == {"alice": ["o1"], "bob": ["o1"]}


def test_helpers_of_two_extensions_do_not_meet(tmp_path):
    """Each file's helpers are its own: two extensions may use one helper name."""
    first, second = tmp_path / "first.pl", tmp_path / "second.pl"
    for path, name in ((first, "first"), (second, "second")):
        path.write_text(f"""
operation({name}, "commits to the target", [field(target, literal, required)]).
pick(Op, A) :- field(Op, target, T), standing_arg(T, A).
effect({name}, U, Op, commit(S, A)) :- speaker(U, S), pick(Op, A).
""")
    engine = Engine({"agents": {"alice": {}, "bob": {}}}, extensions=[first, second])
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    engine.apply({"speaker": "bob", "ops": [{"op": "second", "target": "o1"}]})
    assert engine.commitments() == {"alice": ["o1"], "bob": ["o1"]}


def test_an_operation_declared_twice_is_refused(tmp_path):
    twice = tmp_path / "observe_again.pl"
    twice.write_text('operation(observe, "another observe", [field(claim, literal, required)]).\n')
    with pytest.raises(InputError, match=r"declares the operation observe, which .*ops/observe.pl already declares"):
        Engine(extensions=[twice])
    assert len(PrologRules.get().registry().specs) == 8
    hypothesize_in_order()


def test_a_hook_for_an_operation_the_file_does_not_declare_is_refused(tmp_path):
    """A file's hooks are read for its own operations only: an effect for a built-in would never run."""
    stray = tmp_path / "stray.pl"
    stray.write_text("effect(question, U, _, commit(S, 1)) :- speaker(U, S), standing_arg(_, 1).\n")
    with pytest.raises(InputError, match=r"stray.pl:1: extension refused: defines effect/4 for question "
                                         r"\(an operation it does not declare\)"):
        Engine(extensions=[stray])
    hypothesize_in_order()


def test_every_author_predicate_has_a_pldoc_header():
    """vocabulary.pl documents each predicate it exports with a PlDoc (``%!``) header."""
    text = (rules_dir() / "vocabulary.pl").read_text()
    headed = {(m.group(1), len([a for a in (m.group(2) or "").split(",") if a.strip()]))
              for m in re.finditer(r"^%!\s+(\w+)(?:\(([^)]*)\))?", text, re.M)}
    _, _, _, _, layer = PrologRules.get().request(("vocabulary",))
    assert {(n, a) for _, n, a in layer} - headed == set()


def test_lint_names_what_a_file_would_redefine(tmp_path):
    rogue = tmp_path / "rogue.pl"
    rogue.write_text(OPERATION + "helper(x).\ncreates(_).\n\nclaims(_, _) :- fail.\n")
    assert PrologRules.get().lint_definitions(rogue) == [("creates/1", 3), ("claims/2", 5)]
    assert PrologRules.get().lint_definitions(EXAMPLES / "merge.pl") == []
