"""What every Interpreter provides: proposals for one utterance, revised on feedback.

The driver (``session.py``) asks an Interpreter to ``begin`` an utterance,
then for proposals until the engine accepts one: after a rejection it passes
back the failing preconditions (``Violation``, each with a stable code and a
message naming the condition), so an LLM can be re-prompted with them and the
rule-based interpreter can drop what failed.  An exchange returns None when it
gives up; the utterance is then recorded unclassified.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from grounded.core.errors import Violation
from grounded.engine import Engine, Update
from grounded.interpreter.proposal import Proposal
from grounded.interpreter.transcript import Said


class Exchange(ABC):
    """The attempts at one utterance."""

    failure: str | None = None
    """Why the exchange gave up when the cause was not the utterance: its endpoint failed (the error), not the
    model's answers; a run reports these apart from utterances the rules or the model left unclassified."""

    @abstractmethod
    def propose(self, feedback: list[Violation] | None) -> Proposal | None:
        """The next proposal; ``feedback`` says why the engine rejected the previous one."""

    def accepted(self, update: Update) -> None:  # noqa: B027 - a hook: nothing to do by default
        """The engine applied the last proposal."""

    def unclassified(self, reason: str) -> None:  # noqa: B027
        """The driver gave up on this utterance; it is recorded with no operations."""


class Interpreter(ABC):
    """Turns utterances into operations; ``name`` is what the CLI calls it."""

    name: str = ""

    @abstractmethod
    def begin(self, engine: Engine, said: Said) -> Exchange:
        """Start on one utterance, given the state before it."""

    def skip(self, said: Said) -> None:  # noqa: B027 - a hook: nothing to do by default
        """``said`` was interpreted by an earlier run that is being resumed (it may serve as context)."""

    def close(self) -> None:  # noqa: B027 - a hook: nothing to do by default
        """Release what the interpreter holds (files, connections)."""
