"""The index beside a snapshot: the rows of a state, each read on its own, so one query reads what it walks.

``talk.jsonl.snapshot.idx`` holds the same state as ``talk.jsonl.snapshot``
(grounded.io.snapshot), under the same key, laid out for a single question: a
SQLite file with one row per argument (by id), one per literal (the arguments
claiming it, and the reverse index: the arguments whose Dep holds it, with the
turns they came in) and one per proposition.  Verify and Affected* of one claim
then read the rows of the arguments they walk and of the literals on the way,
not the whole state (grounded.engine.indexed); the snapshot itself is for every
other reading.

Trust is the snapshot's: the file is this user's cache, so nothing in it is
used before it authenticates under the user's key (``user_secret``).  The
header row (the snapshot's key, the number of arguments and the last turn)
carries an HMAC; each row carries one under a key derived from the user's and
the header, so a row torn, corrupted, or taken from another index fails.  A row
that is missing cannot carry a MAC, so the rows keyed by a name (literals,
propositions) are chained in sorted order, each naming the next name there
is: that a name is absent is shown by the authenticated row before it, whose
next name comes after it (a sentinel row, named "", starts the chain).  Any
failure is ``IndexBroken``, and the caller answers from the full state instead.

A row's body is ``marshal``'s format (the snapshot's body is, for the same
reason: read back fast), read only once its MAC shows it was written here, by
this Python (the key names it).  Written like the snapshot: to a temporary
file beside it, renamed into place.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import marshal
import os
import sqlite3
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from grounded.io.snapshot import MAX_FACTOR, MAX_SLACK, SnapshotKey, user_secret

SUFFIX = ".snapshot.idx"
FORMAT = 1
_MAC_BYTES = 16
_UNWRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS)

_SCHEMA = """
CREATE TABLE head (format INTEGER, key TEXT, args INTEGER, last_turn INTEGER, mac BLOB);
CREATE TABLE args (id INTEGER PRIMARY KEY, body BLOB, mac BLOB);
CREATE TABLE lits (name TEXT PRIMARY KEY, next TEXT, body BLOB, mac BLOB) WITHOUT ROWID;
CREATE TABLE props (name TEXT PRIMARY KEY, next TEXT, body BLOB, mac BLOB) WITHOUT ROWID;
"""


class IndexBroken(Exception):
    """The index cannot be answered from (torn, corrupted, not written here): the message says why."""


def index_path(log: str | Path) -> Path:
    return Path(str(log) + SUFFIX)


def _canonical(key: SnapshotKey) -> bytes:
    return json.dumps(key.to_json(), sort_keys=True, separators=(",", ":")).encode()


def _head_mac(secret: bytes, key: bytes, args: int, last_turn: int | None) -> bytes:
    return hmac.new(secret, b"grounded snapshot index %d\n" % FORMAT + key + marshal.dumps((args, last_turn)),
                    hashlib.sha256).digest()


def _row_secret(secret: bytes, key: bytes) -> bytes:
    """The key every row's MAC is made with: the user's, bound to this index's header (its log's bytes)."""
    return hmac.new(secret, b"grounded snapshot index rows\n" + key, hashlib.sha256).digest()


def _row_mac(secret: bytes, table: bytes, name: bytes, body: bytes) -> bytes:
    return hmac.new(secret, table + b"\0" + name + b"\0" + body, hashlib.sha256).digest()[:_MAC_BYTES]


# -- writing --------------------------------------------------------------------------


def write_index(log: str | Path, key: SnapshotKey, data: dict[str, Any]) -> str | None:
    """Write the index of ``data`` (a state's ``DependencyMap.to_data``, the one the snapshot under ``key``
    holds) beside ``log``.  None, or a note saying why it could not be written (a cache: a query then reads
    the snapshot)."""
    secret = user_secret()
    if secret is None:
        return None
    path = index_path(log)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f"{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        if exc.errno in _UNWRITABLE:
            return None
        return f"{path}: cannot write the snapshot's index ({exc.strerror}); a query reads the snapshot whole"
    os.close(fd)
    try:
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=OFF")  # a file of its own, renamed into place once whole
            db.execute("PRAGMA synchronous=OFF")
            db.executescript(_SCHEMA)
            db.execute("BEGIN")
            _fill(db, secret, key, data)
            db.execute("COMMIT")
        finally:
            db.close()
        os.replace(tmp, path)
    except (OSError, sqlite3.Error) as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return f"{path}: cannot write the snapshot's index ({exc}); a query reads the snapshot whole"
    return None


def _fill(db: sqlite3.Connection, secret: bytes, key: SnapshotKey, data: dict[str, Any]) -> None:
    head = _canonical(key)
    rows = _row_secret(secret, head)
    args = data["args"]
    db.execute("INSERT INTO head VALUES (?, ?, ?, ?, ?)",
               (FORMAT, head.decode(), len(args), data["last_turn"],
                _head_mac(secret, head, len(args), data["last_turn"])))
    db.executemany("INSERT INTO args VALUES (?, ?, ?)", _signed_args(rows, args))
    claimants: dict[str, list[int]] = {}
    for record in args:
        claimants.setdefault(record[1], []).append(record[0])
    rev = {k: (ids, turns) for k, ids, turns in data["rev"]}
    lits = {name: (claimants.get(name, []), *rev.get(name, ([], []))) for name in claimants.keys() | rev.keys()}
    db.executemany("INSERT INTO lits VALUES (?, ?, ?, ?)", _chained(rows, b"lits", lits))
    props = {p[0]: p for p in data["props"]}
    db.executemany("INSERT INTO props VALUES (?, ?, ?, ?)", _chained(rows, b"props", props))


def _signed_args(secret: bytes, args: Iterable[list]) -> Iterator[tuple[int, bytes, bytes]]:
    for record in args:
        body = marshal.dumps(record)
        yield record[0], body, _row_mac(secret, b"args", b"%d" % record[0], body)


def _chained(secret: bytes, table: bytes, rows: dict[str, Any]) -> Iterator[tuple[str, str | None, bytes, bytes]]:
    """The rows in sorted order after the sentinel "", each naming the next (None after the last)."""
    names = sorted(rows)
    for name, following in zip(["", *names], [*names, None], strict=True):
        body = marshal.dumps((following, rows[name] if name else None))
        yield name, following, body, _row_mac(secret, table, name.encode(), body)


# -- reading --------------------------------------------------------------------------


class SnapshotIndex:
    """An open index, its header authenticated: ``key``, ``args`` (how many) and ``last_turn``; the rows are
    read (and authenticated) when asked for, each raising IndexBroken if it does not."""

    def __init__(self, db: sqlite3.Connection, key: SnapshotKey, args: int, last_turn: int | None, rows: bytes):
        self._db = db
        self.key = key
        self.args = args
        self.last_turn = last_turn
        self._secret = rows

    def arg(self, arg_id: int) -> list:
        """Argument ``arg_id`` (1 to ``args``) as ``DependencyMap.to_data`` writes one."""
        row = self._fetch("SELECT body, mac FROM args WHERE id = ?", (arg_id,))
        if row is None or not hmac.compare_digest(row[1], _row_mac(self._secret, b"args", b"%d" % arg_id, row[0])):
            raise IndexBroken(f"argument {arg_id}: its row is missing or does not authenticate")
        record = marshal.loads(row[0])
        if not isinstance(record, list) or len(record) != 15 or record[0] != arg_id:
            raise IndexBroken(f"argument {arg_id}: its row is not an argument")
        return record

    def literal(self, name: str) -> tuple[list[int], list[int], list[int]] | None:
        """The arguments claiming ``name``, those resting on it and the turns they came in; None if the state
        has neither."""
        return self._named("lits", name)  # type: ignore[return-value]

    def prop(self, name: str) -> list | None:
        """The proposition ``name`` as ``DependencyMap.to_data`` writes one, None if there is none."""
        return self._named("props", name)  # type: ignore[return-value]

    def _named(self, table: str, name: str) -> object | None:
        if not name:
            return None  # the sentinel's name: no literal or proposition has it
        row = self._fetch(f"SELECT name, body, mac FROM {table} WHERE name <= ? ORDER BY name DESC LIMIT 1",
                          (name,))
        if row is None:
            raise IndexBroken(f"{table}: the chain's first row is missing")
        found, body, mac = row
        if not isinstance(found, str) or not hmac.compare_digest(
                mac, _row_mac(self._secret, table.encode(), found.encode(), body)):
            raise IndexBroken(f"{table} {found!r}: its row does not authenticate")
        following, value = marshal.loads(body)
        if found == name:
            return value
        if following is not None and following <= name:  # a row between the two was taken out
            raise IndexBroken(f"{table} {name!r}: the chain skips over it")
        return None

    def _fetch(self, sql: str, params: tuple) -> Any:
        try:
            return self._db.execute(sql, params).fetchone()
        except sqlite3.Error as exc:
            raise IndexBroken(str(exc)) from None

    def close(self) -> None:
        self._db.close()


def open_index(log: str | Path, rules: str, extensions: tuple[tuple[str, str], ...],
               log_size: int) -> tuple[SnapshotIndex | None, str | None]:
    """The index beside ``log`` if there is one made by these rules and extensions, its header intact, and a
    note when one was there but cannot be used (None when there is none, or it is stale: silently).  Whether
    it fits the log's bytes is the caller's to check (its ``key``, as for a snapshot)."""
    path = index_path(log)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{path}: snapshot index ignored ({exc.strerror}); reading the snapshot whole"
    try:
        mode = os.fstat(fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(mode.st_mode) or mode.st_size > MAX_FACTOR * log_size + MAX_SLACK:
        return None, f"{path}: snapshot index ignored (not a regular file of its size); reading the snapshot whole"
    secret = user_secret(create=False)
    if secret is None:
        return None, None
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        return None, f"{path}: snapshot index ignored ({exc}); reading the snapshot whole"
    try:
        fmt, head, args, last_turn, mac = db.execute("SELECT * FROM head").fetchone()
        if fmt != FORMAT:
            db.close()
            return None, None  # another format: stale, written again without a note
        if not isinstance(head, str) or not isinstance(mac, bytes) or not hmac.compare_digest(
                mac, _head_mac(secret, head.encode(), args, last_turn)):
            raise ValueError("its MAC does not match: torn, corrupted, or not written here")
        key = SnapshotKey.from_json(json.loads(head))
    except (sqlite3.Error, TypeError, ValueError) as exc:
        db.close()
        return None, f"{path}: snapshot index ignored ({exc}); reading the snapshot whole"
    if key.rules != rules or key.extensions != extensions:
        db.close()
        return None, None  # made under other rules: stale
    return SnapshotIndex(db, key, args, last_turn, _row_secret(secret, head.encode())), None


def index_fits(log: str | Path, key: SnapshotKey) -> bool:
    """Whether the index beside ``log`` was written under ``key`` (read without a check of its MAC: a
    writer's question, whether to write it again, not a reader's)."""
    path = index_path(log)
    if not path.is_file():
        return False
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
        try:
            row = db.execute("SELECT format, key FROM head").fetchone()
        finally:
            db.close()
        return row is not None and row[0] == FORMAT and SnapshotKey.from_json(json.loads(row[1])) == key
    except (sqlite3.Error, TypeError, ValueError):
        return False
