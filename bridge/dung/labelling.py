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

from dataclasses import dataclass

from grounded.dung.framework import Framework


@dataclass(frozen=True)
class Labelling:
    """IN, OUT and UNDEC of the grounded labelling."""

    inside: frozenset[int]
    out: frozenset[int]
    undecided: frozenset[int]

    @property
    def total(self) -> bool:
        """No UNDEC argument: the grounded extension is the only complete, preferred and stable one."""
        return not self.undecided


def grounded_labelling(af: Framework) -> Labelling:
    targets: dict[int, list[int]] = {}
    waiting = dict.fromkeys(af.arguments, 0)  # attackers not yet OUT
    for a, b in af.attacks:
        waiting[b] += 1
        if a in targets:
            targets[a].append(b)
        else:
            targets[a] = [b]
    inside = [a for a, n in waiting.items() if n == 0]
    label = dict.fromkeys(inside, True)  # True: IN, False: OUT
    no_targets: list[int] = []
    i = 0
    while i < len(inside):
        for b in targets.get(inside[i], no_targets):
            if b in label:  # already OUT (an IN argument attacks no IN one)
                continue
            label[b] = False
            for c in targets.get(b, no_targets):
                waiting[c] -= 1
                if not waiting[c] and c not in label:
                    label[c] = True
                    inside.append(c)
        i += 1
    in_set = frozenset(inside)
    out = frozenset(a for a, is_in in label.items() if not is_in)
    undecided = af.arguments - in_set - out if len(label) < len(af.arguments) else frozenset()
    return Labelling(in_set, out, undecided)
