"""Reading an event log back: line by line, bounded, strict, with a torn final line recognised.

A log is read one line at a time and never more than MAX_LINE_BYTES of a
line, so ``/dev/zero`` or a corrupt multi-gigabyte line is refused after
4 MiB, not read into memory.  A complete line (ended by a newline) that is
not valid UTF-8 or JSON is an error naming ``file:line``.

The last line is special.  The writer appends each line with one write and
its newline last, so a crash mid-write leaves a final line with no newline:
a *torn* line, which never was acknowledged.  It is reported (``torn_line``)
and ignored, as a write-ahead log recovers.  A final line with no newline
that still parses as JSON is whole (JSON values end where they say they end;
only the newline is missing, e.g. from an editor) and is read like any line.

Whether an utterance line is valid against the schema and the rules is the
engine's to say (``Engine.load``): this module only yields JSON objects.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from grounded.core.bounds import MAX_LINE_BYTES
from grounded.core.errors import InputError
from grounded.dmap.notes import PlainHeader
from grounded.io.format import PlainOrigin, describe_validation_error, split_header

if TYPE_CHECKING:  # the models validate a header; a log whose snapshot fits is read without them
    from grounded.dmap.model import Header
    from grounded.io.origin import LogOrigin


@dataclass
class LogStatus:
    """How much of a log an answer rests on.

    ``complete`` is False when a partial reading stopped early: ``stopped_at``
    is the line it stopped at and ``error`` why (the lines before it were
    applied).  ``torn_line`` is a torn final line that was ignored (an answer
    is still complete: that line was never acknowledged).
    """

    path: str
    complete: bool = True
    stopped_at: int | None = None
    error: str | None = None
    torn_line: int | None = None
    utterances: int = 0
    """Utterance lines applied."""
    restored: int = 0
    """Of the utterances applied, those whose state came from the snapshot beside the log."""
    snapshot_note: str | None = None
    """Why the snapshot beside the log was not used or not written (grounded.io.snapshot), if it matters."""
    bulk: int = 0
    """Of the utterances applied, those whose effects came from the engine's own record beside the log
    (grounded.io.effectlog) rather than from running the rules."""
    effects_note: str | None = None
    """From which line the rules judged a log whose effects record stopped authenticating, and why."""

    def to_json(self) -> dict[str, Any]:
        """The keys every command adds to its JSON answer."""
        out: dict[str, Any] = {"complete": self.complete}
        if not self.complete:
            out.update(stopped_at=self.stopped_at, stop_reason=self.error)
        if self.torn_line is not None:
            out["torn_line"] = self.torn_line
        return out

    def partial_note(self) -> str | None:
        """One sentence saying that, and why, an answer rests on part of the log (None if complete)."""
        if self.complete:
            return None
        return (f"PARTIAL: answered from the {self.utterances} utterances before line {self.stopped_at} of "
                f"{self.path}, where the reading stopped: {self.error}")

    def torn_note(self) -> str | None:
        if self.torn_line is None:
            return None
        return (f"{self.path}:{self.torn_line}: torn final line ignored (no newline at its end: a write "
                "interrupted by a crash, never acknowledged)")


class LogReader:
    """One event log, opened for reading: its header, then its utterance lines.

    Iterating yields ``(line number, JSON object)`` for each utterance line;
    errors are InputError naming the file and line.  The header is validated
    when the reader is opened, unless ``check_header`` is false: then when
    ``header`` or ``origin`` is first read, or never, for a log whose snapshot
    fits (``authenticated_header``).  After the iteration,
    ``torn_line`` says whether a torn final line was ignored, ``unterminated``
    whether the last line read lacked its newline, and ``end`` is the byte
    offset just after the last whole line (where an appending writer goes on).
    """

    def __init__(self, path: str | Path, *, digest: bool = False, mark: int | None = None,
                 check_header: bool = True):
        self.path = Path(path)
        self.name = str(path)
        try:
            self._handle: IO[bytes] = open(self.path, "rb")
        except OSError as exc:
            raise InputError(f"cannot read the event log: {exc.strerror}", path=self.name) from exc
        try:
            self.size = _size(self._handle)
            self.offset = 0
            self.end = 0
            self.end_line = 0
            """The number of lines (blank ones included) in the bytes before ``end``."""
            self.torn_line: int | None = None
            self.unterminated = False
            self._lineno = 0
            self._hash = hashlib.sha256() if digest or mark is not None else None
            self._unhashed: list[bytes] = []
            self._mark = mark
            self.header_line = b""
            """The header line's bytes (what the effects beside the log are chained from)."""
            self.marked_digest: str | None = None
            """With ``mark``: the sha256 of the bytes before ``mark``, once the reading ended a line there."""
            self._header_line = self._read_header()
            self.header_end = self.offset
            """Where line 1 ends (a reader that has read nothing more stands there)."""
            self._header: tuple[Header, LogOrigin] | None = None
            self._plain: tuple[PlainHeader, PlainOrigin | LogOrigin] | None = None
            if check_header:
                self._validated()
        except BaseException:
            self._handle.close()
            raise

    # -- the bytes read ------------------------------------------------------------

    def digest(self) -> str:
        """The sha256 of the bytes before ``end`` (the header and every whole line read so far).

        Only for a reader opened with ``digest=True``: what a snapshot of the
        state read from those bytes is keyed by (grounded.io.snapshot).
        """
        if self._hash is None:
            raise ValueError("this reader was opened without digest=True")
        return self._hash.hexdigest()

    def skip_to(self, offset: int, lines: int) -> bool:
        """Move on to ``offset`` without reading lines, hashing the bytes on the way.

        ``offset`` must lie after the header; it becomes ``end`` and the next line
        read is line ``lines + 1``.  False (and the reader unusable) if the file is
        shorter than ``offset``.
        """
        if self.offset != self.end or offset < self.offset:
            raise ValueError("skip_to goes forward from the end of a whole line")
        while self.offset < offset:
            chunk = self._handle.read(min(1 << 20, offset - self.offset))
            if not chunk:
                return False
            self.offset += len(chunk)
            if self._hash is not None:
                self._hash.update(chunk)
        self._lineno = lines
        self._set_end()
        return True

    def _set_end(self) -> None:
        """The bytes read so far are whole lines: ``end`` moves to ``offset``."""
        self.end = self.offset
        self.end_line = self._lineno
        if self._hash is not None:
            for raw in self._unhashed:
                self._hash.update(raw)
            if self.end == self._mark:
                self.marked_digest = self._hash.hexdigest()
        self._unhashed.clear()

    # -- lines ---------------------------------------------------------------------

    def _next_raw(self) -> tuple[int, bytes | None, bool] | None:
        """The next non-blank line as (number, bytes without newline, terminated); None at the end.

        A torn final line comes back as (number, None, False).
        """
        while True:
            raw = self._handle.readline(MAX_LINE_BYTES + 2)
            if not raw:
                return None
            self._lineno += 1
            self.offset += len(raw)
            if self._hash is not None:
                self._unhashed.append(raw)
            terminated = raw.endswith(b"\n")
            body = raw[:-1] if terminated else raw
            if body.endswith(b"\r"):
                body = body[:-1]
            if len(body) > MAX_LINE_BYTES:
                raise InputError(f"line longer than {MAX_LINE_BYTES} bytes (the limit of an event-log line): "
                                 "not an event log, or a corrupt one", path=self.name, line=self._lineno)
            if not body or body.isspace():  # (isspace: no copy of the line, as strip made)
                if terminated:
                    self._set_end()
                continue
            if terminated:
                if self._hash is None:  # _set_end's whole work then, without a call per line
                    self.end, self.end_line = self.offset, self._lineno
                else:
                    self._set_end()
                return self._lineno, body, True
            if _parses(body):  # whole, only the newline is missing
                self._set_end()
                self.unterminated = True
                return self._lineno, body, False
            self.torn_line = self._lineno
            return self._lineno, None, False

    def decode(self, lineno: int, body: bytes) -> Any:
        """A line's bytes as JSON (InputError naming the line if they are not valid UTF-8 and JSON)."""
        return self._decode(lineno, body)

    def _decode(self, lineno: int, body: bytes) -> Any:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"not valid UTF-8 at byte {exc.start}", path=self.name, line=lineno) from exc
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON at column {exc.colno}: {exc.msg}", path=self.name,
                             line=lineno) from exc
        except RecursionError as exc:
            raise InputError("invalid JSON: nested too deeply", path=self.name, line=lineno) from exc

    def _read_header(self) -> tuple[int, dict[str, Any], dict[str, Any]]:
        """Line 1 decoded and split into the Header's fields and the origin's (validated by ``header``)."""
        first = self._next_raw()
        if first is None:
            raise InputError("empty file: an event log starts with a header line "
                             '{"grounded": 1, "agents": {...}, "props": [...]}', path=self.name)
        lineno, body, _ = first
        if body is None:
            raise InputError("the header line is cut short (no newline at its end: the write that created the "
                             "log was interrupted)", path=self.name, line=lineno)
        self.header_line = body
        obj = self._decode(lineno, body)
        if not isinstance(obj, dict) or "grounded" not in obj:
            raise InputError('line 1 must be the header {"grounded": 1, ...}', path=self.name, line=lineno)
        return (lineno, *split_header(obj))

    @property
    def header(self) -> Header:
        """The header line's fields, validated (an InputError names the field and line 1)."""
        return self._validated()[0]

    @property
    def origin(self) -> LogOrigin:
        """What the header line records about the rules and extensions that wrote the log, validated."""
        return self._validated()[1]

    def _validated(self) -> tuple[Header, LogOrigin]:
        if self._header is None:
            from pydantic import ValidationError

            from grounded.dmap.model import Header
            from grounded.io.origin import LogOrigin

            lineno, fields, origin = self._header_line
            try:
                self._header = Header.model_validate(fields), LogOrigin.model_validate(origin)
            except ValidationError as exc:
                raise InputError("header: " + describe_validation_error(exc), path=self.name,
                                 line=lineno) from exc
        return self._header

    @property
    def has_world(self) -> bool:
        """Whether the header declares a world model (such a log is never snapshotted)."""
        return self._header_line[1].get("world") is not None

    def authenticated_header(self) -> tuple[PlainHeader, PlainOrigin | LogOrigin]:
        """The header and origin read from line 1 as plain data, not validated again (no pydantic imported):
        only for a log whose snapshot fits, whose bytes (line 1 among them) are those a validating reading
        took the snapshot from, under its MAC (grounded.io.snapshot); a header with a world model is never
        so read.  An origin naming extensions is their model, built as authenticated."""
        if self._plain is None:
            _, fields, origin = self._header_line
            if origin.get("extensions"):
                from grounded.io.origin import LogOrigin

                self._plain = PlainHeader(fields), LogOrigin.authenticated(origin)
            else:
                self._plain = PlainHeader(fields), PlainOrigin(**origin)
        return self._plain

    def raw_lines(self) -> Iterator[tuple[int, bytes]]:
        """Each utterance line as (number, its bytes without the newline), not yet decoded.

        For a reader that decodes in bulk (``Engine.load``); ``decode`` gives the
        JSON, or the error naming the line, as iterating would.  A torn final
        line ends the lines.
        """
        try:
            while True:
                item = self._next_raw()
                if item is None:
                    return
                lineno, body, _ = item
                if body is None:  # torn: the last line, never acknowledged
                    return
                yield lineno, body
        finally:
            self.close()

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        for lineno, body in self.raw_lines():
            yield lineno, self._decode(lineno, body)

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> LogReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LogLines:
    """The utterance lines of a log as an iterator, with ``close()`` and what the reading found."""

    def __init__(self, reader: LogReader):
        self.reader = reader
        self._it = iter(reader)

    def __iter__(self) -> LogLines:
        return self

    def __next__(self) -> tuple[int, Any]:
        return next(self._it)

    def close(self) -> None:
        self.reader.close()

    @property
    def torn_line(self) -> int | None:
        return self.reader.torn_line


def read_log(path: str | Path) -> tuple[Header, LogLines]:
    """The header, and an iterator of (line number, utterance JSON) for the rest.

    Errors are raised as InputError naming the file and line; a torn final
    line ends the iteration (``lines.torn_line`` says which).
    """
    reader = LogReader(path)
    return reader.header, LogLines(reader)


def _parses(body: bytes) -> bool:
    try:
        json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return False
    return True


def _size(handle: IO[bytes]) -> int:
    """The file's size for progress reports (0 when unknown: a pipe, a device)."""
    try:
        st = os.fstat(handle.fileno())
    except OSError:
        return 0
    return st.st_size if st.st_size > 0 else 0
