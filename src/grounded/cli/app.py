"""The ``grounded`` Typer application and what its commands share.

Every command reads an event log (``.jsonl``) or a scenario (``.yaml``), and
reads it the one way ``Engine.load`` does: strict (a bad line is an error
naming ``file:line``, exit 2), a torn final line reported on stderr and
ignored, ``--partial`` to answer from the valid prefix, which the answer then
says (text and JSON).  Command modules (one per group, beside this one)
register themselves on ``app`` when imported, and ``COMMANDS`` says which
module registers which command: ``LazyGroup`` imports only the module of the
command invoked (all of them for ``--help``), so ``grounded --version`` and a
query answered from a snapshot do not import the solvers, the service and the
presenters they do not use (docs/reliability.md, start-up).  For the same
reason this module imports the engine and rich's progress bar where they are used.

Exit codes of the query commands (docs/reliability.md): 0 answered (and
grounded, for ``verify``), 1 answered and not grounded / no anchor (for
``affected``: the literal is unknown to the state), 2 input error.
"""

from __future__ import annotations

import functools
import gc
import importlib
import inspect
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import typer
from typer.core import TyperGroup
from typer.main import get_command_from_info, get_command_name, get_group_from_info

from grounded.cli import values
from grounded.core import collector
from grounded.core.errors import InputError
from grounded.core.vocabulary import SCENARIO_SUFFIXES
from grounded.present.visible import VisibleConsole

if TYPE_CHECKING:
    from rich.progress import Progress
    from typer._click import Command, Context  # typer's own click, which TyperGroup is written against

    from grounded.engine import Engine
    from grounded.engine.indexed import IndexedAnswers

COMMANDS: dict[str, str] = {
    "new-op": "author", "lint": "author", "test-op": "author", "cost": "author", "scenario-to-log": "author",
    "retractions": "retraction", "check": "check", "demo": "demo", "fuzz": "fuzz", "cover": "fuzz",
    "interpret": "interpret", "score": "interpret", "verify": "query", "affected": "query", "query": "query",
    "run": "run",
    "schema": "schema", "serve": "serve", "export": "serve", "mcp": "serve", "openapi": "serve",
    "extensions": "extensions", "state": "state", "show": "views_show", "book": "views_book", "rules": "views_rules",
    "whatif": "views_whatif", "try": "views_try", "world": "views_world", "tutorial": "tutorial",
    "keys": "serve",
}
"""Each command (or sub-group) of ``grounded`` and the module of grounded.cli that registers it, in the
order ``--help`` lists them (tests/test_startup.py holds this to what the modules register)."""


class LazyGroup(TyperGroup):
    """The ``grounded`` group: a command's module is imported when the command is looked up."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        values.install(self)  # --version, --help

    def list_commands(self, ctx: Context) -> list[str]:
        for name in COMMANDS:
            self._load(name)
        return [name for name in COMMANDS if name in self.commands] + [
            name for name in super().list_commands(ctx) if name not in COMMANDS]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        self._load(cmd_name)
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: Context, args: list[str]) -> tuple[str | None, Command | None, list[str]]:
        if args and args[0] not in COMMANDS:  # a typo: the suggestions need every command's name
            self.list_commands(ctx)
        try:
            return super().resolve_command(ctx, args)
        finally:
            STARTUP.resume()  # the command's modules are imported

    def _load(self, name: str) -> None:
        """Import the module registering ``name`` and build that command alone: Typer reads a command's
        parameters from its signature, a millisecond each, and the module may register others (``query``
        registers three; tests/test_startup.py holds every registered name to ``COMMANDS``)."""
        module = COMMANDS.get(name)
        if module is None or name in self.commands:
            return
        importlib.import_module(f"grounded.cli.{module}")
        for info in app.registered_commands:
            assert info.callback is not None
            if (info.name or get_command_name(info.callback.__name__)) == name:
                self._add(get_command_from_info(info, pretty_exceptions_short=app.pretty_exceptions_short,
                                                rich_markup_mode=app.rich_markup_mode))
        for group in app.registered_groups:
            if group.name == name:
                self._add(get_group_from_info(group, pretty_exceptions_short=app.pretty_exceptions_short,
                                              suggest_commands=app.suggest_commands,
                                              rich_markup_mode=app.rich_markup_mode))

    def _add(self, command: Command) -> None:
        """Add ``command``, its plain parameters converted without pydantic (grounded.cli.values)."""
        values.install(command)
        self.add_command(command)


class StartupCollector:
    """The cyclic garbage collector is off while ``main`` imports what the command needs.

    Importing makes many objects (modules, classes, functions) and almost no
    garbage, yet the collector ran during it, over everything imported so far,
    and once more at exit: a share of a query answered from a snapshot worth
    saving (docs/reliability.md, start-up).  ``resume``
    (once the command's module is imported) freezes what start-up made, so no
    later collection scans it again (``gc.freeze``), and turns the collector
    back on, for the command; leaving ``main`` does the same if no command got
    that far (``--version``, an error).  What start-up froze stays frozen: it lives as long as the
    process (an in-process caller may ``gc.unfreeze()``, as tests/inprocess.py does).
    """

    def __init__(self) -> None:
        self.paused = False

    def __enter__(self) -> StartupCollector:
        self.paused = gc.isenabled()
        gc.disable()
        return self

    def resume(self) -> None:
        if self.paused:
            self.paused = False
            collector.freeze()
            gc.enable()

    def __exit__(self, *exc: object) -> None:
        self.resume()


STARTUP = StartupCollector()
app = typer.Typer(cls=LazyGroup, add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True,
                  help="Check whether a continuation still rests on what a conversation has established.")
out = VisibleConsole(highlight=False, soft_wrap=True)  # a log's texts printed as characters, never as
err = VisibleConsole(stderr=True, highlight=False, soft_wrap=True)  # commands to the terminal

LITERAL_ARGS = {"ignore_unknown_options": True}
"""Context settings of commands taking a literal: ``-a3`` is the literal, not an unknown option ``-a``
(a literal that looks like one of the command's own short options goes after ``--``)."""


def _rule_files(paths: list[Path] | None) -> list[Path] | None:
    from grounded.core.literals import is_literal

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


def _time_limit(seconds: float | None) -> float | None:
    """``--timeout``: the command ends after ``seconds``, whatever it is doing.  An extension is trusted code
    (docs/extending.md): rules that never end run inside SWI-Prolog, where no Python signal handler runs until
    they return, so a timer thread ends the process itself (exit 2, one line saying so)."""
    if seconds is not None:
        if not seconds > 0:
            raise InputError(f"--timeout {seconds}: a number of seconds above 0")
        timer = threading.Timer(seconds, _timed_out, args=(seconds,))
        timer.daemon = True
        timer.start()
    return seconds


def _timed_out(seconds: float) -> None:
    sys.stderr.write(f"error: --timeout {seconds:g}: the command did not finish within {seconds:g} s, and was "
                     "stopped (rules that do not terminate? an extension is code: docs/extending.md)\n")
    sys.stderr.flush()
    os._exit(2)


Timeout = Annotated[float | None, typer.Option(
    "--timeout", metavar="SECONDS", callback=_time_limit,
    help="Stop with exit 2 after this many seconds (an extension's rules run unbounded otherwise).")]


def _turn(value: int | None) -> int | None:
    """``--at``: a turn within the bounds (typer passes a callback's parameters by name: one only)."""
    from grounded.core.bounds import check_turn

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

LOG_OPTIONS: dict[str, tuple[Any, Any]] = {
    "extension": (Extensions, None), "timeout": (Timeout, None), "partial": (Partial, False),
    "allow_rules_change": (AllowRulesChange, False), "no_cache": (NoCache, False)}
"""The options of a command that reads a log, in the order ``--help`` lists them: each one's annotation (its
declaration above) and default.  ``reads_log`` gives them to a command; ``--timeout`` acts by its callback."""


class LogReading(NamedTuple):
    """How a command reads its log, from the options ``reads_log`` gave it (a command without one of them
    reads as its default says).  A named tuple: a query answered from a snapshot makes few dataclasses
    (tests/test_startup.py)."""

    extension: list[Path] | None = None
    partial: bool = False
    allow_rules_change: bool = False
    no_cache: bool = False

    def load(self, path: Path) -> Engine:
        """``load_engine`` of ``path`` read this way."""
        return load_engine(path, self.extension, self.partial, self.allow_rules_change, self.no_cache)

    def answers(self, path: Path) -> Engine | IndexedAnswers:
        """``load_answers`` of ``path`` read this way: what Verify or Affected* of one claim is asked of."""
        return load_answers(path, self.extension, self.partial, self.allow_rules_change, self.no_cache)


def reads_log(*optional: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A command reading a log takes ``--extension`` and ``--timeout``, and those of ``--partial``,
    ``--allow-rules-change`` and ``--no-cache`` named in ``optional`` (all three when none is), declared once
    (``LOG_OPTIONS``) and handed to the command as its parameter ``reading: LogReading``.  Typer reads a
    command's options from its signature: the options take the place of ``reading`` there, so each command's
    ``--help`` lists them where it always has."""
    taken = [name for name in LOG_OPTIONS
             if name in ("extension", "timeout") or name in (optional or ("partial", "allow_rules_change", "no_cache"))]
    if unknown := set(optional) - set(LOG_OPTIONS):
        raise ValueError(f"no log-reading option {sorted(unknown)}")

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(command, eval_str=True)
        params = list(signature.parameters.values())
        at = [p.name for p in params].index("reading")
        options = [inspect.Parameter(name, params[at].kind, default=LOG_OPTIONS[name][1],
                                     annotation=LOG_OPTIONS[name][0]) for name in taken]
        signature = signature.replace(parameters=[*params[:at], *options, *params[at + 1:]])

        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            given = {name: kwargs.pop(name) for name in taken}
            del given["timeout"]  # its callback has set the command's time limit
            return command(*args, reading=LogReading(**given), **kwargs)

        run.__signature__ = signature  # type: ignore[attr-defined]
        run.__annotations__ = {**{p.name: p.annotation for p in signature.parameters.values()},
                               "return": signature.return_annotation}
        return run

    return decorate


DEFAULT_READING = LogReading()
"""The ``reading`` default in a command's own signature (``reads_log`` replaces it by the options)."""

PROGRESS_AFTER = 0.5
"""Seconds a load may run before a progress bar appears on stderr."""


def load_engine(path: Path, extensions: list[Path] | None, partial: bool = False,
                allow_rules_change: bool = False, no_cache: bool = False, note: str | None = None) -> Engine:
    """An engine holding a log's state, or a scenario's after all its gold turns.

    A log is read strictly unless ``partial``; what the reading found (a torn
    line, a partial answer) is said on stderr, and by ``log_json``/``say_partial``
    in the answer.  The state comes from the snapshot beside the log when it fits
    (docs/reliability.md), and the snapshot is written again when it did not;
    ``no_cache`` (``--no-cache``) replays the whole log by the rules (neither the snapshot nor the effects
    recorded beside the log) and writes nothing.  ``note``: why the snapshot's index was not used, said with
    what the reading found.
    """
    from grounded.engine import Engine

    if path.suffix in SCENARIO_SUFFIXES:
        from grounded.scenario import Scenario, run

        scenario = Scenario.load(path)
        engine = Engine(scenario.header, extensions=extensions or ())
        for _ in run(scenario, engine):
            pass
        return engine
    with LoadProgress(f"reading {path.name}") as progress:
        engine = Engine.load(path, extensions=extensions or (), strict=not partial,
                             allow_rules_change=allow_rules_change, progress=progress, snapshot=not no_cache,
                             effects=not no_cache)
    if note is not None and engine.log_status is not None:
        engine.log_status.snapshot_note = "; ".join(filter(None, (note, engine.log_status.snapshot_note)))
    report_reading(engine)
    return engine


def load_answers(path: Path, extensions: list[Path] | None, partial: bool = False,
                 allow_rules_change: bool = False, no_cache: bool = False) -> Engine | IndexedAnswers:
    """What Verify or Affected* of one claim is asked of: the snapshot's index beside the log when it fits the
    whole log (grounded.engine.indexed: the question reads only what it walks), else ``load_engine``'s engine
    (also when the index breaks mid-walk), with a note when an index was there and could not be used."""
    if no_cache or path.suffix in SCENARIO_SUFFIXES:
        return load_engine(path, extensions, partial, allow_rules_change, no_cache)
    from grounded.engine.indexed import indexed_answers

    def fallback(note: str | None) -> Engine:
        return load_engine(path, extensions, partial, allow_rules_change, no_cache, note)

    answers, note = indexed_answers(path, extensions or (), allow_rules_change, fallback)
    return answers if answers is not None else fallback(note)


def report_reading(engine: Engine) -> None:
    """Say on stderr what the reading of a log found: a torn final line, a partial answer, a snapshot or a
    record of effects beside the log that was not used."""
    status = engine.log_status
    if status is None:
        return
    if status.torn_line is not None:
        err.print(f"warning: {status.torn_note()}", style="yellow", markup=False)
    if not status.complete:
        err.print(f"warning: {status.partial_note()}", style="yellow", markup=False)
    if status.snapshot_note is not None:
        err.print(f"note: {status.snapshot_note}", style="dim", markup=False)
    if status.effects_note is not None:  # the record beside the log stopped authenticating: said, not hidden
        err.print(f"note: {status.effects_note}", style="dim", markup=False)


def log_json(engine: Engine | IndexedAnswers) -> dict[str, Any]:
    """What every JSON answer says about the log it rests on: ``complete`` and, if not, where it stopped."""
    return engine.log_status.to_json() if engine.log_status is not None else {"complete": True}


def say_partial(engine: Engine | IndexedAnswers) -> None:
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
        from rich.progress import BarColumn, DownloadColumn, Progress, SpinnerColumn, TextColumn, TimeRemainingColumn

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
