"""Two independent oracles for Dung semantics.

``brute_force`` reads the definitions (Dung 1995) off every subset of a small
framework; ``py_arg`` asks the python-argumentation package (PyArg).  Neither
shares code with the ASP encodings (tests/pyarg.py only converts classes).
"""

from __future__ import annotations

from itertools import combinations

from py_arg.algorithms.semantics.get_admissible_sets import get_admissible_sets
from py_arg.algorithms.semantics.get_complete_extensions import get_complete_extensions
from py_arg.algorithms.semantics.get_grounded_extension import get_grounded_extension
from py_arg.algorithms.semantics.get_preferred_extensions import get_preferred_extensions
from py_arg.algorithms.semantics.get_stable_extensions import get_stable_extensions

from grounded.dung import Framework

from .pyarg import from_py_arg_extensions, to_py_arg


def brute_force(af: Framework) -> dict[str, set[frozenset[int]]]:
    args = sorted(af.arguments)
    attackers = {a: {x for x, y in af.attacks if y == a} for a in args}

    def conflict_free(s):
        return not any((x, y) in af.attacks for x in s for y in s)

    def defends(s, a):
        return all(any((z, y) in af.attacks for z in s) for y in attackers[a])

    subsets = [frozenset(c) for k in range(len(args) + 1) for c in combinations(args, k)]
    admissible = {s for s in subsets if conflict_free(s) and all(defends(s, a) for a in s)}
    complete = {s for s in admissible if all(a in s for a in args if defends(s, a))}
    preferred = {s for s in admissible if not any(s < t for t in admissible)}
    stable = {s for s in subsets if conflict_free(s)
              and all(any((x, a) in af.attacks for x in s) for a in args if a not in s)}
    grounded: frozenset[int] = frozenset()
    while True:  # least fixpoint of the characteristic function
        nxt = frozenset(a for a in args if defends(grounded, a))
        if nxt == grounded:
            break
        grounded = nxt
    return {"admissible": admissible, "complete": complete, "preferred": preferred,
            "stable": stable, "grounded": {grounded}}


PY_ARG = {
    "admissible": get_admissible_sets,
    "complete": get_complete_extensions,
    "grounded": lambda af: [get_grounded_extension(af)],
    "preferred": get_preferred_extensions,
    "stable": get_stable_extensions,
}


def py_arg(af: Framework, semantics: str) -> set[frozenset[int]]:
    return from_py_arg_extensions(PY_ARG[semantics](to_py_arg(af)))
