"""Interpreting a transcript file into an event log: what ``grounded interpret`` does.

Chooses the interpreter (the LLM when an endpoint is configured, else the
offline rules; replay for scenarios with gold operations), opens the event
log and the call log, and runs the loop of ``session.py``.
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
from grounded.interpreter.transcript import read_transcript

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


def check_output(log: str | Path, overwrite: bool) -> None:
    """Refuse to replace a non-empty event log unless ``overwrite``."""
    log = Path(log)
    if not overwrite and log.exists() and log.stat().st_size > 0:
        raise InputError(f"{log} exists; pass --force to overwrite it")


@dataclass
class RunSummary:
    turns: int = 0
    unclassified: int = 0
    reprompted: int = 0


def interpret_file(transcript: str | Path, interpreter: Interpreter, log: str | Path, *,
                   header: Header | None = None, overwrite: bool = False,
                   on_turn: Callable[[Engine, TurnResult], None] | None = None) -> RunSummary:
    """Interpret ``transcript`` into a new event log at ``log``; returns counts.

    The run owns ``interpreter``: it is closed when the run ends, however it ends.
    """
    summary = RunSummary()
    try:
        t = read_transcript(transcript, header)
        check_output(log, overwrite)
        Path(log).unlink(missing_ok=True)
        with Engine(t.header, log=log) as engine:
            for result in interpret(engine, interpreter, t.turns):
                summary.turns += 1
                summary.unclassified += result.unclassified
                summary.reprompted += bool(result.rejections)
                if on_turn is not None:
                    on_turn(engine, result)
    finally:
        interpreter.close()
    return summary
