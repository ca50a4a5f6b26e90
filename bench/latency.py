"""Latency of the runtime queries against conversation length (paper, App. E4).

For K turns in the naive (|Args| ~ 0.3 K) and bounded (|Args| <= 50) regimes,
over several seeds, it measures:

* Affected*(p) per query, for queries with |Affected*| <= 1 and for all;
* history replay answering the same query from the raw event history;
* Verify per query, grouped by the length of the witness chain |Dep*|;
* ingestion through the Prolog rules: all utterances per second (chatter
  with no operation and rejected attempts included: ``utt/s``) and accepted
  utterances carrying operations per second of their own processing
  (``op-utt/s``).

Each per-query figure is a loop of ``--repeat`` calls divided by the count
(sub-microsecond calls cannot be timed one by one); the table reports medians
over all queries of all seeds.  Run:  python -m bench.latency [--quick]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from rich.console import Console
from rich.table import Table

from .synthetic import build, replay_affected

KS = (13, 100, 1000, 2000, 10_000, 100_000)
CHAIN_BINS = ((1, 1), (2, 4), (5, 16), (17, 10**9))


def per_call(fn, repeat: int) -> float:
    """Seconds per call of fn(), timed over a loop."""
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def measure(k: int, regime: str, seed: int, queries: int, repeat: int) -> dict:
    conv = build(k, regime, seed)
    engine = conv.engine
    rng = random.Random(seed + 1)
    picks = [rng.choice(conv.claims) for _ in range(queries)]
    small, every, sizes, replay, verify = [], [], [], [], {b: [] for b in CHAIN_BINS}
    replay_repeat = max(1, repeat // 50) if k >= 10_000 else max(1, repeat // 10)
    for p in picks:
        size = len(engine.affected(p))
        cost = per_call(lambda p=p: engine.affected(p), repeat)
        every.append(cost)
        sizes.append(size)
        if size <= 1:
            small.append(cost)
        replay.append(per_call(lambda p=p: replay_affected(conv.history, p), replay_repeat))
        assert replay_affected(conv.history, p) >= set(engine.affected(p).claims) - {p}
        chain = len(engine.verify(p).chain)
        for lo, hi in CHAIN_BINS:
            if lo <= chain <= hi:
                verify[(lo, hi)].append(per_call(lambda p=p: engine.verify(p), repeat))
    result = dict(k=k, regime=regime, args=len(engine.state.args), accepted=len(conv.history),
                  ingest=k / conv.ingest_seconds, ops=conv.op_utterances / conv.op_seconds,
                  small=small, every=every, sizes=sizes, replay=replay, verify=verify)
    engine.close()
    return result


def median_us(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e6:.2f}" if values else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--queries", type=int, default=200, help="queries per seed")
    parser.add_argument("--repeat", type=int, default=200, help="calls timed per query")
    parser.add_argument("--max-k", type=int, default=max(KS))
    parser.add_argument("--quick", action="store_true", help="1 seed, 50 queries, K <= 2000")
    args = parser.parse_args(argv)
    if args.quick:
        args.seeds, args.queries, args.repeat, args.max_k = 1, 50, 50, min(args.max_k, 2000)
    console = Console(highlight=False, soft_wrap=True, width=200)
    ks = [k for k in KS if k <= args.max_k]
    measure(200, "naive", 99, 10, 10)  # warm-up: first-call costs of pydantic and the rules
    rows = []
    for regime in ("naive", "bounded"):
        for k in ks:
            runs = [measure(k, regime, seed, args.queries, args.repeat) for seed in range(args.seeds)]
            merged = {key: [x for r in runs for x in r[key]] for key in ("small", "every", "sizes", "replay")}
            merged["verify"] = {b: [x for r in runs for x in r["verify"][b]] for b in CHAIN_BINS}
            rows.append(dict(k=k, regime=regime, args=statistics.mean(r["args"] for r in runs),
                             ingest=statistics.median(r["ingest"] for r in runs),
                             ops=statistics.median(r["ops"] for r in runs), **merged))
            print(f"  done: {regime} K={k}", file=sys.stderr)

    table = Table(title=f"Per-query medians in microseconds ({args.seeds} seeds x {args.queries} queries, "
                        f"{args.repeat} calls timed per query)", header_style="bold")
    for name in ("regime", "K", "|Args|", "utt/s", "op-utt/s", "Affected* |A*|<=1", "Affected* all",
                 "mean |A*|", "replay", *(f"Verify |Dep*| {lo}-{hi}" if hi < 10**9 else f"Verify |Dep*| {lo}+"
                                           for lo, hi in CHAIN_BINS)):
        table.add_column(name, justify="right")
    for r in rows:
        table.add_row(r["regime"], f"{r['k']:,}", f"{r['args']:,.0f}", f"{r['ingest']:,.0f}", f"{r['ops']:,.0f}",
                      median_us(r["small"]), median_us(r["every"]), f"{statistics.mean(r['sizes']):.2f}",
                      median_us(r["replay"]), *(median_us(r["verify"][b]) for b in CHAIN_BINS))
    console.print(table)
    for regime in ("naive", "bounded"):
        mine = [r for r in rows if r["regime"] == regime and r["small"]]
        if len(mine) >= 2:
            lo, hi = mine[0], mine[-1]
            ratio = statistics.median(hi["small"]) / statistics.median(lo["small"])
            replay_ratio = statistics.median(hi["replay"]) / statistics.median(lo["replay"])
            console.print(f"{regime}: Affected* (|A*|<=1) K={hi['k']:,} / K={lo['k']:,} = {ratio:.2f}; "
                          f"history replay {replay_ratio:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
