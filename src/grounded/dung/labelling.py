"""The grounded labelling in linear time, and what it decides for the other semantics.

The grounded extension is the least fixpoint of Dung's characteristic
function.  Labelled (Caminada), it is found by propagation: an argument all
of whose attackers are OUT is IN, an argument attacked by an IN one is OUT, and
what neither rule reaches stays UNDEC.  Each argument keeps the count of its
attackers not yet OUT, so every attack is looked at twice at most: O(|A| + |R|),
for any framework.

When no argument is left UNDEC the grounded extension is stable, and it is
then the only complete extension (every complete labelling agrees with the
grounded one on its IN and OUT arguments, and there are no others), hence also
the only preferred and the only stable one.  That holds on every acyclic
framework (the paper's restriction A2), and on many cyclic ones whose cycles
the grounded extension defeats.  ``semantics.py`` uses it so that those
questions never reach the solver.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cached_property

from grounded.dung.framework import Framework

_UNDEC, _IN, _OUT = 0, 1, 2


class Labelling:
    """IN, OUT and UNDEC of the grounded labelling (OUT and UNDEC made when first read)."""

    def __init__(self, af: Framework, inside: frozenset[int], label: bytearray, ids: list[int] | None,
                 decided: int):
        self.inside = inside
        """IN: the grounded extension."""
        self.total = decided == len(af.arguments)
        """No UNDEC argument: the grounded extension is the only complete, preferred and stable one."""
        self._label = label  # per position: _UNDEC, _IN or _OUT
        self._ids = ids  # position -> argument (None: the arguments are 1..n, position = argument)

    def _with(self, value: int) -> frozenset[int]:
        label, ids = self._label, self._ids
        if ids is None:
            return frozenset(i for i in range(1, len(label)) if label[i] == value)
        return frozenset(ids[i] for i in range(1, len(label)) if label[i] == value)

    @cached_property
    def out(self) -> frozenset[int]:
        """OUT: the arguments the grounded extension attacks."""
        return self._with(_OUT)

    @cached_property
    def undecided(self) -> frozenset[int]:
        return frozenset() if self.total else self._with(_UNDEC)


def grounded_labelling(af: Framework) -> Labelling:
    """The grounded labelling, by propagation over positions 1..n (the arguments' own ids when they are 1..n)."""
    arguments = af.arguments
    n = len(arguments)
    ids: list[int] | None = None
    attacks: Collection[tuple[int, int]] = af.attacks
    if n and (min(arguments) != 1 or max(arguments) != n):  # other ids: number them 1..n first
        ids = [0, *sorted(arguments)]
        position = {a: i for i, a in enumerate(ids)}
        attacks = [(position[a], position[b]) for a, b in attacks]
    waiting = [0] * (n + 1)  # per argument: attackers not yet OUT
    targets: list[list[int] | None] = [None] * (n + 1)
    for a, b in attacks:
        waiting[b] += 1
        ts = targets[a]
        if ts is None:
            targets[a] = [b]
        else:
            ts.append(b)
    label = bytearray(n + 1)
    inside = [a for a in range(1, n + 1) if not waiting[a]]
    for a in inside:
        label[a] = _IN
    decided = len(inside)
    i = 0
    while i < len(inside):
        attacked = targets[inside[i]]
        i += 1
        if attacked is None:
            continue
        for b in attacked:
            if label[b]:  # already OUT (an IN argument attacks no IN one)
                continue
            label[b] = _OUT
            decided += 1
            onward = targets[b]
            if onward is None:
                continue
            for c in onward:
                waiting[c] -= 1
                if not waiting[c] and not label[c]:
                    label[c] = _IN
                    decided += 1
                    inside.append(c)
    extension = frozenset(inside) if ids is None else frozenset(ids[a] for a in inside)
    return Labelling(af, extension, label, ids, decided)
