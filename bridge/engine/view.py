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

from typing import Protocol

from grounded.core.bounds import check_turn
from grounded.dmap.state import DependencyMap
from grounded.engine.engine import _check_literal
from grounded.queries import verify as _verify


class Reads(Protocol):
    """What reading a text asks of an engine: its state and Verify."""

    @property
    def state(self) -> DependencyMap: ...

    def verify(self, literal: str, at: int | None = None) -> _verify.Verification: ...


class StateView:
    """Verify over a copy of an engine's state, answering as ``Engine.verify`` does (the same checks)."""

    __slots__ = ("_state",)

    def __init__(self, state: DependencyMap):
        self._state = state

    @property
    def state(self) -> DependencyMap:
        return self._state

    def verify(self, literal: str, at: int | None = None) -> _verify.Verification:
        if literal not in self._state.claimants and literal not in self._state.rev:
            _check_literal(literal)
        return _verify.verify(self._state, literal, check_turn(at))


__all__ = ["Reads", "StateView"]
