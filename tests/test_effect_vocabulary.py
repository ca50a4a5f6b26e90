"""The effect vocabulary is declared once (``effect_kind/4`` in prolog/vocabulary.pl).

Python's effect classes (grounded.dmap.effects), the ASP terms (grounded.solvers.facts)
and the driver's checks (``effect_signature/2``) are generated from that declaration;
the ASP encodings are written by hand, so they are held to it here.  An effect added in
only one place fails one of these tests.
"""

from __future__ import annotations

import dataclasses
import re
from importlib import resources

import pytest

from grounded.dmap import effects
from grounded.dmap.effects import CLASSES, KINDS, EffectKind, declared_kinds
from grounded.solvers.facts import EFFECTS, effect_symbol, effect_value
from grounded.solvers.prolog import PrologRules


def asp_text(name: str) -> str:
    return resources.files("grounded.asp").joinpath(name).read_text()


def rule_effects(kinds: tuple[EffectKind, ...]) -> dict[str, int]:
    """What rules may state, by name: its arity as a rule writes it."""
    return {k.name: len(k.emitted) for k in kinds if k.group != "driver"}


def asp_differences(kinds: tuple[EffectKind, ...]) -> list[str]:
    """How asp/vocabulary.lp (the documented vocabulary) and asp/history.lp (the effects the
    ASP driver applies) differ from the declaration, as (file, effect/arity) notes."""
    declared = rule_effects(kinds)
    doc = asp_text("vocabulary.lp")
    listed = doc[doc.index("effect(s, Effect)") + len("effect(s, Effect)"):doc.index("An argument position")]
    documented = {name: args.count(",") + 1 for name, args in re.findall(r"(\w+)\(([^()]*)\)", listed)}
    applied = {name: args.count(",") + 1
               for name, args in re.findall(r"applied\(s\), effect\(s, (\w+)\(([^()]*)\)\)", asp_text("history.lp"))}
    notes = []
    for where, found in (("asp/vocabulary.lp", documented), ("asp/history.lp", applied)):
        notes += [f"{where} lacks {n}/{a}" for n, a in declared.items() if found.get(n) != a]
        notes += [f"{where} has {n}/{a}, not declared" for n, a in found.items() if declared.get(n) != a]
    return sorted(notes)


def test_python_reads_the_declaration_as_prolog_does():
    declared = PrologRules.get().request(("effect_kinds",))
    prolog = [(n, g, d, tuple((f, t) for _, f, t in fs)) for _, n, g, d, fs in declared]
    assert [(k.name, k.group, k.doc, k.fields) for k in KINDS] == prolog
    assert len(KINDS) == 18


def test_each_declared_effect_is_a_class_with_the_declared_fields():
    assert list(CLASSES) == [k.name for k in KINDS]
    for kind in KINDS:
        cls = CLASSES[kind.name]
        assert getattr(effects, cls.__name__) is cls and cls.name == kind.name and cls.__doc__ == kind.doc
        assert [f.name for f in dataclasses.fields(cls)] == ["index", *(f for f, _ in kind.fields)]
    assert {c.name for c in effects.MODEL_EFFECTS} == {"announce", "upgrade", "withdraw", "refine"}
    assert {c.name for c in effects.FOR_THE_MODEL} == {"announce", "upgrade", "withdraw", "refine", "abduce"}


def test_the_driver_checks_and_the_asp_terms_follow_the_declaration():
    _, _, _, signatures, _ = PrologRules.get().request(("vocabulary",))
    assert {n: tuple(ts) for _, n, ts in signatures} == {
        k.name: tuple(t for _, t in k.emitted) for k in KINDS if k.group != "driver"}
    assert {n: len(kinds) for n, kinds in EFFECTS.items()} == rule_effects(KINDS)
    assert effect_value(effect_symbol("set_standing", "new", "abandoned", "-a3")) == (
        "set_standing", "new", "abandoned", "-a3")


def test_the_asp_encodings_name_the_declared_effects():
    assert asp_differences(KINDS) == []


def test_an_effect_declared_only_in_the_rules_is_missed_by_asp():
    text = resources.files("grounded.prolog").joinpath("vocabulary.pl").read_text()
    more = declared_kinds(text + '\neffect_kind(concede, map, "A claim conceded.", [agent:agent, arg:arg]).\n')
    assert more[-1] == EffectKind("concede", "map", "A claim conceded.", (("agent", "agent"), ("arg", "arg")))
    assert asp_differences(more) == ["asp/history.lp lacks concede/2", "asp/vocabulary.lp lacks concede/2"]


@pytest.mark.parametrize(("fact", "message"), [
    ('effect_kind(x, map, "d", [a:nope]).', r"vocabulary.pl:2: effect x: 'a:nope' is not Field:Type"),
    ('effect_kind(x, elsewhere, "d", [a:atom]).', r"vocabulary.pl:2: effect x has group elsewhere"),
    ("effect_kind(x, map, 'd', [a:atom]).", r"vocabulary.pl: 1 effect_kind/4 facts, 0 of them in the form"),
])
def test_a_declaration_python_cannot_read_is_an_error_naming_the_line(fact, message):
    with pytest.raises(ValueError, match=message):
        declared_kinds("% the head\n" + fact + "\n")
