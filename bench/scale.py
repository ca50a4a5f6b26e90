"""``python -m bench serve --processes 1,2,4 --routing both``: several ``grounded serve`` processes on one
PostgreSQL (a throw-away cluster, as the tests make), loopback only.

For each N and routing, N server processes are started on a fresh database and C conversations are created;
C clients then append A utterances each, all at once (a closed loop), sent

* **pinned**: each conversation's requests to one process (conversation affinity, what a proxy rule on the
  conversation id gives), or
* **round-robin**: each client's successive requests to the next process (what a load balancer without
  affinity gives): every process appends to every conversation, its engine a row or more behind each time.

Measured: appends/s over the run; the servers' CPU per append (all N processes, ``/proc``) in each fifth of
the appends (a cost growing with the history shows as a rising row); Verify by claim sent at a fixed rate
(open loop) during the appends and after them (idle), at the client and at the server (its request log).

The cold-rebuild run: one process, a conversation of ``cold_size`` utterances stored (in process, one
transaction) that the server has not cached; another conversation's Verify at a fixed rate, idle, then while
the long one is built (asked for, then asked again until it answers): p50/p99 of each, and the build's seconds.

Every load loop is bounded in count (and the waits in time); the servers listen on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench.report import markdown_table, stderr
from bench.serve import LoadClient, _claims, _run_loop, _verify_once, percentiles
from tests.pgserver import TempPostgres
from tests.serving import HEADER, ServerProcess, make_key, utterance

ROUTINGS = ("pinned", "round-robin")

Route = Callable[[int, int], int]
"""(conversation, request number) -> the process it goes to."""


def _route(routing: str, n: int) -> Route:
    if routing == "pinned":
        return lambda c, i: c % n
    return lambda c, i: (c + i) % n


def _database(url: str, name: str) -> str:
    """A fresh database ``name`` on the cluster at ``url``; its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return url.rsplit("/", 1)[0] + "/" + name


def _lines(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


async def _logged(servers: list[ServerProcess]) -> list[int]:
    """Each server's log lines once the requests answered so far are logged (a line is written after its
    response is sent: a moment later)."""
    await asyncio.sleep(0.3)
    return [_lines(s.log) for s in servers]


def _verify_window(servers: list[ServerProcess], start: list[int], end: list[int], cid: str = "") -> list[float]:
    """The server-side ms of the Verify requests answered 200 that each server logged between its lines ``start``
    and ``end`` (about conversation ``cid`` only, if given)."""
    out: list[float] = []
    for server, a, b in zip(servers, start, end, strict=True):
        for line in server.log.read_text().splitlines()[a:b]:
            if line.startswith("{"):
                rec = json.loads(line)
                if rec["path"].endswith(f"{cid}/verify") and rec["status"] == 200:
                    out.append(rec["ms"])
    return out


async def _paced(ask: Callable[[int], Any], count: int, rate: float, stop: asyncio.Event | None = None) -> list[Any]:
    """``ask(k)`` for k < ``count`` at ``rate``/s (open loop: on schedule, whatever came back), until ``stop``."""
    tasks = []
    start = time.perf_counter()
    for k in range(count):
        if stop is not None and stop.is_set():
            break
        delay = start + k / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(ask(k)))
    return list(await asyncio.gather(*tasks))


async def _open(servers: list[ServerProcess], key: str, connections: int) -> list[LoadClient]:
    clients = []
    for server in servers:
        host, port = server.url.split("//")[1].split(":")
        clients.append(await LoadClient(host, int(port), key, connections).__aenter__())
    return clients


async def _drive(servers: list[ServerProcess], key: str, routing: str, conversations: int, appends: int,
                 verifies: int, rate: float, seed: int) -> dict[str, Any]:
    n, route, rng = len(servers), _route(routing, len(servers)), random.Random(seed)
    clients = await _open(servers, key, conversations + 4)
    ids = [f"scale-{c}" for c in range(conversations)]
    total = conversations * appends
    fifths = [total * k // 5 for k in range(1, 6)]
    marks: list[float] = []
    done = [0]

    def cpu() -> float:
        return sum(s.cpu_seconds() for s in servers)

    async def appender(c: int) -> None:
        for i in range(2, appends + 2):
            r = await clients[route(c, i)].post(f"/conversations/{ids[c]}/utterances", json=utterance(i))
            r.raise_for_status()
            done[0] += 1
            if done[0] in fifths:
                marks.append(cpu())

    def verify(claims: list[str], into: list[float]) -> Callable[[int], Any]:
        def ask(k: int) -> Any:
            c = rng.randrange(conversations)
            return _verify_once(clients[route(c, k)], ids[c], rng.choice(claims), into)
        return ask

    try:
        for c, cid in enumerate(ids):  # created, and their first utterance (the claim Verify asks during the run)
            (await clients[route(c, 0)].post("/conversations", json={"id": cid, "header": HEADER})).raise_for_status()
            (await clients[route(c, 1)].post(f"/conversations/{cid}/utterances", json=utterance(1))).raise_for_status()
        before = await _logged(servers)
        stop = asyncio.Event()
        t0, c0 = time.perf_counter(), cpu()
        appending = asyncio.ensure_future(asyncio.gather(*(appender(c) for c in range(conversations))))
        appending.add_done_callback(lambda _: stop.set())
        busy_ms: list[float] = []
        busy = await _paced(verify(["o1"], busy_ms), verifies, rate, stop)
        await appending
        wall = time.perf_counter() - t0
        during = await _logged(servers)
        idle_ms: list[float] = []
        idle = await _paced(verify(_claims(appends + 1), idle_ms), verifies, rate)
        after = await _logged(servers)
    finally:
        for client in clients:
            await client.__aexit__()
    points = [c0, *marks]
    sizes = [b - a for a, b in zip([0, *fifths], fifths, strict=False)]
    return {"processes": n, "routing": routing, "appends": total, "seconds": round(wall, 2),
            "appends_per_s": round(total / wall, 1),
            "cpu_ms_per_append": round((points[-1] - c0) * 1000 / total, 3),
            "cpu_ms_per_append_by_fifth": [round((points[k + 1] - points[k]) * 1000 / sizes[k], 3)
                                           for k in range(len(points) - 1)],
            "verify_during": {"client_ms": percentiles(busy_ms),
                              "server_ms": percentiles(_verify_window(servers, before, during)),
                              "wrong": busy.count(False)},
            "verify_idle": {"client_ms": percentiles(idle_ms),
                            "server_ms": percentiles(_verify_window(servers, during, after)),
                            "wrong": idle.count(False)}}


def run_routing(url: str, workdir: Path, processes: int, routing: str, conversations: int, appends: int,
                verifies: int, rate: float, seed: int) -> dict[str, Any]:
    """N server processes on a fresh database of the cluster at ``url``, driven with ``routing``."""
    db = _database(url, f"scale_{processes}_{routing.replace('-', '_')}")
    key = make_key(db, "bench")
    with ExitStack() as stack:
        servers = [stack.enter_context(ServerProcess(db, workdir / f"scale-{processes}-{routing}-{k}.log"))
                   for k in range(processes)]
        result = _run_loop(_drive(servers, key, routing, conversations, appends, verifies, rate, seed))
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return result


def _store_long(db: str, size: int) -> None:
    """Conversation ``long`` of ``size`` utterances and ``small`` of 3, of tenant ``bench``: decided by the rules
    on a SQLite store in a temporary directory (in process, a thousand utterances per commit), then copied into the
    store at ``db`` (PostgreSQL) in one COPY, rows and recorded decisions as they are."""
    import tempfile

    import psycopg

    from grounded.service.conversations import Conversations
    from grounded.service.store import open_store

    with tempfile.TemporaryDirectory(prefix="grounded-bench-long-") as tmp:
        c = Conversations(open_store(Path(tmp) / "long.db"))
        try:
            for cid, length in (("long", size), ("small", 3)):
                with c.batch():
                    c.create("bench", HEADER, cid)
                for start in range(1, length + 1, 1000):
                    with c.batch():
                        for i in range(start, min(length, start + 999) + 1):
                            c.append("bench", cid, utterance(i))
            made = c.store._all("SELECT tenant, id, header, extensions, length, created, effects_by FROM conversations")
            rows = c.store._all("SELECT tenant, conversation, seq, turn, line, created, effects FROM utterances")
        finally:
            c.close()
    with psycopg.connect(db) as conn, conn.cursor() as cur:  # the tenant and the schema: make_key made them
        cur.executemany("INSERT INTO conversations (tenant, id, header, extensions, length, created, effects_by) "
                        "VALUES (%s, %s, %s, %s, %s, %s, %s)", made)
        with cur.copy("COPY utterances (tenant, conversation, seq, turn, line, created, effects) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)


def cold(url: str, workdir: Path, size: int, verifies: int, rate: float, build_limit: float = 600.0) -> dict[str, Any]:
    """Another conversation's Verify p50/p99 idle, then while a ``size``-utterance conversation is built cold on
    the same (single) server process; the build's seconds from its first request to its first answer."""
    db = _database(url, "scale_cold")
    key = make_key(db, "bench")
    t = time.perf_counter()
    _store_long(db, size)
    stored = time.perf_counter() - t
    log = workdir / "scale-cold.log"
    with ServerProcess(db, log) as server:

        async def drive() -> dict[str, Any]:
            (client, other) = await _open([server, server], key, 4)
            try:
                await _verify_once(client, "small", "o1", [])  # its engine built before either window
                # and the rules started (SWI-Prolog loads its rule files once per process, about 0.1 s on the loop):
                # a server that has taken any write has them, and the long one's warming is measured, not that
                (await client.post("/conversations/small/utterances", json=utterance(4))).raise_for_status()
                (start,) = await _logged([server])
                idle_ms: list[float] = []
                idle = await _paced(lambda k: _verify_once(client, "small", "o1", idle_ms), verifies, rate)
                (mid,) = await _logged([server])
                stop = asyncio.Event()
                warming: list[tuple[float, int]] = []  # when (and at which log line) a 503 first said "rules"

                async def build() -> tuple[float, int]:
                    t0, asked = time.perf_counter(), 0
                    while time.perf_counter() - t0 < build_limit:  # bounded in time
                        asked += 1
                        r = await other.get("/conversations/long/verify", params={"claim": "o1"})
                        if r.status_code == 200:
                            break
                        if r.status_code != 503:
                            r.raise_for_status()
                        if not warming and b"given to the rules" in r.body:  # built; its rules take its state now
                            warming.append((time.perf_counter(), _lines(log)))
                        await asyncio.sleep(0.2)
                    stop.set()
                    return time.perf_counter() - t0, asked

                began = time.perf_counter()
                building = asyncio.ensure_future(build())
                busy_ms: list[float] = []
                ended: list[float] = []

                async def timed(k: int) -> bool:
                    grounded = await _verify_once(client, "small", "o1", busy_ms)
                    ended.append(time.perf_counter())  # in step with busy_ms: appended at once after it
                    return grounded

                busy = await _paced(timed, verifies, rate, stop)
                seconds, asked = await building
                (end,) = await _logged([server])
                t0 = time.perf_counter()  # its first append (the rules took the whole built state there, before)
                (await other.post("/conversations/long/utterances", json=utterance(size + 1))).raise_for_status()
                first_append = time.perf_counter() - t0
            finally:
                await client.__aexit__()
                await other.__aexit__()
            result: dict[str, Any] = {
                "size": size, "stored_seconds": round(stored, 1), "build_seconds": round(seconds, 2),
                "long_asked": asked, "first_append_seconds": round(first_append, 2),
                "idle": {"client_ms": percentiles(idle_ms),
                         "server_ms": percentiles(_verify_window([server], [start], [mid], "/small")),
                         "wrong": idle.count(False)},
                "during": {"client_ms": percentiles(busy_ms), "wrong": busy.count(False),
                           "server_ms": percentiles(_verify_window([server], [mid], [end], "/small"))}}
            slowest = sorted(zip(busy_ms, ended, strict=True), reverse=True)[:8]  # when, from the first request
            result["during"]["slowest_ms_at_s"] = [(round(ms, 1), round(t - began, 2)) for ms, t in slowest]
            if warming:  # the window split where the long one's 503 first said its rules were taking its state
                at, line = warming[0]
                result["warming_from_s"] = round(at - began, 2)
                for name, keep, (a, b) in (("building", lambda t: t < at, (mid, line)),
                                           ("warming", lambda t: t >= at, (line, end))):
                    result[name] = {"client_ms": percentiles([ms for ms, t in zip(busy_ms, ended, strict=True)
                                                              if keep(t)]),
                                    "wrong": [ok for ok, t in zip(busy, ended, strict=True) if keep(t)].count(False),
                                    "server_ms": percentiles(_verify_window([server], [a], [b], "/small"))}
            return result

        result = _run_loop(drive())
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return result


def run(processes: tuple[int, ...] = (1, 2, 4), routings: tuple[str, ...] = ROUTINGS, conversations: int = 20,
        appends: int = 150, verifies: int = 2000, rate: float = 100.0, cold_size: int = 20_000,
        seed: int = 0) -> dict[str, Any]:
    """Every N and routing (one process has one routing: pinned), then the cold-rebuild run; one cluster."""
    import tempfile

    results: dict[str, Any] = {"settings": {"conversations": conversations, "appends_per_conversation": appends,
                                            "verify_rate": rate, "verifies": verifies, "cold_size": cold_size,
                                            "cores": os.cpu_count(), "seed": seed}, "runs": []}
    with tempfile.TemporaryDirectory(prefix="grounded-bench-scale-") as tmp, TempPostgres() as pg:
        workdir = Path(tmp)
        for n in processes:
            for routing in routings if n > 1 else ("pinned",):
                stderr.print(f"bench serve: {n} process(es), {routing}", markup=False)
                results["runs"].append(run_routing(pg.url, workdir, n, routing, conversations, appends, verifies,
                                                   rate, seed))
        if cold_size:
            stderr.print(f"bench serve: a {cold_size}-utterance conversation built cold", markup=False)
            results["cold"] = cold(pg.url, workdir, cold_size, verifies, rate)
    return results


def markdown(result: dict[str, Any]) -> str:
    s = result["settings"]
    one = next((r for r in result["runs"] if r["processes"] == 1), None)
    rows = []
    for r in result["runs"]:
        fifths = r["cpu_ms_per_append_by_fifth"]
        d, i = r["verify_during"], r["verify_idle"]
        rows.append([r["processes"], r["routing"], r["appends_per_s"],
                     round(r["appends_per_s"] / one["appends_per_s"], 2) if one else "",
                     r["cpu_ms_per_append"], " / ".join(map(str, fifths)), round(fifths[-1] / fifths[0], 2),
                     f"{d['server_ms'].get('p50')} / {d['server_ms'].get('p99')}",
                     f"{i['server_ms'].get('p50')} / {i['server_ms'].get('p99')}",
                     f"{d['client_ms'].get('p99')} / {i['client_ms'].get('p99')}", d["wrong"] + i["wrong"],
                     " ".join(map(str, r["load_average"]))])
    lines = [f"{s['conversations']} conversations x {s['appends_per_conversation']} appends at once (closed loop) "
             f"over N `grounded serve` processes on one PostgreSQL; Verify by claim at {s['verify_rate']:g}/s (open "
             f"loop) during the appends and idle after them; {s['cores']} cores. CPU: all N servers, /proc.", "",
             markdown_table(["N", "routing", "appends/s", "x one process", "CPU ms/append",
                             "CPU ms/append by fifth", "last/first fifth", "Verify p50/p99 ms during (server)",
                             "idle (server)", "client p99 during / idle", "wrong", "load average after"], rows)]
    c = result.get("cold")
    if c:
        lines += ["", f"Another conversation's Verify by claim at {s['verify_rate']:g}/s on one process, idle and "
                  f"while a {c['size']}-utterance conversation (stored in {c['stored_seconds']} s) is built cold "
                  f"on it ({c['build_seconds']} s from its first request to its answer, {c['long_asked']} "
                  f"requests: the build on a thread, then the rules given its state on the loop in parts, "
                  f"`building` and `warming` below split where a 503 first said so); its first append then took "
                  f"{c.get('first_append_seconds')} s; load average after {' '.join(map(str, c['load_average']))}.",
                  "",
                  markdown_table(["window", "Verify p50 ms (server)", "p99 ms (server)", "client p50 ms",
                                  "client p99 ms", "n", "wrong"],
                                 [[w, c[w]["server_ms"].get("p50"), c[w]["server_ms"].get("p99"),
                                   c[w]["client_ms"].get("p50"), c[w]["client_ms"].get("p99"),
                                   c[w]["client_ms"].get("n"), c[w]["wrong"]]
                                  for w in ("idle", "during", "building", "warming") if w in c])]
    return "\n".join(lines)
