"""K, B, C and A, and every update, on small models checked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from grounded.epistemic import updates as U
from grounded.epistemic.model import ModelError, PlausibilityModel
from grounded.epistemic.parse import parse
from grounded.epistemic.semantics import holds, truth

# Four worlds over p, q (world w makes p true iff bit 0 is set, q iff bit 1):
#   w0 {}   w1 {p}   w2 {q}   w3 {p, q}
# a sees p (cells {w0,w2} {w1,w3}), b sees q (cells {w0,w1} {w2,w3}).


def square(**kw) -> PlausibilityModel:
    return PlausibilityModel.cube(["p", "q"], {"a": ["p"], "b": ["q"]}, **kw)


def where(m: PlausibilityModel, text: str) -> set[int]:
    return {int(w) for w in np.flatnonzero(truth(m, parse(text)) & m.alive)}


def test_knowledge_is_truth_throughout_the_cell():
    m = square()
    assert m.size == 4 and m.worlds() == [frozenset(), {"p"}, {"q"}, {"p", "q"}]
    assert where(m, "K_a p") == {1, 3}
    assert where(m, "K_a ~p") == {0, 2}
    assert where(m, "K_a q") == set()
    assert where(m, "K_b K_a p") == set()  # b cannot tell w1 from w0
    assert where(m, "K_a p -> p") == {0, 1, 2, 3}  # veridical


def test_common_knowledge_follows_chains_of_cells():
    m = square()
    assert where(m, "C_{a,b} (p | q)") == set()  # w0 is reachable from everywhere
    m = U.announce(m, parse("p | q"))
    assert m.size == 3
    # a: {w2} {w1,w3}; b: {w1} {w2,w3}: w1 -a- w3 -b- w2, one component
    assert where(m, "C_{a,b} (p | q)") == {1, 2, 3}
    assert where(m, "K_a (p | q) & K_b (p | q)") == {1, 2, 3}
    assert where(m, "C_{a,b} p") == set()
    assert where(m, "C_{a} p") == where(m, "K_a p") == {1, 3}


def test_belief_is_truth_in_the_most_plausible_worlds_of_the_cell():
    m = PlausibilityModel.explicit(["p", "q"], [[], ["p"], ["q"], ["p", "q"]],
                                   cells={"a": [0, 1, 0, 1]}, ranks={"a": [1, 1, 1, 0]})
    assert where(m, "B_a q") == {1, 3}  # in {w1, w3} the most plausible is w3
    assert where(m, "K_a q") == set()
    assert where(m, "B_a p <-> K_a p") == {0, 1, 2, 3}  # on p, a's belief is knowledge
    assert where(m, "B_a false") == set()  # consistent belief in every non-empty cell


def test_awareness_is_about_atoms_and_the_same_everywhere():
    m = PlausibilityModel.explicit(["p", "q"], [[], ["p"]], cells={"a": [0, 0]}, aware={"a": ["p"]})
    assert where(m, "A_a p") == {0, 1}
    assert where(m, "A_a (p & q)") == set()
    assert where(m, "K_a (p | ~p) & ~A_a q") == {0, 1}  # implicit knowledge without awareness


def test_announcement_keeps_exactly_the_worlds_where_it_held_before():
    m = square(actual=["p"])
    after = U.announce(m, parse("~K_b q"))  # read before the update: b does not know q at w0, w1
    assert after.size == 2 and where(after, "true") == {0, 1}
    assert holds(after, parse("K_b ~q"))  # ... and afterwards b knows ~q at the actual w1
    assert m.size == 4, "the old model is unchanged"
    with pytest.raises(ValueError):
        m.alive[0] = False  # models are immutable values


def test_lexicographic_upgrade_puts_every_psi_world_first_and_keeps_the_rest_in_order():
    m = PlausibilityModel.explicit(["p", "q"], [[], ["p"], ["q"], ["p", "q"]],
                                   cells={"a": [0, 0, 0, 0]}, ranks={"a": [0, 1, 2, 3]})
    up = U.lexicographic(m, parse("q"))
    assert list(up.ranks["a"]) == [2, 3, 0, 1]
    assert holds(up, parse("B_a q"), 0) and not holds(up, parse("K_a q"), 0)
    again = U.lexicographic(up, parse("p"))
    assert list(again.ranks["a"]) == [3, 1, 2, 0]  # the newest upgrade wins; q-worlds first within each side
    assert holds(again, parse("B_a (p & q)"), 0)


def test_conservative_upgrade_moves_only_the_best_psi_worlds():
    m = PlausibilityModel.explicit(["p", "q"], [[], ["p"], ["q"], ["p", "q"]],
                                   cells={"a": [0, 0, 0, 0]}, ranks={"a": [0, 1, 2, 3]})
    up = U.conservative(m, parse("q"))
    assert list(up.ranks["a"]) == [1, 2, 0, 3]  # w2 (best q-world) on top; w3 stays behind w0, w1
    assert holds(up, parse("B_a (q & ~p)"), 0)
    # a second conservative upgrade with p: w1 is the best p-world
    assert list(U.conservative(up, parse("p")).ranks["a"]) == [2, 0, 1, 3]


def test_upgrades_respect_cells_and_agents():
    m = square()
    ranked = PlausibilityModel.explicit(["p", "q"], m.worlds(), cells={"a": [0, 1, 0, 1], "b": [0, 0, 1, 1]},
                                        ranks={"a": [0, 0, 0, 0], "b": [0, 0, 0, 0]})
    only_a = U.lexicographic(ranked, parse("q"), agents=["a"])
    assert holds(only_a, parse("B_a q"), 0) and not holds(only_a, parse("B_b q"), 0)
    with pytest.raises(ModelError, match="zed is not an agent"):
        U.lexicographic(ranked, parse("q"), agents=["zed"])


def test_refinement_splits_every_world_on_the_new_atom():
    m = square(actual=["p"])
    r = U.refine(m, "r", observers=["a"], actual_value=True)
    assert r.size == 8 and r.atoms == ("p", "q", "r")
    assert r.valuation(r.actual) == {"p", "r"}
    assert holds(r, parse("K_a r")) and not holds(r, parse("K_b r"))
    assert holds(r, parse("A_a r & A_b r"))
    assert holds(r, parse("K_a p & ~K_a q"))  # what was known stays known
    with pytest.raises(ModelError, match="already an atom"):
        U.refine(r, "p")


def test_withdrawal_lifts_one_labelled_announcement():
    m = square()
    told = U.announce(U.announce(m, parse("p"), "o1"), parse("q"), "o2")
    assert told.size == 1
    assert where(U.withdraw(told, "o1"), "true") == {2, 3}
    assert where(U.withdraw(told, "o2"), "true") == {1, 3}


def test_models_refuse_what_they_cannot_be():
    with pytest.raises(ModelError, match="not atoms of the model"):
        PlausibilityModel.cube(["p"], {"a": ["z"]})
    with pytest.raises(ModelError, match="limit is 2\\^22"):
        PlausibilityModel.cube([f"x{i}" for i in range(23)], {})
    with pytest.raises(ModelError, match="2 cell labels for 3 worlds"):
        PlausibilityModel.explicit(["p"], [[], [], []], cells={"a": [0, 1]})
    with pytest.raises(ModelError, match="not an atom"):
        PlausibilityModel.explicit(["p"], [["z"]], cells={"a": [0]})
    with pytest.raises(ModelError, match="not an atom of the model"):
        truth(square(), parse("z"))
    with pytest.raises(ModelError, match="zed is not an agent"):
        truth(square(), parse("K_zed p"))


def test_levels_and_restriction():
    m = PlausibilityModel.explicit(["p"], [[], ["p"], []], cells={"a": [0, 0, 1]}, ranks={"a": [0, 1, 0]},
                                   actual=1)
    assert m.levels("a", 0) == 2 and m.levels("a", 2) == 1 and m.most_levels("a") == 2
    small = U.announce(m, parse("p")).restricted()
    assert small.universe == 1 and small.actual == 0 and small.worlds() == [{"p"}]
