"""One tenant's costly request makes only that tenant wait: the other tenants are answered meanwhile.

Each test holds a behaviour, not a time (the times are bench/flood.py's, ``python -m bench flood --attack``):
a text reader past its deadline is killed and replaced and another tenant's reading is answered; the state a
reader needs is pickled while the loop answers others; a store whose write lock another process holds does not
stop the reads; the engine cache holds each tenant to its count and its bytes.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from grounded.service.errors import DeadlineExceeded
from grounded.service.reading import Reading, ReadingLimits, TextReaders

# -- jobs a reader runs (module level: they go to the reader by name) ---------------------------------------


def forever(state: Any, what: Any, at: Any, threshold: Any, deadline: float) -> dict[str, Any]:
    """A reading that never comes back to its deadline (as indexing every claim of a long conversation did);
    it writes its reader's pid to the file ``what`` first."""
    Path(what).write_text(str(os.getpid()))
    while True:
        time.sleep(1)


def after_a_while(state: Any, what: Any, at: Any, threshold: Any, deadline: float) -> dict[str, Any]:
    time.sleep(2)
    return {"what": what}


def pid_of_reader(state: Any, what: Any, at: Any, threshold: Any, deadline: float) -> dict[str, Any]:
    return {"pid": os.getpid(), "what": what}


class SlowToPickle:
    """A state whose pickling takes until ``flag`` exists (at most ``within`` s), and writes down whether it did:
    pickled on the loop, the loop cannot make the flag meanwhile."""

    def __init__(self, flag: Path, seen: Path, within: float):
        self.flag, self.seen, self.within = flag, seen, within

    def __reduce__(self) -> Any:
        end = time.monotonic() + self.within
        while not self.flag.exists() and time.monotonic() < end:
            time.sleep(0.01)
        self.seen.write_text("made" if self.flag.exists() else "absent")
        return (dict, ())


def _ended(pid: int, within: float) -> bool:
    """Whether process ``pid`` is gone or a zombie within ``within`` s (a killed reader at the lowest CPU priority
    ends when it is next scheduled, which on a busy machine may take a moment)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


DEADLINE = 10.0
"""Long enough for a reader to start (import, sentence model) on a loaded machine."""


def _reading(tenant: str, state: Any = None) -> Reading:
    return Reading(tenant, (tenant, "c1", 1), state if state is not None else {"tenant": tenant})  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_reader_past_its_deadline_is_killed_and_replaced_and_only_its_tenant_waits(tmp_path):
    """Tenant A's reading never ends; at its deadline A is told 504, its reader is killed, a new one takes its
    place, and tenant B's reading, sent while A's held a reader, is answered."""
    readers = TextReaders(ReadingLimits(max_text=100, workers=1, per_tenant=2, deadline=DEADLINE))
    pid_file = tmp_path / "pid"

    async def run() -> tuple[Any, Any, int, bool, Any]:
        try:
            await readers._read(_reading("b"), pid_of_reader, "warm", None, None)
            a = asyncio.ensure_future(readers._read(_reading("a"), forever, str(pid_file), None, None))
            await asyncio.sleep(DEADLINE / 2)  # A's reading holds a reader
            before = int(pid_file.read_text())
            b = asyncio.ensure_future(readers._read(_reading("b"), pid_of_reader, "mine", None, None))
            done = await asyncio.wait_for(asyncio.gather(a, b, return_exceptions=True), 60)
            ended = await asyncio.get_running_loop().run_in_executor(None, _ended, before, 30.0)
            # A's next reading is answered (by the reader B used, or the one started in place of the killed one)
            again = await readers._read(_reading("a"), pid_of_reader, "again", None, None)
            return done[0], done[1], before, ended, again
        finally:
            readers.close()

    a, b, before, ended, again = asyncio.run(run())
    assert isinstance(a, DeadlineExceeded) and a.status == 504, a
    assert isinstance(b, dict) and b["what"] == "mine", b  # answered, not 504 behind A's reading
    assert b["pid"] != before
    assert ended, "the reader past its deadline was not killed"
    assert again["what"] == "again" and again["pid"] != before


@pytest.mark.slow
def test_a_tenants_readings_take_turns_with_anothers():
    """Tenant A has two readings queued before B's one: B's is not the last served (one queue per tenant)."""
    readers = TextReaders(ReadingLimits(max_text=100, workers=1, per_tenant=3, deadline=30.0))
    order: list[str] = []

    async def run() -> None:
        try:
            await readers._read(_reading("a"), pid_of_reader, "warm", None, None)

            async def one(tenant: str, what: str) -> None:
                await readers._read(_reading(tenant), after_a_while, what, None, None)
                order.append(what)

            tasks = [asyncio.ensure_future(one("a", "a1")), asyncio.ensure_future(one("a", "a2")),
                     asyncio.ensure_future(one("a", "a3"))]
            await asyncio.sleep(0.5)  # A's three are queued first, one of them read
            tasks.append(asyncio.ensure_future(one("b", "b1")))
            await asyncio.wait_for(asyncio.gather(*tasks), 60)
        finally:
            readers.close()

    asyncio.run(run())
    assert sorted(order) == ["a1", "a2", "a3", "b1"]
    assert order.index("b1") < 3, order  # B's turn came before A's last


@pytest.mark.slow
def test_the_state_a_reader_needs_is_pickled_while_the_loop_answers_others(tmp_path):
    """While a reading's state is pickled, the loop runs other work: here it makes the flag the pickling waits
    for (pickled on the loop, the flag could only come after, and the pickling would see it absent)."""
    flag, seen = tmp_path / "flag", tmp_path / "seen"
    readers = TextReaders(ReadingLimits(max_text=100, workers=1, per_tenant=2, deadline=30.0))

    async def run() -> Any:
        try:
            await readers._read(_reading("b"), pid_of_reader, "warm", None, None)
            a = asyncio.ensure_future(readers._read(_reading("a", SlowToPickle(flag, seen, 5.0)), pid_of_reader,
                                                    "a", None, None))
            await asyncio.sleep(0.2)  # another tenant's request, answered on the loop meanwhile
            flag.write_text("")
            return await asyncio.wait_for(a, 60)
        finally:
            readers.close()

    answer = asyncio.run(run())
    assert answer["what"] == "a"
    assert seen.read_text() == "made"


def test_a_pickled_state_is_the_state_when_it_was_asked_for(tmp_path):
    """The child pickles the state as it was at the call: a change made on the loop right after is not in it."""
    from grounded.service.pickler import pickle_in_child

    async def run() -> Any:
        state = {"n": 1}
        made = asyncio.ensure_future(pickle_in_child(state, str(tmp_path)))
        state["n"] = 2
        return await made

    path = asyncio.run(run())
    assert pickle.loads(Path(path).read_bytes()) == {"n": 1}


# -- the store's write lock held by another process -------------------------------------------------------

HOLD = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("held", flush=True)
sys.stdin.readline()  # until the test says so (or ends)
db.execute("ROLLBACK")
"""


def test_while_another_process_holds_the_write_lock_reads_are_answered_and_the_write_waits(tmp_path):
    """Another process holds SQLite's write lock: tenant A's append waits for it off the loop, tenant B's Verify
    is answered meanwhile; once the lock is let go, A's append is stored."""
    from grounded.service.store import open_store
    from tests.serving import HEADER, store_host, utterance

    db = tmp_path / "g.db"
    open_store(db).close()
    order: list[str] = []

    async def run() -> Any:
        host = store_host(db)
        try:
            for tenant in ("a", "b"):
                host.conversations.store.ensure_tenant(tenant)
                await host.call(lambda c, t=tenant: c.create(t, HEADER, "c1"), True, (tenant, "c1"))
                await host.call(lambda c, t=tenant: c.append(t, "c1", utterance(1)), True, (tenant, "c1"))
            holder = subprocess.Popen([sys.executable, "-c", HOLD, str(db)], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)
            try:
                assert holder.stdout is not None and holder.stdout.readline().strip() == "held"

                async def write() -> Any:
                    answer = await host.call(lambda c: c.append("a", "c1", utterance(2)), True, ("a", "c1"))
                    order.append("append")
                    return answer

                appended = asyncio.ensure_future(write())
                await asyncio.sleep(0.3)  # the append's group is waiting for the lock
                verdict = await asyncio.wait_for(host.call(lambda c: c.verify("b", "c1", "o1")), 5)
                order.append("verify")
                assert holder.poll() is None  # still holding the lock: the read did not wait for it
                holder.stdin.write("\n")  # type: ignore[union-attr]
                holder.stdin.flush()  # type: ignore[union-attr]
                return verdict, await asyncio.wait_for(appended, 30)
            finally:
                holder.kill()
                holder.wait()
        finally:
            host.close()

    verdict, appended = asyncio.run(run())
    assert verdict["grounded"] is True
    assert appended["seq"] == 2
    assert order == ["verify", "append"]
    store = open_store(db)
    try:
        assert store.head("a", "c1") == 2
    finally:
        store.close()


# -- the engine cache, per tenant --------------------------------------------------------------------------


def _world(atoms: int) -> dict[str, Any]:
    return {"agents": {"ann": {}, "ben": {}}, "world": {"atoms": [f"p{i}" for i in range(atoms)]}}


def test_one_tenants_conversations_evict_only_its_own_from_the_cache_past_its_count(tmp_path):
    from grounded.service.conversations import Conversations
    from grounded.service.store import open_store
    from tests.serving import HEADER

    c = Conversations(open_store(tmp_path / "g.db"), cache=10, cache_per_tenant=2)
    try:
        for tenant in ("a", "b"):
            c.store.ensure_tenant(tenant)
        with c.batch():
            c.create("b", HEADER, "mine")
        for k in range(5):
            with c.batch():
                c.create("a", HEADER, f"c{k}")
        assert c.cached("a")[0] == 2 and c.cached("b")[0] == 1
        assert ("b", "mine") in c._cache  # another tenant's engine stayed
        assert c.verify("a", "c0", "o1")["grounded"] is False  # an evicted one is rebuilt from the store when asked
    finally:
        c.close()


def test_one_tenants_world_models_are_held_to_its_bytes(tmp_path):
    from grounded.service.conversations import Conversations
    from grounded.service.store import open_store

    c = Conversations(open_store(tmp_path / "g.db"), cache=10, cache_per_tenant=10)
    try:
        for tenant in ("a", "b"):
            c.store.ensure_tenant(tenant)
        with c.batch():
            c.create("b", _world(10), "mine")
        one = c.cached("b")[1]
        assert one >= 2**10, one  # a model of 2^10 worlds: at least a byte a world
        c.cache_bytes_per_tenant = int(2.5 * one)
        for k in range(6):
            with c.batch():
                c.create("a", _world(10), f"w{k}")
            assert c.cached("a")[1] <= c.cache_bytes_per_tenant
        assert c.cached("a")[0] == 2
        assert c.cached("b") == (1, one)
    finally:
        c.close()


# -- a world model built off the loop ----------------------------------------------------------------------


@pytest.mark.slow
def test_another_tenant_is_answered_while_a_22_atom_world_model_is_built(tmp_path):
    """Tenant A creates a conversation declaring 2^22 worlds (seconds of numpy); tenant B's five Verify, sent
    one after another while that runs, are all answered before A's create is.  Built on the loop, the first of
    them waited for the model and the commit it goes with, and the next ones came after A's answer."""
    from concurrent.futures import ThreadPoolExecutor

    from tests.serving import HEADER, ServerProcess, client, make_key, utterance

    db = str(tmp_path / "g.db")
    a_key, b_key = make_key(db, "a"), make_key(db, "b")
    answered: list[str] = []
    with ServerProcess(db, tmp_path / "server.log") as server:
        with client(server, b_key) as b:
            assert b.post("/conversations", json={"id": "c1", "header": HEADER}).status_code == 201
            assert b.post("/conversations/c1/utterances", json=utterance(1)).status_code == 201
            assert b.get("/conversations/c1/verify", params={"claim": "o1"}).status_code == 200  # warm

        def create() -> int:
            with client(server, a_key) as a:
                r = a.post("/conversations", json={"id": "w", "header": _world(22)}, timeout=120)
                answered.append("create")
                return r.status_code

        def verify() -> list[Any]:
            with client(server, b_key) as b:
                out = []
                for _ in range(5):
                    out.append(b.get("/conversations/c1/verify", params={"claim": "o1"}, timeout=120).json())
                    answered.append("verify")
                return out

        with ThreadPoolExecutor(2) as pool:
            created = pool.submit(create)
            time.sleep(0.3)  # A's model is being built
            verified = pool.submit(verify)
            assert created.result(timeout=120) == 201
            assert all(v["grounded"] is True for v in verified.result(timeout=120))
    assert answered == ["verify"] * 5 + ["create"], answered
