"""Reference implementations written as literally as the definitions read.

They are slow on purpose: the engine's hand-written queries are checked
against them, so they must be obviously right rather than fast.
"""

from __future__ import annotations

from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.state import DependencyMap


def visible_args(dm: DependencyMap, t: int | None):
    return [r for r in dm.args if t is None or r.turn <= t]


def naive_affected(dm: DependencyMap, p: str, closure: bool = True, t: int | None = None) -> set[int]:
    """Definition 2.3: X_0 = {a : p in Dep(a)}; X_{k+1} = X_k U {a : Dep(a) meets claim(X_k)}."""
    args = visible_args(dm, t)
    x = {r.id for r in args if p in r.deps_at(t)}
    if not closure:
        return x
    while True:
        claims = {dm.arg(i).claim for i in x}
        nxt = x | {r.id for r in args if set(r.deps_at(t)) & claims}
        if nxt == x:
            return x
        x = nxt


def naive_hops(dm: DependencyMap, p: str, t: int | None = None) -> dict[int, int]:
    """The round k+1 at which each argument enters the sequence X_k."""
    args = visible_args(dm, t)
    x = {r.id for r in args if p in r.deps_at(t)}
    hops = {i: 1 for i in x}
    k = 1
    while True:
        claims = {dm.arg(i).claim for i in x}
        new = {r.id for r in args if set(r.deps_at(t)) & claims} - x
        if not new:
            return hops
        k += 1
        hops.update({i: k for i in new})
        x |= new


def naive_grounded(dm: DependencyMap, t: int | None = None) -> set[int]:
    """The least fixpoint of: a in S_t and every Dep literal is claimed by a grounded argument."""
    standing = [r for r in visible_args(dm, t) if r.standing_at(t) in GOOD_STANDING]
    grounded: set[int] = set()
    changed = True
    while changed:
        changed = False
        claims = {dm.arg(i).claim for i in grounded}
        for r in standing:
            if r.id not in grounded and all(q in claims for q in r.deps_at(t)):
                grounded.add(r.id)
                changed = True
    return grounded


def naive_verify(dm: DependencyMap, literal: str, t: int | None = None) -> bool:
    grounded = naive_grounded(dm, t)
    return any(dm.arg(i).claim == literal for i in grounded)


def reverse_index_from_scratch(dm: DependencyMap) -> dict[str, list[int]]:
    rev: dict[str, list[int]] = {}
    for r in dm.args:
        for d in r.deps:
            rev.setdefault(d, []).append(r.id)
    return {k: sorted(v) for k, v in rev.items()}


def standing_invariant(dm: DependencyMap, t: int | None = None) -> bool:
    """Lemma 2.4: no argument of S_t is the target of an attack."""
    return not any(dm.arg(b).standing_at(t) in GOOD_STANDING
                   for a, b, turn in dm.attacks if t is None or turn <= t)


