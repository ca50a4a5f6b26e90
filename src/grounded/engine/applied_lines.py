"""The lines of a log as ``Engine.load`` reads them, for tools that replay them themselves.

``grounded check`` replays a history three ways (Python, Prolog, ASP) from
its utterance lines.  It must read a log exactly as every other command does
(strict, a torn final line ignored, ``partial`` stopping at the first bad
line), so it takes its lines from here: the lines ``Engine.load`` applied, as
they are written (turn assigned), and the status of the reading.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from grounded.dmap.model import Header
from grounded.engine.engine import Engine, Update
from grounded.io.eventlog import LogStatus, utterance_json


def applied_lines(path: str | Path, extensions: Iterable[str | Path] = (), *, strict: bool = True,
                  allow_rules_change: bool = False, progress: Callable[[int, int], None] | None = None
                  ) -> tuple[Header, list[dict[str, Any]], LogStatus]:
    """The header, every utterance line ``Engine.load`` applied (in order), and how the reading ended.

    Raises what ``Engine.load`` raises (strict: LogError naming file:line).  Every line is judged by
    the rules (``grounded check`` reads a log with this), never applied from a record beside the log.
    """
    lines: list[dict[str, Any]] = []

    def keep(_: Engine, update: Update) -> None:
        lines.append(utterance_json(update.turn, update.utterance))

    engine = Engine.load(path, extensions=extensions, strict=strict, on_update=keep,
                         allow_rules_change=allow_rules_change, progress=progress, effects=False)
    try:
        assert engine.log_status is not None
        return engine.header, lines, engine.log_status
    finally:
        engine.close()
