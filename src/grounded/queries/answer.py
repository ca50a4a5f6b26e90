"""What the query answers (``Verification``, ``Affected``) share: how they are built, and read lazily.

Each answer is a frozen dataclass: nothing outside its module sets its
fields, and nobody can change them once built.  Two things keep that cheap
(bench/compare.py measures it against the paper authors' engine):

* building: a frozen dataclass's own ``__init__`` sets each field with
  ``object.__setattr__``, four times what the whole answer used to cost to
  make (a Verify of an observation is a tenth of a microsecond: the authors'
  engine answers it with one dict lookup).  Each answer module has one
  constructor, ``_answer``, that makes the instance with ``new`` and fills its
  dictionary directly, half the cost; the fields stay frozen to everyone after.
* ``once``: what the answer computes when first read (a chain, the reason,
  the arguments that lose support) is kept in the instance's dictionary, as
  ``functools.cached_property`` does, without the lock Python 3.11's
  ``cached_property`` takes on every first read (a microsecond: more than a
  whole Verify).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar, overload

A = TypeVar("A")
T = TypeVar("T")

new = object.__new__
"""An instance without running ``__init__``: the answer modules' ``_answer`` fills its fields."""


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
        value = obj.__dict__[self.name] = self.compute(obj)  # the instance's entry shadows this descriptor
        return value
