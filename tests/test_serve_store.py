"""The store and the engine cache, in process: keys stored hashed, a failed commit acknowledges nothing,
engines are caches rebuilt from the store, the CLI's keys and export."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from grounded import Engine
from grounded.service.conversations import Conversations, state_json
from grounded.service.errors import NotFound, StoreUnavailable, Unauthorized
from grounded.service.host import EngineHost
from grounded.service.keys import new_key
from grounded.service.store import open_store
from tests.inprocess import grounded as run_grounded
from tests.serving import store_host


def _say(claim: str, speaker: str = "ann") -> dict:
    return {"speaker": speaker, "ops": [{"op": "observe", "claim": claim}]}


def test_keys_are_stored_hashed_and_revocable(tmp_path):
    db = tmp_path / "k.db"
    store = open_store(db)
    key_id, key, digest = new_key()
    store.add_key(key_id, "acme", digest)
    c = Conversations(store)
    assert c.authenticate(key) == "acme"
    secret = key.split("_", 2)[2]
    raw = sqlite3.connect(db).execute("SELECT * FROM api_keys").fetchall()
    assert secret not in repr(raw) and key not in repr(raw)  # only the hash is stored
    for bad in (None, "", "gk_" + "0" * 16 + "_" + "A" * 43, key[:-1] + ("A" if key[-1] != "A" else "B")):
        with pytest.raises(Unauthorized):
            c.authenticate(bad)
    assert store.revoke_key(key_id) and not store.revoke_key(key_id)
    with pytest.raises(Unauthorized):
        c.authenticate(key)
    c.close()


def test_a_failed_commit_acknowledges_nothing_and_drops_the_engine(tmp_path):
    """Two appends share a flush whose COMMIT the database refuses (a real SQLite refusal: a deferred
    foreign-key violation in the same transaction is checked at COMMIT)."""
    host = store_host(tmp_path / "f.db")
    c = host.conversations
    cid = host.run(lambda c: c.create("t", {}), write=True)["id"]
    host.run(lambda c: c.append("t", cid, _say("o1")), write=True)
    before = state_json(c._entry("t", cid).engine)

    def poisoned(c: Conversations) -> dict:
        answer = c.append("t", cid, _say("o2"))
        c.store._execute("PRAGMA defer_foreign_keys=ON")
        c.store._execute("INSERT INTO utterances (tenant, conversation, seq, turn, line, created) "
                         "VALUES ('t', 'ghost', 1, 1, '{}', 'now')")
        return answer

    async def two_writes_one_flush() -> list:
        return await asyncio.gather(host.call(poisoned, True, ("t", cid)),
                                    host.call(lambda c: c.append("t", cid, _say("o3")), True, ("t", cid)),
                                    return_exceptions=True)

    results = asyncio.run(two_writes_one_flush())
    assert all(isinstance(r, StoreUnavailable) and "commit failed" in str(r) for r in results), results
    assert ("t", cid) not in c._cache  # the engine that had moved on (o2, o3) is gone
    assert state_json(c._entry("t", cid).engine) == before  # rebuilt from the store: o2, o3 never happened
    assert c.store.head("t", cid) == 1
    assert host.run(lambda c: c.append("t", cid, _say("o2")), write=True)["seq"] == 2
    host.close()


def test_engines_are_caches_of_the_store(tmp_path):
    """Another process's rows are replayed before an answer; an evicted engine is rebuilt the same."""
    db = tmp_path / "c.db"
    one, two = Conversations(open_store(db), cache=1), Conversations(open_store(db), cache=1)
    cid = one.create("t", {"agents": {"ann": {"authority": True}}})["id"]
    one.append("t", cid, _say("o1"))
    two.append("t", cid, {"speaker": "ann", "ops": [{"op": "question", "claim": "q1"},
                                                    {"op": "hypothesize", "claim": "h1", "deps": ["o1"],
                                                     "explains": ["q1"]}]})
    assert one.verify("t", cid, "h1")["grounded"] is True  # one caught up with two's append
    other = one.create("t", {})["id"]  # cache=1: evicts cid's engine
    assert ("t", cid) not in one._cache and ("t", other) in one._cache
    assert one.state("t", cid) == two.state("t", cid)
    with pytest.raises(NotFound):
        one.verify("u", cid, "h1")
    with pytest.raises(NotFound):
        one.verify("t", "missing", "h1")
    one.close()
    two.close()


def _grounded(*args: str, cwd=None):
    return run_grounded(*args, cwd=cwd)


def test_cli_keys_and_export(tmp_path):
    db = str(tmp_path / "cli.db")
    made = _grounded("keys", "create", "acme", "--db", db)
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    c = Conversations(open_store(db))
    assert c.authenticate(key) == "acme"
    cid = c.create("acme", {"agents": {"ann": {}}}, "talk")["id"]
    c.append("acme", cid, _say("o1"))
    c.append("acme", cid, {"speaker": "ann", "turn": 7, "text": "it was wrong",
                           "ops": [{"op": "revise", "target": "o1"}]})
    exported = _grounded("export", "talk", "--db", db, "-o", str(tmp_path / "talk.jsonl"))
    assert exported.returncode == 0, exported.stderr
    loaded = Engine.load(tmp_path / "talk.jsonl")
    assert state_json(loaded) == {k: v for k, v in c.state("acme", cid).items() if k not in ("id", "length")}
    assert loaded.turn == 7
    listed = _grounded("keys", "list", "--db", db).stdout
    assert "acme" in listed and key not in listed
    key_id = key.split("_")[1]
    assert _grounded("keys", "revoke", key_id, "--db", db).returncode == 0
    again = _grounded("keys", "revoke", key_id, "--db", db)
    assert again.returncode == 2 and f"no live API key with id {key_id}" in again.stderr
    with pytest.raises(Unauthorized):
        c.authenticate(key)
    missing = _grounded("export", "nowhere", "--db", db)
    assert missing.returncode == 2 and "no conversation nowhere" in missing.stderr
    # ids are per tenant: with two conversations "talk", the operator names the tenant
    c.create("other", {}, "talk")
    both = _grounded("export", "talk", "--db", db)
    assert both.returncode == 2 and "conversation talk: tenants acme, other each have one; name one with --tenant" \
        in both.stderr
    named = _grounded("export", "talk", "--db", db, "--tenant", "acme", "-o", str(tmp_path / "named.jsonl"))
    assert named.returncode == 0 and (tmp_path / "named.jsonl").read_bytes() == (tmp_path / "talk.jsonl").read_bytes()
    nobody = _grounded("export", "talk", "--db", db, "--tenant", "nobody")
    assert nobody.returncode == 2 and "no conversation talk of tenant nobody" in nobody.stderr
    bad = _grounded("keys", "create", "bad tenant", "--db", db)
    assert bad.returncode == 2 and "tenant id 'bad tenant'" in bad.stderr
    c.close()


def test_a_conversation_records_its_extensions_and_refuses_a_server_without_them(tmp_path):
    """An extension operation is served; the hash recorded at creation must match the file a server loads."""
    import re
    from pathlib import Path

    from grounded.service.conversations import ExtensionFile
    from grounded.service.errors import Inconsistent, Invalid

    doc = (Path(__file__).resolve().parents[1] / "docs" / "extending.md").read_text()
    (block,) = [b for b in re.findall(r"```prolog\n(.*?)```", doc, re.S) if b.startswith("% concede.pl")]
    concede = tmp_path / "concede.pl"
    concede.write_text(block)
    db = tmp_path / "x.db"
    c = Conversations(open_store(db), (ExtensionFile.read(concede),))
    with pytest.raises(Invalid, match="'nope.pl' is not loaded by this server"):
        c.create("t", {}, extensions=["nope.pl"])
    cid = c.create("t", {"agents": {"alice": {}, "bob": {}}}, "ext", extensions=["concede.pl"])["id"]
    c.append("t", cid, _say("o1", "alice"))
    c.append("t", cid, {"speaker": "bob", "ops": [{"op": "concede", "target": "o1"}]})
    assert c.query("t", cid, "commitments")["commitments"] == {"alice": ["o1"], "bob": ["o1"]}
    head = c.export("t", cid)[0]
    assert head["extensions"] == [{"name": "concede.pl", "sha256": ExtensionFile.read(concede).sha256}]
    c.close()
    without = Conversations(open_store(db))
    with pytest.raises(Inconsistent, match="created with extension concede.pl .* this server has it not loaded"):
        without.state("t", cid)
    without.close()
    concede.write_text(block + "\n% changed\n")
    changed = Conversations(open_store(db), (ExtensionFile.read(concede),))
    with pytest.raises(Inconsistent, match="this server has it loaded with sha256"):
        changed.state("t", cid)
    changed.close()


def test_conversation_ids_are_per_tenant(tmp_path):
    """Two tenants each create "talk": two conversations, each answering its own history; to a tenant,
    another's conversation is a missing one (the same error, word for word), in every route's method."""
    c = Conversations(open_store(tmp_path / "t.db"))
    assert c.create("acme", {}, "talk")["tenant"] == "acme"
    assert c.create("zeta", {}, "talk")["tenant"] == "zeta"  # was 409 "already exists": ids were global
    c.append("acme", "talk", _say("o1"))
    c.append("zeta", "talk", _say("z1"))
    c.append("zeta", "talk", _say("z2"))
    assert c.state("acme", "talk")["length"] == 1 and c.state("zeta", "talk")["length"] == 2
    assert c.verify("acme", "talk", "o1")["grounded"] and not c.verify("acme", "talk", "z1")["grounded"]
    assert [line.get("ops") for line in c.export("zeta", "talk")[1:]] == [
        [{"op": "observe", "claim": "z1"}], [{"op": "observe", "claim": "z2"}]]
    assert c.listing("acme") == [{"id": "talk", "length": 1}] and c.listing("zeta") == [{"id": "talk", "length": 2}]
    calls = [lambda t, i: c.describe(t, i), lambda t, i: c.state(t, i), lambda t, i: c.verify(t, i, "o1"),
             lambda t, i: c.affected(t, i, "o1"), lambda t, i: c.query(t, i, "open_problems"),
             lambda t, i: c.query(t, i, "commitments"), lambda t, i: c.export(t, i), lambda t, i: c.snapshot(t, i),
             lambda t, i: c.append(t, i, _say("o9"))]

    def refusals() -> list[dict]:
        found = []
        for call in calls:
            with pytest.raises(NotFound) as exc:
                call("acme", "secret")
            found.append(exc.value.to_json())
        return found

    missing = refusals()  # nobody has "secret" yet
    c.create("zeta", {}, "secret")
    assert refusals() == missing == [{"error": "not_found", "message": "no conversation secret",
                                      "conversation": "secret"}] * len(calls)
    assert c.state("zeta", "secret")["length"] == 0  # acme's append did not land in zeta's conversation
    c.close()


SCHEMA_1 = [  # the DDL of schema 1 (conversation ids global), as grounded wrote it
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE tenants (name TEXT PRIMARY KEY, created TEXT NOT NULL)",
    """CREATE TABLE api_keys (
        id TEXT PRIMARY KEY, tenant TEXT NOT NULL REFERENCES tenants(name),
        hash TEXT NOT NULL, created TEXT NOT NULL, revoked TEXT)""",
    """CREATE TABLE conversations (
        id TEXT PRIMARY KEY, tenant TEXT NOT NULL REFERENCES tenants(name),
        header TEXT NOT NULL, extensions TEXT NOT NULL,
        length INTEGER NOT NULL DEFAULT 0, created TEXT NOT NULL)""",
    """CREATE TABLE utterances (
        conversation TEXT NOT NULL REFERENCES conversations(id), seq INTEGER NOT NULL,
        turn BIGINT NOT NULL, line TEXT NOT NULL, created TEXT NOT NULL,
        PRIMARY KEY (conversation, seq))""",
    "CREATE INDEX conversations_by_tenant ON conversations (tenant)",
    "INSERT INTO meta VALUES ('schema', '1')",
]


def _schema_1_store(db: str, key_hash: str) -> None:
    """A store as schema 1 left it: tenant acme with a key and conversation "talk" (o1, then h1 on it)."""
    import json

    from grounded.io.eventlog import header_json, utterance_json

    engine = Engine({"agents": {"ann": {"authority": True}}})
    header = header_json(engine.header)
    rows = [utterance_json(u.turn, u.utterance) for u in (
        engine.apply(_say("o1")), engine.apply({"speaker": "ann", "ops": [
            {"op": "question", "claim": "q1"}, {"op": "hypothesize", "claim": "h1", "deps": ["o1"],
                                                "explains": ["q1"]}]}))]
    engine.close()
    statements = [*SCHEMA_1, ("INSERT INTO tenants VALUES (?, ?)", ("acme", "2026-01-01")),
                  ("INSERT INTO api_keys VALUES (?, ?, ?, ?, NULL)", ("0123456789abcdef", "acme", key_hash, "x")),
                  ("INSERT INTO conversations VALUES (?, ?, ?, ?, ?, ?)",
                   ("talk", "acme", json.dumps(header), "[]", 2, "2026-01-01"))]
    statements += [("INSERT INTO utterances VALUES (?, ?, ?, ?, ?)", ("talk", i, r["turn"], json.dumps(r), "x"))
                   for i, r in enumerate(rows, 1)]
    if db.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(db, autocommit=True) as conn, conn.transaction():
            for st in statements:
                sql, args = st if isinstance(st, tuple) else (st, ())
                conn.execute(sql.replace("?", "%s"), args)
    else:
        conn = sqlite3.connect(db)
        with conn:
            for st in statements:
                conn.execute(*(st if isinstance(st, tuple) else (st,)))
        conn.close()


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_a_schema_1_store_is_upgraded_when_opened(backend, tmp_path, request):
    """A store written before ids were per tenant opens with this grounded: upgraded in place (once, by the
    first process), its key, conversation and history answering as before; then ids are per tenant."""
    from grounded.service.keys import digest
    from grounded.service.store import SCHEMA_VERSION

    if backend == "postgresql":
        from tests.test_serve_api import _fresh_database

        db = _fresh_database(request.getfixturevalue("postgres_url"), "schema1")
    else:
        db = str(tmp_path / "old.db")
    secret = "s" * 43
    _schema_1_store(db, digest(secret))
    c = Conversations(open_store(db))
    assert c.authenticate(f"gk_0123456789abcdef_{secret}") == "acme"
    assert c.listing("acme") == [{"id": "talk", "length": 2}]
    assert c.verify("acme", "talk", "h1")["grounded"] is True
    assert c.append("acme", "talk", {"speaker": "ann", "ops": [{"op": "revise", "target": "o1"}]})["seq"] == 3
    assert c.verify("acme", "talk", "h1")["grounded"] is False
    assert len(c.export("acme", "talk")) == 4
    assert c.create("zeta", {}, "talk")["id"] == "talk"  # ids are per tenant now
    with pytest.raises(NotFound):
        c.state("zeta", "missing")
    assert c.store._one("SELECT value FROM meta WHERE key = 'schema'") == (str(SCHEMA_VERSION),)
    c.close()
    again = Conversations(open_store(db))  # a second opening finds schema 2: nothing to upgrade
    assert again.state("acme", "talk")["length"] == 3 and again.listing("zeta") == [{"id": "talk", "length": 0}]
    again.close()
    if backend == "sqlite":  # the tables are those of a store created at schema 2
        fresh = tmp_path / "fresh.db"
        open_store(fresh).close()
        ddl = "SELECT type, name, tbl_name, replace(sql, '\"', '') FROM sqlite_master ORDER BY name"  # renamed: quoted
        assert sqlite3.connect(db).execute(ddl).fetchall() == sqlite3.connect(fresh).execute(ddl).fetchall()


def test_a_store_of_a_later_schema_is_refused(tmp_path):
    db = tmp_path / "later.db"
    open_store(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(StoreUnavailable, match="store schema version 99, this grounded reads version 3"):
        open_store(db)
    refused = _grounded("keys", "list", "--db", str(db))  # said as a refusal, not as an internal error
    assert refused.returncode == 2 and refused.stderr == f"error: {db}: store schema version 99, this grounded " \
        "reads version 3\n"


def _batch(host: EngineHost, *writes) -> list:
    """The writes queued together, so one flush (one transaction) takes them all."""
    async def together() -> list:
        return await asyncio.gather(*(host.call(w, True, ("t", str(k))) for k, w in enumerate(writes)),
                                    return_exceptions=True)

    return asyncio.run(together())


def test_an_append_is_three_statements_on_sqlite(tmp_path):
    """The lock read, the row, the length: no savepoint around each write (SQLite undoes a failed statement
    alone, ``Appender.undo`` an insert that stood)."""
    c = Conversations(open_store(tmp_path / "n.db"))
    cid = c.create("t", {})["id"]
    c.append("t", cid, _say("o1"))
    seen: list[str] = []
    c.store._db.set_trace_callback(seen.append)  # type: ignore[attr-defined]
    with c.store.transaction():
        c.append("t", cid, _say("o2"))
        c.append("t", cid, _say("o3"))
    c.store._db.set_trace_callback(None)  # type: ignore[attr-defined]
    written = [s.split()[0] for s in seen if not s.startswith(("BEGIN", "COMMIT"))]
    assert written == ["SELECT", "INSERT", "UPDATE"] * 2, seen
    c.close()


def test_an_append_failing_after_its_insert_leaves_the_store_as_it_was(tmp_path):
    """SQLite refuses the length update of one append (a trigger: a real refusal, after the row went in):
    that append is undone, row and length, and the other append of the same flush commits."""
    host = store_host(tmp_path / "u.db")
    c = host.conversations
    one, two = (host.run(lambda c: c.create("t", {}), write=True)["id"] for _ in range(2))
    for cid in (one, two):
        host.run(lambda c, cid=cid: c.append("t", cid, _say("o1")), write=True)
    before = state_json(c._entry("t", one).engine)
    c.store._execute(f"CREATE TRIGGER refuse BEFORE UPDATE ON conversations WHEN NEW.id = '{one}' "
                     "AND NEW.length = 2 BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
    results = _batch(host, lambda c: c.append("t", one, _say("o2")), lambda c: c.append("t", two, _say("o2")))
    assert isinstance(results[0], StoreUnavailable) and "refused by the test" in str(results[0]), results
    assert results[1]["seq"] == 2
    assert c.store.head("t", one) == 1 and [s for s, _ in c.store.lines("t", one)] == [1]
    assert c.store.head("t", two) == 2 and [s for s, _ in c.store.lines("t", two)] == [1, 2]
    assert state_json(c._entry("t", one).engine) == before
    host.close()


def test_an_append_whose_undo_fails_refuses_its_whole_flush(tmp_path):
    """If the undo of a failed append is itself refused, the flush's transaction cannot be trusted: every write
    of it fails and nothing of it is stored (rather than the half-undone append being committed)."""
    host = store_host(tmp_path / "d.db")
    c = host.conversations
    one, two = (host.run(lambda c: c.create("t", {}), write=True)["id"] for _ in range(2))
    c.store._execute(f"CREATE TRIGGER refuse BEFORE UPDATE ON conversations WHEN NEW.id = '{one}' "
                     "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
    c.store._execute("CREATE TRIGGER keep BEFORE DELETE ON utterances BEGIN SELECT RAISE(ABORT, 'kept'); END")
    results = _batch(host, lambda c: c.append("t", two, _say("o1")), lambda c: c.append("t", one, _say("o1")))
    assert all(isinstance(r, StoreUnavailable) for r in results), results
    assert "transaction was lost" in str(results[0]) and "kept" in str(results[0])
    assert c.store.head("t", one) == 0 and c.store.head("t", two) == 0
    assert c.store.lines("t", one) == [] and c.store.lines("t", two) == []
    assert host.run(lambda c: c.append("t", two, _say("o1")), write=True)["seq"] == 1  # the next flush goes on
    host.close()


def test_a_flush_whose_transaction_sqlite_rolled_back_acknowledges_nothing(tmp_path):
    """A full disk (``max_page_count``: SQLite's own SQLITE_FULL) rolls the whole transaction back, the
    appends before the failing one with it: none of the flush may then be acknowledged, nor a later one of it
    committed on its own."""
    host = store_host(tmp_path / "full.db")
    c = host.conversations
    one, two, three = (host.run(lambda c: c.create("t", {}), write=True)["id"] for _ in range(3))
    pages = c.store._one("PRAGMA page_count")[0]
    c.store._execute(f"PRAGMA max_page_count = {pages + 2}")
    big = {"speaker": "ann", "text": "x" * 90_000, "ops": [{"op": "observe", "claim": "o1"}]}
    results = _batch(host, lambda c: c.append("t", one, _say("o1")), lambda c: c.append("t", two, big),
                     lambda c: c.append("t", three, _say("o1")))
    assert all(isinstance(r, StoreUnavailable) for r in results), results
    assert "full" in str(results[1]) and "transaction was lost" in str(results[0])
    assert [c.store.head("t", cid) for cid in (one, two, three)] == [0, 0, 0]
    assert ("t", one) not in c._cache and c.verify("t", one, "o1")["grounded"] is False
    c.store._execute(f"PRAGMA max_page_count = {pages + 1000}")
    assert host.run(lambda c: c.append("t", three, _say("o1")), write=True)["seq"] == 1
    host.close()


def _held_commit(store, fail: bool = False) -> tuple[threading.Event, threading.Event, threading.Event]:
    """Hold ``store``'s next commits (each transaction's end waits on ``release``; ``began`` is set when one
    does, ``ended`` when its wait is over), and with ``fail`` have each refused once released: (began, release,
    ended)."""
    began, release, ended = threading.Event(), threading.Event(), threading.Event()
    real = store.transaction

    @contextmanager
    def held(wait: bool = True) -> Iterator[None]:
        with real(wait):
            yield
            began.set()
            release.wait(5)  # bounded: without a commit thread this blocks the loop itself, then the test fails
            ended.set()
            if fail:
                raise StoreUnavailable("commit refused by the test")

    store.transaction = held
    return began, release, ended


def _during_a_held_commit(host: EngineHost, cid: str, held: tuple[threading.Event, ...]) -> tuple:
    """An append whose commit is held (``_held_commit``), and reads asked meanwhile: a Verify of its claim and
    the conversation's state (answered from what is committed, without waiting), and its description (which
    reads the whole engine: it waits for the commit).  Returns ((write done, Verify and state done, description
    done, commit still waiting) once the loop has run a sleep while held, the append's outcome, the Verify and
    the state answered during the commit, the description's (length, turn), the Verify asked after it).  A
    commit run on the loop would block it: the sleep would end only after the commit's wait had (``ended`` set,
    the write done)."""
    began, release, ended = held

    async def run() -> tuple:
        write = asyncio.ensure_future(host.call(lambda c: c.append("t", cid, _say("o1")), True, ("t", cid)))
        loop = asyncio.get_running_loop()
        assert await loop.run_in_executor(None, began.wait, 5)  # the commit has begun
        read = asyncio.ensure_future(host.call(lambda c: c.verify("t", cid, "o1")))
        state = asyncio.ensure_future(host.call(lambda c: c.state("t", cid)))
        whole = asyncio.ensure_future(host.call(lambda c: c.describe("t", cid)))
        await asyncio.sleep(0.2)  # the loop runs while the commit is held
        held_back = (write.done(), read.done() and state.done(), whole.done(), not ended.is_set())
        release.set()
        appended = (await asyncio.gather(write, return_exceptions=True))[0]
        described = await whole
        return (held_back, appended, await read, await state, (described["length"], described["turn"]),
                await host.call(lambda c: c.verify("t", cid, "o1")))

    return asyncio.run(run())


def test_an_append_is_answered_only_after_its_commit_which_runs_off_the_loop(tmp_path):
    """The commit is held (its transaction's end waits on an event): meanwhile the loop goes on (a sleep ends),
    the append is not answered, and reads of its conversation answer at once from what is committed (the
    utterance not yet: its store lookups do not go through the connection that holds it uncommitted); a read
    needing the whole engine waits for the commit.  Once the commit returns, the append is answered and reads
    see what it stored."""
    host = store_host(tmp_path / "held.db")
    store = host.conversations.store
    cid = host.run(lambda c: c.create("t", {}), write=True)["id"]
    held_back, appended, during, state, described, after = _during_a_held_commit(host, cid, _held_commit(store))
    assert held_back == (False, True, False, True)
    assert appended["seq"] == 1
    assert during["grounded"] is False  # as of the committed state: o1 is not in it yet
    assert (state["length"], state["turn"], state["arguments"]) == (0, 0, [])
    assert described == (1, 1) and after["grounded"] is True  # ran after the commit: they see the row
    del store.transaction  # the class's own again
    assert store.head("t", cid) == 1
    host.close()


def test_a_read_during_a_commit_that_fails_answers_from_the_store(tmp_path):
    """The held commit is refused: the append is answered with the refusal; the reads during it and after it
    answer as if the append never happened (its engine, moved on, was dropped and rebuilt from the store)."""
    host = store_host(tmp_path / "refused.db")
    store = host.conversations.store
    cid = host.run(lambda c: c.create("t", {}), write=True)["id"]
    held_back, refused, during, state, described, after = _during_a_held_commit(host, cid,
                                                                               _held_commit(store, fail=True))
    assert held_back == (False, True, False, True)
    assert isinstance(refused, StoreUnavailable) and "refused by the test" in str(refused)
    assert during["grounded"] is False and state["length"] == 0
    assert described == (0, None) and after["grounded"] is False
    del store.transaction
    assert store.head("t", cid) == 0
    assert host.run(lambda c: c.append("t", cid, _say("o1")), write=True)["seq"] == 1  # the next write goes on
    host.close()
