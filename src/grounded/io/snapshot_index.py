"""The index beside a snapshot: the state in rows read one by one, so that one query reads what it walks.

``talk.jsonl.snapshot.idx`` holds the same state as ``talk.jsonl.snapshot``
(grounded.io.snapshot), under the same key, laid out for a single question: a
SQLite file whose rows hold the arguments, ``ARGS_PER_ROW`` consecutive ids a
row, and every name the state knows (a literal claimed or rested on, a
proposition's atom) in a bucket row chosen by the name's hash, about
``NAMES_PER_ROW`` a bucket: under each name, the arguments claiming it, the
reverse index (the arguments whose Dep holds it, with the turns they came in)
and its proposition.  Verify and Affected* of one claim then read the rows of
the arguments they walk and of the names on the way, whatever the state's size
(grounded.engine.indexed); the snapshot is for every other reading.

Trust is the snapshot's: the file is this user's cache, so nothing in it is
used before it authenticates under the user's key (``user_secret``).  The
header row (the snapshot's key, the number of arguments, the last turn, the
number of buckets) carries an HMAC; each row a MAC (keyed BLAKE2) under a key
derived from the user's and the header, over its table, its number and its
body, so a row torn, corrupted, moved or taken from another index fails.  Every
bucket is written, empty or not, and the header fixes how many there are: a
row taken out is missing where it must be, and that a name is absent is shown
by its bucket's authenticated row.  Any failure is ``IndexBroken``, and the
caller answers from the full state instead.

A row's body is ``marshal``'s format (the snapshot's body is, for the same
reason: read back fast), read only once its MAC shows it was written here, by
this Python (the key names it).  Written like the snapshot: to a temporary
file beside it, renamed into place.
"""

from __future__ import annotations

import errno
import gc
import hashlib
import hmac
import json
import marshal
import os
import sqlite3
import stat
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from grounded.io.snapshot import MAX_FACTOR, MAX_SLACK, SnapshotKey, user_secret

SUFFIX = ".snapshot.idx"
FORMAT = 1
_MAC_BYTES = 16
_UNWRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS)

ARGS_PER_ROW = 64
"""Arguments per row (consecutive ids): a row per argument made writing the index cost ten times the snapshot,
SQLite's and the MAC's cost per row; a row of 64 is read (and authenticated) in tens of microseconds."""
NAMES_PER_ROW = 32
"""Names per bucket row, on average (the buckets' count is fixed when the index is written)."""

_SCHEMA = """
CREATE TABLE head (format INTEGER, key TEXT, args INTEGER, last_turn INTEGER, buckets INTEGER, mac BLOB);
CREATE TABLE args (block INTEGER PRIMARY KEY, body BLOB, mac BLOB);
CREATE TABLE names (bucket INTEGER PRIMARY KEY, body BLOB, mac BLOB);
"""


class IndexBroken(Exception):
    """The index cannot be answered from (torn, corrupted, not written here): the message says why."""


def index_path(log: str | Path) -> Path:
    return Path(str(log) + SUFFIX)


def _canonical(key: SnapshotKey) -> bytes:
    return json.dumps(key.to_json(), sort_keys=True, separators=(",", ":")).encode()


def _head_mac(secret: bytes, key: bytes, counts: tuple[int, int | None, int]) -> bytes:
    return hmac.new(secret, b"grounded snapshot index %d\n" % FORMAT + key + marshal.dumps(counts),
                    hashlib.sha256).digest()


def _row_secret(secret: bytes, key: bytes) -> bytes:
    """The key every row's MAC is made with: the user's, bound to this index's header (its log's bytes)."""
    return hmac.new(secret, b"grounded snapshot index rows\n" + key, hashlib.sha256).digest()


def _row_mac(secret: bytes, table: bytes, number: int, body: bytes) -> bytes:
    """A row's MAC: keyed BLAKE2 (one call), over its table, its number and its body."""
    return hashlib.blake2b(b"%s %d\0" % (table, number) + body, key=secret, digest_size=_MAC_BYTES).digest()


def bucket_of(name: str, buckets: int) -> int:
    """The bucket row holding ``name`` (a literal or a proposition's atom): CRC-32, the same in every process
    (a spread, not a defence: what a row holds is authenticated)."""
    return zlib.crc32(name.encode()) % buckets


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
            collecting = gc.isenabled()
            gc.disable()  # the rows are tens of thousands of new containers and no garbage: collections that
            try:  # would scan the whole state for nothing were half the writing's time
                _fill(db, secret, key, data)
            finally:
                if collecting:
                    gc.enable()
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
    """The rows: arguments by blocks of consecutive ids; every name the state knows (a literal claimed or rested
    on, a proposition's atom) in its bucket, with its claimants, the arguments resting on it, their turns and its
    proposition.  Every bucket is written, empty or not, so a name's absence is shown by its bucket's row."""
    head = _canonical(key)
    rows = _row_secret(secret, head)
    args = data["args"]
    claimants: dict[str, list[int]] = {}
    for record in args:
        claimants.setdefault(record[1], []).append(record[0])
    rev = {k: (ids, turns) for k, ids, turns in data["rev"]}
    props = {p[0]: p for p in data["props"]}
    names = claimants.keys() | rev.keys() | props.keys()
    buckets = max(1, len(names) // NAMES_PER_ROW)
    counts = (len(args), data["last_turn"], buckets)
    db.execute("INSERT INTO head VALUES (?, ?, ?, ?, ?, ?)", (FORMAT, head.decode(), *counts,
                                                             _head_mac(secret, head, counts)))
    blocks = (args[i:i + ARGS_PER_ROW] for i in range(0, len(args), ARGS_PER_ROW))
    db.executemany("INSERT INTO args VALUES (?, ?, ?)", _signed(rows, b"args", enumerate(blocks)))
    filled: list[dict[str, tuple]] = [{} for _ in range(buckets)]
    for name in names:
        ids, turns = rev.get(name, ((), ()))
        filled[bucket_of(name, buckets)][name] = (claimants.get(name, ()), ids, turns, props.get(name))
    db.executemany("INSERT INTO names VALUES (?, ?, ?)", _signed(rows, b"names", enumerate(filled)))


def _signed(secret: bytes, table: bytes, rows: Iterable[tuple[int, Any]]) -> Iterator[tuple[int, bytes, bytes]]:
    for number, value in rows:
        body = marshal.dumps(value)
        yield number, body, _row_mac(secret, table, number, body)


# -- reading --------------------------------------------------------------------------


class SnapshotIndex:
    """An open index, its header authenticated: ``key``, ``args`` (how many) and ``last_turn``; the rows are
    read (and authenticated) when asked for, each raising IndexBroken if it does not."""

    def __init__(self, db: sqlite3.Connection, key: SnapshotKey, counts: tuple[int, int | None, int], rows: bytes):
        self._db = db
        self.key = key
        self.args, self.last_turn, self._buckets = counts
        self._secret = rows
        self._blocks: dict[int, list] = {}
        self._names: dict[int, dict] = {}

    def arg(self, arg_id: int) -> list:
        """Argument ``arg_id`` (1 to ``args``) as ``DependencyMap.to_data`` writes one."""
        number, at = divmod(arg_id - 1, ARGS_PER_ROW)
        block: Any = self._blocks.get(number)
        if block is None:
            block = self._blocks[number] = self._row("args", number)  # type: ignore[assignment]
        try:
            record = block[at]
        except (IndexError, TypeError, KeyError):
            raise IndexBroken(f"argument {arg_id}: not in its row") from None
        if not isinstance(record, list) or len(record) != 15 or record[0] != arg_id:
            raise IndexBroken(f"argument {arg_id}: its row does not hold it")
        return record

    def name(self, name: str) -> tuple[Any, Any, Any, Any] | None:
        """What the state holds under ``name``: the arguments claiming it, those resting on it, the turns they
        came in, its proposition (each empty or None when there is none); None if the state has none of them."""
        number = bucket_of(name, self._buckets)
        bucket = self._names.get(number)
        if bucket is None:
            row = self._row("names", number)
            if not isinstance(row, dict):
                raise IndexBroken(f"bucket {number}: not a bucket")
            bucket = self._names[number] = row
        return bucket.get(name)

    def _row(self, table: str, number: int) -> object:
        try:
            row = self._db.execute(f"SELECT body, mac FROM {table} WHERE rowid = ?", (number,)).fetchone()
        except sqlite3.Error as exc:
            raise IndexBroken(str(exc)) from None
        if row is None or not isinstance(row[0], bytes) or not isinstance(row[1], bytes) or not hmac.compare_digest(
                row[1], _row_mac(self._secret, table.encode(), number, row[0])):
            raise IndexBroken(f"{table} row {number}: missing, or it does not authenticate")
        return marshal.loads(row[0])  # authenticated: written here, by this Python (the key says so)

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
        fmt, head, args, last_turn, buckets, mac = db.execute("SELECT * FROM head").fetchone()
        if fmt != FORMAT:
            db.close()
            return None, None  # another format: stale, written again without a note
        counts = (args, last_turn, buckets)
        if not isinstance(head, str) or not isinstance(mac, bytes) or not hmac.compare_digest(
                mac, _head_mac(secret, head.encode(), counts)):
            raise ValueError("its MAC does not match: torn, corrupted, or not written here")
        key = SnapshotKey.from_json(json.loads(head))
    except (sqlite3.Error, TypeError, ValueError) as exc:
        db.close()
        return None, f"{path}: snapshot index ignored ({exc}); reading the snapshot whole"
    if key.rules != rules or key.extensions != extensions:
        db.close()
        return None, None  # made under other rules: stale
    return SnapshotIndex(db, key, counts, _row_secret(secret, head.encode())), None


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
