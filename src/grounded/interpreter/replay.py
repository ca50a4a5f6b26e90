"""The replay interpreter: a scenario's gold operations, as if an Interpreter had proposed them.

It runs the same loop as the LLM and rule-based interpreters, so a gold
replay produces the same kind of event log (with the gold ``labels``) and
scores 1.0 against its own scenario: the reference point for the others.
"""

from __future__ import annotations

from grounded.core.errors import InputError, Violation
from grounded.engine import Engine
from grounded.interpreter.base import Exchange, Interpreter
from grounded.interpreter.proposal import Proposal
from grounded.interpreter.transcript import Said


class ReplayInterpreter(Interpreter):
    name = "replay"

    def begin(self, engine: Engine, said: Said) -> Exchange:
        if said.gold is None:
            raise InputError(f"turn {said.turn}: the replay interpreter needs a scenario with gold operations")
        return _Replay(Proposal([dict(op) for op in said.gold.ops], classification=said.gold.labels))


class _Replay(Exchange):
    def __init__(self, proposal: Proposal):
        self._proposal: Proposal | None = proposal

    def propose(self, feedback: list[Violation] | None) -> Proposal | None:
        # gold operations are not revised: a rejection means the scenario is wrong
        proposal, self._proposal = self._proposal, None
        return proposal if feedback is None else None
