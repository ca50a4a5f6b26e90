"""Two model checkers must agree (SMCDEL's method): the bitset evaluator against
the set-of-pairs Kripke evaluator, on random models, formulas and update sequences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded.epistemic import updates as U
from grounded.epistemic.model import PlausibilityModel
from grounded.epistemic.semantics import truth

from .epistemic_strategies import AGENTS, ATOMS, NEW_ATOMS, formulas, model_specs
from .kripke import KripkeModel
from .test_properties import budget


def both(spec):
    fast = PlausibilityModel.explicit(spec["atoms"], spec["worlds"], spec["cells"], spec["ranks"],
                                      aware=spec["aware"])
    slow = KripkeModel.from_spec(spec["worlds"], spec["cells"], spec["ranks"], spec["aware"])
    # Kripke awareness defaults to the atoms that occur; give it the declared sets exactly
    slow = KripkeModel(slow.worlds, slow.val, slow.leq, {g: frozenset(spec["aware"][g]) for g in spec["cells"]})
    return fast, slow


def fast_truth(fast: PlausibilityModel, ids: dict[int, int], f) -> set[int]:
    mask = truth(fast, f)
    return {ids[int(w)] for w in np.flatnonzero(fast.alive & mask)}


def agree(fast, slow, ids, f) -> None:
    assert {ids[int(w)] for w in np.flatnonzero(fast.alive)} == set(slow.worlds)
    assert fast_truth(fast, ids, f) == slow.truth(f), f"disagree on {f}"


@pytest.mark.slow
@budget(120)
@given(spec=model_specs(agents=AGENTS), data=st.data())
def test_both_evaluators_give_every_formula_the_same_truth_set(spec, data):
    fast, slow = both(spec)
    ids = {w: w for w in range(fast.universe)}
    for f in data.draw(st.lists(formulas(agents=AGENTS), min_size=1, max_size=5), label="formulas"):
        agree(fast, slow, ids, f)


@pytest.mark.slow
@budget(80)
@given(spec=model_specs(), data=st.data())
def test_both_evaluators_agree_after_every_update_of_a_random_sequence(spec, data):
    fast, slow = both(spec)
    agents = list(spec["cells"])
    ids = {w: w for w in range(fast.universe)}
    atoms = list(ATOMS)
    for step in range(data.draw(st.integers(1, 5), label="updates")):
        kind = data.draw(st.sampled_from(["announce", "lexicographic", "conservative", "refine"]), label="kind")
        if kind == "refine":
            fresh = [a for a in NEW_ATOMS if a not in atoms]
            if not fresh:
                continue
            atom = fresh[0]
            observers = data.draw(st.sets(st.sampled_from(agents)), label="observers")
            n = fast.universe
            fast = U.refine(fast, atom, observers)
            slow = slow.refine(atom, observers)
            ids = {**{w: 2 * k for w, k in ids.items()}, **{w + n: 2 * k + 1 for w, k in ids.items()}}
            atoms.append(atom)
        else:
            f = data.draw(formulas(atoms, agents, max_leaves=6), label=f"update {step}")
            fast = getattr(U, {"announce": "announce"}.get(kind, kind))(fast, f)
            slow = getattr(slow, kind)(f)
        for f in data.draw(st.lists(formulas(atoms, agents, max_leaves=8), min_size=1, max_size=4),
                           label=f"checks after {step}"):
            agree(fast, slow, ids, f)


@budget(60)
@given(spec=model_specs(), f=formulas(agents=AGENTS[:2], max_leaves=6), data=st.data())
def test_withdrawing_an_announcement_restores_what_it_removed(spec, f, data):
    fast, _ = both(spec)
    g = data.draw(formulas(agents=AGENTS[:2], max_leaves=6), label="g")
    once = U.announce(fast, f, "f")
    both_ = U.announce(once, g, "g")
    assert np.array_equal(U.withdraw(both_, "f").alive, fast.alive & truth(once, g))
    assert np.array_equal(U.withdraw(once, "f").alive, fast.alive)
    assert U.withdraw(once, "nothing") is once


@budget(60)
@given(spec=model_specs(), data=st.data())
def test_plausibility_stays_a_locally_connected_preorder_and_upgrades_do_what_they_say(spec, data):
    fast, _ = both(spec)
    f = data.draw(formulas(agents=AGENTS[:2], max_leaves=6), label="psi")
    mask = truth(fast, f)
    lex = U.lexicographic(fast, f)
    cons = U.conservative(fast, f)
    live = np.flatnonzero(fast.alive)
    for g in fast.agents:
        cell, old, new = fast.cells[g], fast.ranks[g], lex.ranks[g]
        for w in live:
            for v in live:
                if cell[w] != cell[v]:
                    continue
                if mask[w] and not mask[v]:
                    assert new[w] < new[v]  # every psi-world strictly before every other
                elif mask[w] == mask[v]:
                    assert (new[w] <= new[v]) == (old[w] <= old[v])  # each side keeps its order
        # conservative: only the best psi-worlds of each cell move, to the top
        c = cons.ranks[g]
        for w in live:
            same = [v for v in live if cell[v] == cell[w]]
            psi = [v for v in same if mask[v]]
            best = {v for v in psi if old[v] == min(old[u] for u in psi)}
            for v in same:
                if w in best:
                    assert c[w] <= c[v]
                elif v not in best:
                    assert (c[w] <= c[v]) == (old[w] <= old[v])
