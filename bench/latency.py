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
over all queries of all seeds.  The conversations of every K for one seed are
built first and their queries timed in turn (``collect``, which ``grounded
bench latency`` uses too), so the machine's drift falls on every K alike and
the ratios between K stay meaningful.  Run:  python -m bench.latency [--quick]
"""

from __future__ import annotations

import argparse
import functools
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rich.console import Console
from rich.table import Table

from tests.synthetic import Conversation, build, replay_affected

T = TypeVar("T")

KS = (13, 100, 1000, 2000, 10_000, 100_000)
CHAIN_BINS = ((1, 1), (2, 4), (5, 16), (17, 10**9))
POOLED = ("small", "none", "one", "every", "sizes", "replay")  # per-query lists, pooled over seeds


def per_call(fn: Callable[[], T], repeat: int) -> tuple[float, T]:
    """Seconds per call of fn(), timed over a loop after one untimed call (caches warm); and that call's result."""
    result = fn()
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat, result


@dataclass
class Case:
    """One synthetic conversation and the queries drawn for it."""

    conv: Conversation
    k: int
    regime: str
    picks: list[str]
    small: list[float] = field(default_factory=list)
    none: list[float] = field(default_factory=list)
    one: list[float] = field(default_factory=list)
    every: list[float] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    replay: list[float] = field(default_factory=list)
    verify: dict = field(default_factory=lambda: {b: [] for b in CHAIN_BINS})


def build_case(k: int, regime: str, seed: int, queries: int) -> Case:
    conv = build(k, regime, seed)
    rng = random.Random(seed + 1)
    return Case(conv, k, regime, [rng.choice(conv.claims) for _ in range(queries)])


def measure_cases(cases: list[Case], repeat: int) -> list[dict]:
    """Time every case's queries, interleaved: query i of every case, then query i+1.

    A shared machine's speed drifts; taking the cases in turn, in a shuffled
    order each round, puts the same drift on every K, so the ratios between
    them (what the targets are about) stay meaningful even when the absolute
    figures move between runs.
    """
    rng = random.Random(len(cases))
    for i in range(max(len(c.picks) for c in cases)):
        for c in rng.sample(cases, len(cases)):
            if i < len(c.picks):
                _time_query(c, c.picks[i], repeat)
    results = []
    for c in cases:
        engine = c.conv.engine
        results.append(dict(k=c.k, regime=c.regime, args=len(engine.state.args), accepted=len(c.conv.history),
                            ingest=c.k / c.conv.ingest_seconds, ops=c.conv.op_utterances / c.conv.op_seconds,
                            small=c.small, none=c.none, one=c.one, every=c.every, sizes=c.sizes,
                            replay=c.replay, verify=c.verify))
        engine.close()
    return results


def _time_query(c: Case, p: str, repeat: int) -> None:
    engine, history = c.conv.engine, c.conv.history
    replay_repeat = max(1, repeat // 50) if c.k >= 10_000 else max(1, repeat // 10)
    cost, found = per_call(lambda: engine.affected(p), repeat)
    size = len(found)
    c.every.append(cost)
    c.sizes.append(size)
    if size <= 1:
        c.small.append(cost)
        (c.none if size == 0 else c.one).append(cost)
    cost, replayed = per_call(lambda: replay_affected(history, p), replay_repeat)
    c.replay.append(cost)
    assert replayed >= set(found.claims) - {p}
    chain = len(engine.verify(p).chain)
    for lo, hi in CHAIN_BINS:
        if lo <= chain <= hi:
            c.verify[(lo, hi)].append(per_call(lambda: engine.verify(p), repeat)[0])


def warm_up() -> None:
    """Pay the first-call costs of pydantic and the rules before anything is timed."""
    measure_cases([build_case(200, "naive", 99, 10)], 10)


def collect(ks: Sequence[int], regime: str, seeds: int, queries: int, repeat: int,
            progress: Callable[[int], None] | None = None) -> dict[int, dict]:
    """Per K, the results of every seed merged: query timings pooled, ingestion rates as medians.

    For each seed the conversations of every K are built first and their
    queries timed interleaved (``measure_cases``).  Before each seed the last
    seed's conversations are collected, and a small conversation absorbs
    SWI-Prolog's clean-up of the clauses they retracted, so neither is timed
    as the next conversations' ingestion.  ``progress(seed)`` is called after
    each seed.
    """
    runs: dict[int, list[dict]] = {k: [] for k in ks}
    for seed in range(seeds):
        gc.collect()
        build(13, regime, -1).engine.close()
        for r in measure_cases([build_case(k, regime, seed, queries) for k in ks], repeat):
            runs[r["k"]].append(r)
        if progress is not None:
            progress(seed)
    merged: dict[int, dict] = {}
    for k in ks:
        pooled: dict[str, Any] = {key: [x for r in runs[k] for x in r[key]] for key in POOLED}
        pooled["verify"] = {b: [x for r in runs[k] for x in r["verify"][b]] for b in CHAIN_BINS}
        merged[k] = dict(k=k, regime=regime, args=statistics.mean(r["args"] for r in runs[k]),
                         ingest=statistics.median(r["ingest"] for r in runs[k]),
                         ops=statistics.median(r["ops"] for r in runs[k]), **pooled)
    return merged


def growth(lo: dict, hi: dict) -> dict[str, float]:
    """Median at the larger K over the median at the smaller: Affected* per answer size, and history replay.

    Equal answer sizes are compared: the share of empty answers changes with
    K, and an empty answer costs about half a one-element one.
    """
    return {key: statistics.median(hi[key]) / statistics.median(lo[key])
            for key in ("none", "one", "replay") if hi[key] and lo[key]}


def growth_line(regime: str, lo_k: int, hi_k: int, g: dict[str, float]) -> str:
    sizes = ", ".join(f"|A*|={n}: {g[key]:.2f}" for n, key in ((0, "none"), (1, "one")) if key in g)
    return f"{regime}: Affected* K={hi_k:,} / K={lo_k:,}: {sizes}; history replay {g['replay']:.0f}x"


def median_us(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e6:.2f}" if values else "-"


def _report_seed(regime: str, seed: int) -> None:
    print(f"  done: {regime} seed {seed}", file=sys.stderr)


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
    warm_up()
    rows: list[dict] = []
    for regime in ("naive", "bounded"):
        done = functools.partial(_report_seed, regime)
        rows += collect(ks, regime, args.seeds, args.queries, args.repeat, done).values()

    table = Table(title=f"Per-query medians in microseconds ({args.seeds} seeds x {args.queries} queries, "
                        f"{args.repeat} calls timed per query)", header_style="bold")
    for name in ("regime", "K", "|Args|", "utt/s", "op-utt/s", "Affected* |A*|<=1", "|A*|=0", "|A*|=1",
                 "Affected* all",
                 "mean |A*|", "replay", *(f"Verify |Dep*| {lo}-{hi}" if hi < 10**9 else f"Verify |Dep*| {lo}+"
                                           for lo, hi in CHAIN_BINS)):
        table.add_column(name, justify="right")
    for r in rows:
        table.add_row(r["regime"], f"{r['k']:,}", f"{r['args']:,.0f}", f"{r['ingest']:,.0f}", f"{r['ops']:,.0f}",
                      median_us(r["small"]), median_us(r["none"]), median_us(r["one"]), median_us(r["every"]),
                      f"{statistics.mean(r['sizes']):.2f}",
                      median_us(r["replay"]), *(median_us(r["verify"][b]) for b in CHAIN_BINS))
    console.print(table)
    for regime in ("naive", "bounded"):
        mine = [r for r in rows if r["regime"] == regime]
        if len(mine) >= 2:
            lo, hi = mine[0], mine[-1]
            console.print(growth_line(regime, lo["k"], hi["k"], growth(lo, hi)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
