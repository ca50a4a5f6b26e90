"""The store: tenants, API keys, conversations and their utterances, in SQLite or PostgreSQL.

The store *is* the event log.  A conversation is named by ``(tenant, id)``:
each tenant has its own ids, and nothing of one tenant's conversations
(not even whether an id is taken) shows through another's.  Its row holds
the header line and the extensions (name and sha256) it was created with;
each accepted utterance is one row ``(tenant, conversation, seq, turn,
line)`` whose ``line`` is exactly the event-log line
``grounded.io.eventlog.utterance_json`` writes.  ``length`` on the
conversation row counts those rows; an append reads it under a lock (SQLite:
``BEGIN IMMEDIATE``, the file's write lock; PostgreSQL: ``SELECT ... FOR
UPDATE`` on the conversation's row), so any number of server processes
append to one conversation in a single order, and ``(tenant, conversation,
seq)`` being the primary key makes a lost race an error, never a fork.

A store written by an earlier schema is upgraded when it is opened, in one
transaction (see ``_upgrade``); a store of a later schema is refused.

An append is acknowledged only after ``COMMIT`` returns.  SQLite runs in WAL
mode with ``synchronous=FULL``: a committed row survives a crash of the
process and of the machine.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from grounded.service.errors import Exists, NotFound, StoreLocked, StoreUnavailable
from grounded.service.keys import new_key

SCHEMA_VERSION = 3
"""1: conversation ids global; 2: ids per tenant (the primary keys start with the tenant); 3: the rules'
decision recorded beside each utterance (``utterances.effects``, ``conversations.effects_by``)."""

LOG = logging.getLogger("grounded.store")

_META = "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"


def _conversation_tables(conversations: str = "conversations", utterances: str = "utterances") -> list[str]:
    """The two tables a conversation lives in, under the names given (an upgrade builds them aside first).

    The constraints are named, so a store created at this schema and one upgraded to it are the same.
    """
    return [f"""CREATE TABLE IF NOT EXISTS {conversations} (
        tenant TEXT NOT NULL, id TEXT NOT NULL, header TEXT NOT NULL, extensions TEXT NOT NULL,
        length INTEGER NOT NULL DEFAULT 0, created TEXT NOT NULL, effects_by TEXT,
        CONSTRAINT conversations_key PRIMARY KEY (tenant, id),
        CONSTRAINT conversations_tenant FOREIGN KEY (tenant) REFERENCES tenants(name))""",
            f"""CREATE TABLE IF NOT EXISTS {utterances} (
        tenant TEXT NOT NULL, conversation TEXT NOT NULL, seq INTEGER NOT NULL,
        turn BIGINT NOT NULL, line TEXT NOT NULL, created TEXT NOT NULL, effects TEXT,
        CONSTRAINT utterances_key PRIMARY KEY (tenant, conversation, seq),
        CONSTRAINT utterances_conversation FOREIGN KEY (tenant, conversation)
            REFERENCES {conversations} (tenant, id))"""]


_TABLES = [
    "CREATE TABLE IF NOT EXISTS tenants (name TEXT PRIMARY KEY, created TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS api_keys (
        id TEXT PRIMARY KEY, tenant TEXT NOT NULL REFERENCES tenants(name),
        hash TEXT NOT NULL, created TEXT NOT NULL, revoked TEXT)""",
    *_conversation_tables(),
]


@dataclass(frozen=True, slots=True)
class ConversationRow:
    id: str
    tenant: str
    header: dict[str, Any]
    extensions: list[dict[str, str]]
    length: int
    effects_by: str | None = None
    """The rules (version and extensions) under which the decisions recorded beside its rows hold (None: none
    recorded, each row is judged by the rules when replayed)."""


@dataclass(frozen=True, slots=True)
class KeyRow:
    id: str
    tenant: str
    hash: str
    created: str
    revoked: str | None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Store:
    """One connection to the store; not thread-safe (each server process and CLI command opens its own)."""

    url: str
    param = "?"

    # -- what each database does its own way -----------------------------------

    def _execute(self, sql: str, args: tuple = ()) -> Any:
        raise NotImplementedError

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        raise NotImplementedError
        yield  # pragma: no cover

    def _lock_conversation(self, tenant: str, cid: str) -> tuple | None:
        """(length,) of the conversation, its append lock held until the transaction ends."""
        raise NotImplementedError

    statement_undone_alone = False
    """Whether a failed statement undoes only itself and its transaction goes on (SQLite); else the whole
    transaction is aborted (PostgreSQL) and a write needs a savepoint to fail alone."""

    def _doom(self, why: str) -> None:
        """The batch's transaction can no longer be trusted: every later statement and its commit are refused."""
        raise NotImplementedError

    @contextmanager
    def _savepoint(self) -> Iterator[None]:
        """Inside a batch's transaction: one write undone alone if it fails, its batch goes on."""
        self._execute("SAVEPOINT one_write")
        try:
            yield
        except BaseException:
            self._execute("ROLLBACK TO SAVEPOINT one_write")
            self._execute("RELEASE SAVEPOINT one_write")
            raise
        self._execute("RELEASE SAVEPOINT one_write")

    LOCK_TIMEOUT = 30.0
    """Seconds a write waits for another process's write lock before it is refused (503)."""

    def transaction(self, wait: bool = True) -> Any:
        """A transaction the writes inside it join (nested ones are part of it); commits at its end.

        ``wait=False``: if another process holds the store's write lock, StoreLocked at once instead of waiting
        (the server waits with ``wait_for_lock`` on another thread, then tries again)."""
        return self._transaction() if wait else self._transaction_now()

    def _transaction_now(self) -> Any:
        """``transaction(wait=False)``: the same unless beginning one takes a lock another process may hold."""
        return self._transaction()

    def wait_for_lock(self, timeout: float) -> None:
        """Return once the write lock another process held was free a moment ago (StoreUnavailable past
        ``timeout``).  Safe on a thread other than the one using the store: it uses a connection of its own."""

    def close(self) -> None:
        raise NotImplementedError

    # -- shared ----------------------------------------------------------------

    def _sql(self, sql: str) -> str:
        return sql if self.param == "?" else sql.replace("?", self.param)

    def _all(self, sql: str, args: tuple = ()) -> list[tuple]:
        return list(self._execute(self._sql(sql), args).fetchall())

    def _one(self, sql: str, args: tuple = ()) -> tuple | None:
        return self._execute(self._sql(sql), args).fetchone()

    def _run(self, sql: str, args: tuple = ()) -> int:
        return int(self._execute(self._sql(sql), args).rowcount)

    def migrate(self) -> None:
        """Create the tables of an empty store, upgrade an earlier schema's, refuse a later one's."""
        with self._transaction():
            self._execute(_META)
            row = self._one("SELECT value FROM meta WHERE key = 'schema'")
            found = int(row[0]) if row is not None else None
            if found is None:
                for statement in _TABLES:
                    self._execute(statement)
                self._run("INSERT INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif found == 1:
                self._upgrade()
            elif found == 2:
                self._record_effects()
            elif found != SCHEMA_VERSION:
                raise StoreUnavailable(f"{self.url}: store schema version {found}, this grounded reads "
                                       f"version {SCHEMA_VERSION}")

    def _upgrade(self) -> None:
        """Schema 1 to 2, inside ``migrate``'s transaction: all of it or, if anything fails, none of it.

        The conversation tables are rebuilt aside with the tenant in their keys,
        every row copied (the counts are checked), the old tables dropped and the
        new ones renamed into place.  Ids were unique across tenants in schema 1,
        so every conversation keeps its id under its tenant; keys and tenants are
        untouched.  A second process opening the store meanwhile waits for the
        lock (SQLite's write lock, PostgreSQL's advisory lock) and finds schema 2.
        """
        for statement in _conversation_tables("conversations_v2", "utterances_v2"):
            self._execute(statement)
        self._run("INSERT INTO conversations_v2 (tenant, id, header, extensions, length, created) "
                  "SELECT tenant, id, header, extensions, length, created FROM conversations")
        self._run("INSERT INTO utterances_v2 (tenant, conversation, seq, turn, line, created) "
                  "SELECT c.tenant, u.conversation, u.seq, u.turn, u.line, u.created "
                  "FROM utterances u JOIN conversations c ON c.id = u.conversation")
        for table in ("conversations", "utterances"):
            had, copied = (int(self._all(f"SELECT count(*) FROM {t}")[0][0]) for t in (table, f"{table}_v2"))
            if had != copied:
                raise StoreUnavailable(f"{self.url}: upgrading the store to schema 2: {table} has {had} rows, "
                                       f"{copied} were copied; nothing was changed")
        self._execute("DROP TABLE utterances")
        self._execute("DROP TABLE conversations")  # and its index conversations_by_tenant
        self._execute("ALTER TABLE conversations_v2 RENAME TO conversations")
        self._execute("ALTER TABLE utterances_v2 RENAME TO utterances")
        self._run("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))
        LOG.warning("grounded: %s upgraded from store schema 1 to %d (conversation ids are now per tenant)",
                    self.url, SCHEMA_VERSION)

    def _record_effects(self) -> None:
        """Schema 2 to 3, inside ``migrate``'s transaction: the two columns that record the rules' decisions,
        empty on every row already stored (those rows are judged by the rules when replayed)."""
        self._execute("ALTER TABLE conversations ADD COLUMN effects_by TEXT")
        self._execute("ALTER TABLE utterances ADD COLUMN effects TEXT")
        self._run("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))
        LOG.warning("grounded: %s upgraded from store schema 2 to %d (the rules' decisions are recorded with each "
                    "utterance from now on)", self.url, SCHEMA_VERSION)

    # tenants and keys

    def ensure_tenant(self, name: str) -> None:
        with self._transaction():
            if self._one("SELECT 1 FROM tenants WHERE name = ?", (name,)) is None:
                self._run("INSERT INTO tenants (name, created) VALUES (?, ?)", (name, _now()))

    def add_key(self, key_id: str, tenant: str, key_hash: str) -> None:
        self.ensure_tenant(tenant)
        with self._transaction():
            self._run("INSERT INTO api_keys (id, tenant, hash, created) VALUES (?, ?, ?, ?)",
                      (key_id, tenant, key_hash, _now()))

    def revoke_key(self, key_id: str) -> bool:
        """Revoke a key; False if no live key has that id."""
        with self._transaction():
            return self._run("UPDATE api_keys SET revoked = ? WHERE id = ? AND revoked IS NULL",
                             (_now(), key_id)) == 1

    def key(self, key_id: str) -> KeyRow | None:
        row = self._one("SELECT id, tenant, hash, created, revoked FROM api_keys WHERE id = ?", (key_id,))
        return KeyRow(*row) if row else None

    def key_and_head(self, key_id: str, cid: str | None) -> tuple[KeyRow | None, int | None]:
        """A key's row and, in the same query, the length of its tenant's conversation ``cid``
        (None if either is missing)."""
        if cid is None:
            return self.key(key_id), None
        row = self._one("SELECT k.id, k.tenant, k.hash, k.created, k.revoked, c.length FROM api_keys k "
                        "LEFT JOIN conversations c ON c.tenant = k.tenant AND c.id = ? WHERE k.id = ?",
                        (cid, key_id))
        if row is None:
            return None, None
        return KeyRow(*row[:5]), int(row[5]) if row[5] is not None else None

    def keys(self) -> list[KeyRow]:
        return [KeyRow(*r) for r in self._all("SELECT id, tenant, hash, created, revoked FROM api_keys "
                                              "ORDER BY created, id")]

    # conversations

    def create_conversation(self, tenant: str, cid: str, header: dict[str, Any],
                            extensions: list[dict[str, str]], effects_by: str | None = None) -> None:
        with self._transaction(), self._savepoint():
            self.ensure_tenant(tenant)
            if self._one("SELECT 1 FROM conversations WHERE tenant = ? AND id = ?", (tenant, cid)) is not None:
                raise Exists(f"conversation {cid} already exists", conversation=cid)
            self._run("INSERT INTO conversations (tenant, id, header, extensions, length, created, effects_by) "
                      "VALUES (?, ?, ?, ?, 0, ?, ?)",
                      (tenant, cid, json.dumps(header, ensure_ascii=False), json.dumps(extensions), _now(),
                       effects_by))

    def conversation(self, tenant: str, cid: str) -> ConversationRow | None:
        row = self._one("SELECT id, tenant, header, extensions, length, effects_by FROM conversations "
                        "WHERE tenant = ? AND id = ?", (tenant, cid))
        if row is None:
            return None
        return ConversationRow(row[0], row[1], json.loads(row[2]), json.loads(row[3]), int(row[4]), row[5])

    def head(self, tenant: str, cid: str) -> int | None:
        """The length of a tenant's conversation (None: it has none by that id): what a read checks first."""
        row = self._one("SELECT length FROM conversations WHERE tenant = ? AND id = ?", (tenant, cid))
        return int(row[0]) if row else None

    def conversations(self, tenant: str) -> list[tuple[str, int]]:
        return [(r[0], int(r[1])) for r in self._all(
            "SELECT id, length FROM conversations WHERE tenant = ? ORDER BY created, id", (tenant,))]

    def tenants_of(self, cid: str) -> list[str]:
        """The tenants having a conversation ``cid`` (for an operator's command naming only the id)."""
        return [r[0] for r in self._all("SELECT tenant FROM conversations WHERE id = ? ORDER BY tenant", (cid,))]

    def lines(self, tenant: str, cid: str, after: int = 0) -> list[tuple[int, dict[str, Any]]]:
        """The utterance lines with seq > ``after``, in order."""
        return [(int(seq), json.loads(line)) for seq, line in self._all(
            "SELECT seq, line FROM utterances WHERE tenant = ? AND conversation = ? AND seq > ? ORDER BY seq",
            (tenant, cid, after))]

    def recorded_lines(self, tenant: str, cid: str, after: int, upto: int) -> list[tuple[int, bytes, str | None]]:
        """The rows with ``after`` < seq <= ``upto``, in order, as a bulk replay reads them: seq, the line's
        UTF-8 bytes (not parsed here), and the rules' recorded decision on it (None where none was recorded)."""
        return [(int(seq), line.encode(), effects) for seq, line, effects in self._all(
            "SELECT seq, line, effects FROM utterances WHERE tenant = ? AND conversation = ? AND seq > ? "
            "AND seq <= ? ORDER BY seq", (tenant, cid, after, upto))]

    def reader(self) -> Store:
        """Another connection to this store, for reads alone: they see what is committed, and need not wait
        for (nor share the connection of) a commit in flight on another thread.  No schema work: this store did it."""
        raise NotImplementedError

    @contextmanager
    def appending(self, tenant: str, cid: str) -> Iterator[Appender]:
        """A transaction holding the conversation's append lock; commits when the block ends normally.

        If the block fails, what it wrote is undone and the batch's other writes stand.  On SQLite that
        takes no savepoint (two statements more per append): a failed statement undoes itself, and an insert
        that succeeded is undone by ``Appender.undo``.  Should the undo fail, the whole batch is refused.
        """
        with self._transaction(), nullcontext() if self.statement_undone_alone else self._savepoint():
            row = self._lock_conversation(tenant, cid)
            if row is None:
                raise NotFound(f"no conversation {cid}", conversation=cid)
            tx = Appender(self, tenant, cid, int(row[0]))
            try:
                yield tx
            except BaseException:
                if self.statement_undone_alone:
                    tx.undo()
                raise


class Appender:
    """The conversation as seen under its append lock: its length, and the one insert allowed."""

    def __init__(self, store: Store, tenant: str, cid: str, length: int):
        self.store, self.tenant, self.cid, self.length = store, tenant, cid, length
        self._before = length
        self._inserted = False

    def insert(self, turn: int, line: dict[str, Any], effects: str | None = None) -> int:
        """Insert the next row; ``effects``: the rules' decision on it, recorded for a bulk replay."""
        seq = self.length + 1
        s = self.store
        s._run("INSERT INTO utterances (tenant, conversation, seq, turn, line, created, effects) "
               "VALUES (?, ?, ?, ?, ?, ?, ?)",
               (self.tenant, self.cid, seq, turn, json.dumps(line, ensure_ascii=False), _now(), effects))
        self._inserted = True
        s._run("UPDATE conversations SET length = ? WHERE tenant = ? AND id = ?", (seq, self.tenant, self.cid))
        self.length = seq
        return seq

    def record_effects(self, effects_by: str) -> bool:
        """Have this conversation's rows record the rules' decisions from now on, under ``effects_by``, if none
        were recorded before (a conversation stored before they were); False if another process's rules did."""
        return self.store._run("UPDATE conversations SET effects_by = ? WHERE tenant = ? AND id = ? "
                               "AND effects_by IS NULL", (effects_by, self.tenant, self.cid)) == 1

    def undo(self) -> None:
        """Take back this append's row and length (a store whose failed statement undoes only itself).

        Only a row this appender inserted is deleted (under the append lock no other writer has that seq).
        If the undo itself fails, the batch's transaction is doomed: rolled back whole, nothing acknowledged.
        """
        if not self._inserted:
            return
        s = self.store
        try:
            s._run("DELETE FROM utterances WHERE tenant = ? AND conversation = ? AND seq = ?",
                   (self.tenant, self.cid, self._before + 1))
            s._run("UPDATE conversations SET length = ? WHERE tenant = ? AND id = ?",
                   (self._before, self.tenant, self.cid))
        except BaseException as exc:
            s._doom(f"undoing a failed append to {self.cid}: {exc}")
            raise
        self._inserted, self.length = False, self._before


class SQLiteStore(Store):
    """One SQLite file in WAL mode; several processes may share it (the write lock orders appends)."""

    statement_undone_alone = True  # a constraint error aborts its statement only (SQLite's ON CONFLICT ABORT)

    def __init__(self, path: str | Path, migrate: bool = True):
        self.path = Path(path)
        self.url = str(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # check_same_thread off: the host hands the connection to its commit thread for a COMMIT, and touches
        # it from no other thread until that returns (``host.py``): one thread at a time, never two at once.
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=self.LOCK_TIMEOUT,
                                   check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._depth = 0
        self._doomed: str | None = None
        self._no_wait = False
        self._waiter: sqlite3.Connection | None = None
        """``wait_for_lock``'s connection (on its thread only)."""
        if migrate:
            self.migrate()

    def reader(self) -> Store:
        return SQLiteStore(self.path, migrate=False)  # WAL: its reads go on while this connection commits

    def _execute(self, sql: str, args: tuple = ()) -> Any:
        if self._doomed is not None:
            raise StoreUnavailable(f"{self.url}: this batch's transaction was lost ({self._doomed})")
        try:
            return self._db.execute(sql, args)
        except (sqlite3.IntegrityError, sqlite3.OperationalError) as exc:
            if self._depth and not self._db.in_transaction:  # SQLite rolled the whole transaction back (e.g. disk full)
                self._doom(str(exc))
            raise StoreUnavailable(f"{self.url}: {exc}") from exc

    def _doom(self, why: str) -> None:
        self._doomed = why

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        if self._depth:
            self._no_wait = False
            yield
            return
        self._begin()
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth, self._doomed = 0, None
            self._db.rollback()
            raise
        self._depth, doomed, self._doomed = 0, self._doomed, None
        if doomed is not None:
            self._db.rollback()
            raise StoreUnavailable(f"{self.url}: commit failed: the transaction was lost ({doomed})")
        try:
            self._db.commit()
        except sqlite3.Error as exc:
            self._db.rollback()
            raise StoreUnavailable(f"{self.url}: commit failed: {exc}") from exc

    def _lock_conversation(self, tenant: str, cid: str) -> tuple | None:
        return self._one("SELECT length FROM conversations WHERE tenant = ? AND id = ?", (tenant, cid))

    def _transaction_now(self) -> Any:
        self._no_wait = True  # read by the BEGIN of the transaction made here (nested: none, and no wait)
        return self._transaction()

    def _begin(self) -> None:
        """BEGIN IMMEDIATE (the write lock), waiting up to LOCK_TIMEOUT for another process to let it go, or
        not at all after ``_transaction_now``: StoreLocked then."""
        if not self._no_wait:
            self._execute("BEGIN IMMEDIATE")
            return
        self._no_wait = False
        self._db.execute("PRAGMA busy_timeout = 0")
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise StoreUnavailable(f"{self.url}: {exc}") from exc
            raise StoreLocked(f"{self.url}: another process holds the write lock") from exc
        finally:
            self._db.execute(f"PRAGMA busy_timeout = {int(self.LOCK_TIMEOUT * 1000)}")

    def wait_for_lock(self, timeout: float) -> None:
        if self._waiter is None:
            self._waiter = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._waiter.execute(f"PRAGMA busy_timeout = {max(0, int(timeout * 1000))}")
        try:
            self._waiter.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreUnavailable(f"{self.url}: the write lock was held past {timeout:g} s: {exc}") from exc
        self._waiter.execute("ROLLBACK")

    def close(self) -> None:
        if self._waiter is not None:
            self._waiter.close()
        self._db.close()


class PostgresStore(Store):
    """PostgreSQL through psycopg 3; appends take the conversation row's lock (``FOR UPDATE``)."""

    param = "%s"

    def __init__(self, url: str, connect_timeout: float = 10.0, migrate: bool = True):
        try:
            import psycopg
        except ImportError as exc:
            raise StoreUnavailable("PostgreSQL needs psycopg: pip install 'grounded[serve]'") from exc
        self._psycopg = psycopg
        self.url = _hide_password(url)
        deadline = time.monotonic() + connect_timeout
        while True:
            try:
                self._db = psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(connect_timeout)))
                break
            except psycopg.OperationalError as exc:
                if time.monotonic() > deadline:
                    raise StoreUnavailable(f"{self.url}: cannot connect: {' '.join(str(exc).split())}") from exc
                time.sleep(0.2)
        self._depth = 0
        self._full_url = url
        if migrate:
            self.migrate()

    def reader(self) -> Store:
        return PostgresStore(self._full_url, migrate=False)

    def _execute(self, sql: str, args: tuple = ()) -> Any:
        try:
            return self._db.execute(sql, args)
        except self._psycopg.Error as exc:
            raise StoreUnavailable(f"{self.url}: {' '.join(str(exc).split())}") from exc

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        if self._depth:
            yield
            return
        self._depth = 1
        try:
            with self._db.transaction():
                yield
        except self._psycopg.Error as exc:
            raise StoreUnavailable(f"{self.url}: commit failed: {' '.join(str(exc).split())}") from exc
        finally:
            self._depth = 0

    def migrate(self) -> None:
        # Two processes starting on an empty database would race on CREATE TABLE.
        with self._transaction():
            self._execute("SELECT pg_advisory_xact_lock(7236011)")
            super().migrate()

    def _lock_conversation(self, tenant: str, cid: str) -> tuple | None:
        return self._one("SELECT length FROM conversations WHERE tenant = ? AND id = ? FOR UPDATE", (tenant, cid))

    def close(self) -> None:
        self._db.close()


def _hide_password(url: str) -> str:
    """The URL as it may appear in an error message."""
    head, sep, tail = url.partition("@")
    if not sep or "://" not in head:
        return url
    scheme, _, userinfo = head.partition("://")
    return f"{scheme}://{userinfo.split(':')[0]}@{tail}"


DEFAULT_DB = "grounded.db"


def open_store(url: str | Path | None = None) -> Store:
    """``postgresql://...`` (or ``postgres://``), ``sqlite:///path``, or a plain file path (SQLite)."""
    url = str(url) if url is not None else DEFAULT_DB
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresStore(url)
    if url.startswith("sqlite:///"):
        url = url[len("sqlite:///"):]
    elif "://" in url:
        raise StoreUnavailable(f"--db {url}: expected a file path, sqlite:///path or postgresql://...")
    return SQLiteStore(url)


def create_key(db: str | Path | None, tenant: str) -> str:
    """A new API key for ``tenant`` (created if new) in the store at ``db``; only its hash is stored."""
    store = open_store(db)
    try:
        key_id, key, digest = new_key()
        store.add_key(key_id, tenant, digest)
    finally:
        store.close()
    return key
