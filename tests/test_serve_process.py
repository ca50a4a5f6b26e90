"""`grounded serve` as processes: the first key shown only once the port is held, workers that end with their
supervisor, and a stop (Ctrl-C) that does not wait for a text reading to run to its deadline."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.serve_helpers import ServerProcess, client, make_key
from tests.serving import long_text

KEY_LINE = re.compile(r"created one for tenant 'default' \(shown once, store it\):\n(gk_\S+)")


@pytest.mark.slow
def test_a_server_that_cannot_bind_shows_no_key_and_the_next_start_shows_one(tmp_path):
    db = str(tmp_path / "grounded.db")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        clash = subprocess.run([sys.executable, "-m", "grounded", "serve", "--db", db, "--port", str(port)],
                               capture_output=True, text=True, timeout=120)
    assert clash.returncode == 3, clash.stderr[-2000:]
    assert "gk_" not in clash.stderr and "created one" not in clash.stderr
    log = tmp_path / "serve.log"
    with ServerProcess(db, log) as server:
        [key] = KEY_LINE.findall(log.read_text())
        with client(server, key) as c:
            assert c.get("/conversations").status_code == 200  # the key shown is the tenant's, and it works


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux /proc), the resource tracker multiprocessing may start left out."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return [c for c in found if b"resource_tracker" not in Path(f"/proc/{c}/cmdline").read_bytes()]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
def test_workers_end_when_their_supervisor_is_killed_and_the_port_is_free_again(tmp_path):
    db = str(tmp_path / "grounded.db")
    make_key(db, "t1")
    server = ServerProcess(db, tmp_path / "serve.log", "--workers", "2").start()
    assert server.proc is not None
    workers = children(server.proc.pid)
    assert len(workers) == 2
    server.kill()  # kill -9: no shutdown handler runs in the supervisor
    deadline = time.monotonic() + 30
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(w) for w in workers), "a worker kept serving after its supervisor died"
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{server.url}/v1/health", timeout=5)
    again = subprocess.Popen([sys.executable, "-m", "grounded", "serve", "--db", db, "--port", str(server.port)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and again.poll() is None:
            try:
                if httpx.get(f"{server.url}/v1/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        assert again.poll() is None, again.stderr.read() if again.stderr else ""  # it bound the port
    finally:
        again.terminate()
        again.wait(timeout=30)


@pytest.mark.slow
def test_ctrl_c_stops_the_server_while_a_text_is_read(tmp_path):
    """A reading long enough to be under way when Ctrl-C comes (a read deadline of 120 s): the server stops at
    once, its readers with it; it waited for the reading to end before (7 s to 45 s here)."""
    db = str(tmp_path / "grounded.db")
    key = make_key(db, "t1")
    server = ServerProcess(db, tmp_path / "serve.log", "--read-deadline", "120").start()
    assert server.proc is not None
    outcome: list[object] = []
    with client(server, key) as c:
        assert c.post("/conversations", json={"id": "c", "header": {"agents": {"ana": {}}}}).status_code == 201
        for i in range(1, 400):
            r = c.post("/conversations/c/utterances", json={
                "speaker": "ana", "ops": [{"op": "observe", "claim": f"o{i}", "text": long_text(60, i)}]})
            assert r.status_code == 201, r.text
        assert c.post("/conversations/c/verify", json={"text": "x y z."}, timeout=120).status_code == 200  # started

        def read() -> None:
            try:
                outcome.append(c.post("/conversations/c/verify", json={"text": long_text(20_000, 0)}, timeout=180))
            except httpx.TransportError as exc:
                outcome.append(exc)

        reading = threading.Thread(target=read, daemon=True)
        reading.start()
        time.sleep(2)
        assert not outcome, "the reading ended before the stop: the test needs a longer one"
        readers = children(server.proc.pid)
        assert readers
        started = time.monotonic()
        server.proc.send_signal(signal.SIGINT)
        server.proc.wait(timeout=120)
        took = time.monotonic() - started
        reading.join(timeout=30)
    assert took < 5, f"the server took {took:.1f} s to stop"  # 1.3 s measured (docs/reliability.md)
    assert not any(alive(r) for r in readers)
    assert "grounded: stopped" in server.log.read_text()
    assert server.proc.returncode == 0
    assert os.path.exists(db)
