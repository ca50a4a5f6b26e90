"""Affected and Affected* (Definition 2.3): what loses support if p is retracted.

X_0 = Affected(p) = {a : p in Dep(a)}; X_{k+1} adds every argument whose Dep
meets claim(X_k).  Both range over all arguments, whatever their standing;
the ones in S_t are those that lose grounding (``lose_support``).

The walk is a breadth-first search over the reverse dependency index kept by
``DependencyMap``: literal -> arguments resting on it.  Its cost is the size
of the answer plus the index entries it reads, independent of how long the
conversation is, and it allocates nothing per step: the queue is one list
that grows at its end while it is read (breadth first), extended in one call
by each index entry; an argument met twice is skipped where its claim is
found already done, rather than kept out of the queue by a set.  What the
walk does not need (the arguments without repeats, the hop of each, which
of them lose support) is made when first read.  When the answer is the first
level alone (the usual case: a leaf, or arguments nobody rests on yet:
one look-up per argument shows it), nothing is walked or copied: the answer
is a prefix of the index's own list, which only ever grows at its end.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any

from grounded.core.display import Displayable
from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.state import DependencyMap
from grounded.queries.answer import ANSWER_SLOTS, Over, checked, filler, once, reduce

_Basis = tuple[DependencyMap, list[int], int, dict[str, None] | None, int | None] | None


@dataclass(frozen=True, eq=False, repr=False, init=False)
class Affected(Displayable):
    """The answer to Affected(p) or Affected*(p) as of some turn.

    A frozen dataclass, built by ``_answer`` alone from the literal, the
    question (Affected* or not, and its turn) and what the walk found:
    ``_basis``, None when nothing rests on the literal, else (the map; the
    walk's queue, or the index's own list when nothing was walked; how many
    of its first entries are X_0; the claims found, each once, None when not
    walked; the turn standings are read at).  ``arguments``, ``hops``,
    ``lose_support`` and the rest are made when first read.  Standings are
    read as of the turn the question was asked (``at``, or the latest turn at
    that moment), so a later utterance does not change an answer already
    given.
    """

    __slots__ = ANSWER_SLOTS

    __reduce__ = reduce

    _f: tuple[str, bool, int | None, _Basis]
    """(literal, closure, at, basis): one slot, set once by ``_answer`` (see ``grounded.queries.answer``)."""

    @property
    def literal(self) -> str:
        return self._f[0]

    @property
    def closure(self) -> bool:
        return self._f[1]

    @property
    def at(self) -> int | None:
        return self._f[2]

    @property
    def _basis(self) -> _Basis:
        return self._f[3]

    @once
    def _reached(self) -> list[int]:
        """Argument ids in the order reached, each once."""
        basis = self._f[3]
        if basis is None:
            return []
        _, order, n, claims, _ = basis
        if claims is None:  # not walked: a prefix of the index's own list
            return order[:n]
        return list(dict.fromkeys(order))  # the walk's queue: an argument met again is a repeat

    @property
    def arguments(self) -> list[int]:
        """Argument ids in the order reached (breadth first)."""
        return list(self._reached)

    @once
    def _hops(self) -> list[int]:
        """The hop of each argument reached, by the walk again, now level by level (read rarely): X_0 is
        the first ``n`` of the queue."""
        reached = self._reached
        basis = self._f[3]
        if basis is None or not self.closure:
            return [1] * len(reached)
        dm, order, n, _, turn = basis
        args, rev, rev_turns = dm.args, dm.rev, dm.rev_turns
        hop = dict.fromkeys(order[:n], 1)
        done = {self.literal}
        for a in reached:
            claim = args[a - 1].claim
            if claim in done or claim not in rev:
                continue
            done.add(claim)
            resting = rev[claim] if turn is None else rev[claim][: bisect_right(rev_turns[claim], turn)]
            for b in resting:  # as of the question's turn
                if b not in hop:
                    hop[b] = hop[a] + 1
        return [hop[a] for a in reached]

    @property
    def hops(self) -> list[int]:
        """hops[i] is the hop at which arguments[i] was reached (1 = one-step Affected)."""
        return list(self._hops)

    @property
    def claims(self) -> list[str]:
        """Claims of the affected arguments, each once, in the order reached."""
        basis = self._f[3]
        if basis is None:
            return []
        dm, order, n, claims, _ = basis
        if claims is None:
            args = dm.args
            if n == 1:
                return [args[order[0] - 1].claim]
            return list(dict.fromkeys([args[a - 1].claim for a in order[:n]]))  # a list: no generator frame
        return list(claims)

    @once
    def _losing(self) -> list[int]:
        basis = self._f[3]
        if basis is None:
            return []
        dm, _, _, _, turn = basis
        args = dm.args
        if self.at is None and turn == dm.last_turn:
            return [a for a in self._reached if args[a - 1].standing in GOOD_STANDING]
        return [a for a in self._reached if args[a - 1].standing_at(turn) in GOOD_STANDING]

    @property
    def lose_support(self) -> list[str]:
        """Claims of the affected arguments that are in S_t: they lose grounding."""
        losing = self._losing
        if not losing:
            return []
        args = self._f[3][0].args  # type: ignore[index]  # something is losing: there is a basis
        return list(dict.fromkeys(args[a - 1].claim for a in losing))

    @property
    def losing_arguments(self) -> list[int]:
        return list(self._losing)

    @property
    def claim_hops(self) -> dict[str, int]:
        reached = self._reached
        if not reached:
            return {}
        args = self._f[3][0].args  # type: ignore[index]  # something is reached: there is a basis
        hops: dict[str, int] = {}
        for a, h in zip(reached, self._hops, strict=True):
            hops.setdefault(args[a - 1].claim, h)
        return hops

    def __len__(self) -> int:
        return len(self._reached)

    def to_json(self) -> dict:
        return {"claim": self.literal, "closure": self.closure, "at": self.at,
                "claims": self.claims, "lose_support": self.lose_support, "hops": self.claim_hops}

    def __repr__(self) -> str:
        star = "*" if self.closure else ""
        return f"Affected{star}({self.literal}) = {self.claims} (lose support: {self.lose_support})"


def _answer(literal: str, closure: bool, at: int | None, basis: Any) -> Affected:
    """Every answer is made here, or as here inline in ``affected_over``'s fast path (see ``grounded.queries.answer``:
    a frozen dataclass filled at once)."""
    answer = Affected()
    _fill(answer, (literal, closure, at, basis))
    return answer


_fill = filler(Affected)


def affected(dm: DependencyMap, literal: str, closure: bool = True, t: int | None = None) -> Affected:
    """Affected*(literal) (one step with ``closure=False``) over ``dm`` as of turn t (None: the latest), one
    question: a caller asking many keeps the map's ``Over`` (``Engine`` is one)."""
    return affected_over(Over(dm), literal, closure, t)


def affected_over(self: Over, literal: str, closure: bool = True, at: int | None = None) -> Affected:
    """Affected*(literal), or one-step Affected with ``closure=False`` (Definition 2.3), over the map ``self``
    walks, as of turn ``at``: ``Engine.affected``, a method of ``walks.Walks`` as ``verify.verify_over`` is (one
    Python frame per question).  A literal the map holds was validated when it came in; any other question
    goes through ``checked`` first."""
    rev = self._rev
    first = rev.get(literal)
    if at is not None:
        t = checked(self._dm, literal, at)
        if first is None:
            return _answer(literal, closure, t, None)
        return _affected_at(self._dm, literal, first, closure, t)  # type: ignore[arg-type]  # at is a turn
    if first is None:  # nothing rests on the literal
        if literal not in self._claimants:
            checked(self._dm, literal, None)
        answer = Affected()  # ``_answer``, inline (so below): a call costs much of a small answer
        _fill(answer, (literal, closure, None, None))
        return answer
    n = len(first)
    if not closure:
        answer = Affected()
        _fill(answer, (literal, False, None, (self._dm, first, n, None, self._dm.last_turn)))
        return answer
    args = self._args
    for a in first:  # the usual answer: nothing rests on the claims of X_0, which is then all of it
        claim = args[a - 1].claim
        if claim != literal and claim in rev:
            break
    else:
        answer = Affected()
        _fill(answer, (literal, True, None, (self._dm, first, n, None, self._dm.last_turn)))
        return answer
    # Affected* breadth first from X_0 = first: the queue is read as it grows
    claims: dict[str, None] = {}
    order = list(first)  # the index's entry grows with the conversation (or is a tuple): the queue is a list
    for a in order:
        claim = args[a - 1].claim
        if claim not in claims:
            claims[claim] = None
            if claim in rev and claim != literal:  # the literal's dependents are X_0, queued already
                order += rev[claim]
    answer = Affected()
    _fill(answer, (literal, True, None, (self._dm, order, n, claims, self._dm.last_turn)))
    return answer



def _affected_at(dm: DependencyMap, literal: str, first: list[int], closure: bool, t: int) -> Affected:
    """Affected(literal) or Affected* as of turn t: each index entry cut where turn t ends."""
    n = bisect_right(dm.rev_turns[literal], t)
    if not closure or n == 0:
        return _answer(literal, closure, t, (dm, first, n, None, t) if n else None)
    args = dm.args
    rev = dm.rev
    rev_turns = dm.rev_turns
    claims: dict[str, None] = {}
    order = list(first[:n])  # a list: it grows while it is read
    for a in order:
        claim = args[a - 1].claim
        if claim not in claims:
            claims[claim] = None
            if claim != literal:
                nxt = rev.get(claim)
                if nxt is not None:
                    order += nxt[: bisect_right(rev_turns[claim], t)]
    return _answer(literal, True, t, (dm, order, n, claims, t))
