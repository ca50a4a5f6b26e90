"""The effects beside an event log: what the rules decided for each line the engine wrote.

``talk.jsonl.effects`` holds, for each utterance line an engine wrote to
``talk.jsonl``, the effects the rules applied for it and the claims it took
out of S_t, in the flat encoding the rules reply with (grounded.solvers.flat):
one entry a line, ``<mac> <tokens>``.  Reading the engine's own log back,
``Engine.load`` applies these effects to its state in bulk instead of running
the rules' preconditions line by line; the rules' facts are then put in from
that state, as from a snapshot.

It is a cache, trusted only as far as it authenticates.  Each entry carries
a MAC (keyed BLAKE2b) under a key derived from the user's snapshot key
(grounded.io.snapshot), chained over the previous entry's MAC, the log line's
bytes and the entry's own: the first MAC starts from the log's header line, the rules version and the extensions.  So
an entry authenticates only if this user's engine, running these rules,
wrote it for this very line after this very prefix of the log.  The reading
stops trusting at the first entry that is missing, torn, tampered or written
for other bytes: that line and every one after it go through the rules, and
``LogStatus.effects_note`` says from which line.  A log from elsewhere, one
edited by hand and ``grounded check`` (which judges every line) are always
judged by the rules.

Writing never fails an utterance: the log is what counts, and an entry that
cannot be written ends the file's use for that log (the lines after it are
judged by the rules when read).  The file is opened without following a
symbolic link and without waiting, and used only if it is a regular file
(a FIFO there would hold every writer); it is read line by line with a
bound on each line.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from hmac import compare_digest
from pathlib import Path
from typing import IO

from grounded.io.snapshot import user_secret

SUFFIX = ".effects"
FORMAT = b"grounded-effects-2"
MAC_HEX = 64
MAX_ENTRY_BYTES = 1 << 20
"""An entry longer than this is not read (the rules' reply for one line of at most 1 MiB is far shorter)."""


def effects_path(log: str | Path) -> Path:
    return Path(str(log) + SUFFIX)


def _key(secret: bytes) -> bytes:
    """The record's own key, from the user's snapshot key (a MAC of one is never one of the other)."""
    return hashlib.sha256(FORMAT + b"\n" + secret).digest()


def _mac(key: bytes, data: bytes) -> bytes:
    """Keyed BLAKE2b (RFC 7693's MAC mode): one pass over the data, where HMAC-SHA256 makes two and
    hashes the key's pads each time, so half the cost of authenticating an entry."""
    return hashlib.blake2b(data, key=key, digest_size=32).digest()


def _seed(key: bytes, header_line: bytes, rules: str, extensions: tuple[tuple[str, str], ...]) -> bytes:
    """The chain's start: the log's header line and the reading (rules version, extensions)."""
    reading = json.dumps([rules, [list(e) for e in extensions]], separators=(",", ":")).encode()
    return _mac(key, FORMAT + b"\n" + reading + b"\n" + header_line)


def _open(path: Path, flags: int) -> int:
    """The regular file at ``path``, opened as the snapshot is: never through a symbolic link, and without
    waiting (a FIFO planted there would hold a writer, or a reader, until its other end opened); OSError for
    anything else (the caller then does without the file)."""
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return fd


class EffectsWriter:
    """Appends one authenticated entry per line the engine writes to its log."""

    def __init__(self, handle: IO[bytes], key: bytes, chain: bytes):
        self._file: IO[bytes] | None = handle
        self._key = key
        self._chain = chain

    @classmethod
    def create(cls, log: str | Path, header_line: bytes, rules: str,
               extensions: tuple[tuple[str, str], ...]) -> EffectsWriter | None:
        """A new file for a new log (an old one at the path is emptied); None without a usable key or file."""
        return cls._opened(log, _open_flags(truncate=True), 0, header_line, rules, extensions, None)

    @classmethod
    def resume(cls, log: str | Path, offset: int, chain: bytes) -> EffectsWriter | None:
        """Continue a file whose first ``offset`` bytes authenticated up to the log's last line."""
        return cls._opened(log, _open_flags(truncate=False), offset, b"", "", (), chain)

    @classmethod
    def _opened(cls, log: str | Path, flags: int, offset: int, header_line: bytes, rules: str,
                extensions: tuple[tuple[str, str], ...], chain: bytes | None) -> EffectsWriter | None:
        secret = user_secret()
        if secret is None:
            return None
        key = _key(secret)
        try:
            fd = _open(effects_path(log), flags)
        except OSError:
            return None
        try:
            os.ftruncate(fd, offset)
            os.lseek(fd, offset, os.SEEK_SET)
        except OSError:
            os.close(fd)
            return None
        return cls(open(fd, "wb"), key, chain if chain is not None else _seed(key, header_line, rules,
                                                                                   extensions))

    def add(self, line: bytes, text: str | None) -> None:
        """The entry for ``line`` (the log line, without its newline): ``text`` is the rules' decision in
        the flat encoding, None if it has none (then no more entries are written for this log)."""
        if self._file is None:
            return
        if text is None or "\n" in text:
            self.close()
            return
        body = text.encode()
        self._chain = _mac(self._key, self._chain + line + b"\n" + body)
        try:
            self._file.write(self._chain.hex().encode() + b" " + body + b"\n")
        except OSError:
            self.close()

    def flush(self) -> None:
        if self._file is not None:
            try:
                self._file.flush()
            except OSError:
                self.close()

    def close(self) -> None:
        if self._file is not None:
            handle, self._file = self._file, None
            try:
                handle.close()
            except OSError:
                pass


def _open_flags(truncate: bool) -> int:
    return os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if truncate else 0)


class EffectsReader:
    """Reads the entries beside a log in step with its lines, trusting each only if it authenticates."""

    def __init__(self, log: str | Path, header_line: bytes, rules: str, extensions: tuple[tuple[str, str], ...]):
        self.name = str(effects_path(log))
        self.used = 0
        """Entries that authenticated, in order."""
        self.offset = 0
        """Bytes of the file those entries take."""
        self.note: str | None = None
        """Why the reading stopped trusting the file before the log's end (None: it did not)."""
        self._file: IO[bytes] | None = None
        secret = user_secret(create=False)
        if secret is None:
            return
        try:
            fd = _open(effects_path(log), os.O_RDONLY)
        except OSError:
            return  # none beside this log (or not a file): every line goes through the rules
        self._file = open(fd, "rb")
        self._key = _key(secret)
        self.chain = _seed(self._key, header_line, rules, extensions)

    @property
    def active(self) -> bool:
        return self._file is not None

    def take(self, lines: list[tuple[int, bytes]]) -> list[str]:
        """The authenticated decisions for log lines ``lines`` ((number, bytes) in order), as far as they
        authenticate: at the first that does not, that line and every later one go to the rules, and
        ``note`` says why when an entry was there.  One call a batch: the loop keeps the chain local."""
        handle = self._file
        if handle is None:
            return []
        key, chain, readline, blake2b = self._key, self.chain, handle.readline, hashlib.blake2b  # _mac, inlined
        decided: list[str] = []
        offset = self.offset
        try:
            for lineno, line in lines:
                raw = readline(MAX_ENTRY_BYTES)
                if raw[MAC_HEX:MAC_HEX + 1] == b" " and raw[-1:] == b"\n":
                    body = raw[MAC_HEX + 1:-1]
                    mac = blake2b(chain + line + b"\n" + body, key=key, digest_size=32).digest()
                    if compare_digest(raw[:MAC_HEX], mac.hex().encode()):
                        chain = mac
                        offset += len(raw)
                        decided.append(body.decode())
                        continue
                why = ("none were recorded for it" if not raw
                       else "those recorded for it do not authenticate (changed, torn, or not this log's)")
                self.stop(f"{self.name}: line {lineno} and those after it were judged by the rules: {why}")
                break
        finally:
            self.chain, self.offset = chain, offset
            self.used += len(decided)
        return decided

    def stop(self, note: str | None = None) -> None:
        """Trust no more entries."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if note is not None:
            self.note = note
