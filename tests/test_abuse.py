"""Denial of service: one client, or one tenant, must not take `grounded serve` from the others.

Each case starts a real server on 127.0.0.1 with the bound under test set
small, drives it with raw sockets or httpx, and every loop is bounded in
count and time.  The bounds and their defaults: src/grounded/service/settings.py,
docs/serve.md, docs/reliability.md.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from grounded.service.settings import Settings
from tests.serve_helpers import ServerProcess, client, make_key
from tests.serving import HEADER, long_text, utterance

SLOW = 200
"""Slow clients of each kind held at once (the issue's report: 200 with partial headers, 200 with partial bodies)."""
MARGIN = 10.0
"""Seconds a slow connection may outlive its timeout (the timer, the loop's turn, 400 sockets on 2 loaded cores):
a bound on "closed at all", since without the timeouts these connections stay open for ever."""
WITHIN = 20.0
"""Seconds a test waits for connections to be closed before it reports how many were not."""


def _server(tmp_path, *args: str, tenants: tuple[str, ...] = ("t1", "t2")) -> tuple[ServerProcess, list[str]]:
    db = str(tmp_path / "grounded.db")
    keys = [make_key(db, t) for t in tenants]
    return ServerProcess(db, tmp_path / "server.log", *args), keys


def _conversation(server: ServerProcess, key: str, cid: str, length: int = 8) -> None:
    with client(server, key) as c:
        assert c.post("/conversations", json={"id": cid, "header": HEADER}).status_code == 201
        for i in range(1, length + 1):
            assert c.post(f"/conversations/{cid}/utterances", json=utterance(i)).status_code == 201


def _start_readers(server: ServerProcess, key: str, cid: str) -> None:
    """The first reading starts the reader processes (importing the sentence model: slow on a loaded machine)."""
    with client(server, key) as c:
        r = c.post(f"/conversations/{cid}/verify", json={"text": "observation 1"}, timeout=300)
        assert r.status_code == 200, r.text[:300]


def _connect(server: ServerProcess) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    s.settimeout(0)
    return s


def _closed_by_server(s: socket.socket) -> bool:
    """The server closed it: a read gives EOF (or a reset), after whatever answer it sent."""
    try:
        while True:
            if s.recv(65536) == b"":
                return True
    except BlockingIOError:
        return False
    except ConnectionError:
        return True


def _wait_closed(socks: list[socket.socket], within: float) -> tuple[float, int]:
    """Seconds until every socket was closed by the server (bounded by ``within``), and how many were."""
    start = time.monotonic()
    open_ = list(socks)
    while open_ and time.monotonic() - start < within:
        open_ = [s for s in open_ if not _closed_by_server(s)]
        time.sleep(0.05)
    return time.monotonic() - start, len(socks) - len(open_)


# -- slow and idle clients -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """A server with 1 s header and body timeouts and room for every slow client of the tests."""
    server, keys = _server(tmp_path_factory.mktemp("guarded"), "--header-timeout", "1", "--body-timeout", "1",
                           "--keep-alive", "1", "--max-connections", str(2 * SLOW + 50), "--max-head", "8192")
    with server:
        yield server, keys[0]


def test_partial_headers_and_bodies_are_cut_off_within_their_timeouts(guarded):
    server, key = guarded
    heads, bodies = [], []
    for _ in range(SLOW):
        s = _connect(server)
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # the header never ends
        heads.append(s)
    for _ in range(SLOW):
        s = _connect(server)
        s.sendall(b"POST /v1/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Authorization: Bearer " + key.encode() + b"\r\nContent-Length: 1000\r\n\r\n{\"id\": ")
        bodies.append(s)
    try:
        # the server still answers meanwhile (400 slow connections are not 400 busy workers)
        with client(server, key) as c:
            assert c.get("/health").status_code == 200
        took, closed = _wait_closed(heads + bodies, WITHIN)
        assert closed == 2 * SLOW, f"{2 * SLOW - closed} slow connections still open after {took:.1f} s"
        assert took <= 1.0 + MARGIN, f"slow connections closed after {took:.1f} s, timeouts 1 s"
    finally:
        for s in heads + bodies:
            s.close()
    with client(server, key) as c:  # nothing half-sent was recorded
        assert c.get("/conversations").json() == []


def test_a_body_sent_a_byte_at_a_time_is_cut_off_at_the_body_timeout(guarded):
    """The body timeout runs from the header's end to the body's end: trickling bytes does not reset it."""
    server, key = guarded
    s = _connect(server)
    s.sendall(b"POST /v1/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              b"Authorization: Bearer " + key.encode() + b"\r\nContent-Length: 1000\r\n\r\n")
    start = time.monotonic()
    try:
        while time.monotonic() - start < WITHIN:
            try:
                s.sendall(b" ")
            except OSError:
                break
            if _closed_by_server(s):
                break
            time.sleep(0.1)
        took = time.monotonic() - start
        assert 0.9 <= took <= 1.0 + MARGIN, f"a trickled body was cut after {took:.1f} s, body timeout 1 s"
    finally:
        s.close()


def _health(s: socket.socket) -> http.client.HTTPResponse:
    """GET /v1/health on ``s`` (blocking, with its timeout), its answer read whole (header, then Content-Length)."""
    s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    answer = http.client.HTTPResponse(s)
    answer.begin()
    answer.read()
    return answer


def test_a_connection_that_says_nothing_is_closed_at_the_header_timeout(guarded):
    server, _ = guarded
    idle = _connect(server)  # connects, says nothing
    try:
        took, closed = _wait_closed([idle], WITHIN)
        assert closed == 1 and took <= 1.0 + MARGIN, f"an idle connection still open after {took:.1f} s"
    finally:
        idle.close()


KEEP_ALIVE = 10
"""The served connection's idle bound in the next test: longer than any stall of a loaded machine between an
answer and the next request, so the second request is never sent on a connection the server just closed."""


@pytest.mark.slow
def test_a_served_connection_is_kept_for_the_next_request_and_closed_after_keep_alive(tmp_path):
    server, _ = _server(tmp_path, "--keep-alive", str(KEEP_ALIVE), "--header-timeout", str(10 * KEEP_ALIVE))
    with server:
        kept = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        try:
            first = _health(kept)
            assert first.status == 200 and not first.will_close
            second = _health(kept)  # keep-alive: the same connection
            assert second.status == 200 and not second.will_close
            kept.settimeout(0)
            took, closed = _wait_closed([kept], KEEP_ALIVE + WITHIN)
            assert closed == 1 and took <= KEEP_ALIVE + MARGIN, f"a served connection open after {took:.1f} s"
        finally:
            kept.close()


def test_a_header_over_max_head_is_refused_with_431(guarded):
    server, _ = guarded
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    try:
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        for _ in range(20):  # 20 x 1000 bytes of header, past the 8192 the server takes
            try:
                s.sendall(b"X-Filler: " + b"a" * 988 + b"\r\n")
            except OSError:
                break
            time.sleep(0.01)
        answer = s.recv(65536)
        assert answer.startswith(b"HTTP/1.1 431") and b"max_head" in answer and b"8192" in answer
    finally:
        s.close()


def test_a_body_answered_413_before_it_ends_is_still_read_and_the_413_arrives(guarded):
    """The rest of a refused body is not taken for the next request's header (it is no header: no 431)."""
    server, key = guarded
    body = b"{" + b" " * (5 * 1024 * 1024) + b"}"
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    try:
        s.sendall(b"POST /v1/conversations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Authorization: Bearer " + key.encode() + b"\r\nContent-Length: " + str(len(body)).encode()
                  + b"\r\n\r\n")
        s.sendall(body)  # all of it: the server reads it (within the body timeout) rather than cut the connection
        answer = s.recv(65536)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    finally:
        s.close()


def test_connections_past_the_limit_are_answered_503_and_closed(tmp_path):
    limit = 20
    server, keys = _server(tmp_path, "--max-connections", str(limit), "--header-timeout", "30")
    with server:
        held = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(limit)]
        try:
            time.sleep(0.3)  # every one accepted before the next
            extra = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            answer = extra.recv(65536)
            assert answer.startswith(b"HTTP/1.1 503") and b"max_connections" in answer and str(limit).encode() in answer
            assert extra.recv(65536) == b""  # and closed
            extra.close()
        finally:
            for s in held:
                s.close()
        deadline = time.monotonic() + 10
        while True:  # the held ones closed, the server takes connections again
            try:
                with client(server, keys[0]) as c:
                    if c.get("/health").status_code == 200:
                        break
            except Exception:  # noqa: BLE001 - not yet: the closes are still being seen
                pass
            assert time.monotonic() < deadline, "the server took no connection after the held ones closed"
            time.sleep(0.1)


# -- Verify by text -----------------------------------------------------------------------------


@pytest.mark.slow
def test_a_text_over_the_bound_is_refused_with_413_naming_it(tmp_path):
    server, keys = _server(tmp_path)
    with server:
        _conversation(server, keys[0], "c1", 2)
        with client(server, keys[0]) as c:
            bound = Settings.max_text
            for r in (c.post("/conversations/c1/verify", json={"text": "a" * (bound + 1)}),
                      c.get("/conversations/c1/verify", params={"text": "a" * (bound + 1)})):
                assert r.status_code == 413, r.text[:300]
                assert r.json()["bound"] == bound and f"over the bound of {bound}" in r.json()["message"]
                assert "max_text" in r.json()["message"]
            # text an interpreter reads on the loop is bounded alike; nothing is appended
            r = c.post("/conversations/c1/utterances",
                       json={"speaker": "ben", "text": "a" * (bound + 1), "interpreter": "rules"})
            assert r.status_code == 413 and r.json()["bound"] == bound, r.text[:300]
            assert c.get("/conversations/c1").json()["length"] == 2
        _start_readers(server, keys[0], "c1")  # within the bound: read


@pytest.mark.slow
def test_a_tenant_past_its_readings_in_flight_gets_429_and_another_tenant_does_not(tmp_path):
    server, keys = _server(tmp_path, "--reads-per-tenant", "1")
    with server:
        _conversation(server, keys[0], "c1")
        _conversation(server, keys[1], "c2")
        text = long_text(8000, 1)
        _start_readers(server, keys[0], "c1")  # the race below is between readings only
        barrier = threading.Barrier(5)

        def ask(key: str, cid: str, k: int):
            with client(server, key) as c:
                barrier.wait(timeout=30)
                return c.post(f"/conversations/{cid}/verify", json={"text": text + str(k)})

        with ThreadPoolExecutor(5) as pool:
            mine = [pool.submit(ask, keys[0], "c1", k) for k in range(4)]
            other = pool.submit(ask, keys[1], "c2", 9)
            answers = [f.result(timeout=120) for f in mine]
            theirs = other.result(timeout=120)
        refused = [r for r in answers if r.status_code == 429]
        assert len(refused) >= 2, [r.status_code for r in answers]  # one reads; the others arrive meanwhile
        for r in refused:
            assert r.headers["Retry-After"] == "1" and "reads_per_tenant" in r.json()["message"]
        assert all(r.status_code in (200, 429, 504) for r in answers)
        assert theirs.status_code != 429  # another tenant's slot is its own


@pytest.mark.slow
def test_a_reading_past_the_deadline_is_answered_504_naming_it(tmp_path):
    server, keys = _server(tmp_path, "--read-deadline", "0.05")
    with server:
        _conversation(server, keys[0], "c1")
        with client(server, keys[0]) as c:
            long = long_text(Settings.max_text, 2)
            first = c.post("/conversations/c1/verify", json={"text": long}, timeout=300)  # starts the readers
            assert first.status_code == 504, first.text[:300]
            start = time.monotonic()
            r = c.post("/conversations/c1/verify", json={"text": "Again: " + long[:-7]})
            took = time.monotonic() - start
            assert r.status_code == 504, r.text[:300]
            assert r.json()["deadline"] == 0.05 and "0.05 s" in r.json()["message"]
            assert took < 5.0  # answered at the deadline, not when the reading would have ended
            # claims are not read in a worker: no deadline on them
            assert c.get("/conversations/c1/verify", params={"claim": "o1"}).json()["grounded"] is True


def _readers_of(pid: int) -> list[int]:
    """The reader processes a server started (multiprocessing's spawned children, not its resource tracker)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
        if ppid == pid and b"spawn_main" in cmdline:
            found.append(int(stat.parent.name))
    return found


def _readers_counted(pid: int, n: int, within: float) -> list[int]:
    """The readers of ``pid`` once there are ``n`` of them, or as many as there are after ``within`` s (a reader
    is counted once it runs multiprocessing's spawn_main: a process forked but not yet exec'd is not)."""
    deadline = time.monotonic() + within
    while len(found := _readers_of(pid)) < n and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def _wait_gone(pids: list[int], within: float) -> list[int]:
    """The processes of ``pids`` still in /proc (running, or zombies not yet reaped) after at most ``within`` s."""
    deadline = time.monotonic() + within
    while True:
        left = [pid for pid in pids if Path(f"/proc/{pid}").exists()]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


@pytest.mark.slow
def test_a_reader_that_dies_is_replaced_alone_and_none_outlives_the_server(tmp_path):
    server, keys = _server(tmp_path, "--read-workers", "2")
    with server:
        _conversation(server, keys[0], "c1")
        _start_readers(server, keys[0], "c1")
        assert server.proc is not None
        readers = _readers_counted(server.proc.pid, 3, 120)
        assert len(readers) == 3, readers  # two and a spare (the pool waits for one ready; the rest may still start)
        os.kill(readers[0], signal.SIGKILL)
        # the pool sees that reader's pipe close: it reaps it and starts one in its place, the others read on
        assert not _wait_gone(readers[:1], 30), "the pool did not reap the killed reader"
        with client(server, keys[0]) as c:
            r = c.post("/conversations/c1/verify", json={"text": "observation 2"}, timeout=300)
            assert r.status_code == 200, r.text[:300]
            assert c.get("/conversations/c1/verify", params={"claim": "o2"}).json()["grounded"] is True
        now = _readers_counted(server.proc.pid, 3, 120)
        assert len(now) == 3 and readers[0] not in now and set(readers[1:]) <= set(now), (readers, now)
        server.kill()  # kill -9: no shutdown runs, and still no reader outlives its server
        assert not _wait_gone(now, 10), "readers outlived their server"


ISOLATION = """
import json, sys
from pathlib import Path
from bench import flood
result = flood.isolation(verifies=300, rate=200.0, flooders=3, text_chars=5000, rounds=3, workdir=Path(sys.argv[1]))
print(json.dumps({"result": result, "shown": flood.markdown(result)}))
"""


@pytest.mark.bench
def test_another_tenants_verify_is_answered_right_while_one_tenant_floods_verify_by_text(tmp_path):
    """The run `python -m bench serve` makes, small and in a process of its own (as the benchmark runs it): every
    Verify by claim of the other tenant, idle and under the flood, answered 200 and right; the flooder's texts
    read (200) or cut at the deadline (504), the rest told to wait (429), nothing else.  Its p99 against idle is a
    time: the benchmark prints and checks it (bench/flood.py, ``check_isolation``), not this test."""
    done = subprocess.run([sys.executable, "-c", ISOLATION, str(tmp_path)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    result = answer["result"]
    assert result["wrong_answers"] == 0
    assert result["idle_ms"]["n"] == result["flood_ms"]["n"] == 300, (result["idle_ms"], result["flood_ms"])
    statuses = result["flood_requests"]
    assert statuses.get("200", 0) + statuses.get("504", 0) > 0 and set(statuses) <= {"200", "429", "504"}, statuses
    idle, loaded = result["idle_ms"]["p99"], result["flood_ms"]["p99"]
    assert f"p99 {idle} ms idle, {loaded} ms under the flood" in answer["shown"]  # what the benchmark prints


@pytest.mark.slow
def test_a_text_is_read_against_its_own_tenants_conversation(tmp_path):
    """Two tenants' conversations by one id and of one length: each text reading sees its own tenant's state
    (the readers keep pickled states by tenant, conversation and length)."""
    server, (k1, k2) = _server(tmp_path)
    texts = {k1: "The walk-in freezer alarm went off at noon", k2: "The loading dock door was left open"}
    with server:
        for key, text in texts.items():
            with client(server, key) as c:
                assert c.post("/conversations", json={"id": "talk", "header": HEADER}).status_code == 201
                assert c.post("/conversations/talk/utterances", json={"speaker": "ann", "ops": [
                    {"op": "observe", "claim": "o1", "text": text}]}).status_code == 201
        answers = {}
        for key in texts:
            with client(server, key) as c:
                r = c.post("/conversations/talk/verify", json={"text": texts[k1]}, timeout=300)
                assert r.status_code == 200, r.text[:300]
                answers[key] = r.json()["verdict"]
    assert answers == {k1: "accept", k2: "abstain"}, answers
