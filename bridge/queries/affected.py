"""Affected and Affected* (Definition 2.3): what loses support if p is retracted.

X_0 = Affected(p) = {a : p in Dep(a)}; X_{k+1} adds every argument whose Dep
meets claim(X_k).  Both range over all arguments, whatever their standing;
the ones in S_t are those that lose grounding (``lose_support``).

The walk is a breadth-first search over the reverse dependency index kept by
``DependencyMap``: literal -> arguments resting on it.  Its cost is the size
of the answer plus the index entries it reads, independent of how long the
conversation is.  It goes level by level, so hop k+1 (the argument entered at
X_k) is known from where each level ends, and it collects the claims of what
it reaches as it reads them.  When the answer is the first level alone (the
usual case: a leaf, or arguments nobody rests on yet), nothing is copied: the
answer is a prefix of the index's own list, which only ever grows at its end.
"""

from __future__ import annotations

from bisect import bisect_right

from grounded.core.display import Displayable
from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.state import DependencyMap


class Affected(Displayable):
    """The answer to Affected(p) or Affected*(p) as of some turn.

    Building one stores the walk's own lists; ``arguments``, ``hops``,
    ``lose_support`` and the rest are made when first read.  Standings are
    read as of the turn the question was asked (``at``, or the latest turn at
    that moment), so a later utterance does not change an answer already
    given.  There is no ``__init__``: ``affected`` sets the slots an answer
    needs (``_answer``), and the empty answer needs only four.
    """

    __slots__ = ("literal", "closure", "at", "_dm", "_order", "_n", "_claims", "_ends", "_turn", "_cache")
    literal: str
    closure: bool
    at: int | None
    _dm: DependencyMap
    _order: list[int]  # _order[:_n]: argument ids in the order reached (breadth first); unset when _n is 0
    _n: int
    _claims: dict[str, None] | None  # their claims, each once, in the order reached; None: read from _order
    _ends: list[int] | None  # where each hop ends in _order; None: every argument is at hop 1
    _turn: int | None  # the turn standings are read at
    _cache: list[int] | None  # the arguments that lose support, once found

    def _reached(self) -> list[int]:
        n = self._n
        return self._order[:n] if n else []

    @property
    def arguments(self) -> list[int]:
        """Argument ids in the order reached (breadth first)."""
        return self._reached()

    @property
    def hops(self) -> list[int]:
        """hops[i] is the hop at which arguments[i] was reached (1 = one-step Affected)."""
        n = len(self._reached())
        if not n or self._ends is None:
            return [1] * n
        hops: list[int] = []
        start = 0
        for hop, end in enumerate(self._ends, 1):
            hops += [hop] * (end - start)
            start = end
        return hops

    @property
    def claims(self) -> list[str]:
        """Claims of the affected arguments, each once, in the order reached."""
        if not self._n:
            return []
        if self._claims is None:
            args = self._dm.args
            return list(dict.fromkeys(args[a - 1].claim for a in self._reached()))
        return list(self._claims)

    def _losing(self) -> list[int]:
        order = self._reached()
        if not order:
            return []
        if self._cache is not None:
            return self._cache
        args = self._dm.args
        if self.at is None and self._turn == self._dm.last_turn:
            lose = [a for a in order if args[a - 1].standing in GOOD_STANDING]
        else:
            t = self._turn
            lose = [a for a in order if args[a - 1].standing_at(t) in GOOD_STANDING]
        self._cache = lose
        return lose

    @property
    def lose_support(self) -> list[str]:
        """Claims of the affected arguments that are in S_t: they lose grounding."""
        losing = self._losing()
        if not losing:
            return []
        args = self._dm.args
        return list(dict.fromkeys(args[a - 1].claim for a in losing))

    @property
    def losing_arguments(self) -> list[int]:
        return list(self._losing())

    @property
    def claim_hops(self) -> dict[str, int]:
        reached = self._reached()
        if not reached:
            return {}
        args = self._dm.args
        hops: dict[str, int] = {}
        for a, h in zip(reached, self.hops, strict=True):
            hops.setdefault(args[a - 1].claim, h)
        return hops

    def __len__(self) -> int:
        return len(self._reached())

    def to_json(self) -> dict:
        return {"claim": self.literal, "closure": self.closure, "at": self.at,
                "claims": self.claims, "lose_support": self.lose_support, "hops": self.claim_hops}

    def __repr__(self) -> str:
        star = "*" if self.closure else ""
        return f"Affected{star}({self.literal}) = {self.claims} (lose support: {self.lose_support})"


def affected(dm: DependencyMap, literal: str, closure: bool = True, t: int | None = None) -> Affected:
    first = dm.rev.get(literal)
    if first is None:  # nothing rests on the literal
        result = Affected()
        result.literal, result.closure, result.at, result._n = literal, closure, t, 0
        return result
    if t is None:
        n = len(first)
        if not closure:
            return _answer(literal, False, None, dm, first, n, None, None, dm.last_turn)
        if n == 1:  # the usual answer: one argument rests on the literal, and nothing on its claim
            claim = dm.args[first[0] - 1].claim
            if claim == literal or claim not in dm.rev:
                return _answer(literal, True, None, dm, first, 1, {claim: None}, None, dm.last_turn)
        return _walk(dm, literal, first, n, None, dm.last_turn)
    n = bisect_right(dm.rev_turns[literal], t)
    if not closure or n == 0:
        return _answer(literal, closure, t, dm, first, n, None, None, t)
    return _walk(dm, literal, first, n, t, t)


def _answer(literal: str, closure: bool, at: int | None, dm: DependencyMap, order: list[int], n: int,
            claims: dict[str, None] | None, ends: list[int] | None, turn: int | None) -> Affected:
    result = Affected()
    result.literal, result.closure, result.at = literal, closure, at
    result._dm, result._order, result._n, result._claims, result._ends, result._turn = dm, order, n, claims, ends, turn
    result._cache = None
    return result


def _walk(dm: DependencyMap, literal: str, first: list[int], n: int, t: int | None, turn: int | None) -> Affected:
    """Affected* breadth first from ``first[:n]`` (X_0), one level per hop."""
    args = dm.args
    rev = dm.rev
    claims: dict[str, None] = {}
    order = first
    seen: set[int] | None = None  # made, with a copy of the order, once some claim has dependents
    ends: list[int] = []
    start, end = 0, n
    while start < end:
        for i in range(start, end):
            claim = args[order[i] - 1].claim
            if claim in claims:
                continue
            claims[claim] = None
            if claim == literal:
                continue
            nxt = rev.get(claim)
            if nxt is None:
                continue
            if t is not None:
                nxt = nxt[: bisect_right(dm.rev_turns[claim], t)]
            if seen is None:
                order = first[:n]
                seen = set(order)
            for b in nxt:
                if b not in seen:
                    seen.add(b)
                    order.append(b)
        ends.append(end)
        start, end = end, (end if seen is None else len(order))
    size = n if seen is None else len(order)  # uncopied, ``order`` is the index's list, grown past n since t
    return _answer(literal, True, t, dm, order, size, claims, ends if len(ends) > 1 else None, turn)
