"""A tenant's bounds are counted in the store (grounded.service.tenantlimits): N processes on one store admit
what one does.

Each test runs real processes (``python -c``, each with its own connection to
the store) against real SQLite and a real PostgreSQL (the throw-away cluster
of tests/pgserver.py): with a bound of K, two processes together hold at most
K of a tenant's slots, another tenant's are its own, the slots of a process
killed with SIGKILL come back, and the readings per minute are one count. The
service's own readers take their slots from the same counts: two server
processes on one SQLite store with ``--reads-per-tenant 1`` admit one reading
of the tenant at a time between them (each process counting alone admitted
one each).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from grounded.service.tenantlimits import LocalLimits, SQLiteLimits, lock_key, open_limits
from grounded.service.tenantlimits import holder_of as holder

CHILD = """
import json, sys
from grounded.service.tenantlimits import open_limits
limits = open_limits(sys.argv[1])
print(json.dumps("ready"), flush=True)
for line in sys.stdin:
    word, tenant, *rest = line.split()
    if word == "acquire":
        print(json.dumps(limits.acquire(tenant, int(rest[0]))), flush=True)
    elif word == "release":
        limits.release(tenant, int(rest[0]))
        print(json.dumps(None), flush=True)
    elif word == "admit":
        print(json.dumps(limits.admit(tenant, int(rest[0]), float(rest[1]))), flush=True)
"""


class Child:
    """A process of its own counting in the store at ``url``: one command a line, one JSON answer a line."""

    def __init__(self, url: str):
        self.proc = subprocess.Popen([sys.executable, "-c", CHILD, url], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.ask_line() == "ready"

    def ask_line(self) -> object:
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        assert line, "the child ended"
        return json.loads(line)

    def ask(self, *words: object) -> object:
        self.proc.stdin.write(" ".join(map(str, words)) + "\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]
        return self.ask_line()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait(timeout=30)


@contextmanager
def children(url: str, n: int = 2) -> Iterator[list[Child]]:
    made = [Child(url) for _ in range(n)]
    try:
        yield made
    finally:
        for c in made:
            c.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "grounded.db")
    return request.getfixturevalue("postgres_url")


def tenant() -> str:
    """A tenant of this test alone (the PostgreSQL cluster is the session's)."""
    return f"t-{uuid.uuid4().hex[:12]}"


def test_two_processes_hold_at_most_k_of_a_tenants_slots_between_them(url):
    t, other = tenant(), tenant()
    with children(url) as (a, b):
        assert [a.ask("acquire", t, 3) for _ in range(2)] == [0, 1]
        assert [b.ask("acquire", t, 3) for _ in range(3)] == [2, None, None]  # one process alone took 3
        assert a.ask("acquire", t, 3) is None
        assert b.ask("acquire", other, 3) == 0  # another tenant's slots are its own
        a.ask("release", t, 1)
        assert b.ask("acquire", t, 3) == 1 and a.ask("acquire", t, 3) is None


def test_processes_racing_for_a_tenants_slots_get_k_of_them(url):
    t, k = tenant(), 4
    with children(url, 3) as racers:
        got: list[object] = []
        start = threading.Barrier(len(racers))

        def race(c) -> None:
            start.wait(timeout=30)
            got.extend(c.ask("acquire", t, k) for _ in range(k))

        threads = [threading.Thread(target=race, args=(c,)) for c in racers]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=60)
        held = [s for s in got if s is not None]
        assert len(got) == 3 * k and sorted(held) == list(range(k)), got


def test_the_slots_of_a_process_killed_come_back(url):
    t = tenant()
    with children(url) as (a, b):
        assert [a.ask("acquire", t, 2) for _ in range(2)] == [0, 1]
        assert b.ask("acquire", t, 2) is None
        a.kill()  # no release: its connection closes (PostgreSQL), its pid is gone (SQLite)
        deadline = time.monotonic() + 20
        slot = None
        while slot is None and time.monotonic() < deadline:  # the server sees the connection close soon after
            slot = b.ask("acquire", t, 2)
            time.sleep(0.05)
        assert slot == 0 and b.ask("acquire", t, 2) == 1 and b.ask("acquire", t, 2) is None


def test_readings_per_window_are_one_count_across_processes(url):
    window = 3600.0
    while True:
        t, at = tenant(), int(time.time() // window)
        with children(url) as (a, b):
            first = [a.ask("admit", t, 5, window) for _ in range(3)]
            second = [b.ask("admit", t, 5, window) for _ in range(3)]
        if int(time.time() // window) == at:  # (a window that ended half-way is counted again, anew)
            break
    assert first == [True, True, True] and second == [True, True, False]


def test_a_lease_ended_frees_a_slot_of_a_process_still_running(tmp_path):
    """SQLite: a process frozen rather than gone holds its slots until their lease ends; a row naming a pid that
    now belongs to another process (started at another time) is taken back at once."""
    db = tmp_path / "grounded.db"
    mine, theirs = open_limits(db, lease=0.3), open_limits(db, lease=0.3)
    try:
        assert isinstance(theirs, SQLiteLimits)
        theirs.holder = holder(1)  # init: a process still running, not this one
        assert theirs.acquire("t1", 1) == 0 and mine.acquire("t1", 1) is None
        time.sleep(0.4)
        assert mine.acquire("t1", 1) == 0  # its lease ended
        theirs.holder = f"{1}:{holder(1).partition(':')[2]}1"  # pid 1, started at another time: gone
        assert theirs.acquire("t2", 1) == 0 and mine.acquire("t2", 1) == 0
    finally:
        theirs.close()
        mine.close()


def test_local_counts_and_lock_keys():
    local = LocalLimits()
    assert [local.acquire("t", 2) for _ in range(3)] == [0, 1, None]
    local.release("t", 0)
    assert local.acquire("t", 2) == 0 and local.acquire("u", 2) == 0
    assert [local.admit("t", 2, 3600) for _ in range(3)] == [True, True, False]
    keys = {lock_key(f"t{i}", s) for i in range(50) for s in range(8)}
    assert len(keys) == 400 and all(-(1 << 63) <= k < 1 << 63 for k in keys)


# -- the service's readers, two server processes on one store ---------------------------------------------


@pytest.mark.slow
def test_two_servers_on_one_store_admit_one_reading_of_a_tenant_between_them(tmp_path):
    from .serve_helpers import ServerProcess, client, make_key
    from .serving import HEADER, long_text, utterance

    db = str(tmp_path / "grounded.db")
    key = make_key(db, "t1")
    servers = [ServerProcess(db, tmp_path / f"server{i}.log", "--reads-per-tenant", "1") for i in range(2)]
    with servers[0], servers[1]:
        with client(servers[0], key) as c:
            assert c.post("/conversations", json={"id": "c1", "header": HEADER}).status_code == 201
            for i in range(1, 9):
                assert c.post("/conversations/c1/utterances", json=utterance(i)).status_code == 201
        for server in servers:  # the readers started (the first reading waits for them), each reading alone
            with client(server, key) as c:
                r = c.post("/conversations/c1/verify", json={"text": "observation 1"}, timeout=300)
                assert r.status_code == 200, r.text[:300]
        text = long_text(20000, 1)
        answers: dict[str, object] = {}

        def long_reading() -> None:
            with client(servers[0], key) as c:
                answers["first"] = c.post("/conversations/c1/verify", json={"text": text}, timeout=300)

        first = threading.Thread(target=long_reading)
        first.start()
        try:
            assert held_soon(db, "t1"), "the first reading never took its slot"
            with client(servers[1], key) as c:  # the other process: the tenant's one slot is held
                r = c.post("/conversations/c1/verify", json={"text": "observation 2"})
            assert r.status_code == 429 and "reads_per_tenant" in r.json()["message"], r.text[:300]
        finally:
            first.join(timeout=300)
        assert answers["first"].status_code in (200, 504)  # type: ignore[attr-defined]
        with client(servers[1], key) as c:  # the slot given back: the other process reads
            assert c.post("/conversations/c1/verify", json={"text": "observation 2"}).status_code == 200


def held_soon(db: str, tenant_name: str, within: float = 60.0) -> bool:
    """Whether a slot of the tenant is held in the SQLite store within ``within`` seconds."""
    import sqlite3

    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        with sqlite3.connect(db, timeout=5) as conn:
            try:
                if conn.execute("SELECT count(*) FROM grounded_tenant_slots WHERE tenant = ?",
                                (tenant_name,)).fetchone()[0]:
                    return True
            except sqlite3.OperationalError:  # the table is made by the first reading's count
                pass
        time.sleep(0.01)
    return False


def test_the_readers_take_their_slots_and_minutes_from_the_store(url):
    """Two ``TextReaders`` on one store (as two server processes have): the tenant's one slot and its two readings a
    minute are one between them, refused with 429 naming the bound, the slot given back when a reading ends."""
    import asyncio

    from grounded.service.errors import Busy
    from grounded.service.reading import RATE_WINDOW, ReadingLimits, TextReaders
    from grounded.service.settings import Settings

    settings = Settings(db=url, reads_per_tenant=1, reads_per_minute=2)
    first, second = (TextReaders(settings.reading_limits(), settings.tenant_counts) for _ in range(2))

    async def given_back(readers: TextReaders) -> None:
        """The releases handed to the readers' counting thread are done (it runs one job at a time, in order)."""
        await asyncio.get_running_loop().run_in_executor(readers._counting(), lambda: None)

    async def scenario(t: str, other: str) -> None:
        slot = await first._take_slot(t)
        with pytest.raises(Busy, match="reads_per_tenant") as refused:
            await second._take_slot(t)
        assert refused.value.headers["Retry-After"] == "1"
        assert await second._take_slot(other) == 0  # another tenant's own
        first._release(t, slot)
        await given_back(first)
        slot = await second._take_slot(t)  # the slot given back: the other process reads
        second._release(t, slot)
        await given_back(second)
        with pytest.raises(Busy, match="reads_per_minute") as refused:  # the third reading this minute
            await first._take_slot(t)
        assert refused.value.headers["Retry-After"] == str(RATE_WINDOW)

    try:
        for _ in range(3):
            window = time.time() // RATE_WINDOW
            try:
                asyncio.run(scenario(tenant(), tenant()))
            except (AssertionError, pytest.fail.Exception):
                if time.time() // RATE_WINDOW == window:
                    raise
                continue  # the minute turned half-way: its count began again
            if time.time() // RATE_WINDOW == window:
                break
        else:
            raise AssertionError("the minute turned during every attempt")
    finally:
        first.close()
        second.close()
    assert ReadingLimits(1, 1, 1, 1.0).per_minute == 0  # no bound unless asked for
