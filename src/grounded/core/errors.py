"""The errors the engine raises; each names what is wrong and where."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class GroundedError(Exception):
    """Base of every error grounded reports to users (the CLI prints these as one line)."""


@dataclass(frozen=True, slots=True)
class Violation:
    """One failing precondition or invariant, as reported by the Prolog rules.

    ``index`` is the position of the operation in its utterance (-1 for the
    utterance itself, e.g. a turn out of order); ``code`` is stable and
    ``message`` names the failing condition in words the Interpreter can be
    re-prompted with.
    """

    index: int
    op: str
    code: str
    message: str

    def to_json(self) -> dict[str, object]:
        return {"index": self.index, "op": self.op, "code": self.code, "message": self.message}

    def __str__(self) -> str:
        where = "utterance" if self.index < 0 else f"op {self.index} ({self.op})"
        return f"{where}: [{self.code}] {self.message}"


class PreconditionError(GroundedError):
    """The rules rejected an utterance; nothing of it was applied."""

    def __init__(self, turn: int, speaker: str, violations: list[Violation]):
        self.turn = turn
        self.speaker = speaker
        self.violations = violations
        super().__init__(
            f"T{turn} {speaker}: rejected: " + "; ".join(str(v) for v in violations)
        )

    @property
    def codes(self) -> list[str]:
        return [v.code for v in self.violations]


class InputError(GroundedError):
    """Malformed input: a file, line and field are named when known."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        self.path = path
        self.line = line
        self.detail = message
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)


class LogError(InputError):
    """A corrupt or truncated event-log line.

    ``engine`` holds the state built from the lines before it, which stay
    usable.
    """

    def __init__(self, message: str, *, path: str, line: int, engine: Any = None):
        super().__init__(message, path=path, line=line)
        self.engine = engine


class LogWriteError(GroundedError):
    """An event log could not be written; the utterance was not applied and the log is as it was."""

    def __init__(self, message: str, *, path: str | None = None):
        self.path = path
        self.detail = message
        super().__init__(f"{path}: {message}" if path is not None else message)


class LogLockedError(LogWriteError):
    """Another writer holds the event log: two writers would interleave their turns."""


class PrologError(GroundedError):
    """SWI-Prolog itself failed (missing installation, a broken rule file)."""


class EndpointError(GroundedError):
    """An interpreter's endpoint failed on every utterance of a run: nothing was classified, so the run's log
    says nothing about the conversation (its utterances are recorded, unclassified)."""
