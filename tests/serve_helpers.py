"""A real ``grounded serve`` process on 127.0.0.1 for the tests, and what they share about it.

The server is the installed command (``python -m grounded serve``) started
as a subprocess on a free port; its stderr (the request log) goes to a file
the tests can read.  Every wait is bounded.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from grounded.bench.pgserver import free_port
from grounded.service.keys import new_key
from grounded.service.store import open_store


def make_key(db: str, tenant: str) -> str:
    """A new API key for ``tenant`` in the store at ``db`` (created as ``grounded keys create`` does)."""
    store = open_store(db)
    try:
        key_id, key, digest = new_key()
        store.add_key(key_id, tenant, digest)
    finally:
        store.close()
    return key


class ServerProcess:
    """``grounded serve --db DB`` on a free loopback port."""

    def __init__(self, db: str, log: Path, *args: str):
        self.db = db
        self.log = log
        self.args = args
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60.0) -> ServerProcess:
        with open(self.log, "ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "grounded", "serve", "--db", self.db, "--port", str(self.port), *self.args],
                stdout=subprocess.DEVNULL, stderr=err, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"grounded serve exited with {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/v1/health", timeout=1.0).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"grounded serve did not answer within {timeout} s: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def client(server: ServerProcess, key: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=server.url + "/v1", headers=headers, timeout=30.0)
