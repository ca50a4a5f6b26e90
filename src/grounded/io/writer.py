"""Appending to an event log: one writer at a time, whole lines only, durable as asked.

* **Alone.**  The writer holds an exclusive advisory lock (``flock``) on the
  log for as long as it is open; a second writer, in this process or another,
  is refused at once with an error naming the file, never interleaved.
  Readers take no lock: they read whole lines and ignore a torn last one.
* **Whole lines.**  A line is written unbuffered, in one ``write`` (looping
  only if the kernel takes part of it), newline last.  If the write fails
  (disk full, the file-size limit, an I/O error) the file is cut back to
  where the line began, so no part of it stays behind to be glued to the next
  line, and LogWriteError says the utterance was not applied.
* **Durable as asked** (``fsync``): ``"always"`` (the default) fsyncs each
  line before ``append`` returns, so an acknowledged utterance survives a
  power cut; ``"batch"`` fsyncs a group of lines at once (group commit: every
  ``batch_lines`` lines or ``batch_seconds`` seconds, and at ``sync``/``close``);
  ``"never"`` leaves it to the OS.  Every policy survives the writer's process
  being killed: a line is in the kernel once ``append`` returns.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from grounded.core.bounds import MAX_LINE_BYTES
from grounded.core.errors import InputError, LogLockedError, LogWriteError
from grounded.io.format import encode_line, utterance_json

if TYPE_CHECKING:
    from grounded.dmap.operations import UtteranceBase

FsyncPolicy = Literal["always", "batch", "never"]
FSYNC_POLICIES: tuple[str, ...] = ("always", "batch", "never")

BATCH_LINES = 64
BATCH_SECONDS = 0.05


class EventLogWriter:
    """Appends accepted utterances to a log file, alone, one whole line each.

    ``header`` (a header line) starts a new log, refused if the file already
    holds anything; without it an existing log is continued.
    """

    def __init__(self, path: str | Path, header: dict[str, Any] | None = None, *, fsync: FsyncPolicy = "always",
                 batch_lines: int = BATCH_LINES, batch_seconds: float = BATCH_SECONDS):
        if fsync not in FSYNC_POLICIES:
            raise InputError(f"fsync={fsync!r}: expected one of {', '.join(FSYNC_POLICIES)}")
        self.path = Path(path)
        self.fsync: FsyncPolicy = fsync
        self.batch_lines = batch_lines
        self.batch_seconds = batch_seconds
        self._pending = 0
        self._since = 0.0
        self._broken = False
        existed = self.path.exists()
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as exc:
            raise LogWriteError(f"cannot open the event log for writing: {exc.strerror}", path=str(path)) from exc
        self._file: IO[bytes] = open(fd, "ab", buffering=0)
        try:
            _lock(fd, self.path)
            self._end = os.fstat(fd).st_size
            if header is not None:
                if self._end > 0:
                    raise InputError("the log already exists; continue it with "
                                     "Engine.load(path, append=True)", path=str(self.path))
                self._write(encode_line(header))
                if not existed and self.fsync == "always":
                    _sync_directory(self.path)
        except BaseException:
            self._file.close()
            raise

    @property
    def end(self) -> int:
        """The byte offset after the last whole line: where the next line goes."""
        return self._end

    def append(self, turn: int, utterance: UtteranceBase) -> bytes:
        """Write the utterance's line; on return it is in the log (durably under ``fsync="always"``).
        Returns the line written, without its newline."""
        line = encode_line(utterance_json(turn, utterance))
        self._write(line)
        return line[:-1]

    # -- repairing the tail of a log being continued ---------------------------------

    def cut_to(self, offset: int) -> None:
        """Drop everything after ``offset`` (a torn final line that was never acknowledged)."""
        try:
            os.ftruncate(self._file.fileno(), offset)
            self._sync(force=True)
        except OSError as exc:
            raise LogWriteError(f"cannot drop the torn final line: {exc.strerror}", path=str(self.path)) from exc
        self._end = offset

    def terminate_last_line(self) -> None:
        """Add the newline a whole last line lacks, so the next line does not run on from it."""
        self._write(b"\n", check_length=False)

    # -- writing ---------------------------------------------------------------------

    def _write(self, data: bytes, check_length: bool = True) -> None:
        if check_length and len(data) - 1 > MAX_LINE_BYTES:
            raise InputError(f"the line would be {len(data) - 1} bytes; an event-log line holds at most "
                             f"{MAX_LINE_BYTES} (shorten the texts or split the utterance)")
        fd = self._file.fileno()
        self._check_tail(fd)
        start = self._end
        try:
            view = memoryview(data)
            while view:
                written = self._file.write(view)
                if not written:  # pragma: no cover - a regular file either takes bytes or raises
                    raise OSError(errno.EIO, "the write made no progress")
                view = view[written:]
            self._pending += 1
            self._sync()
        except OSError as exc:
            self._undo(fd, start)
            raise LogWriteError(f"cannot append to the event log: {exc.strerror or exc}; the utterance was not "
                                "applied and the log is as it was", path=str(self.path)) from exc
        self._end = start + len(data)

    def _check_tail(self, fd: int) -> None:
        """The file ends where this writer's last line did (a failed cut-back is retried first)."""
        if self._broken:
            self._undo(fd, self._end)
            if self._broken:
                raise LogWriteError("a failed append left a partial line that cannot be removed; the log is "
                                    "read without it (a torn final line), but nothing more is written",
                                    path=str(self.path))
        size = os.fstat(fd).st_size
        if size != self._end:
            raise LogWriteError(f"the log changed under its writer ({size} bytes, {self._end} expected): "
                                "something wrote to it without the lock", path=str(self.path))

    def _undo(self, fd: int, start: int) -> None:
        try:
            os.ftruncate(fd, start)
        except OSError:
            self._broken = True
        else:
            self._broken = False

    def _sync(self, force: bool = False) -> None:
        if self.fsync == "never" and not force:
            self._pending = 0
            return
        if self.fsync == "batch" and not force:
            now = time.monotonic()
            if self._pending == 1:
                self._since = now
            if self._pending < self.batch_lines and now - self._since < self.batch_seconds:
                return
        os.fsync(self._file.fileno())
        self._pending = 0

    def sync(self) -> None:
        """Make every line written so far durable (what ``batch`` does per group)."""
        if self._pending and not self._file.closed:
            os.fsync(self._file.fileno())
            self._pending = 0

    def close(self) -> None:
        """Sync what is pending (unless ``fsync="never"``) and release the lock."""
        if self._file.closed:
            return
        try:
            if self.fsync != "never":
                self.sync()
        finally:
            self._file.close()

    @property
    def closed(self) -> bool:
        return self._file.closed


def _lock(fd: int, path: Path) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise LogLockedError("the log is being written by another writer (it holds the log's lock); two "
                             "writers would interleave their turns, so this one is refused", path=str(path)) from None
    except OSError as exc:  # a file system without locks: refuse rather than risk interleaving
        raise LogLockedError(f"cannot lock the log for writing: {exc.strerror}", path=str(path)) from exc


def _sync_directory(path: Path) -> None:
    """Make a new file's name durable too (its directory entry)."""
    try:
        fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_json_line(handle: IO[str], obj: dict[str, Any]) -> None:
    """Append one JSON line to a text file and make it durable (flush and fsync): the call log's way.

    A lone surrogate in a value (a hostile server's answer) is written escaped
    rather than failing the write.
    """
    text = json.dumps(obj, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj)
    handle.write(text + "\n")
    handle.flush()
    os.fsync(handle.fileno())
