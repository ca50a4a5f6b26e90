"""One tenant floods Verify by text; does another tenant's Verify by claim still answer as when idle?

A real ``grounded serve`` on loopback, two tenants.  Tenant B's Verify by
claim is sent at a fixed rate (open loop, as in ``serve.py``) in windows
that alternate: with nothing else running (idle), then while tenant A keeps
``flooders`` connections each sending Verify by text of the longest text the
server takes, back to back, a new text each time (so no cache answers it).  A
flooder that is told 429 waits the Retry-After it is given, as an HTTP
client with retries does; one that ignores it is a request flood, which a
per-tenant request rate limit answers, not this bound.  Both p99s come from
one run, measured by the client.  Every loop is bounded in count.

The run's own check (``check_isolation``, once its figures are printed): the
p99 under the flood at most ``ISOLATION_P99`` times the p99 idle, and every
Verify answered right.  Held here, not by a timed unit test: the test suite
holds the behaviour (tests/test_abuse.py), this the time.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import random
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bench.checks import CheckFailed
from bench.serve import LoadClient, _run_loop, percentiles
from grounded.service.settings import Settings
from tests.serving import HEADER, ServerProcess, long_text, make_key, utterance

FLOOD_LEAD = 1.0
"""Seconds the flood runs before a flooded window starts."""
TEXTS = 40
"""Distinct flood texts: more than the readings a measure lasts, so each reading reads a text anew."""
ISOLATION_P99 = 2.0
"""The most another tenant's Verify p99 under the flood may be, as a multiple of its p99 idle."""


async def _paced(c: LoadClient, cid: str, claims: list[str], n: int, rate: float, seed: int) -> tuple[list[float], int]:
    """``n`` Verify-by-claim requests at ``rate``/s: their latencies (ms) and how many answered wrong."""
    rng = random.Random(seed)
    ms: list[float] = []
    wrong = 0

    async def one(claim: str) -> None:
        nonlocal wrong
        t = time.perf_counter()
        r = await c.get(f"/conversations/{cid}/verify", params={"claim": claim})
        ms.append((time.perf_counter() - t) * 1000)
        wrong += r.status_code != 200 or r.json()["grounded"] is not True

    tasks = []
    start = time.perf_counter()
    for k in range(n):
        delay = start + k / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(rng.choice(claims))))
    await asyncio.gather(*tasks)
    return ms, wrong


async def _drive(url: str, flooder_key: str, other_key: str, verifies: int, rate: float, flooders: int,
                 text_chars: int, rounds: int, seed: int) -> dict[str, Any]:
    host, port = url.split("//")[1].split(":")
    statuses: dict[int, int] = {}
    async with LoadClient(host, int(port), flooder_key, flooders) as a, LoadClient(host, int(port), other_key, 4) as b:
        for c, cid in ((a, "flood"), (b, "quiet")):
            (await c.post("/conversations", json={"id": cid, "header": HEADER})).raise_for_status()
            for i in range(1, 9):
                (await c.post(f"/conversations/{cid}/utterances", json=utterance(i))).raise_for_status()
        claims = [f"o{i}" for i in range(1, 9)] + ["h3", "h7"]
        # the readers start at the first text (the sentence model loads): not part of either measure
        (await a.post("/conversations/flood/verify", json={"text": long_text(200, seed)})).raise_for_status()
        await _paced(b, "quiet", claims, min(verifies, 50), rate, seed)  # warm the connections
        idle: list[float] = []
        loaded: list[float] = []
        wrong = 0
        # idle and flooded windows alternate, so that whatever else the machine does falls on both alike; the
        # flood comes from another process, so its JSON work does not delay the timed client's loop
        per_window = max(1, verifies // rounds)
        loop = asyncio.get_running_loop()
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            await loop.run_in_executor(pool, long_text, 10, 0)  # the flood process started and imported: not timed
            for w in range(rounds):
                ms, bad = await _paced(b, "quiet", claims, per_window, rate, seed + 2 * w + 1)
                idle += ms
                seconds = FLOOD_LEAD + per_window / rate + 0.5
                flood = loop.run_in_executor(pool, _flood, host, int(port), flooder_key, flooders, text_chars,
                                             seed * 1000 + w, seconds)
                await asyncio.sleep(FLOOD_LEAD)  # the readers busy before the window starts
                ms, bad2 = await _paced(b, "quiet", claims, per_window, rate, seed + 2 * w + 2)
                loaded += ms
                wrong += bad + bad2
                for status, n in (await flood).items():  # its readings in flight end before the next window
                    statuses[status] = statuses.get(status, 0) + n
    return {"idle_ms": percentiles(idle), "flood_ms": percentiles(loaded), "wrong_answers": wrong, "rounds": rounds,
            "flood_requests": dict(sorted(statuses.items())), "flooders": flooders, "text_chars": text_chars,
            "rate": rate}


def _flood(host: str, port: int, key: str, flooders: int, text_chars: int, seed: int,
           seconds: float) -> dict[int, int]:
    """In another process: ``flooders`` connections sending Verify by text for ``seconds``; answers by status."""
    return asyncio.run(_flooding(host, port, key, flooders, text_chars, seed, seconds))


async def _flooding(host: str, port: int, key: str, flooders: int, text_chars: int, seed: int,
                    seconds: float) -> dict[int, int]:
    texts = [long_text(text_chars, seed * 100_003 + k) for k in range(TEXTS)]  # made before the clock starts
    statuses: dict[int, int] = {}
    sent = [0]
    end = time.monotonic() + seconds
    async with LoadClient(host, port, key, flooders) as a:

        async def flooder() -> None:
            while time.monotonic() < end and sent[0] < 10_000:
                sent[0] += 1
                r = await a.post("/conversations/flood/verify", json={"text": texts[sent[0] % TEXTS]})
                statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                if r.status_code == 429:
                    await asyncio.sleep(min(float(r.json().get("retry_after", 1)), max(0.0, end - time.monotonic())))

        await asyncio.gather(*(flooder() for _ in range(flooders)))
    return statuses


def isolation(verifies: int = 1200, rate: float = 200.0, flooders: int = 4, text_chars: int | None = None,
              rounds: int = 3, seed: int = 0, server_args: tuple[str, ...] = (),
              workdir: Path | None = None) -> dict[str, Any]:
    """Tenant B's Verify p99 idle and under tenant A's flood of Verify by text, from one server run."""
    text_chars = text_chars or Settings.max_text
    with tempfile.TemporaryDirectory(prefix="grounded-bench-flood-") as tmp:
        root = workdir or Path(tmp)
        db = str(root / "flood.db")
        a, b = make_key(db, "flooder"), make_key(db, "other")
        log = root / "flood-server.log"
        with ServerProcess(db, log, *server_args) as server:
            result = _run_loop(_drive(server.url, a, b, verifies, rate, flooders, text_chars, rounds, seed))
        server_ms = [rec["ms"] for rec in map(json.loads, (x for x in log.read_text().splitlines() if x[:1] == "{"))
                     if rec["tenant"] == "other" and rec["method"] == "GET" and rec["path"].endswith("/verify")]
        n = result["idle_ms"]["n"] // rounds
        windows = [server_ms[len(server_ms) - 2 * n * rounds + k * n:][:n] for k in range(2 * rounds)]
        result["server_idle_ms"] = percentiles([x for w in windows[0::2] for x in w])
        result["server_flood_ms"] = percentiles([x for w in windows[1::2] for x in w])
    idle, flood = result["idle_ms"]["p99"], result["flood_ms"]["p99"]
    result["ratio_p99"] = round(flood / idle, 2) if idle else None
    return result


def markdown(r: dict[str, Any]) -> str:
    return (f"Tenant isolation: another tenant's Verify by claim ({r['idle_ms']['n']} at {r['rate']}/s) while one "
            f"tenant floods Verify by text ({r['flooders']} connections, {r['text_chars']} characters each; "
            f"answers {r['flood_requests']}): p99 {r['idle_ms']['p99']} ms idle, {r['flood_ms']['p99']} ms under "
            f"the flood ({r['ratio_p99']}x, at most {ISOLATION_P99:g}x); "
            f"p50 {r['idle_ms']['p50']} / {r['flood_ms']['p50']} ms; in the server "
            f"(request in to answer out) p99 {r['server_idle_ms']['p99']} / {r['server_flood_ms']['p99']} ms.")


def check_isolation(r: dict[str, Any]) -> None:
    """The run's own check, made once its figures are written: every Verify of the other tenant answered
    right, and its p99 under the flood at most ``ISOLATION_P99`` times its p99 idle."""
    failed = [f"{r['wrong_answers']} of the other tenant's Verify answered wrong"] if r["wrong_answers"] else []
    ratio = r["ratio_p99"]
    if ratio is None or ratio > ISOLATION_P99:
        failed.append(f"another tenant's Verify p99 {r['flood_ms'].get('p99')} ms under the flood, "
                      f"{r['idle_ms'].get('p99')} ms idle: {'none' if ratio is None else f'{ratio}x'}, "
                      f"at most {ISOLATION_P99:g}x")
    if failed:
        raise CheckFailed("tenant isolation: " + "; ".join(failed))
