"""A Dung argumentation framework: arguments and the attacks between them.

Arguments are integers (the engine's argument ids); the engine's framework
AF_t holds every argument ever made, whatever its standing, since moving
arguments out of standing is exactly restricting the framework (the paper,
section 2): ``restrict`` is AF|X.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from itertools import chain


@dataclass(frozen=True)
class Framework:
    arguments: frozenset[int]
    attacks: frozenset[tuple[int, int]]

    def __post_init__(self) -> None:
        if self.arguments.issuperset(chain.from_iterable(self.attacks)):  # at C speed, no set built
            return
        stray = {x for edge in self.attacks for x in edge} - self.arguments
        if stray:
            raise ValueError(f"attacks mention arguments outside the framework: {sorted(stray)[:5]}")

    @classmethod
    def of(cls, arguments: Iterable[int], attacks: Iterable[tuple[int, int]]) -> Framework:
        return cls(frozenset(arguments), frozenset((int(a), int(b)) for a, b in attacks))

    @classmethod
    def from_engine(cls, engine, at: int | None = None) -> Framework:
        """AF_t of a conversation as of turn ``at``: all its arguments and attacks."""
        dm = engine.state
        args = [r.id for r in dm.args if dm.visible(r.id, at)]
        attacks = [(a, b) for a, b, turn in dm.attacks if at is None or turn <= at]
        return cls.of(args, attacks)

    def restrict(self, removed: Iterable[int]) -> Framework:
        """AF|X: the framework without the arguments of X and the attacks touching them."""
        gone = frozenset(removed)
        return Framework(self.arguments - gone,
                         frozenset((a, b) for a, b in self.attacks if a not in gone and b not in gone))

    def is_acyclic(self) -> bool:
        return self.topological_order() is not None

    def topological_order(self) -> list[int] | None:
        """Every argument after all its attackers, or None when the attacks have a cycle."""
        graph: dict[int, set[int]] = {a: set() for a in self.arguments}
        for a, b in self.attacks:
            graph[b].add(a)
        try:
            return list(TopologicalSorter(graph).static_order())
        except CycleError:
            return None

    def conflict_free(self, members: Iterable[int]) -> bool:
        s = set(members)
        return not any(a in s and b in s for a, b in self.attacks)

    def __len__(self) -> int:
        return len(self.arguments)
