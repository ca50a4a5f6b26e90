"""A read-only engine over a dependency map: what Verify needs, without Prolog.

The service reads a continuation's text in a worker process (``service/reading.py``):
SWI-Prolog may be called only from the thread that started it, and the text
reader's work (clauses, similarity, the sentence encoder) would hold the event
loop for seconds.  The reader needs no rules: it walks the state (the
dependency map, plain Python data that pickles) and asks Verify, a walk over
the same state.  ``StateView`` is that pair; ``Reads`` is what the reader
asks of an engine, which both ``Engine`` and ``StateView`` give.
"""

from __future__ import annotations

from typing import Any, Protocol

from grounded.dmap.state import DependencyMap
from grounded.queries import affected as _affected
from grounded.queries import registry as _registry
from grounded.queries import verify as _verify


class Reads(Protocol):
    """What reading a text asks of an engine: its state and Verify."""

    @property
    def state(self) -> DependencyMap: ...

    def verify(self, literal: str, at: int | None = None) -> _verify.Verification: ...


class StateView:
    """The queries over a copy of an engine's state (or any dependency map), answering as ``Engine`` does (the
    same checks): a ``Source`` of the query registry without the rules."""

    __slots__ = ("_state",)

    def __init__(self, state: DependencyMap):
        self._state = state

    @property
    def state(self) -> DependencyMap:
        return self._state

    def verify(self, literal: str, at: int | None = None) -> _verify.Verification:
        return _verify.verify(self._state, literal, at)

    def affected(self, literal: str, closure: bool = True, at: int | None = None) -> _affected.Affected:
        """Affected*(literal), or one-step Affected with ``closure=False``, as ``Engine.affected`` answers it."""
        return _affected.affected(self._state, literal, closure, at)

    def ask(self, query: str, at: int | None = None, **params: Any) -> dict[str, Any]:
        """A registered query in its one JSON shape, as ``Engine.ask`` answers it."""
        return _registry.get(query).ask(self, at, **params)


__all__ = ["Reads", "StateView"]
