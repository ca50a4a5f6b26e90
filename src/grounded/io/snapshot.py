"""A snapshot beside an event log: the state its lines give, so a query need not replay them.

``talk.jsonl.snapshot`` holds the Python state after the first ``log_size``
bytes of ``talk.jsonl`` (the header and every whole line up to there) and is
keyed by what those bytes and their reading depend on:

* the log: the number of bytes covered, the lines among them, and the sha256
  of those bytes.  A log that was appended to still starts with them, so its
  state is the snapshot's plus the lines after them (``Engine.load`` replays
  only those); any other change to the log (a different hash, fewer bytes)
  makes the snapshot stale;
* the reading: the rules version and the extensions (name and sha256) the
  state was computed with, and this format's version.

A stale snapshot is never used: the log is replayed and the snapshot written
again.  A snapshot is a cache written by this machine's user, so it carries
an HMAC under a key kept in the user's cache directory
(``$GROUNDED_CACHE_DIR``, else ``$XDG_CACHE_HOME/grounded``, else
``~/.cache/grounded``): a snapshot that was torn by a crash, corrupted, or
written by anyone else (one that came with a log from elsewhere) fails it and
is ignored with a note, and rebuilt.  Without a usable key directory there are
no snapshots (every query replays).

The file is the key (one line of JSON, with the MAC) and the body: the state
(grounded.dmap.state.DependencyMap.to_data) in ``marshal``'s format, which
Python reads back ten times faster than JSON.  ``marshal`` is not meant for
data from elsewhere; the body is read only once its MAC shows it was written
here, by this Python version (part of the key).  What the state excludes: a
conversation with a world model is never snapshotted (its model M is kept as
a history of frames that are not written out), and neither is a reading that
stopped early or ended on a line without its newline.

Writing: to a temporary file renamed over the old one, so a reader sees the
old snapshot or the new one.  The temporary file is made by
``tempfile.mkstemp`` beside the log: created exclusively, under a name no one
can predict, so a link planted where it will be written is never followed.  A
log whose directory this user may not write (read-only, immutable, not
theirs) is answered without a snapshot, silently.

Reading trusts nothing about the file before its MAC: it is opened without
following a symbolic link and without waiting (a FIFO would block), and read
only if it is a regular file of at most ``MAX_FACTOR`` times the log's size
plus ``MAX_SLACK`` (a link to /dev/zero or a sparse file of gigabytes would
exhaust memory); anything else is ignored with a note and rebuilt.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import marshal
import os
import secrets
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

SUFFIX = ".snapshot"
FORMAT = 1
PYTHON = f"{sys.implementation.name}-{sys.version_info[0]}.{sys.version_info[1]}-marshal{marshal.version}"
"""What writes and reads the body: another Python makes a snapshot stale."""
MAX_FACTOR = 8
MAX_SLACK = 1 << 20
"""A snapshot longer than MAX_FACTOR times its log's bytes plus MAX_SLACK is not read (a state's
snapshot measures about twice its log at most, docs/reliability.md)."""
_UNWRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS)
"""Why a directory may refuse a new file: this user may not write there (no snapshot, no note)."""
KEY_FILE = "snapshot.key"
CACHE_VARIABLE = "GROUNDED_CACHE_DIR"


class SnapshotKey(NamedTuple):
    """What a snapshot's state depends on (see the module docstring).

    This and the two records below are named tuples, not frozen dataclasses: a frozen dataclass compiles six
    methods when its module is imported, a cost a query answered from a snapshot, which reads each record
    once, would pay for nothing (docs/benchmarks.md, start-up)."""

    log_size: int
    log_lines: int
    log_sha256: str
    utterances: int
    rules: str
    extensions: tuple[tuple[str, str], ...]
    """(file name, sha256) of each extension, in the order given."""

    def to_json(self) -> dict[str, Any]:
        return {"grounded_snapshot": FORMAT, "python": PYTHON, "log_size": self.log_size, "log_lines": self.log_lines,
                "log_sha256": self.log_sha256, "utterances": self.utterances, "rules": self.rules,
                "extensions": [list(e) for e in self.extensions]}

    @classmethod
    def from_json(cls, obj: Any) -> SnapshotKey:
        if not isinstance(obj, dict) or obj.get("grounded_snapshot") != FORMAT or obj.get("python") != PYTHON:
            raise ValueError("not a snapshot of this format and Python")
        ints = [obj.get(k) for k in ("log_size", "log_lines", "utterances")]
        if not all(type(v) is int and v >= 0 for v in ints):
            raise ValueError("a count is not a non-negative integer")
        texts = [obj.get(k) for k in ("log_sha256", "rules")]
        extensions = obj.get("extensions")
        if not all(isinstance(v, str) for v in texts) or not isinstance(extensions, list) or not all(
                isinstance(e, list) and len(e) == 2 and all(isinstance(x, str) for x in e) for e in extensions):
            raise ValueError("a field has the wrong type")
        return cls(ints[0], ints[1], texts[0], ints[2], texts[1],  # type: ignore[arg-type]
                   tuple((e[0], e[1]) for e in extensions))


class Snapshot(NamedTuple):
    key: SnapshotKey
    state: dict[str, Any]
    """The Python state as plain data (DependencyMap.to_data)."""


class Found(NamedTuple):
    """What looking for a snapshot found: a snapshot (None if there is none to use) and,
    when one was there but could not be used, why (a note for the user)."""

    snapshot: Snapshot | None
    note: str | None = None


def snapshot_path(log: str | Path) -> Path:
    return Path(str(log) + SUFFIX)


def cache_dir() -> Path:
    explicit = os.environ.get(CACHE_VARIABLE)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "grounded"


def _secret() -> bytes | None:
    """This user's snapshot key, created on first use (None if the cache directory is unusable)."""
    path = cache_dir() / KEY_FILE
    try:
        return _read_secret(path)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first
        try:
            return _read_secret(path)
        except OSError:
            return None
    except OSError:
        return None
    secret = secrets.token_bytes(32)
    try:
        os.write(fd, secret.hex().encode())
    finally:
        os.close(fd)
    return secret


def user_secret(create: bool = True) -> bytes | None:
    """The key a cache this user's engine wrote is authenticated by (also the effects beside a log:
    grounded.io.effectlog); None if the cache directory is unusable, or without ``create`` if there is
    none yet (then nothing can authenticate: a reader need not make one)."""
    if not create:
        try:
            return _read_secret(cache_dir() / KEY_FILE)
        except OSError:
            return None
    return _secret()


def _read_secret(path: Path) -> bytes | None:
    try:
        secret = bytes.fromhex(path.read_text().strip())
    except ValueError:
        return None
    return secret if len(secret) >= 32 else None


class _NotASnapshot(Exception):
    """The file at the snapshot's path cannot be one: a link, not a regular file, too large."""


def _read_bounded(path: Path, log_size: int) -> bytes:
    """The bytes of the regular file at ``path``, if it is no larger than a log of ``log_size`` bytes allows."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _NotASnapshot("a symbolic link") from None
        raise
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(fd)
        if not stat.S_ISREG(mode.st_mode):
            raise _NotASnapshot("not a regular file")
        limit = MAX_FACTOR * log_size + MAX_SLACK
        data = b"" if mode.st_size > limit else f.read(limit + 1)  # read no more than the bound, even if it grows
    if mode.st_size > limit or len(data) > limit:
        raise _NotASnapshot(f"{max(mode.st_size, len(data))} bytes, more than a log of {log_size} bytes gives")
    return data


def _mac(secret: bytes, key: dict[str, Any], body: bytes) -> str:
    head = json.dumps(key, sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(secret, head + b"\n" + body, hashlib.sha256).hexdigest()


def read_snapshot(log: str | Path, rules: str, extensions: tuple[tuple[str, str], ...]) -> Found:
    """The snapshot beside ``log`` if there is one made by these rules and extensions, intact.

    Whether it still fits the log (its bytes and hash) is the caller's to check
    while reading the log (``LogReader.skip_to``, ``digest``).
    """
    path = snapshot_path(log)
    try:
        data = _read_bounded(path, os.stat(log).st_size)
    except FileNotFoundError:
        return Found(None)
    except _NotASnapshot as exc:
        return Found(None, f"{path}: snapshot ignored ({exc}); replaying the log and writing it again")
    except OSError as exc:
        return Found(None, f"{path}: cannot read the snapshot ({exc.strerror}); replaying the log")
    secret = _secret()
    if secret is None:
        return Found(None)
    head, _, body = data.partition(b"\n")
    try:
        obj = json.loads(head)
        mac = obj.pop("mac", None) if isinstance(obj, dict) else None
        if isinstance(obj, dict) and obj.get("python") not in (None, PYTHON):
            return Found(None)  # written by another Python: stale, rebuilt without a note
        key = SnapshotKey.from_json(obj)
        if not isinstance(mac, str) or not hmac.compare_digest(mac, _mac(secret, obj, body)):
            raise ValueError("its MAC does not match: torn, corrupted, or not written here")
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        return Found(None, f"{path}: snapshot ignored ({exc}); replaying the log and writing it again")
    if key.rules != rules or key.extensions != extensions:
        return Found(None)  # made under other rules: stale, rebuilt without a note
    try:
        state = marshal.loads(body)  # written here (the MAC says so), by this Python (the key says so)
    except (ValueError, EOFError, TypeError) as exc:
        return Found(None, f"{path}: snapshot ignored (its body does not read: {exc}); replaying the log")
    if not isinstance(state, dict):
        return Found(None, f"{path}: snapshot ignored (its body is not a state); replaying the log")
    return Found(Snapshot(key, state))


def write_snapshot(log: str | Path, key: SnapshotKey, state: dict[str, Any]) -> str | None:
    """Write the snapshot beside ``log`` (atomically: renamed into place).  Returns None, or a
    note saying why it could not be written (a cache: the next reading replays the log)."""
    secret = _secret()
    if secret is None:
        return None
    path = snapshot_path(log)
    obj = key.to_json()
    body = marshal.dumps(state)
    obj["mac"] = _mac(secret, key.to_json(), body)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f"{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        if exc.errno in _UNWRITABLE:
            return None  # a directory this user may not write: answered without a cache, as asked
        return _not_written(path, exc)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(json.dumps(obj).encode() + b"\n")
            f.write(body)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return _not_written(path, exc)
    return None


def _not_written(path: Path, exc: OSError) -> str:
    return f"{path}: cannot write the snapshot ({exc.strerror}); the next query replays the log again"
