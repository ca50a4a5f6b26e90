"""The event log: JSON Lines, append-only, one utterance per line after a header.

Each accepted utterance is written, flushed and fsynced before the engine's
state moves on, so a crash loses at most the utterance being written; a line
cut short by such a crash is reported as ``file:line`` and the lines before it
stay usable.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from grounded.core.errors import InputError
from grounded.dmap.model import Header
from grounded.dmap.operations import UtteranceBase, op_to_json


def describe_validation_error(exc: ValidationError, skip: frozenset[str] = frozenset()) -> str:
    """A pydantic error as 'ops[1].target: Field required; ...' (tags in ``skip`` left out)."""
    parts = []
    for err in exc.errors():
        where = ""
        for seg in err["loc"]:
            if isinstance(seg, int):
                where += f"[{seg}]"
            elif seg in skip:
                continue
            else:
                where += ("." if where else "") + str(seg)
        parts.append(f"{where}: {err['msg']}" if where else err["msg"])
    return "; ".join(parts)


def header_json(header: Header) -> dict[str, Any]:
    """The header line: the format version first, then every field that is set (no ``world`` if none)."""
    return {"grounded": 1, **header.model_dump(mode="json", exclude={"grounded"}, exclude_none=True)}


def utterance_json(turn: int, utterance: UtteranceBase) -> dict[str, Any]:
    line = {"turn": turn, "speaker": utterance.speaker, "text": utterance.text,
            "ops": [op_to_json(op) for op in utterance.ops]}  # type: ignore[attr-defined]
    if utterance.labels:
        line["labels"] = list(utterance.labels)
    return line


def write_json_line(handle: IO[str], obj: dict[str, Any]) -> None:
    """Append one JSON line and make it durable (flush and fsync) before returning."""
    handle.write(json.dumps(obj, ensure_ascii=False) + "\n")
    handle.flush()
    os.fsync(handle.fileno())


class EventLogWriter:
    """Appends accepted utterances to a log file, durably, one line each."""

    def __init__(self, path: str | Path, header: Header | None = None):
        """Start a new log with ``header``, or (header None) continue an existing one."""
        self.path = Path(path)
        if header is not None:
            if self.path.exists() and self.path.stat().st_size > 0:
                raise InputError(f"{self.path} already exists; continue it with "
                                 "Engine.load(path, append=True)", path=str(self.path))
            self._file = open(self.path, "w", encoding="utf-8")
            self._write(header_json(header))
        else:
            self._file = open(self.path, "a", encoding="utf-8")

    def append(self, turn: int, utterance: UtteranceBase) -> None:
        self._write(utterance_json(turn, utterance))

    def _write(self, obj: dict[str, Any]) -> None:
        write_json_line(self._file, obj)

    def close(self) -> None:
        self._file.close()


def read_log(path: str | Path) -> tuple[Header, Iterator[tuple[int, dict[str, Any]]]]:
    """The header, and an iterator of (line number, utterance JSON) for the rest.

    Errors are raised as InputError naming the file and line.
    """
    path = Path(path)
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise InputError(f"cannot read the event log: {exc.strerror}", path=str(path)) from exc
    lines = _numbered_lines(path, handle)
    first = next(lines, None)
    if first is None:
        handle.close()
        raise InputError("empty file: an event log starts with a header line "
                         '{"grounded": 1, "agents": {...}, "props": [...]}', path=str(path))
    lineno, obj = first
    if not isinstance(obj, dict) or "grounded" not in obj:
        handle.close()
        raise InputError('line 1 must be the header {"grounded": 1, ...}', path=str(path), line=lineno)
    try:
        header = Header.model_validate(obj)
    except ValidationError as exc:
        handle.close()
        raise InputError("header: " + describe_validation_error(exc), path=str(path), line=lineno) from exc
    return header, lines


def _numbered_lines(path: Path, handle) -> Iterator[tuple[int, Any]]:
    with handle:
        for lineno, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"not valid UTF-8 at byte {exc.start}", path=str(path), line=lineno) from exc
            try:
                yield lineno, json.loads(text)
            except json.JSONDecodeError as exc:
                hint = " (truncated: no newline at the end, was the write interrupted?)" \
                    if not raw.endswith(b"\n") else ""
                raise InputError(f"invalid JSON at column {exc.colno}: {exc.msg}{hint}",
                                 path=str(path), line=lineno) from exc
