"""Grounding: first-order formulas -> propositional ones over a scenario's constants.

ReviseQA's formulas have unary predicates, constants and no function
symbols, so by Herbrand's theorem a set of universally quantified premises
entails a ground conclusion iff their ground instances over the constants
that occur do (adding one fresh constant if none occurs): grounding is exact
for entailment here.  ``∀x φ`` becomes the conjunction of φ[x := c] over the
constants c; ``∃x φ`` the disjunction, which is exact only under the
domain-closure assumption (the dataset uses no ``∃``; ``stats`` would show it).
"""

from __future__ import annotations

from functools import reduce

from bench.reviseqa.fol import Atom, Binary, Formula, Not, Quantified

FRESH = "c_0"


def substitute(f: Formula, var: str, const: str) -> Formula:
    if isinstance(f, Atom):
        return Atom(f.predicate, tuple(const if a == var else a for a in f.args)) if var in f.args else f
    if isinstance(f, Not):
        return Not(substitute(f.body, var, const))
    if isinstance(f, Quantified):
        return f if f.var == var else Quantified(f.quantifier, f.var, substitute(f.body, var, const))
    return Binary(f.op, substitute(f.left, var, const), substitute(f.right, var, const))


def ground(f: Formula, constants: list[str]) -> Formula:
    """``f`` with every quantifier expanded over ``constants`` (sorted; FRESH if empty)."""
    domain = sorted(constants) or [FRESH]
    if isinstance(f, Atom):
        return f
    if isinstance(f, Not):
        return Not(ground(f.body, domain))
    if isinstance(f, Binary):
        return Binary(f.op, ground(f.left, domain), ground(f.right, domain))
    op = "and" if f.quantifier == "forall" else "or"
    instances = [ground(substitute(f.body, f.var, c), domain) for c in domain]
    return reduce(lambda a, b: Binary(op, a, b), instances)


def evaluate(f: Formula, true_atoms: set[Atom]) -> bool:
    """Truth of a ground formula when exactly ``true_atoms`` hold (for tests and cross-checks)."""
    if isinstance(f, Atom):
        return f in true_atoms
    if isinstance(f, Not):
        return not evaluate(f.body, true_atoms)
    if isinstance(f, Quantified):
        raise ValueError("evaluate() takes a ground formula: ground() it first")
    a, b = evaluate(f.left, true_atoms), evaluate(f.right, true_atoms)
    return {"and": a and b, "or": a or b, "implies": (not a) or b, "iff": a == b, "xor": a != b}[f.op]


def atoms(f: Formula) -> set[Atom]:
    if isinstance(f, Atom):
        return {f}
    if isinstance(f, Not | Quantified):
        return atoms(f.body)
    return atoms(f.left) | atoms(f.right)
