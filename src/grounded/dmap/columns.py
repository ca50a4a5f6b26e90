"""An append-only record of equal-shaped events, kept column by column.

The state keeps every commitment and every open-problem change as it came (the state as of an earlier
turn replays them: ``commitments_at``, ``open_problems_at``), one event for nearly every argument.  As a
list of tuples each event cost a tuple (64 to 72 bytes), a slot of the list, and an integer object for an
argument id read from the rules' reply: about 2.5 MB of each at 10^5 utterances, 6 MB of resident memory
together, against a target of at most twice the authors' engine's resident memory.  Kept in columns, an integer is 8
bytes of an ``array``, a flag one byte, a string one slot of a list (the strings are the state's own,
interned); the rows are made again, as tuples, when read.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar, cast

R = TypeVar("R", bound=tuple)


class Events(Generic[R]):
    """Rows of one shape, given by ``kinds``: one letter a field, three or four fields (the state's two
    shapes), ``i`` an integer, ``s`` a string (any object), ``b`` a flag.  Appended to and read in order;
    equal to a list or tuple of the same rows."""

    __slots__ = ("_columns", "_kinds", "append")

    append: Callable[[R], None]
    """Adds one row, or nothing: a row of another length is a ValueError, a field its column cannot hold
    a TypeError, and the columns are left as they were.  Made for the row's length in ``__init__`` (one
    append per column, no loop: the state appends an event for nearly every argument, and a loop over the
    fields cost several times as much: docs/benchmarks.md)."""

    def __init__(self, kinds: str, rows: Iterable[R] = ()) -> None:
        if not kinds or set(kinds) - set("isb"):
            raise ValueError(f"kinds {kinds!r}: one of i, s, b per field")
        if len(kinds) not in (3, 4):  # the state's two shapes: an appender is written out for each
            raise ValueError(f"kinds {kinds!r}: rows of 3 or 4 fields")
        self._kinds = kinds
        self._columns: tuple[Any, ...] = tuple(array("q") if k == "i" else bytearray() if k == "b" else []
                                               for k in kinds)
        self.append = self._appender()
        for row in rows:
            self.append(row)

    def __getstate__(self) -> tuple[str, tuple[Any, ...]]:  # the appender is made again, not pickled
        return self._kinds, self._columns

    def __setstate__(self, state: tuple[str, tuple[Any, ...]]) -> None:
        self._kinds, self._columns = state
        self.append = self._appender()

    def __copy__(self) -> Events[R]:  # columns of its own, as a list's copy is a list of its own
        twin = Events.__new__(Events)
        twin.__setstate__((self._kinds, tuple(column[:] for column in self._columns)))
        return twin

    def _appender(self) -> Callable[[R], None]:
        columns, n = self._columns, len(self._kinds)
        adds = tuple(column.append for column in columns)

        def wrong(row: R) -> ValueError:
            return ValueError(f"a row of {len(row)} fields, not {n}: {row!r}")

        def undo() -> None:  # the last column is appended to last: its length is the rows kept
            kept = len(columns[-1])
            for column in columns:
                del column[kept:]

        if n == 3:
            a, b, c = adds

            def append(row: R) -> None:
                if len(row) != 3:
                    raise wrong(row)
                x, y, z = row
                try:
                    a(x), b(y), c(z)
                except BaseException:
                    undo()
                    raise
        else:  # 4: ``__init__`` takes no other length
            a, b, c, d = adds

            def append(row: R) -> None:
                if len(row) != 4:
                    raise wrong(row)
                w, x, y, z = row
                try:
                    a(w), b(x), c(y), d(z)
                except BaseException:
                    undo()
                    raise
        return append

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
