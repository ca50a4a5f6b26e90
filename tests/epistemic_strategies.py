"""Hypothesis strategies for the epistemic layer: formulas, model specifications, updates."""

from __future__ import annotations

from hypothesis import strategies as st

from grounded.epistemic.formula import BOT, TOP, A, And, Atom, B, C, Iff, Implies, K, Not, Or, Xor

ATOMS = ["p", "q", "r"]
NEW_ATOMS = ["s", "t"]
AGENTS = ["a", "b", "c"]


def formulas(atoms=ATOMS, agents=AGENTS, max_leaves: int = 10):
    leaves = st.one_of(st.sampled_from([Atom(a) for a in atoms]), st.sampled_from([TOP, BOT]))
    group = st.lists(st.sampled_from(agents), min_size=1, max_size=len(agents), unique=True).map(tuple)

    def extend(sub):
        pair = st.tuples(sub, sub)
        many = st.lists(sub, min_size=2, max_size=3).map(tuple)
        return st.one_of(
            sub.map(Not),
            many.map(And), many.map(Or),
            pair.map(lambda p: Implies(*p)), pair.map(lambda p: Iff(*p)), pair.map(lambda p: Xor(*p)),
            st.tuples(st.sampled_from(agents), sub).map(lambda p: K(*p)),
            st.tuples(st.sampled_from(agents), sub).map(lambda p: B(*p)),
            st.tuples(st.sampled_from(agents), sub).map(lambda p: A(*p)),
            st.tuples(group, sub).map(lambda p: C(*p)),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


@st.composite
def model_specs(draw, max_worlds: int = 6, agents=AGENTS[:2]):
    """Worlds (the atoms true in each; repeats allowed), per agent a cell label and a rank per world."""
    n = draw(st.integers(1, max_worlds), label="worlds")
    worlds = [draw(st.sets(st.sampled_from(ATOMS)), label=f"world {w}") for w in range(n)]
    cells = {g: draw(st.lists(st.integers(0, 2), min_size=n, max_size=n), label=f"cells {g}") for g in agents}
    ranks = {g: draw(st.lists(st.integers(0, 2), min_size=n, max_size=n), label=f"ranks {g}") for g in agents}
    aware = {g: draw(st.sets(st.sampled_from(ATOMS)), label=f"aware {g}") for g in agents}
    return {"atoms": ATOMS, "worlds": worlds, "cells": cells, "ranks": ranks, "aware": aware}
