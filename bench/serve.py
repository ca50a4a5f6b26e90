"""``python -m bench serve``: a bounded load run against a real ``grounded serve`` on loopback.

For each store (SQLite, PostgreSQL in a throw-away cluster) a server process
is started and N conversations are driven in parallel from one asyncio
client (httpx):

* **append**: every conversation appends its utterances back to back (N in
  flight at once): appends/s over the wall time, and each append's latency;
* **verify**: Verify by claim, spread over the N conversations, sent at a
  fixed rate (an open loop: a request is sent on schedule whether or not the
  previous ones have come back), so the latency is the service time plus the
  queueing that rate causes, not the backlog of N clients hammering in a
  closed loop; and a closed-loop run with N in flight, for the saturation
  throughput;
* **durability**: kill -9 during a stream of appends, R restarts, every
  acknowledged utterance read back (``serving.kill_rounds``);
* **isolation** (``flood.py``, run by ``python -m bench serve`` after these):
  one tenant floods Verify by text while another's Verify by claim is timed,
  against the same idle;
* **switching** (in process, no HTTP): the CPU an append costs when
  appends to two conversations of length L alternate, against the same
  appends one conversation after the other.  Each engine's facts live in
  a Prolog module of their own, so the two should match at every L; a
  gap growing with L would mean a switch reloads state again.

Latencies are measured twice: by the client (send to answer, through the
client's own event loop on the same cores) and by the server (its request
log line, request in to response out).  Every loop is bounded in count.

The load generator speaks HTTP/1.1 over keep-alive asyncio streams itself
(``LoadClient``): httpx costs about as much CPU per request as the server's
whole handling of a Verify, and on a two-core machine a client that slow
measures itself.  The tests use httpx.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bench.report import markdown_table, stderr
from tests.pgserver import TempPostgres
from tests.serving import HEADER, ServerProcess, kill_rounds, make_key, utterance


def percentiles(samples: list[float]) -> dict[str, float]:
    if not samples:
        return {"n": 0}
    ordered = sorted(samples)

    def q(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))], 3)

    return {"n": len(ordered), "p50": q(0.50), "p99": q(0.99), "max": round(ordered[-1], 3),
            "mean": round(statistics.fmean(ordered), 3)}


class _Response:
    __slots__ = ("status_code", "body")

    def __init__(self, status: int, body: bytes):
        self.status_code, self.body = status, body

    def json(self) -> Any:
        return json.loads(self.body)

    def raise_for_status(self) -> None:
        if self.status_code >= 400:
            raise RuntimeError(f"HTTP {self.status_code}: {self.body[:300]!r}")


class LoadClient:
    """A pool of keep-alive HTTP/1.1 connections to one server; JSON in, JSON out."""

    def __init__(self, host: str, port: int, key: str, connections: int):
        self.host, self.port, self.size = host, port, connections
        self.auth = f"Authorization: Bearer {key}\r\n".encode()
        self._idle: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()

    async def __aenter__(self) -> LoadClient:
        for _ in range(self.size):
            self._idle.put_nowait(await asyncio.open_connection(self.host, self.port))
        return self

    async def __aexit__(self, *exc: object) -> None:
        while not self._idle.empty():
            _, writer = self._idle.get_nowait()
            writer.close()

    async def request(self, method: str, path: str, body: Any = None) -> _Response:
        reader, writer = await self._idle.get()
        try:
            data = b"" if body is None else json.dumps(body).encode()
            head = (f"{method} /v1{path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(data)}\r\n").encode()
            writer.write(head + self.auth + b"\r\n" + data)
            status_line = await reader.readline()
            if not status_line:  # the server closed the connection while it was idle (its timeouts): once more
                writer.close()
                reader, writer = await asyncio.open_connection(self.host, self.port)
                writer.write(head + self.auth + b"\r\n" + data)
                status_line = await reader.readline()
            length = 0
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b""):
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            payload = await reader.readexactly(length) if length else b""
            return _Response(int(status_line.split()[1]), payload)
        finally:
            self._idle.put_nowait((reader, writer))

    async def post(self, path: str, json: Any) -> _Response:  # noqa: A002 - httpx's name for it
        return await self.request("POST", path, json)

    async def get(self, path: str, params: dict[str, str] | None = None) -> _Response:
        query = ("?" + "&".join(f"{k}={quote(str(v))}" for k, v in params.items())) if params else ""
        return await self.request("GET", path + query)


async def _create(c: LoadClient, ids: list[str]) -> list[str]:
    """Create the conversations ``ids`` (the benchmark's header); their ids as the server answered them."""
    out = []
    for cid in ids:
        r = await c.post("/conversations", json={"id": cid, "header": HEADER})
        r.raise_for_status()
        out.append(r.json()["id"])
    return out


async def _append_all(c: LoadClient, ids: list[str], appends: int) -> list[float]:
    """Every conversation appends utterances 1..``appends`` back to back, all conversations at once: ms each."""
    append_ms: list[float] = []

    async def appender(cid: str) -> None:
        for i in range(1, appends + 1):
            t0 = time.perf_counter()
            r = await c.post(f"/conversations/{cid}/utterances", json=utterance(i))
            append_ms.append((time.perf_counter() - t0) * 1000)
            r.raise_for_status()

    await asyncio.gather(*(appender(cid) for cid in ids))
    return append_ms


def _claims(appends: int) -> list[str]:
    """The claims grounded after ``appends`` benchmark utterances (what Verify asks about)."""
    return [f"o{i}" for i in range(1, appends + 1)] + [f"h{i}" for i in range(3, appends + 1, 4)]


async def _verify_once(c: LoadClient, cid: str, claim: str, into: list[float]) -> bool:
    """One Verify by claim, its latency (ms) appended to ``into``; whether it answered grounded."""
    t = time.perf_counter()
    r = await c.get(f"/conversations/{cid}/verify", params={"claim": claim})
    into.append((time.perf_counter() - t) * 1000)
    return r.status_code == 200 and r.json()["grounded"] is True


async def _paced_verifies(c: LoadClient, ids: list[str], claims: list[str], verifies: int, rate: float,
                          rng: random.Random) -> tuple[list[float], float, int]:
    """``verifies`` Verify requests sent at ``rate``/s (open loop): (ms each, wall seconds, wrong answers)."""
    verify_ms: list[float] = []
    tasks = []
    start = time.perf_counter()
    for k in range(verifies):
        delay = start + k / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(_verify_once(c, rng.choice(ids), rng.choice(claims), verify_ms)))
    answers = await asyncio.gather(*tasks)
    return verify_ms, time.perf_counter() - start, answers.count(False)


async def _drive(url: str, key: str, conversations: int, appends: int, verifies: int, rate: float,
                 closed_verifies: int, seed: int, server_cpu: Callable[[], float]) -> dict[str, Any]:
    rng = random.Random(seed)
    cpu: dict[str, float] = {}
    host, port = url.split("//")[1].split(":")
    async with LoadClient(host, int(port), key, conversations) as c:
        ids = await _create(c, [f"bench-{seed}-{n}" for n in range(conversations)])

        t0, c0 = time.perf_counter(), server_cpu()
        append_ms = await _append_all(c, ids, appends)
        append_wall = time.perf_counter() - t0
        cpu["append"] = server_cpu() - c0

        claims = _claims(appends)
        wrong = [0]

        async def one_verify(cid: str, claim: str, into: list[float]) -> None:
            wrong[0] += not await _verify_once(c, cid, claim, into)

        # warm-up: every conversation's engine is already cached; one round trip each for the connections
        await asyncio.gather(*(one_verify(cid, "o1", []) for cid in ids))
        c0 = server_cpu()
        verify_ms, paced_wall, paced_wrong = await _paced_verifies(c, ids, claims, verifies, rate, rng)
        wrong[0] += paced_wrong
        cpu["verify"] = server_cpu() - c0

        closed_ms: list[float] = []
        per_client = max(1, closed_verifies // conversations)

        async def verifier(cid: str) -> None:
            for _ in range(per_client):
                await one_verify(cid, rng.choice(claims), closed_ms)

        t0 = time.perf_counter()
        await asyncio.gather(*(verifier(cid) for cid in ids))
        closed_wall = time.perf_counter() - t0
    return {
        "append": {"client_ms": percentiles(append_ms), "per_s": round(len(append_ms) / append_wall, 1),
                   "count": len(append_ms), "seconds": round(append_wall, 2),
                   "server_cpu_ms_each": round(cpu["append"] * 1000 / max(1, len(append_ms)), 3)},
        "verify_paced": {"client_ms": percentiles(verify_ms), "rate": rate,
                         "achieved_per_s": round(len(verify_ms) / paced_wall, 1),
                         "server_cpu_ms_each": round(cpu["verify"] * 1000 / max(1, len(verify_ms)), 3)},
        "verify_closed": {"client_ms": percentiles(closed_ms), "per_s": round(len(closed_ms) / closed_wall, 1),
                          "in_flight": conversations},
        "wrong_answers": wrong[0],
    }


def _run_loop(coro: Any) -> Any:
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    return uvloop.run(coro)


def _server_latencies(log: Path, since: int) -> dict[str, list[float]]:
    """Server-side latency (ms) of each request logged after line ``since``, by kind."""
    out: dict[str, list[float]] = {"append": [], "verify": []}
    for line in log.read_text().splitlines()[since:]:
        if not line.startswith("{"):
            continue
        rec = json.loads(line)
        if rec["path"].endswith("/utterances") and rec["status"] == 201:
            out["append"].append(rec["ms"])
        elif rec["path"].endswith("/verify") and rec["status"] == 200:
            out["verify"].append(rec["ms"])
    return out


def run_backend(name: str, db: str, workdir: Path, conversations: int, appends: int, verifies: int, rate: float,
                closed_verifies: int, kills: int, seed: int) -> dict[str, Any]:
    key = make_key(db, "bench")
    log = workdir / f"{name}-server.log"
    with ServerProcess(db, log) as server:
        result = _run_loop(_drive(server.url, key, conversations, appends, verifies, rate, closed_verifies, seed,
                                  server.cpu_seconds))
        result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    server_side = _server_latencies(log, 0)
    # the server log holds the warm-up, paced and closed verifies: report the paced ones (the middle block)
    n_warm, n_paced = conversations, result["verify_paced"]["client_ms"]["n"]
    result["append"]["server_ms"] = percentiles(server_side["append"])
    result["verify_paced"]["server_ms"] = percentiles(server_side["verify"][n_warm:n_warm + n_paced])
    result["verify_closed"]["server_ms"] = percentiles(server_side["verify"][n_warm + n_paced:])
    if kills:
        stderr.print(f"{name}: kill -9 x {kills} during appends", markup=False)
        result["durability"] = kill_rounds(db, kills, workdir, seed=seed).to_json()
    return result


TARGETS = {"appends_per_s": 3000.0, "server_cpu_ms_per_append": 0.3, "verify_p99_ms": 2.0}
"""Issue 23's targets for ``grounded serve`` on SQLite: appends/s over 20 conversations (at least), server CPU
per append and Verify p99 at 500/s (at most)."""


def sqlite_baseline(path: Path, rows: int = 2000, group: int = 20, seconds: float = 10.0) -> dict[str, Any]:
    """Plain SQLite on the same disk, what a store write cannot beat: rows/s inserted with one commit each, and
    committed ``group`` at a time (WAL, synchronous=FULL, as the store opens it); bounded in rows and seconds."""
    import sqlite3

    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE rows (conversation TEXT, seq INTEGER, line TEXT, PRIMARY KEY (conversation, seq))")
        out: dict[str, Any] = {"group": group}
        for name, per_commit in (("one_commit_each_per_s", 1), ("grouped_per_s", group)):
            done, start = 0, time.perf_counter()
            while done < rows and time.perf_counter() - start < seconds:
                db.execute("BEGIN IMMEDIATE")
                for _ in range(per_commit):
                    done += 1
                    db.execute("INSERT INTO rows VALUES (?, ?, ?)", (name, done, json.dumps(utterance(done))))
                db.execute("COMMIT")
            out[name] = round(done / (time.perf_counter() - start), 1)
        return out
    finally:
        db.close()


async def _target_drive(url: str, key: str, single: int, conversations: int, each: int, verifies: int, rate: float,
                        seed: int, server_cpu: Callable[[], float]) -> dict[str, Any]:
    """Appends to one conversation, then to ``conversations`` at once, then Verify at ``rate``/s over them."""
    host, port = url.split("//")[1].split(":")
    out: dict[str, Any] = {}
    async with LoadClient(host, int(port), key, conversations) as c:
        for name, n, appends in (("one", 1, single), ("many", conversations, each)):
            ids = await _create(c, [f"{name}-{seed}-{k}" for k in range(n)])
            t0, c0 = time.perf_counter(), server_cpu()
            ms = await _append_all(c, ids, appends)
            wall, cpu = time.perf_counter() - t0, server_cpu() - c0
            out[name] = {"conversations": n, "appends": len(ms), "per_s": round(len(ms) / wall, 1),
                         "server_cpu_ms_each": round(cpu * 1000 / len(ms), 3), "client_ms": percentiles(ms)}
        await asyncio.gather(*(_verify_once(c, cid, "o1", []) for cid in ids))  # warm-up: one per connection
        verify_ms, wall, wrong = await _paced_verifies(c, ids, _claims(each), verifies, rate, random.Random(seed))
    out["verify"] = {"rate": rate, "achieved_per_s": round(len(verify_ms) / wall, 1),
                     "client_ms": percentiles(verify_ms), "wrong_answers": wrong}
    return out


def targets(workdir: Path, single: int = 400, conversations: int = 20, each: int = 40, verifies: int = 2000,
            rate: float = 500.0, seed: int = 0) -> dict[str, Any]:
    """Issue 23's service targets measured in one run on SQLite, with the plain-SQLite baseline on the same disk."""
    db, log = str(workdir / "targets.db"), workdir / "targets-server.log"
    key = make_key(db, "bench")
    with ServerProcess(db, log) as server:
        result = _run_loop(_target_drive(server.url, key, single, conversations, each, verifies, rate, seed,
                                         server.cpu_seconds))
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    logged = _server_latencies(log, 0)["verify"]
    result["verify"]["server_ms"] = percentiles(logged[conversations:])  # the paced ones, after the warm-up
    result["baseline"] = sqlite_baseline(workdir / "plain.db", group=conversations)
    many, verify = result["many"], result["verify"]
    result["met"] = {"appends_per_s": many["per_s"] >= TARGETS["appends_per_s"],
                     "server_cpu_ms_per_append": many["server_cpu_ms_each"] <= TARGETS["server_cpu_ms_per_append"],
                     "verify_p99_ms": verify["client_ms"]["p99"] <= TARGETS["verify_p99_ms"]}
    return result


def targets_markdown(r: dict[str, Any]) -> str:
    """The targets run as a table: each measure, one conversation and N, the target, met or not."""
    one, many, v, base = r["one"], r["many"], r["verify"], r["baseline"]
    n, yes = many["conversations"], {True: "yes", False: "no"}
    rows = [["appends/s", one["per_s"], many["per_s"], f">= {TARGETS['appends_per_s']:g} over {n}",
             yes[r["met"]["appends_per_s"]]],
            ["server CPU ms per append", one["server_cpu_ms_each"], many["server_cpu_ms_each"],
             f"<= {TARGETS['server_cpu_ms_per_append']:g}", yes[r["met"]["server_cpu_ms_per_append"]]],
            ["append p99 ms (client)", one["client_ms"]["p99"], many["client_ms"]["p99"], "", ""],
            [f"Verify p99 ms at {v['rate']:g}/s (client; server {v['server_ms'].get('p99')})", "",
             v["client_ms"]["p99"], f"<= {TARGETS['verify_p99_ms']:g}", yes[r["met"]["verify_p99_ms"]]],
            ["plain SQLite rows/s, one commit each", base["one_commit_each_per_s"], "", "", ""],
            [f"plain SQLite rows/s, {base['group']} per commit", "", base["grouped_per_s"], "", ""],
            ["appends/s against plain SQLite one commit each", round(one["per_s"] / base["one_commit_each_per_s"], 2),
             round(many["per_s"] / base["one_commit_each_per_s"], 2), "", ""]]
    return "\n".join([f"Targets (SQLite): {one['appends']} appends to one conversation, then {many['appends']} over "
                      f"{n} at once, then {v['client_ms']['n']} Verify at {v['rate']:g}/s (achieved "
                      f"{v['achieved_per_s']}/s, wrong {v['wrong_answers']}); load average after "
                      f"{' '.join(map(str, r['load_average']))}.", "",
                      markdown_table(["measure", "one conversation", f"{n} conversations", "target", "met"], rows)])


def cpu_split(workdir: Path, conversations: int = 20, appends: int = 150, verifies: int = 3000,
              seed: int = 0) -> dict[str, Any]:
    """Where a served append's CPU goes, and a served Verify by claim's: the server sampled
    (``serving.sample``) while ``conversations`` append ``appends`` each at once, then while they ask
    ``verifies`` Verify (all conversations in flight); each part's share of the samples and of the CPU per
    request (``/proc``).  The append split is at the top level, the Verify split under ``verify``."""
    db, counts = str(workdir / "split.db"), workdir / "split.json"
    key = make_key(db, "bench")
    with ServerProcess(db, workdir / "split-server.log", "--quiet", sampled=counts) as server:

        async def sampled(load: Any) -> tuple[float, int, dict[str, int]]:
            """(server CPU ms per request, requests, samples per part) while ``load`` runs."""
            counts.unlink(missing_ok=True)
            server.sampling(True)
            c0 = server.cpu_seconds()
            n = await load
            cpu = server.cpu_seconds() - c0
            server.sampling(False)
            deadline = time.monotonic() + 30  # the counts are written by the signal's handler, on the server's loop
            while not counts.exists() and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            return cpu * 1000 / n, n, json.loads(counts.read_text())

        async def verify_all(c: LoadClient, ids: list[str]) -> int:
            claims, each = _claims(appends), -(-verifies // len(ids))
            answers = await asyncio.gather(*(_verify_once(c, cid, claims[k % len(claims)], [])
                                             for k in range(each) for cid in ids))
            assert all(answers), "a Verify of a grounded claim did not answer grounded"
            return len(answers)

        async def drive() -> tuple[tuple[float, int, dict[str, int]], ...]:
            host, port = server.url.split("//")[1].split(":")
            async with LoadClient(host, int(port), key, conversations) as c:
                ids = await _create(c, [f"split-{seed}-{k}" for k in range(conversations)])
                append = await sampled(_count(_append_all(c, ids, appends)))
                return append, await sampled(verify_all(c, ids))

        (per_append, n, samples), (per_verify, v, verify_samples) = _run_loop(drive())
    return {"conversations": conversations, "appends": n, **_split(samples, "append", per_append),
            "verify": {"verifies": v, **_split(verify_samples, "verify", per_verify)}}


async def _count(load: Any) -> int:
    return len(await load)


def _split(samples: dict[str, int], request: str, per_request: float) -> dict[str, Any]:
    total = max(1, sum(samples.values()))
    return {"samples": sum(samples.values()), f"server_cpu_ms_per_{request}": round(per_request, 3),
            "parts": [{"part": part, "share": round(k / total, 3),
                       f"ms_per_{request}": round(per_request * k / total, 3)}
                      for part, k in sorted(samples.items(), key=lambda kv: -kv[1])]}


def cpu_split_markdown(r: dict[str, Any]) -> str:
    v = r["verify"]
    verify = {p["part"]: p for p in v["parts"]}
    rows = [[p["part"], f"{p['share'] * 100:.1f}%", p["ms_per_append"],
             f"{verify[p['part']]['share'] * 100:.1f}%" if p["part"] in verify else "",
             verify[p["part"]]["ms_per_verify"] if p["part"] in verify else ""] for p in r["parts"]]
    rows += [[p["part"], "", "", f"{p['share'] * 100:.1f}%", p["ms_per_verify"]]
             for p in v["parts"] if p["part"] not in {q["part"] for q in r["parts"]}]
    return "\n".join([f"Where a request's server CPU goes: {r['appends']} appends over {r['conversations']} "
                      f"conversations at once ({r['samples']} samples, {r['server_cpu_ms_per_append']} ms per append), "
                      f"then {v['verifies']} Verify by claim with all of them in flight ({v['samples']} samples, "
                      f"{v['server_cpu_ms_per_verify']} ms per Verify); CPU from /proc:", "",
                      markdown_table(["part", "append samples", "ms per append", "Verify samples", "ms per Verify"],
                                     rows)])


def run(backends: tuple[str, ...], conversations: int = 50, appends: int = 20, verifies: int = 5000,
        rate: float = 500.0, closed_verifies: int = 5000, kills: int = 20, seed: int = 0,
        switch_lengths: tuple[int, ...] = (10, 100, 1000),
        target_sizes: dict[str, int] | None = None, split_sizes: dict[str, int] | None = None) -> dict[str, Any]:
    """The load run per store; with SQLite, first the targets run (``target_sizes``: ``targets``' counts) and
    the CPU split of an append (``split_sizes``: ``cpu_split``'s)."""
    results: dict[str, Any] = {"settings": {"conversations": conversations, "appends_per_conversation": appends,
                                            "verifies": verifies, "rate": rate, "closed_verifies": closed_verifies,
                                            "kills": kills, "seed": seed}, "backends": {}}
    results["switching"] = switching(switch_lengths)
    with tempfile.TemporaryDirectory(prefix="grounded-bench-serve-") as tmp:
        workdir = Path(tmp)
        if "sqlite" in backends:
            stderr.print("bench serve: targets (sqlite)", markup=False)
            results["targets"] = targets(workdir, **(target_sizes or {}), seed=seed)
            results["cpu_split"] = cpu_split(workdir, **(split_sizes or {}), seed=seed)
        for backend in backends:
            stderr.print(f"bench serve: {backend}", markup=False)
            if backend == "sqlite":
                results["backends"][backend] = run_backend(backend, str(workdir / "bench.db"), workdir, conversations,
                                                           appends, verifies, rate, closed_verifies, kills, seed)
            else:
                with TempPostgres() as pg:
                    results["backends"][backend] = run_backend(backend, pg.url, workdir, conversations, appends,
                                                               verifies, rate, closed_verifies, kills, seed)
    return results


def switching(lengths: tuple[int, ...] = (10, 100, 1000), appends: int = 40) -> list[dict[str, Any]]:
    """CPU ms per append, two conversations of length L: one after the other, and alternating."""
    from grounded.service.conversations import Conversations
    from grounded.service.store import open_store

    rows = []
    with tempfile.TemporaryDirectory(prefix="grounded-bench-switch-") as tmp:
        c = Conversations(open_store(Path(tmp) / "switch.db"))
        for length in lengths:
            row: dict[str, Any] = {"length": length}
            for mode in ("sequential", "alternating"):
                a, b = c.create("t", HEADER)["id"], c.create("t", HEADER)["id"]
                with c.batch():
                    for i in range(1, length + 1):
                        c.append("t", a, utterance(i))
                        c.append("t", b, utterance(i))
                order = ([(cid, i) for cid in (a, b) for i in range(length + 1, length + appends + 1)]
                         if mode == "sequential" else
                         [(cid, i) for i in range(length + 1, length + appends + 1) for cid in (a, b)])
                t0 = time.process_time()
                with c.batch():
                    for cid, i in order:
                        c.append("t", cid, utterance(i))
                row[mode] = round((time.process_time() - t0) * 1000 / len(order), 3)
            rows.append(row)
        c.close()
    return rows


def markdown(result: dict[str, Any]) -> str:
    s = result["settings"]
    rows = []
    for name, r in result["backends"].items():
        a, vp, vc = r["append"], r["verify_paced"], r["verify_closed"]
        rows.append([name, a["count"], a["per_s"], a["client_ms"]["p50"], a["client_ms"]["p99"],
                     a["server_ms"]["p50"], a["server_ms"]["p99"], a["server_cpu_ms_each"],
                     f"{vp['achieved_per_s']}/s", vp["client_ms"]["p50"], vp["client_ms"]["p99"],
                     vp["server_ms"]["p50"], vp["server_ms"]["p99"], vp["server_cpu_ms_each"], vc["per_s"],
                     vc["client_ms"]["p99"], r["wrong_answers"], " ".join(map(str, r["load_average"]))])
    table = markdown_table(
        ["store", "appends", "appends/s", "append p50 ms", "append p99 ms", "(server) p50", "(server) p99",
         "server CPU ms/append", "verify rate", "verify p50 ms", "verify p99 ms", "(server) p50", "(server) p99",
         "server CPU ms/verify", f"verify/s, {s['conversations']} in flight", "its p99 ms", "wrong",
         "load average after"], rows)
    lines = [targets_markdown(result["targets"]), "", cpu_split_markdown(result["cpu_split"]), ""] \
        if "targets" in result else []
    lines += [f"{s['conversations']} conversations in parallel, {s['appends_per_conversation']} appends each "
             f"(closed loop); {s['verifies']} Verify-by-claim requests at {s['rate']}/s (open loop); "
             f"{s['closed_verifies']} more with {s['conversations']} in flight (closed loop).", "", table]
    kills = [(name, r["durability"]) for name, r in result["backends"].items() if "durability" in r]
    if kills:
        lines += ["", markdown_table(["store", "kill -9 restarts", "acknowledged", "stored", "lost",
                                      "stored, never acknowledged", "seconds"],
                                     [[n, d["rounds"], d["acknowledged"], d["stored"], d["lost"],
                                       d["unacknowledged_stored"], d["seconds"]] for n, d in kills])]
    if result.get("switching"):
        lines += ["", "CPU ms per append (in process, no HTTP), two conversations of L utterances each:",
                  "", markdown_table(["L", "one conversation after the other", "alternating"],
                                     [[r["length"], r["sequential"], r["alternating"]] for r in result["switching"]])]
    return "\n".join(lines)
