"""Epistemic plausibility models (Definition A.1) with explicit worlds and bitset world sets.

A model fixes a *universe* of worlds once: the valuation of every atom, and
per agent an information partition (``cells``: world -> cell id) and a
plausibility rank (``ranks``: lower is more plausible).  The live world set W
is a boolean array over that universe.  So

* a public announcement is one ``&`` of two bitsets, O(|W|), with no copying
  of the valuation or the relations;
* ``w <=_i v`` iff ``w`` and ``v`` share i's cell and ``rank_i(w) <= rank_i(v)``:
  a reflexive, transitive, locally connected preorder by construction, and
  ``~_i`` (same cell) is exactly ``<=_i`` united with its converse;
* the announcements that shaped W are kept as labelled masks (``facts``), so
  one of them can be withdrawn (``updates.withdraw``): W is recomputed as the
  meet of the others.  Ranks live on the whole universe, so withdrawing an
  announcement keeps every plausibility change made since.

Models are immutable values: every update returns a new model sharing the
arrays it did not change (they are marked read-only), which is what makes
keeping one model per turn cheap.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from grounded.core.bounds import MAX_UNIVERSE
from grounded.core.display import Displayable
from grounded.core.errors import InputError


class ModelError(InputError):
    """A model that cannot be built or an update that cannot apply."""


def frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def dense_ids(ids: np.ndarray) -> tuple[np.ndarray, int]:
    """Relabel arbitrary cell ids as 0..k-1 (k = number of distinct ids)."""
    if ids.size == 0:
        return np.zeros(0, np.int32), 0
    uniq, inverse = np.unique(ids, return_inverse=True)
    return inverse.astype(np.int32), int(uniq.size)


@dataclass(frozen=True, slots=True)
class Announced:
    """The announcements that shaped W, newest first, as a persistent list: a
    model one announcement later shares all the older ones (O(1) per turn)."""

    label: str | None
    mask: np.ndarray
    rest: Announced | None = None

    def __iter__(self) -> Iterator[tuple[str | None, np.ndarray]]:
        node: Announced | None = self
        while node is not None:
            yield node.label, node.mask
            node = node.rest

    @staticmethod
    def chain(items: Iterable[tuple[str | None, np.ndarray]]) -> Announced | None:
        """A list from (label, mask) pairs given newest first."""
        node = None
        for label, mask in reversed(list(items)):
            node = Announced(label, mask, node)
        return node


class PlausibilityModel(Displayable):
    """M = (W, {<=_i}, V) over a universe; see the module docstring."""

    __slots__ = ("atoms", "atom_index", "val", "cells", "ncells", "ranks", "aware", "facts", "alive",
                 "actual", "_cache")

    def __init__(self, atoms: tuple[str, ...], val: np.ndarray, cells: Mapping[str, np.ndarray],
                 ncells: Mapping[str, int], ranks: Mapping[str, np.ndarray], *,
                 aware: Mapping[str, frozenset[str]] | None = None,
                 facts: Announced | None = None,
                 alive: np.ndarray | None = None, actual: int | None = None):
        n = val.shape[1] if val.ndim == 2 else 0
        if n > MAX_UNIVERSE:
            raise ModelError(f"the model would have {n} worlds; the limit is 2^22 = {MAX_UNIVERSE}")
        if set(cells) != set(ranks):
            raise ModelError("every agent needs both an information partition and a plausibility order")
        self.atoms = tuple(atoms)
        self.atom_index = {a: i for i, a in enumerate(self.atoms)}
        self.val = val
        self.cells = dict(cells)
        self.ncells = dict(ncells)
        self.ranks = dict(ranks)
        self.aware = dict(aware) if aware is not None else {a: frozenset(self.atoms) for a in self.cells}
        self.facts = facts
        if alive is None:
            alive = np.ones(n, bool)
            for _, mask in facts or ():
                alive &= mask
            frozen(alive)
        self.alive = alive
        self.actual = actual
        self._cache: dict[Any, Any] = {}

    def arrays(self) -> list[np.ndarray]:
        """Every array this model holds (its valuation, partitions, orders, live worlds, the announcement
        masks, and what its queries cached), shared ones included: for counting what it costs in memory."""
        out = [self.val, self.alive, *self.cells.values(), *self.ranks.values()]
        out += [mask for _, mask in self.facts or ()]
        for hit in self._cache.values():
            out += [x for x in (hit if isinstance(hit, tuple) else (hit,)) if isinstance(x, np.ndarray)]
        return out

    # -- construction ------------------------------------------------------------------

    @classmethod
    def cube(cls, atoms: Iterable[str], observes: Mapping[str, Iterable[str]],
             actual: Iterable[str] | None = None) -> PlausibilityModel:
        """Every valuation of ``atoms`` is a world; agent i tells two worlds apart
        iff they differ on an atom i observes; all worlds equally plausible.

        World w makes atom j true iff bit j of w is set.  ``actual`` lists the
        atoms true in the actual world.
        """
        atoms = tuple(atoms)
        k = len(atoms)
        if len(set(atoms)) != k:
            raise ModelError(f"atoms repeat: {list(atoms)}")
        if k > 22:
            raise ModelError(f"{k} atoms make 2^{k} worlds; the limit is 2^22")
        n = 1 << k
        index = np.arange(n, dtype=np.int64)
        val = frozen(((index[None, :] >> np.arange(k, dtype=np.int64)[:, None]) & 1).astype(bool)) if k else \
            frozen(np.zeros((0, 1), bool))
        pos = {a: i for i, a in enumerate(atoms)}
        cells, ncells = {}, {}
        for agent, observed in observes.items():
            seen = list(dict.fromkeys(observed))
            unknown = [a for a in seen if a not in pos]
            if unknown:
                raise ModelError(f"agent {agent} observes {unknown}, which are not atoms of the model")
            # the cell of world w is w with the unobserved bits cleared (ids need
            # not be dense, only below ncells)
            mask = sum(1 << pos[a] for a in seen)
            cells[agent] = frozen((index & mask).astype(np.int32))
            ncells[agent] = n
        zero = frozen(np.zeros(n, np.int32))
        ranks = {agent: zero for agent in cells}
        w = None
        if actual is not None:
            true = set(actual)
            strangers = true - set(atoms)
            if strangers:
                raise ModelError(f"the actual world makes {sorted(strangers)} true, which are not atoms")
            w = sum(1 << pos[a] for a in true)
        return cls(atoms, val, cells, ncells, ranks, actual=w)

    @classmethod
    def explicit(cls, atoms: Iterable[str], worlds: list[Iterable[str]], cells: Mapping[str, list[int]],
                 ranks: Mapping[str, list[int]] | None = None, actual: int | None = None,
                 aware: Mapping[str, Iterable[str]] | None = None) -> PlausibilityModel:
        """A model given world by world: the atoms true in each, each agent's cell
        label per world (any integers) and rank per world (default all 0)."""
        atoms = tuple(atoms)
        pos = {a: i for i, a in enumerate(atoms)}
        n = len(worlds)
        val = np.zeros((len(atoms), n), bool)
        for w, true in enumerate(worlds):
            for a in true:
                if a not in pos:
                    raise ModelError(f"world {w} makes {a} true, which is not an atom")
                val[pos[a], w] = True
        dense_cells, counts, rank_arrays = {}, {}, {}
        for agent, labels in cells.items():
            if len(labels) != n:
                raise ModelError(f"agent {agent}: {len(labels)} cell labels for {n} worlds")
            dense_cells[agent], counts[agent] = dense_ids(np.asarray(labels, np.int64))
            frozen(dense_cells[agent])
            r = np.zeros(n, np.int64) if ranks is None else np.asarray(ranks[agent], np.int64)
            if r.shape != (n,) or (n and r.min() < 0):
                raise ModelError(f"agent {agent}: ranks must be {n} non-negative integers")
            rank_arrays[agent] = frozen(dense_ids(r)[0])
        if actual is not None and not 0 <= actual < n:
            raise ModelError(f"actual world {actual} is not one of the {n} worlds")
        awareness = None if aware is None else {g: frozenset(aware.get(g, atoms)) for g in dense_cells}
        return cls(atoms, frozen(val), dense_cells, counts, rank_arrays, aware=awareness, actual=actual)

    def replace(self, **changes: Any) -> PlausibilityModel:
        """A copy with some parts replaced (the rest shared); W is recomputed if facts change."""
        parts: dict[str, Any] = dict(atoms=self.atoms, val=self.val, cells=self.cells, ncells=self.ncells,
                                     ranks=self.ranks, aware=self.aware, facts=self.facts, alive=self.alive,
                                     actual=self.actual)
        if "facts" in changes and "alive" not in changes:
            parts["alive"] = None
        parts.update(changes)
        return PlausibilityModel(parts.pop("atoms"), parts.pop("val"), parts.pop("cells"), parts.pop("ncells"),
                                 parts.pop("ranks"), **parts)

    def restricted(self) -> PlausibilityModel:
        """The same model with the eliminated worlds dropped from the universe (and
        the announcement record with them: nothing can be withdrawn afterwards)."""
        keep = np.flatnonzero(self.alive)
        actual = None
        if self.actual is not None and self.alive[self.actual]:
            actual = int(np.searchsorted(keep, self.actual))
        shared: dict[int, np.ndarray] = {}

        def take(a: np.ndarray) -> np.ndarray:
            if id(a) not in shared:
                shared[id(a)] = frozen(a[keep])
            return shared[id(a)]

        return PlausibilityModel(self.atoms, frozen(self.val[:, keep]), {g: take(c) for g, c in self.cells.items()},
                                 self.ncells, {g: take(r) for g, r in self.ranks.items()}, aware=self.aware,
                                 actual=actual)

    # -- reading -------------------------------------------------------------------------

    @property
    def agents(self) -> tuple[str, ...]:
        return tuple(self.cells)

    @property
    def universe(self) -> int:
        return int(self.alive.shape[0])

    @property
    def size(self) -> int:
        """|W|."""
        if "size" not in self._cache:
            self._cache["size"] = int(np.count_nonzero(self.alive))
        return self._cache["size"]

    def valuation(self, w: int) -> frozenset[str]:
        return frozenset(a for i, a in enumerate(self.atoms) if self.val[i, w])

    def announcements(self) -> Iterator[tuple[str | None, np.ndarray]]:
        """(label, mask) of every announcement that shaped W, newest first."""
        return iter(self.facts or ())

    def world_ids(self) -> np.ndarray:
        return np.flatnonzero(self.alive)

    def worlds(self) -> list[frozenset[str]]:
        """The live worlds, each as the set of atoms true in it."""
        return [self.valuation(int(w)) for w in self.world_ids()]

    def actual_alive(self) -> bool:
        return self.alive_actual() is not None

    def alive_actual(self) -> int | None:
        """The declared actual world, if it is still in W (else None)."""
        return self.actual if self.actual is not None and bool(self.alive[self.actual]) else None

    def check_agent(self, agent: str) -> None:
        if agent not in self.cells:
            raise ModelError(f"{agent} is not an agent of the model (agents: {', '.join(self.agents)})")

    def levels(self, agent: str, w: int) -> int:
        """How many plausibility levels agent has among the live worlds of w's cell."""
        self.check_agent(agent)
        cell = self.cells[agent]
        mine = self.alive & (cell == cell[w])
        return int(np.unique(self.ranks[agent][mine]).size)

    def most_levels(self, agent: str) -> int:
        """The largest number of plausibility levels in any of agent's cells (0 if W is empty)."""
        self.check_agent(agent)
        live = self.alive
        if not live.any():
            return 0
        cell = self.cells[agent][live].astype(np.int64)
        rank = self.ranks[agent][live].astype(np.int64)
        pairs = np.unique(cell * (int(rank.max()) + 1) + rank)
        return int(np.bincount(pairs // (int(rank.max()) + 1)).max())

    def __repr__(self) -> str:
        return (f"PlausibilityModel(|W|={self.size} of {self.universe}, atoms={list(self.atoms)}, "
                f"agents={list(self.agents)})")
