"""The store and the engine cache, in process: keys stored hashed, a failed commit acknowledges nothing,
engines are caches rebuilt from the store, the CLI's keys and export."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from grounded import Engine
from grounded.service.conversations import Conversations, state_json
from grounded.service.errors import Forbidden, NotFound, StoreUnavailable, Unauthorized
from grounded.service.host import EngineHost
from grounded.service.keys import new_key
from grounded.service.store import open_store
from tests.inprocess import grounded as run_grounded


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
    host = EngineHost(lambda: Conversations(open_store(tmp_path / "f.db")))
    c = host.conversations
    cid = host.run(lambda c: c.create("t", {}), write=True)["id"]
    host.run(lambda c: c.append("t", cid, _say("o1")), write=True)
    before = state_json(c._entry("t", cid).engine)

    def poisoned(c: Conversations) -> dict:
        answer = c.append("t", cid, _say("o2"))
        c.store._execute("PRAGMA defer_foreign_keys=ON")
        c.store._execute("INSERT INTO utterances (conversation, seq, turn, line, created) "
                         "VALUES ('ghost', 1, 1, '{}', 'now')")
        return answer

    async def two_writes_one_flush() -> list:
        return await asyncio.gather(host.call(poisoned, True, cid),
                                    host.call(lambda c: c.append("t", cid, _say("o3")), True, cid),
                                    return_exceptions=True)

    results = asyncio.run(two_writes_one_flush())
    assert all(isinstance(r, StoreUnavailable) and "commit failed" in str(r) for r in results), results
    assert cid not in c._cache  # the engine that had moved on (o2, o3) is gone
    assert state_json(c._entry("t", cid).engine) == before  # rebuilt from the store: o2, o3 never happened
    assert c.store.head(cid) == ("t", 1)
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
    assert cid not in one._cache and other in one._cache
    assert one.state("t", cid) == two.state("t", cid)
    with pytest.raises(Forbidden):
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
    assert c.commitments("t", cid)["commitments"] == {"alice": ["o1"], "bob": ["o1"]}
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
