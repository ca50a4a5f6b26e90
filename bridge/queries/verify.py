"""Verify(c): is the claim carried by an argument in S_t whose Dep is, transitively, grounded?

``grounded(a)`` is the least fixpoint of: a is in S_t and every literal of
Dep(a) is the claim of some grounded argument (DESIGN.md section 2).  It is
Horn propagation, so it is computed the Dowling-Gallier way: each argument
keeps a counter of its not-yet-grounded Dep literals and becomes grounded when
the counter reaches zero.  Only the arguments reachable backwards from the
anchors through Dep are touched, so the cost follows the chain, not the
conversation.  Circular support never reaches zero and grounds nothing.

The answer carries a witness chain (Dep*(a_c), the arguments the walk rests
on; an anchor with empty Dep when there is one, the shortest witness, else the
newest grounded anchor) or, when it fails, the first failing literal and what stands for it
("a3 abandoned at T20 by -a3").  "No argument claims this" is reported
separately as ``no_anchor``: the verifier abstains rather than rejects.
"""

from __future__ import annotations

from dataclasses import dataclass

from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.state import DependencyMap

GROUNDED, UNGROUNDED, NO_ANCHOR = "grounded", "ungrounded", "no_anchor"


@dataclass(frozen=True, slots=True)
class Verification:
    claim: str
    grounded: bool
    status: str
    chain: tuple[str, ...]
    """Claims of the witness Dep*(a_c), the anchor's claim first."""
    arguments: tuple[int, ...]
    """The arguments of the witness, in the same order."""
    reason: str | None
    failing: str | None
    """The first literal the walk could not ground (None when grounded or no anchor)."""
    at: int | None

    def to_json(self) -> dict:
        return {"claim": self.claim, "grounded": self.grounded, "chain": list(self.chain),
                "reason": self.reason, "status": self.status, "at": self.at}


def verify(dm: DependencyMap, literal: str, t: int | None = None) -> Verification:
    args = dm.args
    claimants = dm.claimants_at(literal, t)
    if not claimants:
        return Verification(literal, False, NO_ANCHOR, (), (),
                            f"no argument claims {literal} (no anchor)", None, t)
    anchors = [a for a in claimants if args[a - 1].standing_at(t) in GOOD_STANDING]
    if not anchors:
        return Verification(literal, False, UNGROUNDED, (), (),
                            f"{literal} {dm.note(literal, t)}", literal, t)
    for anchor in reversed(anchors):  # an observation-like anchor grounds itself
        if not args[anchor - 1].deps_at(t):
            return Verification(literal, True, GROUNDED, (literal,), (anchor,), None, None, t)
    established, grounded = least_fixpoint(dm, anchors, t)
    for anchor in reversed(anchors):
        if anchor in grounded:
            chain_args = _witness(dm, anchor, established, t)
            claims = tuple(dict.fromkeys(args[a - 1].claim for a in chain_args))
            return Verification(literal, True, GROUNDED, claims, tuple(chain_args), None, None, t)
    reason, failing = _first_failure(dm, anchors[-1], established, t)
    return Verification(literal, False, UNGROUNDED, (), (), reason, failing, t)


def least_fixpoint(dm: DependencyMap, anchors: list[int], t: int | None) -> tuple[dict[str, int], set[int]]:
    """Ground what can be grounded among the arguments the anchors rest on.

    Returns the argument that first grounded each literal, and the set of
    grounded arguments.
    """
    args = dm.args
    claimants = dm.claimants
    waiting: dict[str, list[int]] = {}
    missing: dict[int, int] = {}
    ready: list[int] = []
    seen = set(anchors)
    stack = list(anchors)
    while stack:
        a = stack.pop()
        deps = dict.fromkeys(args[a - 1].deps_at(t))
        missing[a] = len(deps)
        if not deps:
            ready.append(a)
        for q in deps:
            waiting.setdefault(q, []).append(a)
            for b in claimants.get(q, ()):
                if b not in seen:
                    rb = args[b - 1]
                    if rb.standing_at(t) in GOOD_STANDING:  # None (not yet created) is not good
                        seen.add(b)
                        stack.append(b)
    established: dict[str, int] = {}
    grounded: set[int] = set()
    while ready:
        a = ready.pop()
        grounded.add(a)
        q = args[a - 1].claim
        if q in established:
            continue
        established[q] = a
        for b in waiting.get(q, ()):
            missing[b] -= 1
            if missing[b] == 0:
                ready.append(b)
    return established, grounded


def _witness(dm: DependencyMap, anchor: int, established: dict[str, int], t: int | None) -> list[int]:
    """Dep*(anchor): the anchor, then depth-first the argument grounding each Dep literal."""
    order: list[int] = []
    seen: set[int] = set()
    stack = [anchor]
    while stack:
        a = stack.pop()
        if a in seen:
            continue
        seen.add(a)
        order.append(a)
        for q in reversed(dm.args[a - 1].deps_at(t)):
            stack.append(established[q])
    return order


def _first_failure(dm: DependencyMap, anchor: int, established: dict[str, int],
                   t: int | None) -> tuple[str, str]:
    """Walk down from an ungrounded anchor to the first literal nothing grounds."""
    args = dm.args
    path = [args[anchor - 1].claim]
    visiting = {anchor}
    current = anchor
    while True:
        for q in args[current - 1].deps_at(t):
            if q in established:
                continue
            trail = " -> ".join(path + [q])
            claimants = dm.claimants_at(q, t)
            if not claimants:
                return f"{trail}: no argument claims {q}", q
            good = [b for b in claimants if args[b - 1].standing_at(t) in GOOD_STANDING]
            if not good:
                return f"{trail}: {q} {dm.note(q, t)}", q
            nxt = good[-1]
            if nxt in visiting:
                return f"{trail}: circular support, {q} rests on itself", q
            path.append(q)
            visiting.add(nxt)
            current = nxt
            break
        else:  # every Dep literal grounded: cannot happen for an ungrounded argument
            raise AssertionError(f"argument {current} has all Dep grounded but is not grounded")
