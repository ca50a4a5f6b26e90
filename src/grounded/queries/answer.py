"""What the query answers (``Verification``, ``Affected``) share: how they are built, and read lazily.

Each answer is a frozen dataclass: nothing outside its module sets its
fields, and nobody can change them once built.  Two things keep that cheap
(bench/compare.py measures it against the paper authors' engine, whose Verify
of an observation is one dict look-up; the figures: docs/benchmarks.md, "Why
the answers are built as they are"):

* building: a frozen dataclass's own ``__init__`` sets each field with
  ``object.__setattr__``, which costs more than the rest of a small answer.
  So each answer is slotted, with one field, ``_f``, a tuple of what the
  query found; its public fields are properties reading it.  Its class is a
  dataclass without ``__init__`` (``init=False``): called with no argument,
  it is an empty instance (one ``object.__new__``, made by the type call;
  calling ``object.__new__`` ourselves goes through a wrapper that builds
  its arguments' tuple), and the slot is set through its own descriptor
  (``filler``): one C call, cheaper than filling an instance dictionary
  (which Python 3.11 makes only when ``__dict__`` is read) and than three
  slots.  Each answer module's one constructor, ``_answer``, does the two;
  the walks (``verify.verify_over``, ``affected.affected_over``) do them
  inline where they answer from the fast path, where the call itself is a
  noticeable part of the answer.  The fields stay frozen to everyone after.
* ``once``: what the answer computes when first read (a chain, the reason,
  the arguments that lose support) is kept in the instance's ``_once`` slot
  (a dict made on the first such read), as ``functools.cached_property``
  does, without the lock Python 3.11's ``cached_property`` takes on every
  first read (which costs more than a whole Verify).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar, overload

from grounded.core.bounds import check_turn
from grounded.core.literals import check_asked

if TYPE_CHECKING:
    from grounded.dmap.state import DependencyMap

A = TypeVar("A")
T = TypeVar("T")

ANSWER_SLOTS = ("_f", "_once")
"""The slots of an answer's base class: its one field, and what ``once`` keeps."""


class Over:
    """A dependency map and the indexes the query walks read, each in a slot (read as fast as a closure's
    cell): ``walks.Walks`` gives it the walks as methods, and ``Engine`` is one (``Engine.state`` sets it)."""

    __slots__ = ("_dm", "_args", "_claimants", "_rev")

    def __init__(self, dm: DependencyMap) -> None:
        self._walk_over(dm)

    def _walk_over(self, dm: DependencyMap) -> None:
        self._dm = dm
        self._args = dm.args
        self._claimants = dm.claimants
        self._rev = dm.rev


def checked(dm: DependencyMap, literal: str, at: int | None) -> int | None:
    """A question's checks, off the fast path: a literal ``dm`` does not hold must be one (a literal the map
    holds was validated when it came in), and ``at`` a turn (``check_turn``); the turn to answer as of."""
    if literal not in dm.claimants and literal not in dm.rev:
        check_asked(literal)
    return check_turn(at)


def rebuilt(cls: type, fields: tuple) -> object:
    """An answer read back by pickle, made as ``_answer`` makes it (pickle's default sets each slot through
    the frozen ``__setattr__`` and fails).  What ``once`` kept is not carried: it is computed again if read."""
    answer: object = cls()
    filler(cls)(answer, fields)
    return answer


def reduce(answer: object) -> tuple:
    """``__reduce__`` of every answer: pickled as its one field, read back by ``rebuilt`` (the service's
    text readers get states holding answers)."""
    return rebuilt, (type(answer), answer._f)  # type: ignore[attr-defined]  # every answer's one slot


def filler(cls: type) -> Callable[[object, tuple], None]:
    """The setter of ``cls``'s ``_f`` slot, bypassing the frozen ``__setattr__`` (for ``_answer`` only)."""
    return cls._f.__set__  # type: ignore[attr-defined]  # the slot's member descriptor


class once(Generic[A, T]):  # noqa: N801 - a decorator, named like property
    """A property computed on first read and kept: ``cached_property`` without the lock."""

    def __init__(self, compute: Callable[[A], T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> once[A, T]: ...

    @overload
    def __get__(self, obj: A, owner: type | None = None) -> T: ...

    def __get__(self, obj: A | None, owner: type | None = None) -> once[A, T] | T:
        if obj is None:
            return self
        try:
            memo = obj._once  # type: ignore[attr-defined]
        except AttributeError:  # the first value kept: the slot is empty until now
            memo = {}
            type(obj)._once.__set__(obj, memo)  # type: ignore[attr-defined]  # the slot's member descriptor
        try:
            return memo[self.name]
        except KeyError:
            value = memo[self.name] = self.compute(obj)
            return value
