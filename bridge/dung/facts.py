"""The facts the af_*.lp encodings read and write, as typed clorm predicates."""

from __future__ import annotations

from clorm import FactBase, IntegerField, Predicate

from .framework import Framework


class Arg(Predicate):
    x = IntegerField

    class Meta:
        name = "arg"


class Att(Predicate):
    attacker = IntegerField
    target = IntegerField

    class Meta:
        name = "att"


class In(Predicate):
    x = IntegerField

    class Meta:
        name = "in"


class Required(Predicate):
    """An argument the extension sought must contain (credulous acceptance)."""

    x = IntegerField

    class Meta:
        name = "required"


def framework_facts(af: Framework) -> FactBase:
    facts = FactBase(Arg(a) for a in af.arguments)
    facts.update(Att(a, b) for a, b in af.attacks)
    return facts
