"""Affected and Affected* (Definition 2.3): what loses support if p is retracted.

X_0 = Affected(p) = {a : p in Dep(a)}; X_{k+1} adds every argument whose Dep
meets claim(X_k).  Both range over all arguments, whatever their standing;
the ones in S_t are those that lose grounding (``lose_support``).

The walk is a breadth-first search over the reverse dependency index kept by
``DependencyMap``: literal -> arguments resting on it.  Its cost is the size
of the answer plus the index entries it reads, independent of how long the
conversation is.  Hop k+1 means the argument entered at X_k.
"""

from __future__ import annotations

from bisect import bisect_right

from grounded.core.display import Displayable
from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.state import DependencyMap


class Affected(Displayable):
    """The answer to Affected(p) or Affected*(p) as of some turn."""

    __slots__ = ("literal", "closure", "at", "arguments", "hops", "_claim", "_lose")

    def __init__(self, literal: str, closure: bool, at: int | None, arguments: list[int],
                 hops: list[int], lose: list[int], dm: DependencyMap):
        self.literal = literal
        self.closure = closure
        self.at = at
        self.arguments = arguments
        """Argument ids in the order reached (breadth first)."""
        self.hops = hops
        """hops[i] is the hop at which arguments[i] was reached (1 = one-step Affected)."""
        self._lose = lose
        self._claim = dm.args

    @property
    def claims(self) -> list[str]:
        """Claims of the affected arguments, each once, in the order reached."""
        return list(dict.fromkeys(self._claim[a - 1].claim for a in self.arguments))

    @property
    def lose_support(self) -> list[str]:
        """Claims of the affected arguments that are in S_t: they lose grounding."""
        return list(dict.fromkeys(self._claim[a - 1].claim for a in self._lose))

    @property
    def losing_arguments(self) -> list[int]:
        return list(self._lose)

    @property
    def claim_hops(self) -> dict[str, int]:
        hops: dict[str, int] = {}
        for a, h in zip(self.arguments, self.hops, strict=True):
            hops.setdefault(self._claim[a - 1].claim, h)
        return hops

    def __len__(self) -> int:
        return len(self.arguments)

    def to_json(self) -> dict:
        return {"claim": self.literal, "closure": self.closure, "at": self.at,
                "claims": self.claims, "lose_support": self.lose_support, "hops": self.claim_hops}

    def __repr__(self) -> str:
        star = "*" if self.closure else ""
        return f"Affected{star}({self.literal}) = {self.claims} (lose support: {self.lose_support})"


def affected(dm: DependencyMap, literal: str, closure: bool = True, t: int | None = None) -> Affected:
    rev = dm.rev
    args = dm.args
    order = rev.get(literal)
    if order and t is not None:
        order = order[: bisect_right(dm.rev_turns[literal], t)]
    if not order:
        return Affected(literal, closure, t, [], [], [], dm)
    order = list(order)
    hops = [1] * len(order)
    if closure:
        # The visited sets are made only once some claim has dependents: most
        # answers are leaves, and the walk should cost what the answer costs.
        seen: set[int] | None = None
        done: set[str] | None = None
        i = 0
        while i < len(order):
            claim = args[order[i] - 1].claim
            nxt = rev.get(claim)
            if nxt and claim != literal:
                if done is None:
                    seen, done = set(order), {literal}
                if claim not in done:
                    done.add(claim)
                    if t is not None:
                        nxt = nxt[: bisect_right(dm.rev_turns[claim], t)]
                    hop = hops[i] + 1
                    for b in nxt:
                        if b not in seen:
                            seen.add(b)
                            order.append(b)
                            hops.append(hop)
            i += 1
    if t is None:
        lose = [a for a in order if args[a - 1].standing in GOOD_STANDING]
    else:
        lose = [a for a in order if args[a - 1].standing_at(t) in GOOD_STANDING]
    return Affected(literal, closure, t, order, hops, lose, dm)
