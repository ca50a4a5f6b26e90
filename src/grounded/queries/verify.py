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
depth-first walk (``verify_over``) that collects the witness's claims as it
goes, and falls back to the fixpoint at a literal with several claimants, more
than ``_DEEPEST`` levels down, or when asked about an earlier turn.

The answer carries a witness chain (Dep*(a_c), the arguments the walk rests
on; an anchor with empty Dep when there is one, the shortest witness, else the
newest grounded anchor) or, when it fails, the first failing literal and what
stands for it ("a3 abandoned at T20 by -a3").  "No argument claims this" is
reported separately as ``no_anchor``: the verifier abstains rather than rejects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import FrozenInstanceError, dataclass
from typing import Any, ClassVar, Literal

from grounded.core.display import Displayable
from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.state import ArgRecord, DependencyMap
from grounded.queries.answer import ANSWER_SLOTS, Over, checked, filler, once, rebuilt, reduce

GROUNDED, UNGROUNDED, NO_ANCHOR = "grounded", "ungrounded", "no_anchor"


@dataclass(eq=False, repr=False, init=False)
class Verification(Displayable):
    """The answer to Verify(c), as of turn ``at`` (None: the latest).

    A frozen dataclass, a subclass per kind of answer, each built by ``_answer`` (the
    one constructor, given the kind) from what the query found: the claim,
    the turn, and ``_basis`` (each kind says what it is), and no more:
    ``grounded`` and ``status`` are class attributes, and ``chain``,
    ``arguments``, ``reason`` and ``failing`` are made when read, as of the
    turn the question was asked, even if the conversation has moved on since.
    Equal answers compare equal, whatever their kind.

    Frozen by its own ``__setattr__`` and ``__delattr__``, which every kind
    inherits, to every name: ``dataclass(frozen=True)`` compiles the two for
    each class it decorates, which a query answered from a snapshot would
    pay for the eight kinds at start-up (docs/benchmarks.md, start-up).
    """

    __slots__ = ANSWER_SLOTS

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    __reduce__ = reduce

    _f: tuple[str, int | None, Any]
    """(claim, at, basis): one slot, set once by ``_answer`` (see ``grounded.queries.answer``)."""
    grounded: ClassVar[bool] = False
    status: ClassVar[str] = NO_ANCHOR

    @property
    def claim(self) -> str:
        return self._f[0]

    @property
    def at(self) -> int | None:
        return self._f[1]

    @property
    def _basis(self) -> Any:
        return self._f[2]

    @property
    def arguments(self) -> tuple[int, ...]:
        """The arguments of the witness Dep*(a_c), the anchor first (empty unless grounded)."""
        return ()

    @property
    def chain(self) -> tuple[str, ...]:
        """Claims of the witness Dep*(a_c), the anchor's claim first."""
        return ()

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
    """Grounded, with the witness the least fixpoint found; ``_basis``: (the map, argument ids, the anchor first)."""

    __slots__ = ()

    grounded = True
    status = GROUNDED

    @property
    def arguments(self) -> tuple[int, ...]:
        return tuple(self._f[2][1])

    @property
    def chain(self) -> tuple[str, ...]:
        dm, witness = self._f[2]
        args = dm.args
        return tuple(dict.fromkeys(args[a - 1].claim for a in witness))


class _Leaf(Verification):
    """Grounded by an anchor resting on nothing (an observation-like argument); ``_basis``: its id."""

    __slots__ = ()

    grounded = True
    status = GROUNDED

    @property
    def arguments(self) -> tuple[int, ...]:
        return (self._f[2],)

    @property
    def chain(self) -> tuple[str, ...]:
        return (self.claim,)


class _Walked(Verification):
    """Grounded, found by the single-claimant walk; ``_basis``: (the map, the witness's claims, each
    naming its one claimant: a list, or the keys of the walk's ``colour``, in the same order)."""

    __slots__ = ()

    grounded = True
    status = GROUNDED

    @property
    def arguments(self) -> tuple[int, ...]:
        dm, claims = self._f[2]
        claimants = dm.claimants  # append-only: the first claimant is the one there was when asked
        return tuple(claimants[c][0] for c in claims)

    @property
    def chain(self) -> tuple[str, ...]:
        return tuple(self._f[2][1])


class _NoAnchor(Verification):
    """No argument claims the literal; ``_basis``: None."""

    __slots__ = ()

    @property
    def reason(self) -> str:
        return f"no argument claims {self.claim} (no anchor)"


class _Ungrounded(Verification):
    """Not grounded, found by the fixpoint; ``_basis``: (the map, the turn the reason is found as of).
    The reason is found when read, by walking down from the newest anchor as of that turn."""

    __slots__ = ()

    status = UNGROUNDED

    @once
    def _why(self) -> tuple[str, str]:
        dm, turn = self._f[2]
        # unchanged since the question (a new utterance always moves the turn): the cheaper latest view
        return _explain(dm, self.claim, None if self.at is None and turn == dm.last_turn else turn)

    @property
    def reason(self) -> str:
        return self._why[0]

    @property
    def failing(self) -> str:
        return self._why[1]


_Failure = tuple[list[str], str, "Verification | Literal[False] | None"]
"""Where the single-claimant walk stopped below the anchor: the claims from the anchor down to the failing
literal's dependent, the failing literal, and its one claimant's ``_Out`` answer when that is out of standing
(``out``: as of its standing change, unchanged by later turns), None when nobody claims it, False when it rests
on itself."""


class _Out(Verification):
    """Not grounded: the literal's one claimant is out of standing (found by the walk before it walks);
    ``_basis``: the claimant's standing change, a history entry (unchanged by later turns).

    One per standing change of a claimant, kept on its record and given to every question about its claim
    until the next change; its reason is worded when it is made (``out``) and kept in ``_words``, so reading
    ``.reason`` is a slot read, not an f-string (the f-string and the turn's ``str`` were most of the reading's
    cost).  Worded on the first read instead (the empty slot's AttributeError), the first question after a
    change would cost about twice as much as worded here (docs/benchmarks.md).  A ``_Failed``
    answer words its last step with the failing claimant's ``_Out``, so those words too are made once per
    standing change."""

    __slots__ = ("_words",)

    status = UNGROUNDED

    @property
    def reason(self) -> str:
        return self._words  # type: ignore[attr-defined]  # the slot ``out`` fills

    def __reduce__(self) -> tuple:
        """Pickled with its words (``answer.reduce`` carries ``_f`` alone)."""
        return _rebuilt_out, (self._f, self._words)  # type: ignore[attr-defined]  # the slot ``out`` fills

    @property
    def failing(self) -> str:
        return self._f[0]


_keep_words = _Out._words.__set__  # type: ignore[attr-defined]  # the slot's member descriptor (frozen to the rest)


def _rebuilt_out(fields: tuple, words: str) -> object:
    """An ``_Out`` read back by pickle, its words and all."""
    answer = rebuilt(_Out, fields)
    _keep_words(answer, words)
    return answer


class _Failed(Verification):
    """Not grounded, found by the single-claimant walk below the anchor; ``_basis``: where it stopped
    (``_Failure``).  The reason is worded from that when read, with no second walk."""

    __slots__ = ()

    status = UNGROUNDED

    @property
    def reason(self) -> str:
        path, q, change = self._f[2]
        # premise -> conclusion, as the picture's arrows run
        trail = f"{q} -> {path[0]}" if len(path) == 1 else " -> ".join([q, *reversed(path)])
        if change:  # q's claimant out of standing: its ``_Out``'s words, made once per standing change
            return f"{trail}: {change.reason}"
        if change is None:
            return f"{trail}: no argument claims {q}"
        return f"{trail}: circular support, {q} rests on itself"

    @property
    def failing(self) -> str:
        return self._f[2][1]


# -- the one constructor of each answer ------------------------------------------------


def _answer(cls: type[Verification], claim: str, at: int | None, basis: Any) -> Verification:
    """Every answer is made here, or as here inline in ``verify_over``'s fast path (see ``grounded.queries.answer``:
    a frozen dataclass filled at once)."""
    answer = cls()
    _fill(answer, (claim, at, basis))
    return answer


_fill = filler(Verification)


def leaf(record: ArgRecord) -> Verification:
    """Grounded by ``record``, the newest argument for its claim, in good standing and resting on nothing.

    The answer depends on the record alone (its claim and id, both fixed), so
    it is made once per argument and kept in the record's ``answer`` slot:
    answers are frozen, so every caller may share it.  ``verify_over``
    reads that slot itself and calls this only the first time.
    """
    answer = record.answer
    if answer is None:
        answer = record.answer = _answer(_Leaf, record.claim, None, record.id)
    return answer  # type: ignore[return-value]


def out(record: ArgRecord) -> Verification:
    """Not grounded: ``record``, its claim's one argument, is out of standing (an ``_Out``).

    The answer depends on the record's claim and its latest standing change alone, so it is made once per
    change, its reason worded with it (``_Out``), and kept in the record's ``answer`` slot, as ``leaf`` keeps
    its answer (never both at once: out of standing, an argument grounds nothing).  A standing change empties
    the slot (``ArgRecord.change``, the one place the standing changes), so a kept answer is always the latest
    change's.  The walks read the slot themselves and call this only when it is empty.
    """
    claim, change = record.claim, (record.changes or record.history)[-1]  # changes: never empty out of standing
    answer = record.answer = _Out()
    _fill(answer, (claim, None, change))
    turn, standing, cause = change  # ``standing_text``'s words (dmap/notes.py) after the claim, in one f-string
    _keep_words(answer, f"{claim} {standing} at T{turn}" if cause is None
                else f"{claim} {standing} at T{turn} by {cause}")
    return answer


def _ungrounded(claim: str, at: int | None, dm: DependencyMap) -> Verification:
    return _answer(_Ungrounded, claim, at, (dm, dm.last_turn if at is None else at))


def verify(dm: DependencyMap, literal: str, t: int | None = None) -> Verification:
    """Verify(literal) over ``dm`` as of turn t (None: the latest), one question: a caller asking many keeps
    the map's ``Over`` (``Engine`` is one)."""
    return verify_over(Over(dm), literal, t)


def verify_over(self: Over, literal: str, at: int | None = None) -> Verification:
    """Verify(literal) over the map ``self`` walks, as of turn ``at`` (None: the latest): ``Engine.verify``.

    A method of ``walks.Walks`` (``Engine`` is one), so that a question is one
    Python frame over the walk: each frame between the caller and the walk
    (the engine's method, a walk function beside it) is a noticeable part of a
    small answer's cost (bench/compare.py); the map's indexes are slots of ``self``
    (``answer.Over``), read as fast as a closure's cells, and a method is looked
    up faster than a function kept in an instance's attribute.  A literal the map holds was validated
    when it came in, so a question about one at the latest turn is checked for
    nothing; any other goes through ``checked`` first.

    When the literal has one claimant, Dep*(anchor) is walked here when every
    literal on the way has one claimant too, collecting the witness's claims
    (they name the arguments), or where it fails (``_Failure``); at a literal
    with several claimants, or past ``_DEEPEST``, the fixpoint answers.  Depth
    first, in the order of Dep, so the first failure met is the one the
    fixpoint's ``_first_failure`` reports.  The anchor's own level is walked
    here, as ``_walk_below`` walks each level below it (so a hypothesis over
    observations, most witnesses, needs no further call), and ``_walk_below``
    recurses from each of its Dep that rests on something.
    ``(b,) = claimants[q]`` is the one-claimant test: a KeyError is a literal
    nobody claims, a ValueError one with several claimants.

    An answer kept on the newest claimant's record (``leaf``, ``out``) is returned
    before anything else of the record is read: it is the answer as long as that
    record is the newest, since ``ArgRecord.change`` and a Dep added empty it, and
    ``out`` keeps one only for a literal's one claimant (any later one is newer).
    Reading the standing and Dep first would make a Verify of an observation
    no faster than the authors' engine, whose answer is a dict look-up
    (docs/benchmarks.md).
    """
    if at is not None:
        return _verify_at(self._dm, literal, checked(self._dm, literal, at))
    try:
        ids = self._claimants[literal]
    except KeyError:  # nobody claims it (a look-up with ``get`` cost every other answer more)
        checked(self._dm, literal, None)
        return _answer(_NoAnchor, literal, None, None)
    newest = self._args[ids[-1] - 1]
    kept = newest.answer
    if kept is not None:  # ``leaf``'s or ``out``'s (see above)
        return kept  # type: ignore[return-value]  # the record keeps an object
    if newest.standing not in GOOD_STANDING:
        if len(ids) != 1:
            return _verify_at(self._dm, literal, None)
        return out(newest)
    deps = newest.deps
    if not deps:  # an observation-like anchor grounds itself (its answer kept: ``leaf``)
        return leaf(newest)
    if len(ids) != 1:
        return _verify_at(self._dm, literal, None)
    args, claimants = self._args, self._claimants
    colour = {literal: False}  # the anchor's level of ``_walk_below``, here: the keys become the chain
    q = literal
    try:
        for q in deps:
            if q in colour:  # met before: it has one claimant, in good standing, or is being walked
                if colour[q]:
                    continue
                return _answer(_Failed, literal, None, ([literal], q, False))  # rests on its own claim
            (b,) = claimants[q]
            rb = args[b - 1]
            if rb.standing not in GOOD_STANDING:
                answer: Verification = _Failed()  # ``_answer``, inline (so below): a call costs much of a small answer
                _fill(answer, (literal, None, ([literal], q, rb.answer or out(rb))))
                return answer
            if not rb.deps:
                colour[q] = True
                continue
            walked = _walk_below(args, claimants, colour, b, q, 1)
            if walked is None:
                return _verify_at(self._dm, literal, None)
            if walked is not True:
                answer = _Failed()
                _fill(answer, (literal, None, walked))
                return answer
    except KeyError:  # nobody claims q
        return _answer(_Failed, literal, None, ([literal], q, None))
    except ValueError:  # several arguments claim q
        return _verify_at(self._dm, literal, None)
    answer = _Walked()
    _fill(answer, (literal, None, (self._dm, colour)))
    return answer



_DEEPEST = 200
"""Depth at which the single-claimant walk hands over to the fixpoint (it recurses; Dep chains can be 10^5 deep)."""


def _walk_below(args: list, claimants: Mapping[str, Sequence[int]], colour: dict[str, bool], a: int, claim: str,
                depth: int, good: frozenset[str] = GOOD_STANDING) -> Literal[True] | _Failure | None:
    """Walk Dep(a) depth first (a claims ``claim``): True when all of it grounds, where it fails
    (``_Failure``), None past ``_DEEPEST`` or at a literal with several claimants.  A claim is grey
    (False) while its argument's Dep is walked, black (True) after: meeting a grey one again is circular
    support, where each step is the only way to ground the next.  The claims enter ``colour`` in the
    witness's order, so once all is black its keys are the chain; the grey claims, in that order, are
    the path from the anchor down: the failure's trail."""
    colour[claim] = False
    for q in args[a - 1].deps:
        if q in colour:  # a claim met before has one claimant, in good standing: no look-up again
            if colour[q]:
                continue
            return _greys(colour), q, False
        try:
            (b,) = claimants[q]
        except KeyError:  # nobody claims q
            return _greys(colour), q, None
        except ValueError:  # several arguments claim q
            return None
        rb = args[b - 1]
        if rb.standing not in good:
            return _greys(colour), q, rb.answer or out(rb)
        if not rb.deps:
            colour[q] = True
        elif depth >= _DEEPEST:
            return None
        else:
            walked = _walk_below(args, claimants, colour, b, q, depth + 1)
            if walked is not True:
                return walked
    colour[claim] = True
    return True


def _greys(colour: dict[str, bool]) -> list[str]:
    """The claims being walked (grey), from the anchor down."""
    return [c for c, done in colour.items() if not done]


def _verify_at(dm: DependencyMap, literal: str, t: int | None) -> Verification:
    """The general answer, as of turn t: any number of claimants per literal."""
    args = dm.args
    claimants = dm.claimants_at(literal, t)
    if not claimants:
        return _answer(_NoAnchor, literal, t, None)
    anchors = [a for a in claimants if args[a - 1].standing_at(t) in GOOD_STANDING]
    if not anchors:
        return _ungrounded(literal, t, dm)
    for anchor in reversed(anchors):  # an observation-like anchor grounds itself
        if not args[anchor - 1].deps_at(t):
            return _answer(Grounded, literal, t, (dm, [anchor]))
    established, grounded = least_fixpoint(dm, anchors, t)
    for anchor in reversed(anchors):
        if anchor in grounded:
            return _answer(Grounded, literal, t, (dm, _witness(dm, anchor, established, t)))
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
