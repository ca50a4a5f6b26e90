"""Per-tenant bounds held in the store, so that every server process on one store counts against one bound.

A bound kept in a process's memory (a count of a tenant's text readings in
flight) lets N processes on one store (``--workers N``, or servers on several
machines) admit N times it.  Here the count lives where every process sees it,
beside the conversations, and survives no process that held part of it:

* **in flight** (``acquire``/``release``): a tenant has ``bound`` numbered slots,
  and a reading holds one.  PostgreSQL: a session-level advisory lock per
  (tenant, slot), taken with ``pg_try_advisory_lock`` on this module's own
  connection, so the slots of a process that dies (its connection closes) are
  free at once.  SQLite (one machine, several processes): a row per slot held
  in the same database file, naming the process that holds it and when its
  lease ends; a row whose process is gone (no such pid, or a pid started at
  another time) or whose lease has ended is taken back by the next acquirer.
  The lease is longer than any reading can last (``lease``: twice the
  reading's deadline and a margin), so it only matters for a process frozen
  rather than gone.
* **per minute** (``admit``): a counter row per tenant and window (the
  window's number from the store's clock on PostgreSQL, from this machine's on
  SQLite), incremented and read in one statement: the first ``bound`` of a
  window are admitted, across processes.

Every call is a round trip to the store (SQLite: a write transaction on a
connection of its own, not the store's), made on the caller's thread: the
service calls them from one thread of its own (``reading.TextReaders``), off
the event loop.  The tables are this module's, created when it first opens a
store, apart from the conversations' schema.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from pathlib import Path

from grounded.service.errors import StoreUnavailable

_SLOTS_TABLE = "grounded_tenant_slots"
_RATES_TABLE = "grounded_tenant_rates"
_TABLES = [
    f"""CREATE TABLE IF NOT EXISTS {_SLOTS_TABLE} (
        tenant TEXT NOT NULL, slot INTEGER NOT NULL, holder TEXT NOT NULL, expires REAL NOT NULL,
        PRIMARY KEY (tenant, slot))""",
    f"""CREATE TABLE IF NOT EXISTS {_RATES_TABLE} (
        tenant TEXT PRIMARY KEY, win BIGINT NOT NULL, count INTEGER NOT NULL)""",
]
_UPSERT_RATE = (f"INSERT INTO {_RATES_TABLE} (tenant, win, count) VALUES ({{p}}, {{win}}, 1) "
                f"ON CONFLICT (tenant) DO UPDATE SET "
                f"count = CASE WHEN {_RATES_TABLE}.win = excluded.win THEN {_RATES_TABLE}.count + 1 ELSE 1 END, "
                f"win = excluded.win RETURNING count")


class TenantLimits:
    """The bounds' counts in a store (see the module docstring); ``open_limits`` makes the store's kind."""

    url: str

    def acquire(self, tenant: str, bound: int) -> int | None:
        """One of the tenant's ``bound`` slots (its number), or None when every one is held (by any process)."""
        raise NotImplementedError

    def release(self, tenant: str, slot: int) -> None:
        """Give back a slot ``acquire`` gave this process."""
        raise NotImplementedError

    def admit(self, tenant: str, bound: int, window: float = 60.0) -> bool:
        """Count one more for the tenant in the current ``window`` seconds: whether it is within ``bound``."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class LocalLimits(TenantLimits):
    """The counts in this process alone: for readers given no store (a test's, an embedding's)."""

    url = "(this process)"

    def __init__(self) -> None:
        self._held: dict[str, set[int]] = {}
        self._windows: dict[str, tuple[int, int]] = {}

    def acquire(self, tenant: str, bound: int) -> int | None:
        held = self._held.setdefault(tenant, set())
        free = next((s for s in range(bound) if s not in held), None)
        if free is not None:
            held.add(free)
        return free

    def release(self, tenant: str, slot: int) -> None:
        held = self._held.get(tenant)
        if held is not None:
            held.discard(slot)
            if not held:
                del self._held[tenant]

    def admit(self, tenant: str, bound: int, window: float = 60.0) -> bool:
        win = int(time.time() // window)
        last, count = self._windows.get(tenant, (win, 0))
        count = count + 1 if last == win else 1
        self._windows[tenant] = (win, count)
        return count <= bound

    def close(self) -> None:
        self._held.clear()


class PostgresLimits(TenantLimits):
    """Slots as session-level advisory locks on a connection of this module's own; windows as counter rows."""

    def __init__(self, url: str, connect_timeout: float = 10.0):
        import psycopg

        self._psycopg = psycopg
        from grounded.service.store import _hide_password

        self.url = _hide_password(url)
        try:
            self._db = psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(connect_timeout)))
            # a window's count need not outlive a crash of the store: its commit waits for no WAL flush (the
            # flush is most of an upsert's cost, milliseconds with fsync on; a lost count admits a reading more)
            self._db.execute("SET synchronous_commit = off")
            with self._db.transaction():
                self._db.execute("SELECT pg_advisory_xact_lock(7236012)")  # two processes creating the tables
                for sql in _TABLES:
                    self._db.execute(sql)
        except psycopg.Error as exc:
            raise StoreUnavailable(f"{self.url}: tenant limits: {' '.join(str(exc).split())}") from exc
        self._held: set[tuple[str, int]] = set()
        """Slots this connection holds: an advisory lock is taken again by the session holding it, so the
        process keeps its own out of its tries."""

    def acquire(self, tenant: str, bound: int) -> int | None:
        for slot in range(bound):
            if (tenant, slot) in self._held:
                continue
            row = self._one("SELECT pg_try_advisory_lock(%s)", (lock_key(tenant, slot),))
            if row is not None and row[0]:
                self._held.add((tenant, slot))
                return slot
        return None

    def release(self, tenant: str, slot: int) -> None:
        if (tenant, slot) in self._held:
            self._held.discard((tenant, slot))
            self._one("SELECT pg_advisory_unlock(%s)", (lock_key(tenant, slot),))

    def admit(self, tenant: str, bound: int, window: float = 60.0) -> bool:
        win = "floor(extract(epoch from clock_timestamp()) / %s)::bigint"  # the store's clock, one for all
        row = self._one(_UPSERT_RATE.format(p="%s", win=win), (tenant, window))
        return row is not None and row[0] <= bound

    def _one(self, sql: str, args: tuple) -> tuple | None:
        try:
            return self._db.execute(sql, args).fetchone()
        except self._psycopg.Error as exc:
            raise StoreUnavailable(f"{self.url}: tenant limits: {' '.join(str(exc).split())}") from exc

    def close(self) -> None:
        self._db.close()  # and with the session, every slot it held


class SQLiteLimits(TenantLimits):
    """Slots as rows with their holder and a lease, windows as counter rows, in the store's SQLite file."""

    TIMEOUT = 5.0

    def __init__(self, path: str | Path, lease: float = 60.0):
        self.url = str(path)
        self.lease = lease
        self.holder = holder_of(os.getpid())
        try:
            self._db = sqlite3.connect(path, isolation_level=None, timeout=self.TIMEOUT, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # the counts need not outlive a crash; the file must
            for sql in _TABLES:
                self._db.execute(sql)
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"{self.url}: tenant limits: {exc}") from exc

    def acquire(self, tenant: str, bound: int) -> int | None:
        now = time.time()
        with self._write():
            held = set()
            for slot, holder, expires in self._db.execute(
                    f"SELECT slot, holder, expires FROM {_SLOTS_TABLE} WHERE tenant = ?", (tenant,)).fetchall():
                if expires < now or (holder != self.holder and not _alive(holder)):
                    self._db.execute(f"DELETE FROM {_SLOTS_TABLE} WHERE tenant = ? AND slot = ?", (tenant, slot))
                else:
                    held.add(slot)
            free = next((s for s in range(bound) if s not in held), None)
            if free is not None:
                self._db.execute(f"INSERT INTO {_SLOTS_TABLE} VALUES (?, ?, ?, ?)",
                                 (tenant, free, self.holder, now + self.lease))
        return free

    def release(self, tenant: str, slot: int) -> None:
        with self._write():
            self._db.execute(f"DELETE FROM {_SLOTS_TABLE} WHERE tenant = ? AND slot = ? AND holder = ?",
                             (tenant, slot, self.holder))

    def admit(self, tenant: str, bound: int, window: float = 60.0) -> bool:
        with self._write():
            row = self._db.execute(_UPSERT_RATE.format(p="?", win="?"),
                                   (tenant, int(time.time() // window))).fetchone()
        return row is not None and row[0] <= bound

    def _write(self) -> _Transaction:
        return _Transaction(self._db, self.url)

    def close(self) -> None:
        self._db.close()


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on an error), a store error as StoreUnavailable."""

    def __init__(self, db: sqlite3.Connection, url: str):
        self._db, self._url = db, url

    def __enter__(self) -> None:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"{self._url}: tenant limits: {exc}") from exc

    def __exit__(self, kind: type | None, exc: BaseException | None, tb: object) -> None:
        if kind is None:
            try:
                self._db.execute("COMMIT")
                return
            except sqlite3.Error as error:
                self._db.execute("ROLLBACK")
                raise StoreUnavailable(f"{self._url}: tenant limits: {error}") from error
        self._db.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise StoreUnavailable(f"{self._url}: tenant limits: {exc}") from exc


def lock_key(tenant: str, slot: int) -> int:
    """The advisory lock of a tenant's slot: 48 bits of the tenant's hash, 16 of the slot, as a signed bigint."""
    digest = hashlib.blake2b(tenant.encode(), digest_size=6, person=b"grounded-slots").digest()
    key = int.from_bytes(digest, "big") << 16 | (slot & 0xFFFF)
    return key - (1 << 64) if key >= 1 << 63 else key


def holder_of(pid: int) -> str:
    """A process as a slot row names it: its pid and when it started (a pid used again is another process)."""
    return f"{pid}:{_started(pid)}"


def _started(pid: int) -> str:
    """The process's start time in clock ticks since boot (Linux), '' where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return ""


def _alive(holder: str) -> bool:
    """Whether the process a slot row names still runs (True when that cannot be told: its lease decides)."""
    pid, _, started = holder.partition(":")
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, ValueError):
        return True
    return not started or _started(int(pid)) in ("", started)


def open_limits(url: str | Path | None, lease: float = 60.0) -> TenantLimits:
    """The bounds' counts in the store at ``url`` (as ``store.open_store`` reads it)."""
    from grounded.service.store import DEFAULT_DB

    url = str(url) if url is not None else DEFAULT_DB
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresLimits(url)
    return SQLiteLimits(url.removeprefix("sqlite:///"), lease)


__all__ = ["LocalLimits", "PostgresLimits", "SQLiteLimits", "TenantLimits", "holder_of", "lock_key", "open_limits"]
