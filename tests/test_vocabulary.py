"""The rule-author layer (prolog/vocabulary.pl): operations are written in it alone,
it names what Python names, and the driver, not the operation, drops no-op effects."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grounded import Engine
from grounded.core.vocabulary import PROP_KINDS, STANDINGS
from grounded.dmap.effects import SHAPES, Commit
from grounded.solvers.prolog import PrologRules, rules_dir

DOC = Path(__file__).resolve().parent.parent / "docs" / "extending.md"
OPS = sorted((rules_dir() / "ops").glob("*.pl"))


def vocabulary() -> tuple:
    _, standings, kinds, signatures, layer = PrologRules.get().request(("vocabulary",))
    return standings, kinds, {n: ts for _, n, ts in signatures}, {(n, a) for _, n, a in layer}


@pytest.mark.parametrize("path", OPS, ids=lambda p: p.stem)
def test_each_operation_file_uses_only_the_documented_layer(path):
    assert PrologRules.get().lint(path) == []


@pytest.mark.parametrize("path", OPS, ids=lambda p: p.stem)
def test_one_operation_per_file_named_after_it(path):
    declared = re.findall(r"^operation\((\w+),", path.read_text(), re.M)
    assert declared == [path.stem]
    assert set(re.findall(r"^(?:violation|effect)\((\w+),", path.read_text(), re.M)) == {path.stem}


def test_the_checker_names_internal_predicates(tmp_path):
    rogue = tmp_path / "rogue.pl"
    rogue.write_text("""
operation(rogue, "reads the store directly", [field(target, literal, required)]).
helper(T) :- claims(_, T).
violation(rogue, _, Op, rogue_bad, M) :-
    field(Op, target, T), argument(_, T, _, _, _), standing(_, active, _, _), helper(T),
    \\+ dep(_, T), fmt(M, "~w", [T]).
effect(rogue, _, Op, commit(bob, A)) :- field(Op, target, T), once(redundant(commit(bob, A))), claims(A, T).
""")
    assert PrologRules.get().lint(rogue) == ["argument/5", "dep/2", "redundant/1", "standing/4"]


def test_the_documented_extension_uses_only_the_layer(tmp_path):
    (block,) = [b for b in re.findall(r"```prolog\n(.*?)```", DOC.read_text(), re.S) if b.startswith("% concede.pl")]
    path = tmp_path / "concede.pl"
    path.write_text(block)
    assert PrologRules.get().lint(path) == []


def test_the_rules_python_and_the_docs_name_the_same_things():
    standings, kinds, signatures, layer = vocabulary()
    assert tuple(standings) == STANDINGS and tuple(kinds) == PROP_KINDS
    # every effect the rules may emit has a typed dataclass, with matching value kinds;
    # problem/new_agent/turn are the driver's own
    kind = {"atom": "text", "agent": "text", "kind": "text", "standing": "text", "mode": "text",
            "literal": "literal", "arg": "int", "cause": "cause"}
    assert set(SHAPES) == set(signatures) | {"problem", "new_agent", "turn"}
    for name, types in signatures.items():
        reported = SHAPES[name][1:] if name == "new_arg" else SHAPES[name]  # the driver adds the id
        assert reported == tuple(kind[t] for t in types), name
    documented = DOC.read_text()
    missing = sorted(f"{n}/{a}" for n, a in layer if f"`{n}" not in documented)
    assert missing == []


def test_the_driver_drops_effects_that_change_nothing(tmp_path):
    """An operation need not check that its effects are new: the driver drops the ones
    that are not, so the bridge (and the ASP twin) never see them."""
    path = tmp_path / "reaffirm.pl"
    path.write_text("""
operation(reaffirm, "commit to a standing claim, again and again", [field(target, literal, required)]).
effect(reaffirm, U, Op, commit(S, A)) :- field(Op, target, T), speaker(U, S), standing_arg(T, A).
""")
    engine = Engine({"agents": {"alice": {}}}, extensions=[path])
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})  # commits alice already
    update = engine.apply({"speaker": "alice", "ops": [{"op": "reaffirm", "target": "o1"}]})
    assert update.of(Commit) == [] and engine.state.commit_events == [(1, "alice", 1, True)]


# -- good standing: one definition in each rule language, one Python reading ---------------------------

ROOT = Path(__file__).resolve().parent.parent
TWO_STANDINGS = re.compile(r"""[(\[{]\s*(["'])(active|resolved)\1\s*,\s*(["'])(active|resolved)\3\s*,?\s*[)\]}]""")


def test_good_standing_is_the_same_set_in_prolog_asp_and_python():
    """prolog/vocabulary.pl's good_standing/1 and asp/standing.lp's, asked of SWI-Prolog and clingo,
    are grounded.core.vocabulary.GOOD_STANDING."""
    import subprocess

    import clingo

    from grounded.core.vocabulary import GOOD_STANDING
    from grounded.solvers.asp import encoding

    goal = (f"use_module({str(rules_dir() / 'vocabulary.pl')!r}), "
            "forall(vocabulary:good_standing(S), (write(S), nl))")
    prolog = subprocess.run(["swipl", "-q", "-g", goal, "-t", "halt"], capture_output=True, text=True,
                            timeout=60, check=True).stdout.split()
    ctl = clingo.Control(["--warn=none"])
    ctl.load(encoding("standing.lp"))
    ctl.ground([("base", [])])
    asp = [str(a.symbol.arguments[0]) for a in ctl.symbolic_atoms.by_signature("good_standing", 1)]
    assert sorted(prolog) == sorted(asp) == sorted(GOOD_STANDING)
    assert len(prolog) == len(asp) == len(GOOD_STANDING)  # each standing stated once


def test_good_standing_is_defined_once_in_each_language():
    """No second spelling: the Prolog rules state good_standing/1 in vocabulary.pl only, the ASP
    encodings in standing.lp only, and no Python module lists the two standings but the vocabulary."""
    prolog = {p.relative_to(ROOT).as_posix() for p in (ROOT / "prolog").rglob("*.pl")
              if re.search(r"^good_standing\(", p.read_text(), re.M)}
    asp = {p.relative_to(ROOT).as_posix() for p in (ROOT / "asp").rglob("*.lp")
           if re.search(r"^\s*good(_standing)?\((active|resolved)", p.read_text(), re.M)}
    python = {p.relative_to(ROOT).as_posix() for p in (ROOT / "src" / "grounded").rglob("*.py")
              if any(m.group(2) != m.group(4) for m in TWO_STANDINGS.finditer(p.read_text()))}
    assert prolog == {"prolog/vocabulary.pl"}
    assert asp == {"asp/standing.lp"}
    assert python == {"src/grounded/core/vocabulary.py"}
