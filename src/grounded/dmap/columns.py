"""An append-only record of equal-shaped events, kept column by column.

The state keeps every commitment and every open-problem change as it came (the state as of an earlier
turn replays them: ``commitments_at``, ``open_problems_at``), one event for nearly every argument.  As a
list of tuples each event cost a tuple (64 to 72 bytes), a slot of the list, and an integer object for an
argument id read from the rules' reply: about 2.5 MB of each at 10^5 utterances, 6 MB of resident memory
together (issue 23: resident memory at most twice the authors' engine).  Kept in columns, an integer is 8
bytes of an ``array``, a flag one byte, a string one slot of a list (the strings are the state's own,
interned); the rows are made again, as tuples, when read.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar, cast

R = TypeVar("R", bound=tuple)


class Events(Generic[R]):
    """Rows of one shape, given by ``kinds``: one letter a field, ``i`` an integer, ``s`` a string
    (any object), ``b`` a flag.  Appended to and read in order; equal to a list or tuple of the same
    rows."""

    __slots__ = ("_columns", "_kinds")

    def __init__(self, kinds: str, rows: Iterable[R] = ()) -> None:
        if not kinds or set(kinds) - set("isb"):
            raise ValueError(f"kinds {kinds!r}: one of i, s, b per field")
        self._kinds = kinds
        self._columns: tuple[Any, ...] = tuple(array("q") if k == "i" else bytearray() if k == "b" else []
                                               for k in kinds)
        for row in rows:
            self.append(row)

    def append(self, row: R) -> None:
        if len(row) != len(self._kinds):
            raise ValueError(f"a row of {len(row)} fields, not {len(self._kinds)}: {row!r}")
        for column, value in zip(self._columns, row, strict=True):
            column.append(value)

    def __len__(self) -> int:
        return len(self._columns[0])

    def __iter__(self) -> Iterator[R]:
        fields = (map(bool, c) if k == "b" else c for c, k in zip(self._columns, self._kinds, strict=True))
        return cast(Iterator[R], zip(*fields, strict=True))

    def __getitem__(self, i: int) -> R:
        return cast(R, tuple(bool(c[i]) if k == "b" else c[i] for c, k in zip(self._columns, self._kinds,
                                                                                  strict=True)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Events, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"Events({self._kinds!r}, {list(self)!r})"
