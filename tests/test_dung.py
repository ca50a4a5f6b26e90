"""Dung semantics in ASP against two oracles, and the acyclic fast path."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded.dung import (
    SEMANTICS,
    Framework,
    acyclic_grounded_asp,
    acyclic_grounded_prolog,
    credulous,
    extensions,
    grounded_labelling,
    skeptical,
)
from grounded.dung.acyclic import CyclicFramework

from .dung_oracles import brute_force, py_arg
from .test_properties import budget

COINCIDING = ("grounded", "complete", "preferred", "stable")


@st.composite
def frameworks(draw, max_size: int = 7, acyclic: bool = False):
    """Random frameworks; with ``acyclic`` every attack goes from a lower to a higher id."""
    n = draw(st.integers(0, max_size))
    pairs = [(a, b) for a in range(1, n + 1) for b in range(1, n + 1) if not acyclic or a < b]
    attacks = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=3 * n)) if pairs else []
    return Framework.of(range(1, n + 1), attacks)


def test_a_classic_framework():
    # 1 -> 2 -> 3, and a mutual attack 4 <-> 5
    af = Framework.of([1, 2, 3, 4, 5], [(1, 2), (2, 3), (4, 5), (5, 4)])
    assert extensions(af, "grounded") == [{1, 3}]
    assert extensions(af, "complete") == [{1, 3}, {1, 3, 4}, {1, 3, 5}]
    assert extensions(af, "preferred") == [{1, 3, 4}, {1, 3, 5}]
    assert extensions(af, "stable") == [{1, 3, 4}, {1, 3, 5}]
    assert credulous(af, "preferred", [4]) and not credulous(af, "preferred", [4, 5])
    assert skeptical(af, "preferred") == skeptical(af, "complete") == {1, 3}


def test_an_odd_cycle_has_no_stable_extension():
    af = Framework.of([1, 2, 3], [(1, 2), (2, 3), (3, 1)])
    assert extensions(af, "stable") == []
    assert skeptical(af, "stable") is None
    assert extensions(af, "preferred") == [frozenset()] == extensions(af, "grounded")
    with pytest.raises(CyclicFramework):
        acyclic_grounded_prolog(af)
    with pytest.raises(CyclicFramework):
        acyclic_grounded_asp(af)


@budget(60)
@given(af=frameworks())
def test_every_semantics_equals_the_definitions_and_pyarg(af):
    truth = brute_force(af)
    for name in SEMANTICS:
        ours = set(extensions(af, name, fast=False))
        assert ours == truth[name], name
        assert ours == py_arg(af, name), name


@budget(40)
@given(af=frameworks(), data=st.data())
def test_brave_and_cautious_reasoning_match_the_extensions(af, data):
    required = data.draw(st.sets(st.sampled_from(sorted(af.arguments)), max_size=3)) if len(af) else set()
    for name in SEMANTICS:
        exts = brute_force(af)[name]
        assert credulous(af, name, required) == any(required <= e for e in exts), name
        expected = frozenset.intersection(*exts) if exts else None
        assert skeptical(af, name) == expected, name


@budget(40)
@given(af=frameworks(max_size=40, acyclic=True))
def test_on_acyclic_frameworks_all_semantics_coincide(af):
    stats: dict = {}
    fast = acyclic_grounded_asp(af, stats)
    assert stats["solving"]["solvers"]["choices"] == 0, "topological processing needs no guess"
    assert acyclic_grounded_prolog(af) == fast
    for name in COINCIDING:
        assert extensions(af, name, fast=False) == [fast], name
        assert extensions(af, name) == [fast], name
    if len(af) <= 10:
        assert brute_force(af)["grounded"] == {fast}


def test_restriction_drops_the_arguments_and_their_attacks():
    af = Framework.of([1, 2, 3], [(1, 2), (2, 3)])
    r = af.restrict([2])
    assert r.arguments == {1, 3} and r.attacks == frozenset()
    with pytest.raises(ValueError, match="outside the framework"):
        Framework.of([1], [(1, 2)])


@budget(60)
@given(af=frameworks())
def test_the_grounded_labelling_and_what_it_decides_equal_the_definitions(af):
    truth = brute_force(af)
    lab = grounded_labelling(af)
    assert {lab.inside} == truth["grounded"]
    assert lab.out == {b for a, b in af.attacks if a in lab.inside}  # OUT: attacked by the extension
    assert lab.undecided == af.arguments - lab.inside - lab.out
    if lab.total:  # then every semantics but admissible has the grounded extension alone
        assert truth["complete"] == truth["preferred"] == truth["stable"] == {lab.inside}
    for name in SEMANTICS:  # the default path: the labelling where it decides, the encodings elsewhere
        assert set(extensions(af, name)) == truth[name], name
    shifted = Framework.of([3 * a + 7 for a in af.arguments], [(3 * a + 7, 3 * b + 7) for a, b in af.attacks])
    moved = grounded_labelling(shifted)  # ids other than 1..n
    assert (moved.inside, moved.out, moved.undecided, moved.total) == (
        {3 * a + 7 for a in lab.inside}, {3 * a + 7 for a in lab.out}, {3 * a + 7 for a in lab.undecided}, lab.total)


@st.composite
def defeated_cycles(draw):
    """Larger frameworks with even and odd cycles that an unattacked argument may or may not defeat."""
    af = draw(frameworks(max_size=30, acyclic=True))
    n = len(af) + 1
    members = st.lists(st.integers(1, n - 1), min_size=2, max_size=3, unique=True) if n > 2 else st.nothing()
    cycles = draw(st.lists(members, max_size=4)) if n > 2 else []
    extra = {(c[i], c[(i + 1) % len(c)]) for c in cycles for i in range(len(c))}
    guards = {(n, c[0]) for c in cycles if draw(st.booleans())}
    return Framework.of(af.arguments | {n}, af.attacks | extra | guards)


@budget(40)
@given(af=defeated_cycles())
def test_the_labelling_equals_the_encodings_on_larger_frameworks(af):
    lab = grounded_labelling(af)
    assert extensions(af, "grounded", fast=False) == [lab.inside]
    for name in COINCIDING:
        general = extensions(af, name, fast=False)
        assert extensions(af, name) == general, name
        if lab.total:
            assert general == [lab.inside], name
    assert skeptical(af, "complete") == lab.inside
