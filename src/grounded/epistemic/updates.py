"""The dynamic operators of the paper's Updates paragraph, on bitset models.

* ``announce``     [!psi]   hard public announcement: W := W & [[psi]], O(|W|);
* ``lexicographic`` [^psi]  radical upgrade: every psi-world strictly more plausible
                    than every non-psi world of the same cell, the order within
                    each side kept; O(|W|) here (the new ranks are the old ones
                    shifted past the psi side and relabelled by counting, which
                    does the paper's stable sort in linear time);
* ``conservative`` [up psi] minimal upgrade: the most plausible psi-worlds of each
                    cell become the most plausible of the cell, everything else
                    keeps its order; O(|W|);
* ``refine``       awareness expansion (Definition A.3): every world splits in
                    two on a new atom, so worlds that differed only on it become
                    distinct; W doubles;
* ``withdraw``     lifts the announcements recorded under a label (the model as
                    if they had never been made); the engine uses it to retract
                    a hard fact before announcing its negation, and abduction
                    uses it to ask what was believed without an observation.

Each takes a formula (read in the model being updated) or a ready truth mask,
and returns a new model.  Soft upgrades apply to every agent unless ``agents``
is given: in a conversation they are public.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from grounded.epistemic.formula import Formula
from grounded.epistemic.model import Announced, ModelError, PlausibilityModel, frozen
from grounded.epistemic.semantics import NO_DEFS, truth


def mask_of(model: PlausibilityModel, what: Formula | np.ndarray, defs: Mapping[str, Formula] = NO_DEFS) -> np.ndarray:
    if isinstance(what, np.ndarray):
        if what.shape != (model.universe,) or what.dtype != bool:
            raise ModelError(f"a truth mask over this model has shape ({model.universe},) and dtype bool")
        return what
    return truth(model, what, defs)


def announce(model: PlausibilityModel, what: Formula | np.ndarray, label: str | None = None,
             defs: Mapping[str, Formula] = NO_DEFS) -> PlausibilityModel:
    """[!psi]: keep the worlds where psi holds."""
    mask = frozen(mask_of(model, what, defs).copy())
    return model.replace(facts=Announced(label, mask, model.facts), alive=frozen(model.alive & mask))


def withdraw(model: PlausibilityModel, label: str) -> PlausibilityModel:
    """The model without the announcements recorded under ``label`` (unchanged if there are none)."""
    if all(name != label for name, _ in model.announcements()):
        return model
    return model.replace(facts=Announced.chain(f for f in model.announcements() if f[0] != label))


def _relabel(keys: np.ndarray, bound: int) -> np.ndarray:
    """Dense ranks 0..k-1 in the order of ``keys`` (non-negative ints below ``bound``), in O(n + bound)."""
    present = np.zeros(bound, bool)
    present[keys] = True
    remap = np.cumsum(present, dtype=np.int32) - 1
    return frozen(remap[keys])


def _targets(model: PlausibilityModel, agents: Iterable[str] | None) -> list[str]:
    chosen = list(model.agents if agents is None else agents)
    for g in chosen:
        model.check_agent(g)
    return chosen


def lexicographic(model: PlausibilityModel, what: Formula | np.ndarray, defs: Mapping[str, Formula] = NO_DEFS,
                  agents: Iterable[str] | None = None) -> PlausibilityModel:
    """[^psi]: psi-worlds before non-psi worlds, each side in its old order.

    Ranks are compared only within a cell, so the new rank is the pair
    (not psi, old rank), relabelled densely; it does not depend on the cells,
    and agents that shared a rank array still share one.
    """
    mask = mask_of(model, what, defs)
    ranks = dict(model.ranks)
    done: dict[int, np.ndarray] = {}
    for g in _targets(model, agents):
        old = model.ranks[g]
        if id(old) not in done:
            bound = int(old.max()) + 1 if old.size else 1
            keys = old.astype(np.int64) + np.where(mask, 0, bound)
            done[id(old)] = _relabel(keys, 2 * bound)
        ranks[g] = done[id(old)]
    return model.replace(ranks=ranks)


def conservative(model: PlausibilityModel, what: Formula | np.ndarray, defs: Mapping[str, Formula] = NO_DEFS,
                 agents: Iterable[str] | None = None) -> PlausibilityModel:
    """[up psi]: in each cell, the most plausible live psi-worlds become the most
    plausible worlds of the cell; all other comparisons are kept."""
    mask = mask_of(model, what, defs)
    live_psi = model.alive & mask
    ranks = dict(model.ranks)
    done: dict[tuple[int, int], np.ndarray] = {}
    for g in _targets(model, agents):
        old, cell = model.ranks[g], model.cells[g]
        key = (id(old), id(cell))
        if key not in done:
            low = np.full(model.ncells[g], np.iinfo(np.int32).max, np.int32)
            np.minimum.at(low, cell[live_psi], old[live_psi])
            best = live_psi & (old == low[cell])
            bound = int(old.max()) + 2 if old.size else 2
            done[key] = _relabel(np.where(best, 0, old.astype(np.int64) + 1), bound)
        ranks[g] = done[key]
    return model.replace(ranks=ranks)


def become_aware(model: PlausibilityModel, atom: str) -> PlausibilityModel:
    """Every agent becomes aware of an atom the model already has (Definition A.3's
    awareness expansion without refinement: W already distinguishes the atom)."""
    return model.replace(aware={g: a | {atom} for g, a in model.aware.items()})


def refine(model: PlausibilityModel, atom: str, observers: Iterable[str] = (),
           actual_value: bool = False) -> PlausibilityModel:
    """Split every world on a new atom: copy 0 makes it false, copy 1 true.

    Agents in ``observers`` tell the two copies apart; the others do not.  Both
    copies keep the world's plausibility, liveness and the announcements that
    shaped it.  Every agent becomes aware of the atom.
    """
    if atom in model.atom_index:
        raise ModelError(f"{atom} is already an atom of the model")
    observers = set(observers)
    for g in observers:
        model.check_agent(g)
    n = model.universe
    if 2 * n > (1 << 22):
        raise ModelError(f"refining on {atom} would make {2 * n} worlds; the limit is 2^22")
    new_row = np.concatenate([np.zeros(n, bool), np.ones(n, bool)])
    val = frozen(np.vstack([np.hstack([model.val, model.val]), new_row[None, :]]))
    twice: dict[int, np.ndarray] = {}

    def double(a: np.ndarray) -> np.ndarray:
        if id(a) not in twice:
            twice[id(a)] = frozen(np.concatenate([a, a]))
        return twice[id(a)]

    cells, ncells = {}, {}
    for g, c in model.cells.items():
        if g in observers:
            cells[g] = frozen(np.concatenate([c, c + model.ncells[g]]))
            ncells[g] = 2 * model.ncells[g]
        else:
            cells[g], ncells[g] = double(c), model.ncells[g]
    awareness = {g: a | {atom} for g, a in model.aware.items()}
    actual = None if model.actual is None else model.actual + (n if actual_value else 0)
    return PlausibilityModel(model.atoms + (atom,), val, cells, ncells,
                             {g: double(r) for g, r in model.ranks.items()}, aware=awareness,
                             facts=Announced.chain((label, double(mask)) for label, mask in model.announcements()),
                             alive=double(model.alive), actual=actual)
