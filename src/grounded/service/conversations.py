"""The conversations a process serves: engines cached in memory, rebuilt from the store.

Everything here runs on the one thread that owns the engines (``host.py``).
Before any answer the cached engine is brought up to the store's length
(rows another process appended are replayed in bulk: ``_catch_up``), so every
process answers from the same history.  Each row carries the rules' decision
on it, recorded when they accepted it (the flat text of the effect log): an
engine built cold, or one whose rules hold no facts yet, mirrors those
decisions without running the rules (``engine/catchup.py``), as far as they
were recorded by the rules this server runs (``effects_by``); other rows the
rules judge, a batch per request.

Reads use a connection of their own (``Store.reader``) and answer from what
is committed: a conversation a commit in flight has moved on is answered as
of its last committed turn (``_view``); what cannot be answered that way
(``Unsettled``) waits for the commit (``host.py``).

An append takes the conversation's lock in the store, catches up, checks the
turn the client expected, lets the rules decide, writes the row (with the
rules' decision) and commits; only then is it acknowledged.  If anything fails
after the rules accepted, the engine is dropped from the cache and rebuilt
from the store next time: the store is the truth, the engine a cache.

Each public method takes the tenant the caller's key belongs to and returns
plain JSON-able data; the HTTP API and the MCP tools are thin front-ends.  A
conversation is named by (tenant, id), in the store and in the cache alike:
another tenant's conversation is, to a caller, one that does not exist.
"""

from __future__ import annotations

import gc
import hashlib
import os
import secrets
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grounded.core import collector
from grounded.core.bounds import check_turn
from grounded.core.errors import InputError, PreconditionError
from grounded.core.turns import assign_turn
from grounded.dmap.effects import fields_of
from grounded.dmap.model import Header
from grounded.dmap.state import DependencyMap
from grounded.engine import Engine, Update
from grounded.engine.catchup import replay_by_rules, replay_recorded, rules_hold_state
from grounded.engine.group import Outcome, apply_group
from grounded.io.eventlog import header_json, utterance_json
from grounded.queries.registry import state as registry_state
from grounded.service import keys
from grounded.service.errors import Conflict, Inconsistent, Invalid, Loading, NotFound, Unauthorized
from grounded.service.store import ConversationRow, Store
from grounded.solvers.ruleset import RULES_DIR_VARIABLE, rules_version

if TYPE_CHECKING:
    from grounded.engine.world import ConversationModel
    from grounded.solvers.termdata import Value

INTERPRETERS = ("rules", "llm")
"""Interpreters an append may name to turn text into operations (``replay`` needs gold: not served)."""


@dataclass(frozen=True, slots=True)
class ExtensionFile:
    """A rule file the server loads, offered to conversations by its file name."""

    name: str
    path: str
    sha256: str

    @classmethod
    def read(cls, path: str | Path) -> ExtensionFile:
        p = Path(path).expanduser().resolve()
        if not p.is_file():
            raise InputError(f"extension rule file not found: {path}")
        return cls(p.name, str(p), hashlib.sha256(p.read_bytes()).hexdigest())


Key = tuple[str, str]
"""(tenant, conversation id): what names a conversation."""


class _Entry:
    __slots__ = ("engine", "tenant", "length", "nbytes", "recorded", "unrecorded", "settled")

    def __init__(self, engine: Engine, tenant: str, length: int, recorded: bool = False,
                 unrecorded: str | None = None):
        self.engine, self.tenant, self.length = engine, tenant, length
        self.nbytes = 0
        """What the engine's world model holds (``ConversationModel.nbytes``), as last counted."""
        self.recorded = recorded and engine.world is None
        """Whether the rules' decisions recorded with its rows hold for this engine (recorded by the rules it
        runs; not with a world model, which is moved by each utterance's reading): written, and read back."""
        self.unrecorded = unrecorded if engine.world is None else None
        """No decision was ever recorded with its rows (stored before they were): its next append starts
        recording them under this (``Conversations.effects_by``)."""
        self.settled: tuple[int, int | None] | None = None
        """While writes not yet committed have moved the engine on: the (length, turn) it had before them,
        the state a read answers as of (``Conversations._view``); None when everything it holds is committed."""

    def unsettle(self, before: tuple[int, int | None]) -> None:
        """A write has moved the engine on from ``before`` (length, turn), uncommitted."""
        if self.settled is None:
            self.settled = before


class Cold(Exception):
    """A request needs the engine of a conversation not cached whose history is long: built off the event
    loop (``Conversations.build_cold`` on a thread of its own, ``host.py``) rather than inline, where it would
    hold every other conversation's requests."""

    def __init__(self, key: Key, entry: _Entry, length: int):
        super().__init__(key[1])
        self.key, self.entry, self.length = key, entry, length
        self.done = 0
        """Rows replayed so far (read by the loop while the thread builds, for the 503's message)."""
        self.started = self.deadline = 0.0
        """``time.monotonic()`` when the build started, and past which it gives up (set when it starts)."""
        self.facts: list[Value] | None = None
        """The built state as the rules' facts (made on the builder's thread), until the loop has given them to the
        rules (``Conversations.warming``)."""
        self.levels: list[Value] | None = None
        """With ``facts``: the levels the rules would rebuild from them (``level_facts``)."""
        self.warmed = 0
        """Facts given to the rules so far (read for the 503's message)."""


class Unsettled(Exception):
    """A read that cannot be answered from the committed state while a commit in flight has moved its
    conversation's engine on: it waits for the commit (``host.py``), then runs again."""


def engine_bytes(engine: Engine) -> int:
    """The memory a cached engine is charged: its world model's arrays (a 22-atom model holds about a hundred
    megabytes; the dependency map beside it is small next to any model), 0 without one."""
    return 0 if engine.world is None else engine.world.nbytes()


class _Decided:
    """An append the rules decided ahead of its turn in a group (``Conversations.decide``): on which engine,
    at which length, and what came of it (the engine has moved on if it was accepted)."""

    __slots__ = ("utterance", "engine", "length", "outcome")

    def __init__(self, utterance: dict[str, Any], engine: Engine, length: int, outcome: Outcome):
        self.utterance, self.engine, self.length, self.outcome = utterance, engine, length, outcome


class Batch:
    """An open group commit: the store's transaction, and the engines its writes moved on.

    ``commit`` and ``abort`` touch only the store's connection, so they may run on
    another thread while the engines' thread waits without touching the store;
    ``forget`` (after either failed) drops engines, so it runs on the engines' thread.
    """

    __slots__ = ("_conversations", "_transaction", "_touched")

    def settle(self) -> None:
        """After the commit returned: what the group's writes moved on is committed, reads answer it whole."""
        for key in self._touched:
            entry = self._conversations._cache.get(key)
            if entry is not None:
                entry.settled = None

    def __init__(self, conversations: Conversations, transaction: AbstractContextManager[Any]):
        self._conversations, self._transaction = conversations, transaction
        self._touched = conversations._touched
        transaction.__enter__()

    def commit(self) -> None:
        """COMMIT (one fsync for the whole group); StoreUnavailable if the store refused it (rolled back)."""
        self._transaction.__exit__(None, None, None)

    def abort(self, exc: BaseException) -> None:
        """Roll back: nothing of the group is stored."""
        self._transaction.__exit__(type(exc), exc, exc.__traceback__)

    def forget(self) -> None:
        """After a failed commit or an abort: drop every engine a write of the group moved on (not committed)."""
        for key in self._touched:
            self._conversations._forget(key)
        self._touched.clear()


class Conversations:
    """The engines of one process, keyed by (tenant, conversation id): at most ``cache`` of them, and of one
    tenant at most ``cache_per_tenant`` holding at most ``cache_bytes_per_tenant`` (``engine_bytes``); past a
    bound the least recently used go (of that tenant, for its bounds), to be rebuilt from the store if asked."""

    def __init__(self, store: Store, extensions: tuple[ExtensionFile, ...] = (), cache: int = 1000,
                 interpreter_options: dict[str, Any] | None = None, cache_per_tenant: int = 100,
                 cache_bytes_per_tenant: int = 512 * 2**20, cold_rows: int | None = None):
        self.store = store
        self.extensions = {e.name: e for e in extensions}
        self.cache_size = cache
        self.cache_per_tenant = cache_per_tenant
        self.cache_bytes_per_tenant = cache_bytes_per_tenant
        self._cache: OrderedDict[Key, _Entry] = OrderedDict()
        self._held: dict[str, list[int]] = {}
        """Per tenant: [engines cached, their bytes]."""
        self._interpreters: dict[str, Any] = {}
        self._interpreter_options = interpreter_options or {}
        self._touched: set[Key] = set()
        self._prefetched: tuple[Key, int | None] | None = None
        self._decided: dict[Key, _Decided] = {}
        self.reads = store.reader()
        """The connection reads use: they see what is committed, whatever the write connection is doing."""
        self._writing = False
        """Inside a group's writes (``open_batch`` to ``writes_done``): lookups use the write connection."""
        self._rules_version = None if RULES_DIR_VARIABLE in os.environ else rules_version()
        self.replayed = 0
        """Stored rows replayed into engines so far (built cold or caught up), for the tests and benchmarks."""
        self.cold_rows = cold_rows
        """A conversation not cached with at least this many rows is built off the loop (``Cold``); None: inline."""
        self._builder_store: Store | None = None
        """``build_cold``'s connection (on the builder's thread only)."""

    @property
    def _db(self) -> Store:
        """The connection a lookup uses: the write transaction's inside a group's writes, else the reads'."""
        return self.store if self._writing else self.reads

    def effects_by(self, extensions: list[dict[str, str]]) -> str | None:
        """What the recorded decisions of a conversation with these extensions hold under: the rules version
        and each extension's sha256 (None: rules from elsewhere, whose version does not cover them)."""
        if self._rules_version is None:
            return None
        return " ".join([self._rules_version, *(f"{e['name']}:{e['sha256']}" for e in extensions)])

    @contextmanager
    def batch(self) -> Iterator[None]:
        """One store transaction for several writes (group commit): one fsync for all of them.

        If the commit fails, every engine a write of the batch moved on is dropped
        (rebuilt from the store when next asked), so no answer rests on a row that
        was not committed.
        """
        group = self.open_batch()
        try:
            yield
        except BaseException as exc:
            self.writes_done()
            try:
                group.abort(exc)
            finally:
                group.forget()
            raise
        self.writes_done()
        try:
            group.commit()
        except BaseException:
            group.forget()
            raise
        group.settle()

    def open_batch(self, wait: bool = True) -> Batch:
        """A group commit in two halves (``batch`` in one): the writes here, then ``Batch.commit``, which may run
        on another thread (``host.py`` runs it off the event loop).  ``wait=False``: StoreLocked at once if
        another process holds the store's write lock (``host.py`` waits for it off the loop)."""
        self._touched = set()
        group = Batch(self, self.store.transaction(wait))
        self._writing = True
        return group

    def writes_done(self) -> None:
        """A group's writes are made (its commit may be in flight on another thread): lookups use the reads'
        connection again."""
        self._writing = False

    # -- who is asking ----------------------------------------------------------

    def authenticate(self, key: str | None, conversation: str | None = None) -> str:
        """The tenant of a live API key, else Unauthorized (401).

        With ``conversation``, the same round trip to the store also fetches the
        length of the key's tenant's conversation by that id, which the read that
        follows uses (one query per read, not two: on PostgreSQL each is a network
        round trip).
        """
        self._prefetched = None
        if not key:
            raise Unauthorized("missing API key (Authorization: Bearer gk_...)")
        parsed = keys.parse(key)
        found = self._db.key_and_head(parsed[0], conversation) if parsed else None
        row = found[0] if found else None
        if row is None or parsed is None or row.revoked is not None or not keys.matches(parsed[1], row.hash):
            raise Unauthorized("invalid or revoked API key")
        if conversation is not None and found is not None:
            self._prefetched = ((row.tenant, conversation), found[1])
        return row.tenant

    def forget_prefetched(self) -> None:
        self._prefetched = None

    # -- conversations ------------------------------------------------------------

    def create(self, tenant: str, header: Header | dict[str, Any] | None, cid: str | None = None,
               extensions: list[str] | None = None, world: ConversationModel | None = None) -> dict[str, Any]:
        """``world``: the header's world model, built already (``engine.world_model``, off the event loop)."""
        cid = keys.check_name("conversation", cid) if cid is not None else "c" + secrets.token_hex(8)
        exts = []
        for name in extensions or ():
            if name not in self.extensions:
                raise Invalid(f"extensions: {name!r} is not loaded by this server (loaded: "
                              f"{', '.join(self.extensions) or 'none'})", field="extensions")
            exts.append(self.extensions[name])
        # The library validates the header (an InputError names the field) and the rules
        # load the extensions, before anything is stored.
        engine = Engine(header or {}, extensions=[e.path for e in exts], world=world)
        refs = [{"name": e.name, "sha256": e.sha256} for e in exts]
        by = self.effects_by(refs)
        try:
            self.store.create_conversation(tenant, cid, header_json(engine.header), refs, by)
        except BaseException:
            engine.close()
            raise
        entry = _Entry(engine, tenant, 0, by is not None)
        self._remember((tenant, cid), entry)
        self._touched.add((tenant, cid))
        return self._summary(cid, entry)

    def listing(self, tenant: str) -> list[dict[str, Any]]:
        return [{"id": cid, "length": n} for cid, n in self._db.conversations(tenant)]

    def describe(self, tenant: str, cid: str) -> dict[str, Any]:
        entry = self._entry(tenant, cid)
        row = self._db.conversation(tenant, cid)
        assert row is not None  # _entry found it
        return {**self._summary(cid, entry), "header": row.header, "extensions": row.extensions}

    def export(self, tenant: str, cid: str) -> list[dict[str, Any]]:
        """The event log: the header line, then every stored utterance line (what ``Engine.load`` reads)."""
        self._length(tenant, cid)
        lines = event_log_lines(self._db, tenant, cid)
        assert lines is not None  # _length found it
        return lines

    def _summary(self, cid: str, entry: _Entry) -> dict[str, Any]:
        return {"id": cid, "tenant": entry.tenant, "turn": entry.engine.turn, "length": entry.length}

    # -- appending -------------------------------------------------------------------

    def decide(self, appends: list[tuple[str, str, dict[str, Any]]]) -> None:
        """Ahead of a group's writes (``host.py``), inside its transaction: the rules' decisions on these
        appends (tenant, id, utterance: operations, no expected turn, no interpreter) to conversations whose
        engine is cached, all in one request (``engine/group.py``).  Each is its conversation's first write in
        the group (one per conversation): a write before it would move the engine under the decision.

        Each append then takes its decision under the conversation's lock (``append``) if the store is still
        where the engine was (no other process appended meanwhile) and it is the same utterance; otherwise
        the engine, moved on by a decision not taken, is dropped and the append runs as ever.
        """
        self._decided = {}
        items: list[tuple[Key, _Entry, dict[str, Any]]] = []
        for tenant, cid, utterance in appends:
            entry = self._current((tenant, cid))
            if entry is not None:
                items.append(((tenant, cid), entry, utterance))
        if len(items) < 2:  # one alone gains nothing: it runs as ever
            return
        before = [(entry.length, entry.engine.turn) for _, entry, _ in items]
        try:
            outcomes = apply_group([(entry.engine, utterance) for _, entry, utterance in items])
        except Exception:  # not a decision (those are outcomes): the engines may have moved, the store is the truth
            for key, _, _ in items:
                self._forget(key)
            raise
        for (key, entry, utterance), outcome, was in zip(items, outcomes, before, strict=True):
            self._decided[key] = _Decided(utterance, entry.engine, entry.length, outcome)
            if isinstance(outcome, Update):
                entry.unsettle(was)
                self._touched.add(key)  # dropped with the group's engines if it does not commit

    def _current(self, key: Key) -> _Entry | None:
        """The cached engine of ``key`` caught up with the store's head, or None (not cached, or it did not
        catch up: the append then runs as ever and says why).  A decision taken ahead on an engine behind the
        store would not hold under the lock: the engine it moved would be dropped and built again."""
        if key not in self._cache:
            return None
        try:
            head = self.store.head(*key)
            return None if head is None else self._caught_up(*key, head)
        except Exception:  # noqa: BLE001 - the append, run as ever, meets the same failure and reports it
            return None

    def undecided(self) -> None:
        """After a group's writes: a decision no append took leaves its engine ahead of the store: dropped."""
        for key, decided in self._decided.items():
            if isinstance(decided.outcome, Update):
                self._forget(key)
        self._decided = {}

    def _take_decided(self, key: Key, utterance: dict[str, Any], length: int) -> Outcome | None:
        """The rules' decision on this append taken ahead (``decide``), if it still holds at ``length``, the
        store's, under the conversation's lock; a decision that does not hold is dropped with its engine."""
        decided = self._decided.pop(key, None)
        if decided is None:
            return None
        entry = self._cache.get(key)
        if (decided.utterance is utterance and entry is not None and entry.engine is decided.engine
                and decided.length == entry.length == length):
            self._cache.move_to_end(key)
            return decided.outcome
        if isinstance(decided.outcome, Update):
            self._forget(key)
        return None

    def append(self, tenant: str, cid: str, utterance: dict[str, Any], *, expect_turn: int | None = None,
               check_expected: bool = False, interpreter: str | None = None) -> dict[str, Any]:
        """Append one utterance (operations, or text through ``interpreter``); acknowledged once committed.

        With ``check_expected``, ``expect_turn`` is the conversation's last turn as the
        client saw it (None: no utterance yet); another is a Conflict (409).
        """
        if interpreter is not None and interpreter not in INTERPRETERS:
            raise Invalid(f"interpreter {interpreter!r}: expected one of {', '.join(INTERPRETERS)}",
                          field="interpreter")
        keys.check_name("conversation", cid)
        applied = False
        rounds: list[list[dict[str, Any]]]
        try:
            with self.store.appending(tenant, cid) as tx:
                decided = self._take_decided((tenant, cid), utterance, tx.length) if self._decided else None
                if decided is not None and not check_expected and interpreter is None:
                    entry = self._cache[(tenant, cid)]
                    if not isinstance(decided, Update):  # refused, as the rules would refuse it now
                        raise decided
                    update, rounds = decided, []
                else:
                    if isinstance(decided, Update):
                        self._forget((tenant, cid))
                    entry = self._caught_up(tenant, cid, tx.length)
                    engine = entry.engine
                    if check_expected and expect_turn != engine.turn:
                        raise Conflict(f"conversation {cid} is at turn {engine.turn}, not {expect_turn}",
                                       conversation=cid, expected=expect_turn, turn=engine.turn)
                    was = (entry.length, engine.turn)
                    # The rules or the schema may refuse (InputError, PreconditionError): the
                    # engine is then unchanged and the transaction writes nothing.
                    update, rounds = self._apply(engine, utterance, interpreter)
                    entry.unsettle(was)
                applied = True
                if entry.unrecorded is not None:  # the first row this server's rules record decisions for
                    entry.recorded, entry.unrecorded = tx.record_effects(entry.unrecorded), None
                line = utterance_json(update.turn, update.utterance)
                seq = tx.insert(update.turn, line, recorded_decision(update) if entry.recorded else None)
                entry.length = seq
                self._touched.add((tenant, cid))
                if entry.engine.world is not None:
                    self._recount((tenant, cid), entry)
        except BaseException:
            # The engine moved on but the row is not committed: the store is the truth.
            if applied:
                self._forget((tenant, cid))
            raise
        return {"id": cid, "seq": seq, **update_json(update, line), "rejections": rounds}

    def _apply(self, engine: Engine, utterance: dict[str, Any],
               interpreter: str | None) -> tuple[Update, list[list[dict[str, Any]]]]:
        if interpreter is None:
            return engine.apply(utterance), []
        from grounded.interpreter.session import interpret_turn
        from grounded.interpreter.transcript import Said

        if utterance.get("ops"):
            raise Invalid("give either ops or an interpreter, not both", field="ops")
        turn = utterance.get("turn")
        said = Said(assign_turn(turn, engine.state.last_turn), utterance["speaker"],
                    utterance.get("text", ""))
        result = interpret_turn(engine, self._interpreter(interpreter), said)
        return result.update, [[v.to_json() for v in r] for r in result.rejections]

    def _interpreter(self, name: str) -> Any:
        if name not in self._interpreters:
            from grounded.interpreter.runner import make_interpreter

            options = self._interpreter_options if name == "llm" else {}
            self._interpreters[name] = make_interpreter(name, **options)
        return self._interpreters[name]

    # -- queries ------------------------------------------------------------------------

    def query(self, tenant: str, cid: str, name: str, at: int | None = None, **params: Any) -> dict[str, Any]:
        """A registered query (``queries/registry.py``) in its one JSON shape, as every front end answers it."""
        entry, at, _ = self._view(tenant, cid, at)
        return entry.engine.ask(name, at, **params)

    def verify(self, tenant: str, cid: str, claim: str, at: int | None = None) -> dict[str, Any]:
        return self.query(tenant, cid, "verify", at, claim=claim)

    def reading(self, tenant: str, cid: str) -> tuple[tuple[str, str, int], DependencyMap]:
        """What verifying a text against ``cid`` reads, taken here (the engines' thread): the state, caught up
        with the store, and its version (tenant, id, length); the reading itself runs elsewhere (``reading.py``)."""
        entry = self._entry(tenant, cid)
        return (tenant, cid, entry.length), entry.engine.state

    def affected(self, tenant: str, cid: str, claim: str, closure: bool = True,
                 at: int | None = None) -> dict[str, Any]:
        return self.query(tenant, cid, "affected", at, claim=claim, closure=closure)

    def state(self, tenant: str, cid: str, at: int | None = None) -> dict[str, Any]:
        entry, at, length = self._view(tenant, cid, at)
        return {"id": cid, "length": length, **state_json(entry.engine, at)}

    def snapshot(self, tenant: str, cid: str) -> dict[str, Any]:
        """The engine's whole state as plain data (for cross-checks between processes)."""
        return self._entry(tenant, cid).engine.snapshot()

    # -- the cache ------------------------------------------------------------------------

    def _length(self, tenant: str, cid: str) -> int:
        """The length of the tenant's conversation ``cid``; NotFound if the tenant has none by that id
        (whether another tenant has one is not the caller's to know: the answer is the same)."""
        keys.check_name("conversation", cid)
        if self._prefetched is not None and self._prefetched[0] == (tenant, cid):
            length, self._prefetched = self._prefetched[1], None
        else:
            length = self._db.head(tenant, cid)
        if length is None:
            raise NotFound(f"no conversation {cid}", conversation=cid)
        return length

    def _entry(self, tenant: str, cid: str) -> _Entry:
        """The conversation's engine, caught up with the store: for a read that must see the whole engine
        (Unsettled while a commit in flight has moved it on)."""
        entry, _, _ = self._view(tenant, cid, None)
        if entry.settled is not None and not self._writing:
            raise Unsettled(cid)
        return entry

    def _view(self, tenant: str, cid: str, at: int | None) -> tuple[_Entry, int | None, int]:
        """What a read answers from: the engine, the turn to answer as of (``at``, or, while a commit in flight
        has moved the engine past the store's committed length, at most the last committed turn), and that
        committed length."""
        length = self._length(tenant, cid)
        entry = self._cache.get((tenant, cid))
        if entry is not None and entry.settled is not None and entry.length > length and not self._writing:
            settled_length, turn = entry.settled
            if settled_length != length:  # a group commits whole: the store is at one end of it or the other
                raise Unsettled(cid)
            last = 0 if turn is None else turn  # turn 0: before the first utterance
            asked = check_turn(at)
            return entry, last if asked is None else min(asked, last), length
        return self._caught_up(tenant, cid, length), at, length

    def _caught_up(self, tenant: str, cid: str, length: int) -> _Entry:
        key = (tenant, cid)
        entry = self._cache.get(key)
        if entry is None:
            entry = self._build(tenant, cid)
            if self._builds_off_loop(entry, length):
                raise Cold(key, entry, length)
            self._remember(key, entry)
        else:
            self._cache.move_to_end(key)
        if entry.length < length:
            try:
                self._catch_up(cid, entry, self._db.recorded_lines(tenant, cid, entry.length, length))
            except BaseException:
                self._forget(key)
                raise
            if entry.engine.world is not None:
                self._recount(key, entry)
        elif entry.length > length:  # cannot happen unless the store was rolled back under us
            self._forget(key)
            return self._caught_up(tenant, cid, length)
        return entry

    def _catch_up(self, cid: str, entry: _Entry, rows: list[Row]) -> None:
        """Replay stored ``rows`` (the ones after ``entry.length``) into its engine, in bulk: the leading rows
        with a recorded decision mirrored from it when the engine's rules hold no facts to keep up (pure Python;
        their facts are made when next asked), the rest judged by the rules, a batch per request."""
        if not rows:
            return
        mirrored = _recorded(rows) if entry.recorded and not rules_hold_state(entry.engine) else 0
        if mirrored:
            _mirror(cid, entry.engine, rows[:mirrored])
        if mirrored < len(rows):
            try:
                replay_by_rules(entry.engine, [(seq, body) for seq, body, _ in rows[mirrored:]], f"conversation {cid}")
            except (InputError, PreconditionError) as exc:
                raise _no_longer_replays(cid, exc) from exc
        entry.length = rows[-1][0]
        self.replayed += len(rows)

    def _builds_off_loop(self, entry: _Entry, length: int) -> bool:
        """Whether a new engine with ``length`` rows to replay is built off the loop: a long history whose
        decisions were recorded (mirrored in pure Python; the rules judge any row without one on the loop after),
        outside a group's writes (which hold the store's transaction: those build inline)."""
        return self.cold_rows is not None and not self._writing and entry.recorded and length >= self.cold_rows

    def cold(self, tenant: str, cid: str) -> Cold | None:
        """Before a write is queued: the conversation's engine to build off the loop if it is not cached and its
        history is long, else None (the write runs as ever and meets any error itself)."""
        if self.cold_rows is None or (tenant, cid) in self._cache:
            return None
        try:
            length = self._db.head(tenant, cid)
            if length is None or length < self.cold_rows:
                return None
            entry = self._build(tenant, cid)
        except Exception:  # noqa: BLE001 - the write meets it and says it
            return None
        if self._builds_off_loop(entry, length):
            return Cold((tenant, cid), entry, length)
        entry.engine.close()
        return None

    PART = 64
    """Rows a cold build mirrors between two yields of the GIL: the loop waits at most about that long for it."""

    def build_cold(self, cold: Cold) -> None:
        """On the builder's thread: the rows of ``cold`` with a recorded decision mirrored into its new engine,
        ``PART`` at a time, the GIL let go between parts so the loop keeps answering; stops at the first row
        without one (the loop's ``_caught_up`` has the rules judge the rest) or past ``cold.deadline``."""
        if self._builder_store is None:
            self._builder_store = self.store.reader()
        # The cyclic collector is paused meanwhile (a collection of the growing state, run on this thread with the
        # GIL held, would stall the loop), and what the build kept is frozen before it runs again: long-lived, and
        # else scanned whole by the first young collection after, on whichever thread allocates next.
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._build_cold(cold, self._builder_store)
            from grounded.solvers.prolog import iter_state_facts, level_facts

            state = cold.entry.engine.state  # its facts and levels, pure Python: made here, not on the rules' thread
            cold.facts = []
            for fact in iter_state_facts(state):
                cold.facts.append(fact)
                if len(cold.facts) % 1024 == 0:
                    time.sleep(0)  # the GIL to the loop, as between the rows' parts
            cold.levels = level_facts(state, lambda: time.sleep(0))
        finally:
            collector.freeze()
            if collecting:
                gc.enable()

    def _build_cold(self, cold: Cold, store: Store) -> None:
        tenant, cid = cold.key
        engine, after = cold.entry.engine, 0
        while after < cold.length:
            rows = store.recorded_lines(tenant, cid, after, min(after + 64 * self.PART, cold.length))
            recorded = _recorded(rows)
            for start in range(0, recorded, self.PART):
                if time.monotonic() > cold.deadline:
                    raise Loading(f"conversation {cid}: building its engine from the store went past its deadline "
                                  f"({cold.done} of {cold.length} utterances replayed); retry", retry_after=1,
                                  conversation=cid)
                part = rows[start:start + self.PART]
                _mirror(cid, engine, part)
                cold.entry.length = cold.done = part[-1][0]
                time.sleep(0)  # the GIL to the loop, if it waits for it
            if recorded < len(rows) or not rows:
                break
            after = rows[-1][0]

    WARM_PART = 250
    """Facts given to the rules per request while a cold engine warms (``warming``): the loop waits at most about
    that long (a millisecond or two) for the rules between two other requests."""

    def warming(self, cold: Cold) -> Iterator[None]:
        """On the loop, once ``build_cold`` has made ``cold``'s engine: the rules given its state, ``WARM_PART`` facts
        per request, yielding between two (where the loop serves other requests).  The engine must not be used
        before this has run to its end: else its next append would give the rules the whole state in one go,
        holding the loop (and every other conversation) for seconds at 10^5 utterances."""
        facts, cold.facts = cold.facts, None
        if facts is None:
            return
        levels, cold.levels = cold.levels, None
        every = len(facts) + len(levels or ())
        for _ in cold.entry.engine.rules_in_parts(facts, self.WARM_PART, levels):
            cold.warmed = min(cold.warmed + self.WARM_PART, every)
            yield

    def install(self, cold: Cold) -> None:
        """Back on the loop: the engine ``build_cold`` made is cached (unless another was meanwhile)."""
        self.replayed += cold.entry.length
        if cold.key in self._cache:
            cold.entry.engine.close()
        else:
            self._remember(cold.key, cold.entry)

    def _build(self, tenant: str, cid: str) -> _Entry:
        """A new engine for a stored conversation, at length 0 (``_caught_up`` replays its rows)."""
        row = self._db.conversation(tenant, cid)
        if row is None:
            raise NotFound(f"no conversation {cid}", conversation=cid)
        by = self.effects_by(row.extensions)
        return _Entry(self._new_engine(cid, row), tenant, 0, by is not None and row.effects_by == by,
                      by if row.effects_by is None else None)

    def _new_engine(self, cid: str, row: ConversationRow) -> Engine:
        """The engine a stored conversation's header and extensions make (Inconsistent if this server does not
        load those extensions as they were)."""
        paths = []
        for ext in row.extensions:
            have = self.extensions.get(ext["name"])
            if have is None or have.sha256 != ext["sha256"]:
                found = "not loaded" if have is None else f"loaded with sha256 {have.sha256[:12]}"
                raise Inconsistent(f"conversation {cid} was created with extension {ext['name']} "
                                   f"(sha256 {ext['sha256'][:12]}); this server has it {found}", conversation=cid)
            paths.append(have.path)
        try:
            header = Header.model_validate(row.header)
        except ValueError as exc:
            raise Inconsistent(f"conversation {cid}: stored header: {exc}", conversation=cid) from exc
        return Engine(header, extensions=paths)

    def _remember(self, key: Key, entry: _Entry) -> None:
        self._cache[key] = entry
        self._cache.move_to_end(key)
        self._held.setdefault(entry.tenant, [0, 0])[0] += 1
        self._recount(key, entry)
        while len(self._cache) > self.cache_size:
            self._forget(next(iter(self._cache)))

    def _recount(self, key: Key, entry: _Entry) -> None:
        """Count the engine's bytes again (it has moved on) and hold its tenant to its bounds: the tenant's
        least recently used engines other than this one go (this one, in use, stays even if alone over)."""
        held = self._held[entry.tenant]
        size = engine_bytes(entry.engine)
        held[1] += size - entry.nbytes
        entry.nbytes = size
        while held[0] > self.cache_per_tenant or (held[1] > self.cache_bytes_per_tenant and held[0] > 1):
            old = next(k for k, e in self._cache.items() if e.tenant == entry.tenant and k != key)
            self._forget(old)

    def _forget(self, key: Key) -> None:
        entry = self._cache.pop(key, None)
        if entry is not None:
            held = self._held[entry.tenant]
            held[0] -= 1
            held[1] -= entry.nbytes
            if not held[0]:
                del self._held[entry.tenant]
            entry.engine.close()

    def cached(self, tenant: str) -> tuple[int, int]:
        """(engines, bytes) the cache holds for ``tenant``."""
        held = self._held.get(tenant, [0, 0])
        return held[0], held[1]

    def close(self) -> None:
        for key in list(self._cache):
            self._forget(key)
        for interp in self._interpreters.values():
            interp.close()
        if self._builder_store is not None:
            self._builder_store.close()
        self.reads.close()
        self.store.close()


Row = tuple[int, bytes, str | None]
"""A stored utterance as a replay reads it (``Store.recorded_lines``): seq, line, the rules' recorded decision."""


def _recorded(rows: list[Row]) -> int:
    """How many of ``rows``, from the first, have their decision recorded."""
    n = 0
    while n < len(rows) and rows[n][2] is not None:
        n += 1
    return n


def _mirror(cid: str, engine: Engine, rows: list[Row]) -> None:
    """``rows`` (each with its recorded decision) mirrored into ``engine`` without the rules; Inconsistent if one
    does not read back."""
    try:
        replay_recorded(engine, [(seq, body) for seq, body, _ in rows],
                        [decision for _, _, decision in rows if decision is not None], f"conversation {cid}")
    except InputError as exc:
        raise _no_longer_replays(cid, exc) from exc


def _no_longer_replays(cid: str, exc: Exception) -> Inconsistent:
    """A stored row the engine refused (its seq is the line a replay names): the store is not as the rules read it."""
    seq = getattr(exc, "line", None)
    return Inconsistent(f"conversation {cid}, utterance {seq}: the stored line no longer replays: {exc}",
                        conversation=cid, seq=seq)


def event_log_lines(store: Store, tenant: str, cid: str) -> list[dict[str, Any]] | None:
    """The tenant's conversation ``cid`` as event-log lines (the header, with its extensions, then each
    stored utterance), None if the store has none; ``encode_line`` writes each."""
    row = store.conversation(tenant, cid)
    if row is None:
        return None
    head = dict(row.header)
    if row.extensions:
        head["extensions"] = row.extensions
    return [head, *(line for _, line in store.lines(tenant, cid))]


def state_json(engine: Engine, at: int | None = None) -> dict[str, Any]:
    """What ``GET .../state`` answers about an engine (the tests hold it equal to a replay's): the state in its
    one JSON shape (``registry.state``), its turn named ``turn`` as the API has always named it."""
    found = registry_state(engine, at)
    return {"turn": found.pop("at"), **found}


def recorded_decision(update: Update) -> str | None:
    """The rules' decision on an accepted utterance as the store records it beside the row (the effect log's
    flat text, ``solvers/flat.py``), None if a value would not read back from it (the row is then judged by
    the rules when replayed)."""
    from grounded.solvers.flat import Accepted, accepted_text  # imported by the rules, which decided it

    return accepted_text(Accepted(list(update.effects), list(update.left)))


def update_json(update: Update, line: dict[str, Any] | None = None) -> dict[str, Any]:
    """An accepted update as the API answers it; ``line``: its event-log line, when already made."""
    u = line if line is not None else utterance_json(update.turn, update.utterance)
    return {"turn": update.turn, "speaker": update.speaker, "ops": u["ops"],
            "transitions": [{"op": e.index, "name": e.name, "fields": list(fields_of(e))} for e in update.effects],
            "flagged": update.flagged}


def rejection_json(exc: PreconditionError) -> dict[str, Any]:
    """A rejection as the API reports it: the rules' codes and messages, unchanged."""
    return {"error": "rejected", "message": str(exc), "turn": exc.turn, "speaker": exc.speaker,
            "violations": [v.to_json() for v in exc.violations]}


def input_error_json(exc: InputError) -> dict[str, Any]:
    return {"error": "invalid", "message": exc.detail}


__all__ = ["INTERPRETERS", "Conversations", "ExtensionFile", "input_error_json", "rejection_json", "state_json",
           "update_json"]
