"""Verify(c): is the claim carried by an argument in S_t whose Dep is, transitively, grounded?

``grounded(a)`` is the least fixpoint of: a is in S_t and every literal of
Dep(a) is the claim of some grounded argument (DESIGN.md section 2).  It is
Horn propagation, so in general it is computed the Dowling-Gallier way
(``least_fixpoint``): each argument keeps a counter of its not-yet-grounded Dep
literals and becomes grounded when the counter reaches zero.  Only the
arguments reachable backwards from the anchors through Dep are touched, so the
cost follows the chain, not the conversation.  Circular support never reaches
zero and grounds nothing.

Most literals have one claimant, and then there is nothing to choose: the
anchor is grounded exactly when every argument its Dep reaches is in S_t and
none of them rests on itself.  ``verify`` answers those queries by one
depth-first walk (``_walk_single``) that collects the witness's claims as it
goes, and falls back to the fixpoint at a literal with several claimants, more
than ``_DEEPEST`` levels down, or when asked about an earlier turn.

The answer carries a witness chain (Dep*(a_c), the arguments the walk rests
on; an anchor with empty Dep when there is one, the shortest witness, else the
newest grounded anchor) or, when it fails, the first failing literal and what
stands for it ("a3 abandoned at T20 by -a3").  "No argument claims this" is
reported separately as ``no_anchor``: the verifier abstains rather than rejects.
"""

from __future__ import annotations

from grounded.core.display import Displayable
from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.state import DependencyMap

GROUNDED, UNGROUNDED, NO_ANCHOR = "grounded", "ungrounded", "no_anchor"


class Verification(Displayable):
    """The answer to Verify(c), as of turn ``at`` (None: the latest).

    Built for the hot path.  Each kind of answer is its own subclass
    (``Grounded``, ``_Ungrounded``, ``_NoAnchor``) holding ``grounded`` and
    ``status`` as class attributes, and there is no ``__init__``: ``verify``
    sets the two or three slots the answer needs, and the rest is computed
    when read.  The witness is one argument id (an anchor resting on nothing),
    the ids the fixpoint found, or, for the single-claimant walk
    (``_Walked``), the claims it collected, which name their one claimant
    each.  ``reason`` and ``failing`` are found on first reading, as of the turn the
    question was asked, even if the conversation has moved on since.  ``_at``
    is left unset for a question about the latest turn (it reads as None).
    The fields are read-only, as when this was a frozen dataclass; equal
    answers compare equal.
    """

    __slots__ = ("_claim", "_witness", "_dm", "_at", "_turn", "_why")
    _claim: str
    _witness: int | list[int] | tuple[()]  # one id: an anchor resting on nothing; (): no witness
    _dm: DependencyMap
    _at: int | None
    _turn: int | None  # the turn a reason is found as of
    _why: tuple[str, str] | None  # the reason and the failing literal, once found
    grounded: bool
    status: str

    @property
    def claim(self) -> str:
        return self._claim

    @property
    def at(self) -> int | None:
        try:
            return self._at
        except AttributeError:
            return None

    @property
    def arguments(self) -> tuple[int, ...]:
        """The arguments of the witness Dep*(a_c), the anchor first (empty unless grounded)."""
        witness = self._witness
        return (witness,) if isinstance(witness, int) else tuple(witness)

    @property
    def chain(self) -> tuple[str, ...]:
        """Claims of the witness Dep*(a_c), the anchor's claim first."""
        witness = self._witness
        if isinstance(witness, int):
            return (self._claim,)
        if not witness:
            return ()
        args = self._dm.args
        return tuple(dict.fromkeys(args[a - 1].claim for a in witness))

    @property
    def reason(self) -> str | None:
        return None

    @property
    def failing(self) -> str | None:
        """The first literal the walk could not ground (None when grounded or no anchor)."""
        return None

    def _fields(self) -> tuple:
        return (self.claim, self.grounded, self.status, self.chain, self.arguments, self.reason, self.failing,
                self.at)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Verification):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (f"Verification(claim={self.claim!r}, grounded={self.grounded}, status={self.status!r}, "
                f"chain={self.chain!r}, arguments={self.arguments!r}, reason={self.reason!r}, "
                f"failing={self.failing!r}, at={self.at!r})")

    def to_json(self) -> dict:
        return {"claim": self.claim, "grounded": self.grounded, "chain": list(self.chain),
                "reason": self.reason, "status": self.status, "at": self.at}


class Grounded(Verification):
    """Grounded; ``_witness`` the anchor's id (``Engine.verify`` builds one itself for a leaf anchor)."""

    __slots__ = ()
    grounded = True
    status = GROUNDED


class _Walked(Grounded):
    """A witness found by the single-claimant walk, held as its claims: each names its one claimant."""

    __slots__ = ()
    _witness: list[str]  # type: ignore[assignment]  # claims here, argument ids in the other answers

    @property
    def arguments(self) -> tuple[int, ...]:
        claimants = self._dm.claimants  # append-only: the first claimant is the one there was when asked
        return tuple(claimants[c][0] for c in self._witness)

    @property
    def chain(self) -> tuple[str, ...]:
        return tuple(self._witness)


class _NoAnchor(Verification):
    __slots__ = ()
    grounded = False
    status = NO_ANCHOR

    @property
    def reason(self) -> str:
        return f"no argument claims {self._claim} (no anchor)"


class _Ungrounded(Verification):
    """The reason is found when read, by walking down from the newest anchor as of ``_turn``."""

    __slots__ = ()
    grounded = False
    status = UNGROUNDED

    def _explained(self) -> tuple[str, str]:
        if self._why is None:
            dm, turn = self._dm, self._turn
            # unchanged since the question (a new utterance always moves the turn): the cheaper latest view
            self._why = _explain(dm, self._claim, None if self._at is None and turn == dm.last_turn else turn)
        return self._why

    @property
    def reason(self) -> str:
        return self._explained()[0]

    @property
    def failing(self) -> str:
        return self._explained()[1]


def _grounded(claim: str, at: int | None, dm: DependencyMap, witness: list[int]) -> Verification:
    v = Grounded()
    v._claim, v._at, v._dm, v._witness = claim, at, dm, witness
    return v


def _ungrounded(claim: str, at: int | None, dm: DependencyMap) -> Verification:
    v = _Ungrounded()
    v._claim, v._at, v._dm, v._witness, v._why = claim, at, dm, (), None
    v._turn = dm.last_turn if at is None else at
    return v


def verify(dm: DependencyMap, literal: str, t: int | None = None) -> Verification:
    v: Verification
    if t is not None:
        return _verify_at(dm, literal, t)
    ids = dm.claimants.get(literal)
    if not ids:
        v = _NoAnchor()
        v._claim = literal
        v._witness = ()
        return v
    newest = dm.args[ids[-1] - 1]
    if newest.standing in GOOD_STANDING:
        if not newest.deps:  # an observation-like anchor grounds itself
            v = Grounded()
            v._claim = literal
            v._witness = newest.id
            return v
        if len(ids) == 1:
            chain = _walk_single(dm, literal, newest.id)
            if chain is not None:
                if chain:
                    v = _Walked()
                    v._claim = literal
                    v._dm = dm
                    v._witness = chain
                    return v
                return _ungrounded(literal, None, dm)
    elif len(ids) == 1:
        return _ungrounded(literal, None, dm)
    return _verify_at(dm, literal, None)


_FAILED: list[str] = []


_DEEPEST = 200
"""Depth at which the single-claimant walk hands over to the fixpoint (it recurses; Dep chains can be 10^5 deep)."""


def _walk_single(dm: DependencyMap, literal: str, anchor: int, good: frozenset[str] = GOOD_STANDING
                 ) -> list[str] | None:
    """Dep*(anchor) when every literal on the way has one claimant: the witness's claims, [] if it fails,
    None at a literal with several claimants or past ``_DEEPEST`` (the caller then computes the fixpoint).

    Depth first, in the order of ``_witness``.  With one claimant per literal
    the claims name the arguments, so the walk collects claims, the chain the
    answer shows.  When the anchor rests only on arguments that rest on
    nothing (most witnesses: a hypothesis over observations) one loop
    suffices; otherwise ``_walk_below`` recurses.  ``(b,) = claimants[q]`` is
    the one-claimant test: a KeyError is a literal nobody claims, a ValueError
    one with several claimants.
    """
    args = dm.args
    claimants = dm.claimants
    chain = [literal]
    try:
        for q in args[anchor - 1].deps:
            (b,) = claimants[q]
            rb = args[b - 1]
            if rb.standing not in good:
                return _FAILED
            if rb.deps:
                chain = []
                walked = _walk_below(args, claimants, {}, chain, anchor, literal, 0)
                return chain if walked else (_FAILED if walked is False else None)
            if q not in chain:  # the anchor's claim and a few of its Dep: a short list
                chain.append(q)
        return chain
    except KeyError:  # nobody claims q
        return _FAILED
    except ValueError:  # several arguments claim q
        return None


def _walk_below(args: list, claimants: dict[str, list[int]], colour: dict[str, bool], chain: list[str], a: int,
                claim: str, depth: int, good: frozenset[str] = GOOD_STANDING) -> bool | None:
    """Walk Dep(a) depth first, appending claims to ``chain`` (a claims ``claim``): True when all of it
    grounds, False when it fails, None past ``_DEEPEST``.  A claim is grey (False) while its argument's
    Dep is walked, black (True) after: meeting a grey one again is circular support, where each step is
    the only way to ground the next."""
    colour[claim] = False
    chain.append(claim)
    for q in args[a - 1].deps:
        (b,) = claimants[q]
        rb = args[b - 1]
        if rb.standing not in good:
            return False
        done = colour.get(q)
        if done is None:
            if not rb.deps:
                colour[q] = True
                chain.append(q)
            elif depth >= _DEEPEST:
                return None
            else:
                walked = _walk_below(args, claimants, colour, chain, b, q, depth + 1)
                if not walked:
                    return walked
        elif not done:
            return False
    colour[claim] = True
    return True


def _verify_at(dm: DependencyMap, literal: str, t: int | None) -> Verification:
    """The general answer, as of turn t: any number of claimants per literal."""
    args = dm.args
    claimants = dm.claimants_at(literal, t)
    if not claimants:
        v = _NoAnchor()
        v._claim, v._at, v._witness = literal, t, ()
        return v
    anchors = [a for a in claimants if args[a - 1].standing_at(t) in GOOD_STANDING]
    if not anchors:
        return _ungrounded(literal, t, dm)
    for anchor in reversed(anchors):  # an observation-like anchor grounds itself
        if not args[anchor - 1].deps_at(t):
            return _grounded(literal, t, dm, [anchor])
    established, grounded = least_fixpoint(dm, anchors, t)
    for anchor in reversed(anchors):
        if anchor in grounded:
            return _grounded(literal, t, dm, _witness(dm, anchor, established, t))
    return _ungrounded(literal, t, dm)


def _explain(dm: DependencyMap, literal: str, t: int | None) -> tuple[str, str]:
    """Why ``literal`` is not grounded as of turn t: (reason, the first failing literal)."""
    args = dm.args
    if t is None:
        anchors = [a for a in dm.claimants[literal] if args[a - 1].standing in GOOD_STANDING]
    else:
        anchors = [a for a in dm.claimants_at(literal, t) if args[a - 1].standing_at(t) in GOOD_STANDING]
    if not anchors:
        return f"{literal} {dm.note(literal, t)}", literal
    established, _ = least_fixpoint(dm, anchors, t)
    return _first_failure(dm, anchors[-1], established, t)


def grounded_arguments(dm: DependencyMap, t: int | None = None) -> set[int]:
    """Every argument of S_t grounded all the way down, in one least fixpoint (Verify of every
    claim at once: asking claim by claim walks a Dep chain once per claim on it)."""
    anchors = [r.id for r in dm.args if r.standing_at(t) in GOOD_STANDING]
    return least_fixpoint(dm, anchors, t)[1] if anchors else set()


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
            trail = " -> ".join(reversed(path + [q]))  # premise -> conclusion, as the picture's arrows run
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
