"""Stored utterances brought into an engine in bulk: from the effects the rules recorded when they accepted
each one, or, for rows recorded without them, by the rules in one request per batch.

A server's store keeps, beside each accepted utterance's line, the rules' decision on it as the flat
text the effect log records (``grounded.solvers.flat.accepted_text``).  An engine catching up with rows
another process appended, or built cold from the store, mirrors those decisions in its Python state
without running the rules (``replay_recorded``: the path ``Engine.load`` takes for a log read back from
its effects record), so no Prolog is needed and it may run off the thread that owns the rules; the
rules' copy of the state is then made from the Python state when they are next asked (as after a
snapshot).  Rows without a recorded decision go to the rules (``replay_by_rules``), on the rules' thread.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, cast

from grounded.core.errors import InputError
from grounded.engine import loading
from grounded.io.reader import LogStatus

if TYPE_CHECKING:
    from grounded.engine.engine import Engine
    from grounded.io.eventlog import LogReader

Row = tuple[int, bytes]
"""A stored utterance: its sequence number and its event-log line as the store holds it (UTF-8 JSON)."""


class _StoredLines:
    """The little of a log reader the engine's bulk paths use: a name for what they report, and the JSON of a
    line that did not read straight from its bytes."""

    def __init__(self, name: str):
        self.name = name

    def decode(self, lineno: int, body: bytes) -> Any:
        try:
            return json.loads(body)
        except ValueError as exc:
            raise InputError(f"stored line is not JSON: {exc}", path=self.name, line=lineno) from exc


def rules_hold_state(engine: Engine) -> bool:
    """Whether the rules hold this engine's state as facts already (else they take it from the Python state
    when next asked): rows mirrored from their records then cost a full restore of those facts, where the rules
    judging the same rows cost only the rows."""
    return engine.rules_started and engine.rules.holds_state


def replay_recorded(engine: Engine, rows: list[Row], decisions: list[str], name: str = "store") -> None:
    """Commit ``rows`` from the rules' recorded ``decisions`` on them (one flat text each, in order): a
    recorded ``Decision`` (``Decision.from_record``), the Python state only, the rules not run; their facts
    are made from the state when they are next asked.

    Safe off the rules' thread for an engine no other thread uses meanwhile (it asks the rules nothing).
    A row not of the shape the server writes is validated by the engine's models, which start the rules.
    """
    loading.commit_recorded(engine, rows, decisions, cast("LogReader", _StoredLines(name)), LogStatus(name), None)
    engine.take_state(engine.state)  # started rules take the state from it when next asked


def replay_by_rules(engine: Engine, rows: list[Row], name: str = "store") -> None:
    """The rules decide ``rows`` from the engine's state, ``loading.BATCH`` per decision (on the rules'
    thread), and the engine commits them; LogError names the row (its seq as the line) that they refused,
    the rows before it committed."""
    loading.judge_lines(engine, iter(rows), cast("LogReader", _StoredLines(name)), LogStatus(name), None, None,
                        loading.BATCH, None)
