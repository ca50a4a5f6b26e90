"""``python -m bench.tenantlimits [--db URL] [--rounds N]``: what counting a tenant's bounds in the store adds.

A text reading of the service takes one of its tenant's slots before it is
read and gives it back after (grounded.service.tenantlimits), and with
``reads_per_minute`` counts itself in the tenant's window: two or three round
trips to the store per reading, on a thread of their own, where the counts
used to be a dict of the process.  This times, in one process and in turn
(so a change in the machine's load falls on each alike), ``rounds`` of:
acquire + release in the process's memory (the old way), acquire + release
in the store, and acquire + admit + release in the store; medians in
microseconds of wall time per reading.  Without ``--db``: a SQLite file in a
temporary directory, and the throw-away PostgreSQL cluster the tests make
(tests/pgserver.py) when its binaries are there.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from grounded.service.tenantlimits import LocalLimits, TenantLimits, open_limits


def per_reading(limits: TenantLimits, rate: bool) -> Callable[[], None]:
    def one() -> None:
        slot = limits.acquire("tenant", 2)
        assert slot is not None
        if rate:
            limits.admit("tenant", 10**9)
        limits.release("tenant", slot)
    return one


def measure(stores: dict[str, TenantLimits], rounds: int, batch: int = 50) -> dict[str, float]:
    """Median microseconds per reading of each way of counting, ``rounds`` batches of ``batch`` each, in turn."""
    ways = {"in memory (one process)": per_reading(LocalLimits(), False)}
    for name, limits in stores.items():
        ways[f"{name}: slot"] = per_reading(limits, False)
        ways[f"{name}: slot + per minute"] = per_reading(limits, True)
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(rounds):
        for name, fn in ways.items():
            start = time.perf_counter()
            for _ in range(batch):
                fn()
            times[name].append((time.perf_counter() - start) / batch * 1e6)
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", action="append", help="A store URL (repeatable); default SQLite and PostgreSQL.")
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="grounded-limits-") as tmp:
        urls = {f"store {u.split(':')[0]}": u for u in args.db or ()}
        pg = None
        if not urls:
            urls["SQLite"] = str(Path(tmp) / "grounded.db")
            try:
                from tests.pgserver import TempPostgres

                pg = TempPostgres()
                urls["PostgreSQL"] = pg.__enter__().url
            except Exception as exc:  # noqa: BLE001 - no cluster here: SQLite alone, said
                print(f"(no PostgreSQL: {exc})")
        stores = {name: open_limits(url) for name, url in urls.items()}
        try:
            load = os.getloadavg()[0]
            found = measure(stores, args.rounds)
        finally:
            for limits in stores.values():
                limits.close()
            if pg is not None:
                pg.__exit__(None, None, None)
    print(f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after; median us per reading "
          f"({args.rounds} rounds of 50):")
    for name, us in found.items():
        print(f"  {name:40s} {us:9.1f}")


if __name__ == "__main__":
    main()
