"""Several processes on one store: an engine behind the store catches up by what was appended since, in bulk,
never from row 0; a cold engine is built from the rules' decisions recorded with the rows (no rules run), as far
as those were recorded by the rules this server runs; a store of schema 2 gains the columns that hold them.

Work is counted (rules requests, rows replayed, lines mirrored into a state), never timed."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from typing import Any

import pytest

from grounded.dmap.state import DependencyMap
from grounded.service.api import SETTINGS_ENV
from grounded.service.conversations import Conversations, state_json
from grounded.service.host import BUILD_SWITCH, EngineHost
from grounded.service.store import SCHEMA_VERSION, open_store
from tests.frames import rules_requests
from tests.pgserver import free_port
from tests.serving import HEADER, answering, make_key, store_host, utterance
from tests.test_serve_group import _conversations, _group


def _store(backend: str, tmp_path: Any, request: pytest.FixtureRequest, name: str) -> str:
    if backend == "postgresql":
        from tests.test_serve_api import _fresh_database

        return _fresh_database(request.getfixturevalue("postgres_url"), name)
    return str(tmp_path / f"{name}.db")


@pytest.fixture
def mirrored(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Utterances applied to any engine's Python state from now on (by the rules, or from a recorded decision)."""
    count = [0]
    apply = DependencyMap.apply

    def counted(self: DependencyMap, *args: Any, **kw: Any) -> Any:
        count[0] += 1
        return apply(self, *args, **kw)

    monkeypatch.setattr(DependencyMap, "apply", counted)
    return count


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_round_robin_appends_replay_only_what_the_other_process_appended(backend, tmp_path, request, monkeypatch,
                                                                          mirrored):
    """Two processes (two hosts on one store) take turns: each round one of them appends to every conversation
    in one group, so each of its engines is one row behind (the other's append) when the group comes.  Per round
    the work is bounded by the conversations, not by their history: each engine catches up by the one row (one
    rules request each) and the group is decided in one request; the lines mirrored are that row and the append.
    (Before, the group was decided ahead on the engines behind, every decision was dropped under the lock and each
    engine replayed its whole history line by line: the counts grew with every round.)"""
    db = _store(backend, tmp_path, request, "roundrobin")
    one, two = store_host(db), store_host(db)
    cids = _conversations(one, 4, 2)
    requests = rules_requests(monkeypatch)
    work: list[tuple[int, int, int]] = []
    for i in range(3, 33):
        host = one if i % 2 else two
        before = (len(requests), mirrored[0], one.conversations.replayed + two.conversations.replayed)
        answers = _group(host, [(cid, utterance(i)) for cid in cids])
        assert [a["seq"] for a in answers] == [i] * len(cids), answers
        work.append((len(requests) - before[0], mirrored[0] - before[1],
                     one.conversations.replayed + two.conversations.replayed - before[2]))
    steady = work[2:]  # the second host has built its engines (cold, from the recorded decisions: no rules)
    n = len(cids)
    assert all(requests <= n + 1 for requests, _, _ in steady), work
    assert all(lines <= 2 * n and replayed <= n for _, lines, replayed in steady), work
    for cid in cids:  # and the two processes' engines are the one history
        assert state_json(one.conversations._entry("t", cid).engine) == \
            state_json(two.conversations._entry("t", cid).engine)
    one.close()
    two.close()


def test_a_cold_engine_is_built_from_the_recorded_decisions_without_the_rules(tmp_path, monkeypatch):
    """A process that has not cached a conversation builds its engine from the rows' recorded decisions: no
    rules request for the rows (a read asks the rules nothing), and the same state as the engine that decided
    them.  The rules' facts are made from that state when it next appends, and the append is the one the
    writing process would have made."""
    db = tmp_path / "cold.db"
    writer = store_host(db)
    (cid,) = _conversations(writer, 1, 40)
    cold = store_host(db)
    requests = rules_requests(monkeypatch)
    assert cold.run(lambda c: c.state("t", cid)) == writer.run(lambda c: c.state("t", cid))
    assert requests == [] and cold.conversations.replayed == 40
    mine = cold.run(lambda c: c.append("t", cid, utterance(41)), write=True)
    writer.run(lambda c: c.state("t", cid))  # caught up with the row ``cold`` appended
    theirs = store_host(tmp_path / "alone.db")
    (alone,) = _conversations(theirs, 1, 40)
    answer = theirs.run(lambda c: c.append("t", alone, utterance(41)), write=True)
    assert {k: v for k, v in mine.items() if k != "id"} == {k: v for k, v in answer.items() if k != "id"}
    assert state_json(cold.conversations._entry("t", cid).engine) == \
        state_json(theirs.conversations._entry("t", alone).engine) == \
        state_json(writer.conversations._entry("t", cid).engine)
    for host in (writer, cold, theirs):
        host.close()


def test_decisions_recorded_by_other_rules_are_not_trusted(tmp_path, monkeypatch):
    """A conversation whose decisions were recorded under another rules version (or other extensions) is
    replayed by the rules, in batches, not from the record: the same state, and rules requests made."""
    db = tmp_path / "other.db"
    writer = store_host(db)
    (cid,) = _conversations(writer, 1, 30)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE conversations SET effects_by = 'grounded 0.0.0+rules.000000000000'")
    cold = store_host(db)
    requests = rules_requests(monkeypatch)
    assert cold.run(lambda c: c.state("t", cid)) == writer.run(lambda c: c.state("t", cid))
    assert "apply_batch" in requests and len(requests) <= 3, requests
    for host in (writer, cold):
        host.close()


def test_a_schema_2_store_gains_the_recorded_decisions_when_opened(tmp_path, monkeypatch):
    """A store written before decisions were recorded opens with this grounded: the two columns are added, its
    rows (recorded without a decision) are replayed by the rules, and the answers are those from before."""
    db = tmp_path / "two.db"
    host = store_host(db)
    (cid,) = _conversations(host, 1, 12)
    before = host.run(lambda c: c.state("t", cid))
    host.close()
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE utterances DROP COLUMN effects")
        conn.execute("ALTER TABLE conversations DROP COLUMN effects_by")
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    requests = rules_requests(monkeypatch)
    c = Conversations(open_store(db))
    assert c.store._one("SELECT value FROM meta WHERE key = 'schema'") == (str(SCHEMA_VERSION),)
    assert c.state("t", cid) == before and "apply_batch" in requests
    with c.batch():
        c.append("t", cid, utterance(13))  # the first row recorded with its decision: from here on they are
    assert c.store._all("SELECT count(*) FROM utterances WHERE effects IS NULL") == [(12,)]
    after = state_json(c._entry("t", cid).engine)
    c.close()
    cold = Conversations(open_store(db))  # 12 rows judged by the rules, the 13th mirrored from its record
    assert state_json(cold._entry("t", cid).engine) == after and cold.replayed == 13
    cold.close()


def _long_conversation(db: Any, length: int) -> str:
    """A conversation of tenant ``t`` with ``length`` utterances, appended in one transaction."""
    c = Conversations(open_store(db))
    with c.batch():
        cid = c.create("t", HEADER)["id"]
        for i in range(1, length + 1):
            c.append("t", cid, utterance(i))
    c.close()
    return cid


def test_a_cold_engine_is_built_off_the_loop_and_other_conversations_answer_meanwhile(tmp_path):
    """A real server (uvicorn, the factory ``grounded serve --workers`` runs) asked for a long conversation it has
    not cached builds its engine on a thread of its own: the request is answered 503 with Retry-After and a body
    that says the conversation is being loaded (it waits ``cold_wait`` = 0 s here); another conversation's Verify
    is answered meanwhile; the long one answers, once built, as the library does."""
    import httpx

    db = tmp_path / "cold-server.db"
    big = _long_conversation(db, 3000)
    small = _long_conversation(db, 3)
    key = make_key(str(db), "t")
    expected = Conversations(open_store(db)).verify("t", big, "h2999")
    port = free_port()
    settings = {"db": str(db), "cold_rows": 500, "cold_wait": 0.0, "read_workers": 1, "quiet": True}
    log = tmp_path / "server.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "--factory", "grounded.service.api:app_from_env",
                                 "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
                                stdout=subprocess.DEVNULL, stderr=err,
                                env={**os.environ, SETTINGS_ENV: json.dumps(settings), "PYTHONFAULTHANDLER": "1"})
    try:
        url = f"http://127.0.0.1:{port}"
        answering(proc, log, 0, url + "/v1/health", time.monotonic() + 60)
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=30) as http:
            first = http.get(f"/v1/conversations/{big}/verify", params={"claim": "h2999"})
            assert first.status_code == 503, first.text
            assert int(first.headers["Retry-After"]) >= 1
            assert first.json()["error"] == "loading" and "being loaded from the store" in first.json()["message"]
            other = http.get(f"/v1/conversations/{small}/verify", params={"claim": "o1"})
            assert other.status_code == 200 and other.json()["grounded"] is True
            deadline = time.monotonic() + 60
            answer = first
            while answer.status_code == 503 and time.monotonic() < deadline:  # bounded: a minute at most
                time.sleep(0.05)
                try:
                    answer = http.get(f"/v1/conversations/{big}/verify", params={"claim": "h2999"})
                except httpx.TimeoutException:  # the server's threads, as faulthandler dumps them, say where
                    proc.send_signal(signal.SIGABRT)
                    proc.wait(timeout=30)
                    raise AssertionError(log.read_text()[-6000:]) from None
            assert answer.status_code == 200 and answer.json() == expected
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_read_finding_its_cold_build_done_before_its_callback_ran_answers_at_once(tmp_path):
    """A build whose future is done but whose done-callback (which caches the engine) has not run yet: the read
    waiting for it caches the engine itself and answers.  Before, it asked for the engine again, found it not
    cached, joined the same finished build without yielding, and spun on the loop for ever (the callback never
    ran): a real server stopped answering.  An alarm ends the test if it spins."""
    import asyncio

    from grounded.service.conversations import Cold

    db = tmp_path / "done.db"
    cid = _long_conversation(db, 30)
    host = EngineHost(lambda: Conversations(open_store(db), cold_rows=10), cold_wait=0.0)
    expected = Conversations(open_store(db)).verify("t", cid, "o1")

    def alarm(*_: object) -> None:
        raise TimeoutError("the read spun on the loop")

    async def run() -> dict:
        c = host.conversations
        entry = c._build("t", cid)
        cold = Cold(("t", cid), entry, 30)
        cold.deadline = time.monotonic() + 60
        c.build_cold(cold)  # built here, its future done, no callback to cache it
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.set_result(None)
        host._building[cold.key] = (cold, done)
        return await host.call(lambda c: c.verify("t", cid, "o1"))

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(10)
    try:
        assert asyncio.run(run()) == expected
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert ("t", cid) in host.conversations._cache and not host._building
    host.close()


def test_a_cold_engine_warms_the_rules_in_parts_between_other_requests(tmp_path, monkeypatch):
    """The rules take a cold engine's state in parts, one per loop iteration, once it is built: another
    conversation's Verify is answered between two parts (not only before the first or after the last), the long
    conversation's first append sends the rules no part of its state (before, it gave them the whole state in one
    go there, holding the loop: 15 s at 10^5 utterances), and it is answered as by an engine built and restored at
    once, the rules' facts the same.  Counted in rules requests, never timed; bounded to a minute."""
    import asyncio
    import shutil

    from grounded.service.errors import Loading

    db = tmp_path / "warm.db"
    big = _long_conversation(db, 1500)
    small = _long_conversation(db, 3)
    shutil.copy(db, tmp_path / "reference.db")
    switch = sys.getswitchinterval()
    during: list[float] = []  # the switch interval the builder thread ran under
    build_cold = Conversations.build_cold
    monkeypatch.setattr(Conversations, "build_cold",
                        lambda self, cold: (during.append(sys.getswitchinterval()), build_cold(self, cold))[1])
    host = EngineHost(lambda: Conversations(open_store(db), cold_rows=500), cold_wait=0.0)
    monkeypatch.setattr(Conversations, "WARM_PART", 400, raising=False)  # 1,500 utterances: 13,000 facts, 33 parts
    sent = rules_requests(monkeypatch)
    parts_seen: list[int] = []  # add_facts requests sent when each of the small conversation's Verify was answered

    async def run() -> tuple[Any, list[str]]:
        await host.call(lambda c: c.verify("t", small, "o1"))  # its engine cached before the long one is asked for
        with pytest.raises(Loading):
            await host.call(lambda c: c.verify("t", big, "o1"))
        deadline = time.monotonic() + 60
        while ("t", big) in host._building and time.monotonic() < deadline:
            answer = await host.call(lambda c: c.verify("t", small, "o1"))
            assert answer["grounded"] is True
            parts_seen.append(sent.count("add_facts"))
            await asyncio.sleep(0.001)
        assert ("t", big) in host.conversations._cache
        before = len(sent)
        assert during == [pytest.approx(min(switch, BUILD_SWITCH))]  # the loop takes the GIL back sooner meanwhile
        assert sys.getswitchinterval() == pytest.approx(switch)  # and as it was once no build runs
        appended = await host.call(lambda c: c.append("t", big, utterance(1501)), write=True, order=("t", big))
        return appended, sent[before:]

    try:
        appended, at_append = asyncio.run(run())
        assert "add_facts" not in at_append and "new_state" not in at_append, at_append
        parts = sent.count("add_facts")
        assert parts >= 30
        assert any(0 < seen < parts for seen in parts_seen), (parts, parts_seen)  # answered while warming
        reference = Conversations(open_store(tmp_path / "reference.db"))  # built inline, the rules given it at once
        with reference.batch():
            assert reference.append("t", big, utterance(1501)) == appended
        mine, theirs = host.conversations._entry("t", big).engine, reference._entry("t", big).engine
        assert state_json(mine) == state_json(theirs)
        assert mine.rules.facts() == theirs.rules.facts()
        reference.close()
    finally:
        host.close()
