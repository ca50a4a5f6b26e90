"""``grounded serve --port 0`` binds a free port and its start-up line names it (tests/serving.py starts every
test server so: a port picked by the test and bound by the server seconds later could be taken in between)."""

from __future__ import annotations

import socket
import subprocess
import sys

import httpx
import pytest

from tests.serve_helpers import ServerProcess, make_key
from tests.serving import SERVING


@pytest.mark.slow
def test_port_0_is_a_free_port_named_on_the_start_up_line_with_one_worker_or_several(tmp_path):
    db = str(tmp_path / "grounded.db")
    make_key(db, "t1")
    one = ServerProcess(db, tmp_path / "one.log")
    several = ServerProcess(db, tmp_path / "several.log", "--workers", "2")
    with one, several:
        assert 0 not in (one.port, several.port) and one.port != several.port
        for server in (one, several):
            [named] = [int(m.group(1)) for m in SERVING.finditer(server.log.read_text())]
            assert named == server.port
            assert httpx.get(f"http://127.0.0.1:{named}/v1/health", timeout=30).status_code == 200


def test_a_port_in_use_is_refused_naming_the_address(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "grounded", "serve", "--db", str(tmp_path / "grounded.db"),
                            "--port", str(port)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 3, r.stderr[-2000:]
    assert f"cannot listen on 127.0.0.1:{port}" in r.stderr and "address already in use" in r.stderr.lower()
    assert "grounded: serving" not in r.stderr  # no start-up line names a port it does not hold


def test_the_announced_port_accepts_a_connection_at_once(tmp_path):
    """The start-up line is printed once the socket listens: a supervisor that connects as soon as it reads the
    line is queued by the kernel, never refused (uvicorn itself listens only once the app has started)."""
    proc = subprocess.Popen([sys.executable, "-m", "grounded", "serve", "--db", str(tmp_path / "grounded.db"),
                             "--port", "0"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert proc.stderr is not None
        for _ in range(50):  # the start-up lines: a key, then the serving line
            line = proc.stderr.readline()
            named = SERVING.search(line)
            if named or not line:
                break
        assert named, "no start-up line"
        with socket.create_connection(("127.0.0.1", int(named.group(1))), timeout=30):
            pass
    finally:
        proc.kill()
        proc.wait(timeout=30)
