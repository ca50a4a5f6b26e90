"""One tenant attacks; is another tenant still answered as when idle?  (``python -m bench flood --attack NAME``)

A real ``grounded serve`` on loopback, two tenants.  Tenant B's Verify by
claim is sent at a fixed rate (open loop, ``flood._paced``) in windows that
alternate: idle, then while tenant A runs the attack; in each attack window B
also asks a few Verify by text, one after another.  Reported per attack: B's
Verify p99 idle and under the attack (one run, measured by the client), how
many of B's texts were read (200) of those sent, and how many of B's requests
were refused (any answer but 200).  The target: p99 at most
``flood.ISOLATION_P99`` times idle, every text read, nothing refused.

The attacks (each reproduces a stall reported against the server):

* ``reader-deadline``: Verify by text of one word on a conversation of
  10,000 claims, whose reading goes past the deadline (``--read-deadline 2``);
* ``world-create``: new conversations each declaring a 22-atom world model (a
  body of about 500 bytes);
* ``formula-append``: appends whose claims stand for 1 KB epistemic formulas,
  on a conversation with a 20-atom world model;
* ``pickle-verify``: on a conversation of 40,000 arguments, an append and then
  a Verify by text, again and again (each reading needs the new state);
* ``sqlite-lock``: another process takes SQLite's write lock and holds it
  1.5 s at a time while tenant A appends;
* ``appends`` (a control, not an attack): tenant A appends back to back, no
  lock held: what ``sqlite-lock`` costs B beyond A's commits.

Every loop is bounded in count and in time; setting up A's conversation is not timed.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.flood import ISOLATION_P99, _paced
from bench.serve import LoadClient, _run_loop, percentiles
from tests.serving import HEADER, ServerProcess, make_key, utterance

B_TEXT = "observation 3"
"""What tenant B asks to verify by text during an attack (read at once when nothing holds it back)."""
B_TEXTS = 3
"""Verify by text tenant B sends per attack window, one after another."""


def _observes(start: int, n: int, prefix: str = "c") -> dict[str, Any]:
    return {"speaker": "ann", "ops": [{"op": "observe", "claim": f"{prefix}{k}", "text": f"claim {k} of many"}
                                      for k in range(start, start + n)]}


async def _many_claims(a: LoadClient, cid: str, claims: int) -> None:
    (await a.post("/conversations", json={"id": cid, "header": HEADER})).raise_for_status()
    for start in range(0, claims, 1000):
        (await a.post(f"/conversations/{cid}/utterances", json=_observes(start, min(1000, claims - start)))
         ).raise_for_status()


def _world(atoms: int, formulas: dict[str, str] | None = None) -> dict[str, Any]:
    return {"agents": {"ann": {}, "ben": {}},
            "world": {"atoms": [f"p{i}" for i in range(atoms)], "formulas": formulas or {}}}


def _formula(k: int, atoms: int, size: int = 1000) -> str:
    """About ``size`` characters: a disjunction of knowledge of conjunctions over the model's atoms."""
    parts: list[str] = []
    i = k
    while sum(len(p) + 3 for p in parts) < size:
        parts.append(f"K_ann (p{i % atoms} & ~p{(i + 1) % atoms}) | ~K_ben p{(i + 2) % atoms}")
        i += 1
    return " | ".join(parts)


FORMULA_ATOMS = 20
FORMULAS = 60


@dataclass(frozen=True)
class Attack:
    name: str
    server_args: tuple[str, ...]
    prepare: Callable[[LoadClient], Awaitable[None]]
    """A's conversation, made before anything is timed."""
    step: Callable[[LoadClient, int], Awaitable[list[int]]]
    """One round of the attack (its k-th): the statuses A was answered."""
    lock_holder: bool = False
    """Another process holds the store's write lock, on and off, during the attack."""


async def _prepare_none(a: LoadClient) -> None:
    return None


async def _reader_deadline(a: LoadClient, k: int) -> list[int]:
    return [(await a.post("/conversations/big/verify", json={"text": "x"})).status_code]


async def _world_create(a: LoadClient, k: int) -> list[int]:
    r = await a.post("/conversations", json={"id": f"w{k}-{time.monotonic_ns()}", "header": _world(22)})
    return [r.status_code]


async def _prepare_formulas(a: LoadClient) -> None:
    formulas = {f"f{k}": _formula(k, FORMULA_ATOMS) for k in range(FORMULAS)}
    (await a.post("/conversations", json={"id": "formulas", "header": _world(FORMULA_ATOMS, formulas)})
     ).raise_for_status()


async def _formula_append(a: LoadClient, k: int) -> list[int]:
    r = await a.post("/conversations/formulas/utterances", json={"speaker": "ann", "ops": [
        {"op": "observe", "claim": f"f{k % FORMULAS}", "text": f"formula {k}"}]})
    return [r.status_code]


async def _prepare_arguments(a: LoadClient) -> None:
    await _many_claims(a, "big", 40_000)


async def _pickle_verify(a: LoadClient, k: int) -> list[int]:
    r1 = await a.post("/conversations/big/utterances", json=_observes(10_000_000 + k, 1, "n"))
    r2 = await a.post("/conversations/big/verify", json={"text": f"claim {k}"})
    return [r1.status_code, r2.status_code]


async def _prepare_small(a: LoadClient) -> None:
    (await a.post("/conversations", json={"id": "small", "header": HEADER})).raise_for_status()


async def _locked_append(a: LoadClient, k: int) -> list[int]:
    r = await a.post("/conversations/small/utterances", json=utterance(k + 1))
    return [r.status_code]


async def _prepare_big10k(a: LoadClient) -> None:
    await _many_claims(a, "big", 10_000)


ATTACKS = {a.name: a for a in (
    Attack("reader-deadline", ("--read-deadline", "2"), _prepare_big10k, _reader_deadline),
    Attack("world-create", (), _prepare_none, _world_create),
    Attack("formula-append", (), _prepare_formulas, _formula_append),
    Attack("pickle-verify", (), _prepare_arguments, _pickle_verify),
    Attack("sqlite-lock", (), _prepare_small, _locked_append, lock_holder=True),
    Attack("appends", (), _prepare_small, _locked_append),
)}


def _attacking(name: str, host: str, port: int, key: str, db: str, seconds: float, first: int) -> dict[int, int]:
    """In another process: the attack's rounds, one after another, for ``seconds`` (at most 10,000 rounds)."""
    return asyncio.run(_attack_loop(ATTACKS[name], host, port, key, db, seconds, first))


async def _attack_loop(attack: Attack, host: str, port: int, key: str, db: str, seconds: float,
                       first: int) -> dict[int, int]:
    statuses: dict[int, int] = {}
    end = time.monotonic() + seconds
    holder = asyncio.ensure_future(_hold_lock(db, end)) if attack.lock_holder else None
    async with LoadClient(host, port, key, 2) as a:
        k = first
        while time.monotonic() < end and k < first + 10_000:
            for status in await attack.step(a, k):
                statuses[status] = statuses.get(status, 0) + 1
            k += 1
    if holder is not None:
        await holder
    return statuses


async def _hold_lock(db: str, end: float) -> None:
    """Another writer: SQLite's write lock taken and held 1.5 s at a time, let go 0.2 s, until ``end``."""
    conn = sqlite3.connect(db, isolation_level=None, timeout=5)
    try:
        while time.monotonic() < end:
            conn.execute("BEGIN IMMEDIATE")
            await asyncio.sleep(min(1.5, max(0.0, end - time.monotonic())))
            conn.execute("ROLLBACK")
            await asyncio.sleep(0.2)
    finally:
        conn.close()


async def _texts(b: LoadClient, n: int) -> tuple[int, int]:
    """Tenant B's Verify by text, one after another: (read, refused)."""
    ok = refused = 0
    for _ in range(n):
        r = await b.post("/conversations/quiet/verify", json={"text": B_TEXT})
        ok += r.status_code == 200
        refused += r.status_code != 200
    return ok, refused


async def _drive(attack: Attack, url: str, a_key: str, b_key: str, db: str, verifies: int, rate: float,
                 rounds: int, lead: float, seed: int) -> dict[str, Any]:
    host, port = url.split("//")[1].split(":")
    claims = [f"o{i}" for i in range(1, 9)] + ["h3", "h7"]
    async with LoadClient(host, int(port), a_key, 2) as a, LoadClient(host, int(port), b_key, 4) as b:
        (await b.post("/conversations", json={"id": "quiet", "header": HEADER})).raise_for_status()
        for i in range(1, 9):
            (await b.post("/conversations/quiet/utterances", json=utterance(i))).raise_for_status()
        await attack.prepare(a)
        (await b.post("/conversations/quiet/verify", json={"text": B_TEXT})).raise_for_status()  # readers up
        await _paced(b, "quiet", claims, min(verifies, 50), rate, seed)  # the connections warm
        idle: list[float] = []
        loaded: list[float] = []
        wrong = texts_ok = texts_refused = 0
        statuses: dict[int, int] = {}
        per_window = max(1, verifies // rounds)
        loop = asyncio.get_running_loop()
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            await loop.run_in_executor(pool, time.monotonic)  # the attack's process started: not timed
            for w in range(rounds):
                ms, bad = await _paced(b, "quiet", claims, per_window, rate, seed + 2 * w + 1)
                idle += ms
                seconds = lead + per_window / rate + 0.5
                attacking = loop.run_in_executor(pool, _attacking, attack.name, host, int(port), a_key, db,
                                                 seconds, 1000 * w)
                await asyncio.sleep(lead)  # the attack under way before the window starts
                (ms, bad2), (ok, refused) = await asyncio.gather(
                    _paced(b, "quiet", claims, per_window, rate, seed + 2 * w + 2), _texts(b, B_TEXTS))
                loaded += ms
                wrong += bad + bad2
                texts_ok += ok
                texts_refused += refused
                for status, n in (await attacking).items():
                    statuses[status] = statuses.get(status, 0) + n
    return {"attack": attack.name, "idle_ms": percentiles(idle), "attack_ms": percentiles(loaded),
            "wrong_answers": wrong, "texts_read": texts_ok, "texts_sent": rounds * B_TEXTS,
            "texts_refused": texts_refused, "attacker": dict(sorted(statuses.items())), "rounds": rounds,
            "rate": rate}


def run(name: str, verifies: int = 600, rate: float = 100.0, rounds: int = 3, lead: float = 1.5,
        seed: int = 0) -> dict[str, Any]:
    """One attack against a fresh server: tenant B's figures idle and under it."""
    attack = ATTACKS[name]
    with tempfile.TemporaryDirectory(prefix=f"grounded-bench-{name}-") as tmp:
        db = str(Path(tmp) / "attack.db")
        a, b = make_key(db, "attacker"), make_key(db, "other")
        with ServerProcess(db, Path(tmp) / "server.log", *attack.server_args) as server:
            result = _run_loop(_drive(attack, server.url, a, b, db, verifies, rate, rounds, lead, seed))
    idle, hit = result["idle_ms"]["p99"], result["attack_ms"]["p99"]
    result["ratio_p99"] = round(hit / idle, 2) if idle else None
    result["held"] = (result["ratio_p99"] is not None and result["ratio_p99"] <= ISOLATION_P99
                      and result["wrong_answers"] == 0 and result["texts_refused"] == 0)
    return result


def markdown(results: list[dict[str, Any]]) -> str:
    rows = ["| attack | B's Verify p99 idle (ms) | under attack (ms) | ratio | B's texts read | B refused or wrong "
            "| attacker's answers | target met |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        rows.append(f"| {r['attack']} | {r['idle_ms']['p99']} | {r['attack_ms']['p99']} | {r['ratio_p99']}x "
                    f"| {r['texts_read']}/{r['texts_sent']} | {r['wrong_answers'] + r['texts_refused']} "
                    f"| {r['attacker']} | {'yes' if r['held'] else 'no'} |")
    return (f"Another tenant (B) while one tenant attacks: B's Verify by claim at {results[0]['rate']:g}/s "
            f"({results[0]['idle_ms']['n']} idle, {results[0]['attack_ms']['n']} under attack, {results[0]['rounds']} "
            f"alternating windows), and {B_TEXTS} Verify by text per attack window; target: p99 at most "
            f"{ISOLATION_P99:g}x idle, every text read, nothing refused.\n\n" + "\n".join(rows))
