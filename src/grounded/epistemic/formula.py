"""Formulas of the epistemic language: the abstract syntax tree.

Atoms, the Boolean connectives, and four modalities: K_i (knowledge), B_i
(belief), C_G (common knowledge of a group) and A_i (awareness).  Nodes are
frozen, hashable dataclasses, so formulas can key caches and compare by value;
``str(f)`` prints the plain-ASCII syntax that ``parse`` reads back.

And/Or hold two or more operands (``a & b & c`` is one node), which keeps
printed formulas flat and evaluation shallow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass


class Formula:
    """Base of every node."""

    __slots__ = ()

    def __str__(self) -> str:
        return show(self)

    def __and__(self, other: Formula) -> Formula:
        return conj(self, other)

    def __or__(self, other: Formula) -> Formula:
        return disj(self, other)

    def __invert__(self) -> Formula:
        return Not(self)


@dataclass(frozen=True, slots=True, repr=False)
class Top(Formula):
    def __repr__(self) -> str:
        return "Top()"


@dataclass(frozen=True, slots=True, repr=False)
class Bot(Formula):
    def __repr__(self) -> str:
        return "Bot()"


@dataclass(frozen=True, slots=True)
class Atom(Formula):
    """A proposition letter, or the name of a proposition defined by a formula."""

    name: str


@dataclass(frozen=True, slots=True)
class Not(Formula):
    arg: Formula


@dataclass(frozen=True, slots=True)
class And(Formula):
    args: tuple[Formula, ...]


@dataclass(frozen=True, slots=True)
class Or(Formula):
    args: tuple[Formula, ...]


@dataclass(frozen=True, slots=True)
class Binary(Formula):
    """A connective of two operands (equality also compares the class)."""

    left: Formula
    right: Formula


class Implies(Binary):
    __slots__ = ()


class Iff(Binary):
    __slots__ = ()


class Xor(Binary):
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Modal(Formula):
    """A modality of one agent."""

    agent: str
    arg: Formula


class K(Modal):
    """K_i phi: phi holds in every world agent i cannot tell apart from this one."""

    __slots__ = ()


class B(Modal):
    """B_i phi: phi holds in the most plausible worlds of i's information cell."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class C(Formula):
    """C_G phi: phi holds in every world reachable by any chain of the group's indistinguishability."""

    group: tuple[str, ...]
    arg: Formula


class A(Modal):
    """A_i phi: agent i is aware of phi (of every atom in it)."""

    __slots__ = ()


TOP = Top()
BOT = Bot()


def conj(*args: Formula) -> Formula:
    """The conjunction, flattened; ``conj()`` is Top."""
    flat = tuple(x for a in args for x in (a.args if isinstance(a, And) else (a,)))
    return TOP if not flat else flat[0] if len(flat) == 1 else And(flat)


def disj(*args: Formula) -> Formula:
    """The disjunction, flattened; ``disj()`` is Bot."""
    flat = tuple(x for a in args for x in (a.args if isinstance(a, Or) else (a,)))
    return BOT if not flat else flat[0] if len(flat) == 1 else Or(flat)


def knows_whether(agent: str, phi: Formula) -> Formula:
    """K_i phi | K_i ~phi."""
    return Or((K(agent, phi), K(agent, Not(phi))))


def children(f: Formula) -> tuple[Formula, ...]:
    if isinstance(f, (And, Or)):
        return f.args
    if isinstance(f, Binary):
        return (f.left, f.right)
    if isinstance(f, (Not, Modal, C)):
        return (f.arg,)
    return ()


def walk(f: Formula) -> Iterator[Formula]:
    """Every subformula, f first."""
    stack = [f]
    while stack:
        g = stack.pop()
        yield g
        stack.extend(reversed(children(g)))


def depth(f: Formula, defined: Mapping[str, int] | None = None) -> int:
    """The nesting depth of f (an atom: 1), computed without recursion.

    ``defined`` gives the depth of names that stand for a formula, so that the
    depth is the one an evaluator meets once definitions are expanded.
    """
    return _fold(f, defined, lambda below: max(below, default=0) + 1, max)


def size(f: Formula, defined: Mapping[str, int] | None = None) -> int:
    """The number of nodes of f, computed without recursion and without expanding anything.

    ``defined`` gives the size of names that stand for a formula: the result is
    the size f would have with every definition written out in place, which
    doubles with each definition that uses the one before twice, so it is
    counted, never built.
    """
    return _fold(f, defined, lambda below: sum(below) + 1, lambda own, _: own)


def _fold(f: Formula, defined: Mapping[str, int] | None, combine: Callable[[list[int]], int],
          named: Callable[[int, int], int]) -> int:
    """A measure of f computed bottom-up: ``combine`` of its children's measures;
    an atom that is a defined name measures ``named(its definition's, 1)``."""
    found: dict[int, int] = {}
    stack: list[tuple[Formula, bool]] = [(f, False)]
    while stack:
        g, done = stack.pop()
        if id(g) in found:
            continue
        kids = children(g)
        if done or not kids:
            found[id(g)] = combine([found[id(k)] for k in kids])
            if defined and isinstance(g, Atom) and g.name in defined:
                found[id(g)] = named(defined[g.name], found[id(g)])
        else:
            stack.append((g, True))
            stack.extend((k, False) for k in kids if id(k) not in found)
    return found[id(f)]


def atoms(f: Formula) -> set[str]:
    """The names of the atoms f mentions."""
    return {g.name for g in walk(f) if isinstance(g, Atom)}


def agents(f: Formula) -> set[str]:
    """The agents f's modalities name."""
    found: set[str] = set()
    for g in walk(f):
        if isinstance(g, Modal):
            found.add(g.agent)
        elif isinstance(g, C):
            found.update(g.group)
    return found


def is_propositional(f: Formula) -> bool:
    return not any(isinstance(g, (Modal, C)) for g in walk(f))


def boolean_value(f: Formula, true: set[str] | frozenset[str], defs: Mapping[str, Formula] | None = None) -> bool:
    """The value of a propositional formula under the valuation that makes exactly
    ``true`` true; a name in ``defs`` stands for its (propositional) definition,
    evaluated once however often it is used (definitions may use each other
    twice at every level: expanding them would take exponential time)."""
    known: dict[str, bool] = {}

    def value(g: Formula) -> bool:
        if isinstance(g, Atom):
            if defs and g.name in defs:
                if g.name not in known:
                    known[g.name] = value(defs[g.name])
                return known[g.name]
            return g.name in true
        if isinstance(g, Top):
            return True
        if isinstance(g, Bot):
            return False
        if isinstance(g, Not):
            return not value(g.arg)
        if isinstance(g, And):
            return all(value(a) for a in g.args)
        if isinstance(g, Or):
            return any(value(a) for a in g.args)
        if isinstance(g, Implies):
            return not value(g.left) or value(g.right)
        if isinstance(g, Iff):
            return value(g.left) == value(g.right)
        if isinstance(g, Xor):
            return value(g.left) != value(g.right)
        raise ValueError(f"{g} is not propositional")

    return value(f)


# -- printing: the syntax grounded.epistemic.parse reads back ---------------------------

_UNARY_LEVEL = 6
_ATOMIC_LEVEL = 7
_SYMBOL = {Iff: "<->", Implies: "->", Xor: "^", Or: "|", And: "&"}
_LEVEL = {Iff: 1, Implies: 2, Xor: 3, Or: 4, And: 5}


def _level(f: Formula) -> int:
    return _LEVEL.get(type(f), _UNARY_LEVEL if isinstance(f, (Not, K, B, C, A)) else _ATOMIC_LEVEL)


def show(f: Formula) -> str:
    """The formula in the syntax ``parse`` reads, with minimal parentheses."""
    if isinstance(f, Atom):
        return f.name
    if isinstance(f, Top):
        return "true"
    if isinstance(f, Bot):
        return "false"
    if isinstance(f, Not):
        return "~" + _wrap(f.arg, _UNARY_LEVEL)
    if isinstance(f, (K, B, A)):
        return f"{type(f).__name__}_{f.agent} " + _wrap(f.arg, _UNARY_LEVEL)
    if isinstance(f, C):
        return f"C_{{{','.join(f.group)}}} " + _wrap(f.arg, _UNARY_LEVEL)
    level = _LEVEL[type(f)]
    sym = f" {_SYMBOL[type(f)]} "
    if isinstance(f, (And, Or)):
        return sym.join(_wrap(a, level + 1) for a in f.args)
    if isinstance(f, Implies):
        return _wrap(f.left, level + 1) + sym + _wrap(f.right, level)
    assert isinstance(f, (Iff, Xor)), f"cannot print {f!r}"
    return _wrap(f.left, level) + sym + _wrap(f.right, level + 1)  # Iff, Xor: left-associative


def _wrap(f: Formula, minimum: int) -> str:
    text = show(f)
    return text if _level(f) >= minimum else f"({text})"
