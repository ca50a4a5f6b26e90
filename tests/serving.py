"""A real ``grounded serve`` process on 127.0.0.1, for the serve benchmark and the tests.

The server is the installed command (``python -m grounded serve``) started
as a subprocess with ``--port 0``: it binds a free port and names it on its
start-up line; its stderr (that line, then the request log) goes to a file.
Every wait is bounded.  ``kill_rounds`` is the durability run: kill -9 the
server during a stream of appends, restart it, and check that every
acknowledged utterance is stored, at the place it was acknowledged.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from grounded.service.store import create_key

if TYPE_CHECKING:
    from grounded.service.host import EngineHost

make_key = create_key

SERVING = re.compile(r"grounded: serving .* on http://127\.0\.0\.1:(\d+) ")
"""``grounded serve``'s start-up line, naming the port it bound."""


def bound_port(proc: subprocess.Popen, log: Path, start: int, line: re.Pattern[str], deadline: float) -> int:
    """The port a server started with ``--port 0`` names on its start-up ``line``, written to ``log`` past byte
    ``start`` (its stderr): the server binds the port itself, so no other process can take it in between.
    RuntimeError if the server ends first or says nothing by ``deadline`` (``time.monotonic``)."""
    while True:
        found = line.search(log.read_bytes()[start:].decode("utf-8", "replace"))
        if found:
            return int(found.group(1))
        if proc.poll() is not None or time.monotonic() > deadline:
            said = log.read_bytes()[start:].decode("utf-8", "replace")[-2000:]
            ended = f"exited with {proc.returncode}" if proc.poll() is not None else "named no port in time"
            raise RuntimeError(f"the server {ended}: {said}")
        time.sleep(0.05)


def answering(proc: subprocess.Popen, log: Path, start: int, url: str, deadline: float) -> str:
    """``url`` once a GET there answers 200 (a server's readiness after it named its port, ``bound_port``).
    RuntimeError, with what the server wrote to ``log`` past byte ``start``, if it ends first or has not
    answered by ``deadline`` (``time.monotonic``)."""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            if httpx.get(url, timeout=5.0).status_code == 200:
                return url
        except httpx.TransportError:
            time.sleep(0.05)
    said = log.read_bytes()[start:].decode("utf-8", "replace")[-2000:]
    ended = f"exited with {proc.returncode}" if proc.poll() is not None else f"did not answer at {url} in time"
    raise RuntimeError(f"the server {ended}: {said}")


class ServerProcess:
    """``grounded serve --db DB`` on a free loopback port (the one the server bound and named)."""

    def __init__(self, db: str, log: Path, *args: str, env: dict[str, str] | None = None,
                 sampled: Path | None = None):
        self.env = env or {}
        self.sampled = sampled
        self.db = db
        self.log = log
        self.args = args
        self.port = 0
        """The port the server bound (``--port 0``: the kernel's pick, read off its start-up line), once started."""
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> ServerProcess:
        # sampled: the server runs under this module's CPU sampler (``sample``), its counts written to that file
        launch = ["-m", __name__, str(self.sampled)] if self.sampled is not None else ["-m", "grounded"]
        start = self.log.stat().st_size if self.log.exists() else 0
        with open(self.log, "ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, *launch, "serve", "--db", self.db, "--port", "0", *self.args],
                stdout=subprocess.DEVNULL, stderr=err, env={**os.environ, "PYTHONUNBUFFERED": "1", **self.env})
        deadline = time.monotonic() + timeout
        try:
            self.port = bound_port(self.proc, self.log, start, SERVING, deadline)
            answering(self.proc, self.log, start, self.url + "/v1/health", deadline)
        except RuntimeError:
            self.stop()
            raise
        return self

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the server process has used so far (Linux /proc)."""
        assert self.proc is not None
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def sampling(self, on: bool) -> None:
        """Start (True) or stop the sampler of a server started with ``sampled`` (stopping writes its counts)."""
        assert self.proc is not None and self.sampled is not None
        self.proc.send_signal(signal.SIGUSR1 if on else signal.SIGUSR2)

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


def store_host(path: str | Path) -> EngineHost:
    """An in-process ``EngineHost`` over the store at ``path`` (its Conversations opened by the host), as
    ``grounded serve`` runs it without the HTTP layer (imported here: this module also runs a sampled server)."""
    from grounded.service.conversations import Conversations
    from grounded.service.host import EngineHost
    from grounded.service.store import open_store

    return EngineHost(lambda: Conversations(open_store(path)))


def client(server: ServerProcess, key: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=server.url + "/v1", headers=headers, timeout=30.0)


@dataclass
class KillReport:
    rounds: int = 0
    acknowledged: int = 0
    stored: int = 0
    lost: list[int] = field(default_factory=list)
    """Acknowledged seqs missing from the store or holding another utterance: must stay empty."""
    unacknowledged_stored: int = 0
    """Appends in flight at a kill that were committed though never acknowledged (allowed)."""
    seconds: float = 0.0

    def to_json(self) -> dict:
        return {"rounds": self.rounds, "acknowledged": self.acknowledged, "stored": self.stored,
                "lost": len(self.lost), "unacknowledged_stored": self.unacknowledged_stored,
                "seconds": round(self.seconds, 1)}


def kill_rounds(db: str, rounds: int, workdir: Path, seed: int = 0, min_wait: float = 0.15,
                max_wait: float = 0.5) -> KillReport:
    """Stream appends to one conversation and SIGKILL the server ``rounds`` times; check after each restart."""
    rng = random.Random(seed)
    key = make_key(db, "durability")
    report = KillReport()
    start = time.perf_counter()
    acked: dict[int, str] = {}  # seq -> the claim acknowledged there
    attempt = [0]
    cid = f"kill-{seed}-{time.time_ns()}"
    log = workdir / "kill-server.log"
    for r in range(rounds + 1):
        server = ServerProcess(db, log, "--quiet").start()
        with client(server, key) as c:
            if r == 0:
                c.post("/conversations", json={"id": cid}).raise_for_status()
            stored = [(json.loads(line)) for line in c.get(f"/conversations/{cid}/export").text.splitlines()[1:]]
        claims = [line["ops"][0]["claim"] for line in stored]
        report.lost = [seq for seq, claim in acked.items() if seq > len(claims) or claims[seq - 1] != claim]
        report.stored = len(claims)
        if r == rounds or report.lost:
            server.stop()
            break
        stop = threading.Event()

        def writer(url: str = server.url, stop: threading.Event = stop) -> None:
            with httpx.Client(base_url=url + "/v1", headers={"Authorization": f"Bearer {key}"},
                              timeout=10.0) as w:
                while not stop.is_set():
                    attempt[0] += 1
                    claim = f"o{attempt[0]}"
                    try:
                        resp = w.post(f"/conversations/{cid}/utterances",
                                      json={"speaker": "writer", "ops": [{"op": "observe", "claim": claim}]})
                    except httpx.TransportError:
                        return
                    if resp.status_code != 201:
                        return
                    acked[resp.json()["seq"]] = claim

        before = len(acked)
        thread = threading.Thread(target=writer)
        thread.start()
        deadline = time.monotonic() + 30  # kill a live stream: after this round's first acknowledgement
        while len(acked) == before and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(rng.uniform(min_wait, max_wait))
        server.kill()
        stop.set()
        thread.join(timeout=60)
        report.rounds += 1
    report.acknowledged = len(acked)
    report.unacknowledged_stored = report.stored - len(acked)
    report.seconds = time.perf_counter() - start
    return report


# What the load sends, shared by the serve tests and the serve benchmark (bench/serve.py, bench/flood.py)

HEADER = {"agents": {"ann": {"authority": True}, "ben": {}}}


def utterance(i: int) -> dict[str, Any]:
    """The i-th utterance of a benchmark conversation: observations; every fourth a question and a hypothesis."""
    speaker = "ann" if i % 2 else "ben"
    ops: list[dict[str, Any]] = [{"op": "observe", "claim": f"o{i}", "text": f"observation {i}"}]
    if i % 4 == 3:
        ops += [{"op": "question", "claim": f"q{i}", "text": f"why {i}?"},
                {"op": "hypothesize", "claim": f"h{i}", "deps": [f"o{i}", f"o{i - 1}"], "explains": [f"q{i}"],
                 "text": f"hypothesis {i}"}]
    return {"speaker": speaker, "ops": ops}


WORDS = ("redis token retry storm pool payments failed cache cluster login outage stripe because database alert "
         "timeouts observation hypothesis connection exhausted downstream symptom upstream deploy rollback queue "
         "worker latency spike memory leak").split()


def long_text(n: int, seed: int) -> str:
    """``n`` characters of sentences over the benchmark's words, different for each seed."""
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < n:
        s = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 12))).capitalize() + f" {rng.randrange(10**6)}."
        out.append(s)
        size += len(s) + 1
    return " ".join(out)[:n]


PARTS = [("rules (engine, Prolog)", ("grounded.engine", "grounded.solvers", "grounded.dmap", "grounded.core",
                                    "grounded.io", "grounded.queries")),
         ("store (SQLite, PostgreSQL)", ("grounded.service.store", "sqlite3", "psycopg")),
         ("JSON encode and decode", ("json",)), ("log line", ("logging", "grounded.service.middleware")),
         ("validation (pydantic)", ("pydantic",)), ("key check", ("grounded.service.keys", "hashlib", "hmac")),
         ("conversations (service)", ("grounded.service.conversations",)),
         ("group commit (host)", ("grounded.service.host",)),
         ("routes (fast path, api)", ("grounded.service.fastpath", "grounded.service.api")),
         ("framework (FastAPI, Starlette)", ("starlette", "fastapi")),
         ("HTTP (uvicorn, httptools)", ("uvicorn", "httptools", "grounded.service.connections")),
         ("event loop", ("asyncio", "uvloop"))]
"""The parts a served request's CPU is split into, by module: a sample counts for the first part (in this order)
whose modules hold the innermost frame's (the module or a submodule), else the next frame out's, and so on
(``other`` if none does).  Module names, not file paths: the same wherever the package is installed."""

STORE, COMMIT, IDLE = "store (SQLite, PostgreSQL)", "store commit (its thread)", frozenset({"event loop", "other"})
"""A sample taken while the loop's thread waits (the handler runs on it) and another thread is in the store counts
for the commit (``host.py`` commits on a thread of its own); when both threads run, it goes by the loop's frame."""


def sample(out: Path, argv: list[str], interval: float = 0.001) -> None:
    """Run ``grounded ARGV`` with a CPU-time sampler: SIGPROF every ``interval`` s of the process's CPU; SIGUSR1
    starts counting (from zero), SIGUSR2 stops and writes ``{part: samples}`` to ``out`` as JSON.

    Standard-library only (py-spy is not at hand): the handler runs on the main thread between bytecodes, so time
    in a C call (SQLite, Prolog) counts for the Python frame that made it.
    """
    import collections
    import runpy

    counts: collections.Counter[str] = collections.Counter()
    on = [False]

    def part_of(frame: Any) -> str:
        while frame is not None:
            module = frame.f_globals.get("__name__", "")
            for part, modules in PARTS:
                if any(module == m or module.startswith(m + ".") for m in modules):
                    return part
            frame = frame.f_back
        return "other"

    def tick(signum: int, frame: Any) -> None:
        if not on[0]:
            return
        part = part_of(frame)
        if part in IDLE:  # the loop's thread waits: the CPU went to another thread, the store's commit if busy
            main = threading.main_thread().ident
            if any(part_of(f) == STORE for t, f in sys._current_frames().items() if t != main):
                part = COMMIT
        counts[part] += 1

    def start(*_: object) -> None:
        counts.clear()
        on[0] = True

    def stop(*_: object) -> None:
        on[0] = False
        out.write_text(json.dumps(counts))

    signal.signal(signal.SIGPROF, tick)
    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    signal.setitimer(signal.ITIMER_PROF, interval, interval)
    sys.argv = ["grounded", *argv]
    runpy.run_module("grounded", run_name="__main__")


if __name__ == "__main__":
    sample(Path(sys.argv[1]), sys.argv[2:])
