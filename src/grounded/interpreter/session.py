"""The Interpreter loop: propose, let the rules decide, re-prompt on rejection.

For each utterance the Interpreter proposes operations; the engine checks
every precondition and either applies them all or rejects the utterance with
the failing conditions, which go back to the Interpreter (the paper's
"re-prompts naming the failing condition").  The number of attempts is bounded
by the Interpreter; when it gives up, the utterance is still recorded, with
its text and no operations, and the conversation goes on: nothing is lost.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from grounded.core.errors import InputError, PreconditionError, Violation
from grounded.engine import Engine, Update
from grounded.interpreter.base import Interpreter
from grounded.interpreter.proposal import Proposal
from grounded.interpreter.transcript import Said

MAX_ROUNDS = 50
"""A hard stop for an exchange that never gives up."""


@dataclass
class TurnResult:
    said: Said
    update: Update
    proposal: Proposal | None
    """The accepted proposal; None when the utterance was recorded unclassified."""
    rejections: list[list[Violation]] = field(default_factory=list)
    failure: str | None = None
    """Unclassified because the interpreter's endpoint failed: the error (Exchange.failure)."""

    @property
    def unclassified(self) -> bool:
        return self.proposal is None

    @property
    def labels(self) -> list[str]:
        return self.proposal.labels if self.proposal is not None else []


def utterance(said: Said, proposal: Proposal) -> dict:
    """The event-log line of ``said`` with ``proposal``'s operations (and its labels, if any)."""
    u = {"turn": said.turn, "speaker": said.speaker, "text": said.text, "ops": proposal.ops}
    if proposal.labels:
        u["labels"] = proposal.labels
    return u


def interpret_turn(engine: Engine, interpreter: Interpreter, said: Said) -> TurnResult:
    """Interpret one utterance into ``engine`` (see the module docstring)."""
    exchange = interpreter.begin(engine, said)
    feedback: list[Violation] | None = None
    rejections: list[list[Violation]] = []
    for _ in range(MAX_ROUNDS):
        proposal = exchange.propose(feedback)
        if proposal is None:
            break
        try:
            update = engine.apply(utterance(said, proposal))
        except PreconditionError as exc:
            feedback = exc.violations
        except InputError as exc:  # ops the schema let through but the engine's models refuse
            feedback = [Violation(-1, "", "invalid_operations", exc.detail)]
        else:
            exchange.accepted(update)
            return TurnResult(said, update, proposal, rejections)
        rejections.append(feedback)
    reason = "; ".join(str(v) for v in feedback) if feedback else "the interpreter gave up"
    exchange.unclassified(reason)
    try:
        update = engine.apply(utterance(said, Proposal([])))
    except PreconditionError as exc:
        raise InputError(f"turn {said.turn}: the utterance cannot be recorded even without operations: "
                         + "; ".join(v.message for v in exc.violations)) from exc
    return TurnResult(said, update, None, rejections, exchange.failure)


def interpret(engine: Engine, interpreter: Interpreter, turns: list[Said]) -> Iterator[TurnResult]:
    """Interpret a transcript turn by turn into ``engine`` (whose log, if any, records each)."""
    for said in turns:
        yield interpret_turn(engine, interpreter, said)
