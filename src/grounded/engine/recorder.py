"""The engine's side of one utterance while the rules decide it: ``Recorder``, the
``Session`` that ``RuleState.apply`` calls back (grounded.solvers.prolog)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grounded.core.errors import PrologError
from grounded.epistemic.verdicts import verdict_term
from grounded.io.eventlog import EventLogWriter

if TYPE_CHECKING:
    from grounded.dmap.effects import Effect
    from grounded.dmap.operations import UtteranceBase
    from grounded.engine.world import Reading  # numpy: imported only with a world
    from grounded.solvers.termdata import Value


class Recorder:
    """The engine's side of one utterance while the rules decide it (a ``Session``).

    The rules call ``read``/``applied`` for the world model's findings, and, when
    the engine keeps an event log, ``record`` once they accept: the utterance is
    written inside the rules' transaction, so if the write fails the rules roll
    back too and every state stays as it was.
    """

    def __init__(self, log: EventLogWriter | None, turn: int, u: UtteranceBase, reading: Reading | None):
        self.log = log
        self.turn = turn
        self.u = u
        self.reading = reading
        self.line: bytes | None = None
        """The line written to the log, once recorded."""

    def read(self, index: int, effects: list[Effect]) -> list[Value]:
        if self.reading is None:
            raise PrologError("the rules asked the world model, but this conversation declares none")
        return [verdict_term(v) for v in self.reading.read(index, effects)]

    def applied(self, index: int) -> None:
        if self.reading is not None:
            self.reading.applied(index)

    def record(self) -> None:
        if self.log is not None:
            self.line = self.log.append(self.turn, self.u)
