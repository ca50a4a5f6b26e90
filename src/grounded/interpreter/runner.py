"""Interpreting a transcript file into an event log: what ``grounded interpret`` does.

Chooses the interpreter (the LLM when an endpoint is configured, else the
offline rules; replay for scenarios with gold operations), opens the event
log and the call log, and runs the loop of ``session.py``.

A run that was interrupted (a crash, a kill, Ctrl-C) is continued with
``resume``: the log is read back (strictly; a torn final line is dropped),
checked to be this transcript's run so far, and the run goes on after its
last turn, appending to the same event log and call log.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grounded.core.errors import InputError
from grounded.dmap.model import Header
from grounded.engine import Engine
from grounded.interpreter.base import Interpreter
from grounded.interpreter.calllog import CallLog
from grounded.interpreter.llm import LLMConfig, LLMInterpreter, endpoint_configured
from grounded.interpreter.replay import ReplayInterpreter
from grounded.interpreter.rules import RuleInterpreter
from grounded.interpreter.session import TurnResult, interpret
from grounded.interpreter.transcript import Transcript, read_transcript

INTERPRETERS = ("llm", "rules", "replay")


def default_interpreter() -> str:
    return "llm" if endpoint_configured() else "rules"


def make_interpreter(name: str, *, call_log: str | Path | None = None, overwrite: bool = False,
                     **llm: object) -> Interpreter:
    """An interpreter by name; ``llm`` holds LLMConfig fields (None: from the environment or default).

    ``overwrite`` starts the call log afresh instead of continuing it; call
    ``check_output`` first, so that a refused run leaves no call log behind.
    """
    if name == "rules":
        return RuleInterpreter()
    if name == "replay":
        return ReplayInterpreter()
    if name == "llm":
        config = LLMConfig.from_env(**llm)
        return LLMInterpreter(config, CallLog(call_log, overwrite) if call_log is not None else None)
    raise InputError(f"unknown interpreter {name!r} (one of {', '.join(INTERPRETERS)})")


def check_output(log: str | Path, overwrite: bool, resume: bool = False) -> None:
    """Refuse to replace a non-empty event log unless ``overwrite`` (``resume`` continues it instead)."""
    log = Path(log)
    if overwrite and resume:
        raise InputError("--resume continues the event log and --force replaces it: give one of them")
    if not overwrite and not resume and log.exists() and log.stat().st_size > 0:
        raise InputError(f"{log} exists; pass --force to overwrite it, or --resume to continue an "
                         "interrupted run")


@dataclass
class RunSummary:
    turns: int = 0
    """Utterances interpreted by this run (not counting those a resumed run found in the log)."""
    unclassified: int = 0
    endpoint_failed: int = 0
    """Of the unclassified: those whose every request to the endpoint failed (the model never answered)."""
    failure: str | None = None
    """The last of those failures' errors."""
    reprompted: int = 0
    resumed_from: int | None = None
    """The last turn already in the log when the run was resumed (None: a new log)."""


def interpret_file(transcript: str | Path, interpreter: Interpreter, log: str | Path, *,
                   header: Header | None = None, overwrite: bool = False, resume: bool = False,
                   on_turn: Callable[[Engine, TurnResult], None] | None = None) -> RunSummary:
    """Interpret ``transcript`` into the event log at ``log``; returns counts.

    A new log, unless ``resume``: then an existing log of an earlier run of
    this transcript is continued after its last turn (``resumed_from``).  The
    run owns ``interpreter``: it is closed when the run ends, however it ends.
    """
    summary = RunSummary()
    try:
        t = read_transcript(transcript, header)
        check_output(log, overwrite, resume)
        path = Path(log)
        if resume and path.exists() and path.stat().st_size > 0:
            engine = _continue_run(t, path, interpreter, summary)
        else:
            path.unlink(missing_ok=True)
            engine = Engine(t.header, log=log)
        with engine:
            todo = [said for said in t.turns if summary.resumed_from is None or said.turn > summary.resumed_from]
            for result in interpret(engine, interpreter, todo):
                summary.turns += 1
                summary.unclassified += result.unclassified
                if result.failure is not None:
                    summary.endpoint_failed += 1
                    summary.failure = result.failure
                summary.reprompted += bool(result.rejections)
                if on_turn is not None:
                    on_turn(engine, result)
    finally:
        interpreter.close()
    return summary


def _continue_run(t: Transcript, log: Path, interpreter: Interpreter, summary: RunSummary) -> Engine:
    """The engine of an interrupted run's log, appending; the log must be this transcript's first turns."""
    logged: list[tuple[int, str, str]] = []
    engine = Engine.load(log, append=True,
                         on_update=lambda _, u: logged.append((u.turn, u.speaker, u.utterance.text)))
    try:
        if engine.header != t.header:
            raise InputError("the event log's header is not the transcript's (agents, propositions): not a run "
                             "of this transcript; pass the same --header, or --force to start again", path=str(log))
        said_by_turn = {said.turn: said for said in t.turns}
        for turn, speaker, text in logged:
            said = said_by_turn.get(turn)
            if said is None or (said.speaker, said.text) != (speaker, text):
                theirs = "no such turn" if said is None else f"{said.speaker}: {said.text[:60]!r}"
                raise InputError(f"turn {turn} of the log is {speaker}: {text[:60]!r} but the transcript's is "
                                 f"{theirs}: not a run of this transcript (--force starts again)", path=str(log))
            interpreter.skip(said)
    except BaseException:
        engine.close()
        raise
    summary.resumed_from = engine.turn or 0
    return engine
