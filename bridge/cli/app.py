"""The ``grounded`` Typer application and what its commands share.

Every command reads an event log (``.jsonl``) or a scenario (``.yaml``), and
reads it the one way ``Engine.load`` does: strict (a bad line is an error
naming ``file:line``, exit 2), a torn final line reported on stderr and
ignored, ``--partial`` to answer from the valid prefix, which the answer then
says (text and JSON).  Command modules (one per group, beside this one)
register themselves on ``app``.

Exit codes of the query commands (docs/reliability.md): 0 answered (and
grounded, for ``verify``), 1 answered and not grounded / no anchor (for
``affected``: the literal is unknown to the state), 2 input error.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, SpinnerColumn, TextColumn, TimeRemainingColumn

from grounded.core.bounds import check_turn
from grounded.core.errors import InputError
from grounded.core.literals import is_literal
from grounded.engine import Engine
from grounded.scenario import SCENARIO_SUFFIXES, Scenario, run

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True,
                  help="Check whether a continuation still rests on what a conversation has established.")
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

LITERAL_ARGS = {"ignore_unknown_options": True}
"""Context settings of commands taking a literal: ``-a3`` is the literal, not an unknown option ``-a``
(a literal that looks like one of the command's own short options goes after ``--``)."""


def _rule_files(paths: list[Path] | None) -> list[Path] | None:
    for p in paths or ():
        if not p.is_file():
            hint = (f" (the literal -x{p} goes after --: grounded COMMAND FILE [OPTIONS] -- -x{p})"
                    if is_literal(str(p)) and not str(p).startswith("-") else "")
            raise InputError(f"--extension {p}: no such rule file{hint}")
    return paths


File = Annotated[Path, typer.Argument(help="Scenario (.yaml) or event log (.jsonl).")]
Extensions = Annotated[list[Path] | None,
                       typer.Option("--extension", "-x", help="Rule file adding operations (repeatable).",
                                    callback=_rule_files)]
def _turn(value: int | None) -> int | None:
    """``--at``: a turn within the bounds (typer passes a callback's parameters by name: one only)."""
    return check_turn(value)


At = Annotated[int | None, typer.Option("--at", help="Answer as of this earlier turn.", callback=_turn)]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON.")]
Partial = Annotated[bool, typer.Option(
    "--partial", help="Answer from the lines before a bad one instead of refusing (the answer says so: "
                      '"complete": false).')]
AllowRulesChange = Annotated[bool, typer.Option(
    "--allow-rules-change", help="Replay a log written by another rules version (its lines are still checked).")]

NoCache = Annotated[bool, typer.Option(
    "--no-cache", help="Neither read nor write the snapshot beside the log (<log>.snapshot) nor create its key: "
                       "replay the whole log.")]

PROGRESS_AFTER = 0.5
"""Seconds a load may run before a progress bar appears on stderr."""


def load_engine(path: Path, extensions: list[Path] | None, partial: bool = False,
                allow_rules_change: bool = False, no_cache: bool = False) -> Engine:
    """An engine holding a log's state, or a scenario's after all its gold turns.

    A log is read strictly unless ``partial``; what the reading found (a torn
    line, a partial answer) is said on stderr, and by ``log_json``/``say_partial``
    in the answer.  The state comes from the snapshot beside the log when it fits
    (docs/reliability.md), and the snapshot is written again when it did not;
    ``no_cache`` (``--no-cache``) replays the whole log and writes nothing.
    """
    if path.suffix in SCENARIO_SUFFIXES:
        scenario = Scenario.load(path)
        engine = Engine(scenario.header, extensions=extensions or ())
        for _ in run(scenario, engine):
            pass
        return engine
    with LoadProgress(f"reading {path.name}") as progress:
        engine = Engine.load(path, extensions=extensions or (), strict=not partial,
                             allow_rules_change=allow_rules_change, progress=progress, snapshot=not no_cache)
    report_reading(engine)
    return engine


def report_reading(engine: Engine) -> None:
    """Say on stderr what the reading of a log found: a torn final line, a partial answer."""
    status = engine.log_status
    if status is None:
        return
    if status.torn_line is not None:
        err.print(f"warning: {status.torn_note()}", style="yellow", markup=False)
    if not status.complete:
        err.print(f"warning: {status.partial_note()}", style="yellow", markup=False)
    if status.snapshot_note is not None:
        err.print(f"note: {status.snapshot_note}", style="dim", markup=False)


def log_json(engine: Engine) -> dict[str, Any]:
    """What every JSON answer says about the log it rests on: ``complete`` and, if not, where it stopped."""
    return engine.log_status.to_json() if engine.log_status is not None else {"complete": True}


def say_partial(engine: Engine) -> None:
    """In a text answer: that it rests on part of the log (nothing if it rests on all of it)."""
    note = engine.log_status.partial_note() if engine.log_status is not None else None
    if note is not None:
        out.print(note, style="bold yellow", markup=False)


class LoadProgress:
    """A progress bar on stderr while a log is read (on a terminal only).

    It appears after ``delay`` seconds, so quick loads print nothing; once the
    whole file is read, ``then`` (if given) names the work that follows while
    the spinner keeps turning (``grounded check``'s solving).
    """

    def __init__(self, label: str, then: str | None = None, delay: float = PROGRESS_AFTER):
        self.label = label
        self.then = then
        self.delay = delay
        self.start = time.monotonic()
        self._bar: Progress | None = None
        self._task: Any = None

    def __enter__(self) -> Callable[[int, int], None]:
        if self.delay <= 0:
            self._show(0)
        return self.update

    def _show(self, total: int) -> None:
        if not err.is_terminal:
            return
        self._bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                             TimeRemainingColumn(), console=err, transient=True)
        self._bar.start()
        self._task = self._bar.add_task(self.label, total=total or None)

    def update(self, done: int, total: int) -> None:
        if self._bar is None:
            if time.monotonic() - self.start < self.delay:
                return
            self._show(total)
            if self._bar is None:
                return
        self._bar.update(self._task, completed=done, total=total or None)
        if self.then is not None and total and done >= total:
            self._bar.update(self._task, description=self.then)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()


def exit_with(code: int) -> None:
    """End a command with ``code`` (after its answer is printed)."""
    if code:
        raise typer.Exit(code)


def check_at_within(engine: Engine, at: int | None) -> None:
    """``--at`` past the conversation's last turn is an input error (a picture of nothing is no answer)."""
    if at is not None and engine.turn is not None and at > engine.turn:
        raise InputError(f"--at {at}: the conversation ends at turn {engine.turn}")
