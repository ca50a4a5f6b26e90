"""The three-way cross-check and Dung semantics at scale (issue: ASP reference semantics).

Three tables:

* ``grounded check`` on synthetic logs of K turns (bench/synthetic.py, naive
  regime), end to end: the engine replays the log through the Prolog rules,
  ASP recomputes it, both are compared.  Beside it, the ASP side alone: the
  whole log grounded in one shot, the whole log grounded turn by turn, and
  the cost of taking one more turn at K: incrementally (ground that turn) or
  from scratch (ground all K turns again).
* preferred extensions of random frameworks with 100 to 10,000 arguments,
  acyclic (the paper's A2: the fast path) and with a few cycles (the general
  encoding with domain heuristics), against the pure-Python enumeration of
  the PyArg package (python-argumentation), run in a subprocess with a time
  limit.
* a soak: synthetic conversations with invalid utterances mixed in, each
  checked three ways.

Run:  grounded bench crosscheck [--quick] [--out DIR]   (or python -m grounded.bench.crosscheck)
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import sys
import tempfile
import time
from pathlib import Path

from grounded.bench.synthetic import HEADER, build
from grounded.crosscheck.check import check, check_history
from grounded.dmap.model import Header
from grounded.dung import Framework, extensions
from grounded.engine import Engine
from grounded.solvers.history import IncrementalHistory, OneShotHistory

CHECK_KS = (100, 1000, 2000)
AF_SIZES = (25, 50, 100, 1000, 10_000)


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def measure_check(k: int, seed: int, incremental_total: bool, tail: int = 20) -> dict:
    header = Header.model_validate(HEADER)
    with Engine(header) as engine:
        registry = engine.registry
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.jsonl"
        conv = build(k, "naive", seed, log=path)
        history = conv.history
        conv.engine.close()
        check_seconds, report = timed(lambda: check(path))
    assert report.ok, report.mismatches[:5]

    def one_shot(utterances):
        h = OneShotHistory(header, registry)
        for u in utterances:
            h.add(u)
        return h.solve()

    whole_seconds, _ = timed(lambda: one_shot(history))
    live = IncrementalHistory(header, registry)
    start = time.perf_counter()
    for u in history[:-tail]:
        live.add(u)
    prefix_seconds = time.perf_counter() - start
    tail_seconds, _ = timed(lambda: [live.add(u) for u in history[-tail:]])
    incremental_seconds = None
    if incremental_total:
        incremental_seconds = prefix_seconds + tail_seconds + timed(lambda: (live.view(), live.solve()))[0]
    per_turn = tail_seconds / tail
    return dict(k=k, utterances=len(history), check=check_seconds,
                whole=whole_seconds, incremental=incremental_seconds, per_turn=per_turn,
                ratio=whole_seconds / per_turn)


def claims_of(history: list[dict]) -> list[str]:
    """The claims the history's observations and hypotheses introduce."""
    return [op["claim"] for u in history for op in u["ops"] if op["op"] in ("observe", "hypothesize")]


# -- Dung frameworks ---------------------------------------------------------------

def random_framework(n: int, seed: int, cycles: int = 0) -> Framework:
    """About 2n attacks, each from an older to a newer argument (acyclic); ``cycles``
    closes that many cycles, half of them odd (a -> b -> c -> a), half even (a <-> b)."""
    rng = random.Random(seed)
    attacks = set()
    for b in range(2, n + 1):
        for _ in range(rng.choice((1, 2, 3))):
            attacks.add((rng.randint(max(1, b - 50), b - 1), b))
    edges = sorted(attacks)
    for i in range(cycles):
        a, b = rng.choice(edges)
        onward = [c for x, c in edges if x == b]
        if i % 2 and onward:
            attacks.add((rng.choice(onward), a))
        else:
            attacks.add((b, a))
    return Framework.of(range(1, n + 1), attacks)


def _py_arg_worker(af: Framework, queue: mp.Queue) -> None:
    sys.setrecursionlimit(max(10_000, 4 * len(af)))
    try:
        from py_arg.algorithms.semantics.get_preferred_extensions import get_preferred_extensions

        from grounded.dung.pyarg import to_py_arg

        start = time.perf_counter()
        found = get_preferred_extensions(to_py_arg(af))
        queue.put(("ok", time.perf_counter() - start, len(found)))
    except BaseException as exc:  # noqa: BLE001 - reported in the table
        queue.put(("error", 0.0, type(exc).__name__))


def py_arg_preferred(af: Framework, limit: float) -> str:
    """PyArg's time for the preferred extensions, or why there is none."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_py_arg_worker, args=(af, queue))
    proc.start()
    proc.join(limit)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return f"> {limit:.0f} s"
    status, seconds, detail = queue.get()
    return f"{seconds:.3f} s ({detail})" if status == "ok" else f"failed: {detail}"


def measure_af(n: int, seed: int, cyclic: bool, py_arg_limit: float | None) -> dict:
    af = random_framework(n, seed, cycles=6 if cyclic else 0)
    fast_seconds, fast = timed(lambda: extensions(af, "preferred"))
    general_seconds, general = timed(lambda: extensions(af, "preferred", fast=False))
    assert set(fast) == set(general)
    return dict(n=n, cyclic=cyclic, attacks=len(af.attacks), acyclic=af.is_acyclic(), count=len(general),
                fast=fast_seconds if af.is_acyclic() else None, general=general_seconds,
                py_arg=py_arg_preferred(af, py_arg_limit) if py_arg_limit else "not run (smaller one timed out)")


# -- soak --------------------------------------------------------------------------

NOISE = (
    lambda rng, claims, t: {"op": "observe", "claim": rng.choice(claims)},  # usually redundant
    lambda rng, claims, t: {"op": "undermine", "target": f"nobody{t}", "by": rng.choice(claims)},
    lambda rng, claims, t: {"op": "revise", "target": rng.choice(claims)},
    lambda rng, claims, t: {"op": "resolve", "target": rng.choice(claims)},
    lambda rng, claims, t: {"op": "hypothesize", "claim": rng.choice(claims), "deps": []},
    lambda rng, claims, t: {"op": "support", "target": rng.choice(claims), "by": rng.choice(claims)},
)


def noisy(history: list[dict], seed: int, rate: float = 0.15) -> list[dict]:
    """The history with invalid or competing utterances mixed in (some go back in turn)."""
    rng = random.Random(seed)
    claims = claims_of(history) or ["o1"]
    out = []
    for u in history:
        if rng.random() < rate:
            t = u["turn"] - rng.choice((0, 0, 1))
            out.append({"turn": t, "speaker": rng.choice(["alice", "bob", "carol", "mallory"]),
                        "ops": [rng.choice(NOISE)(rng, claims, t)]})
        out.append(u)
    return out


def soak(runs: int, k: int) -> tuple[int, int, int, float]:
    header = Header.model_validate(HEADER)
    utterances = rejected = 0
    start = time.perf_counter()
    for seed in range(runs):
        conv = build(k, ("naive", "bounded")[seed % 2], 1000 + seed)
        conv.engine.close()
        report = check_history(header, noisy(conv.history, seed), retraction=seed % 4 == 0)
        assert report.ok, report.mismatches[:5] + report.failures[:5]
        utterances += report.utterances
        rejected += report.utterances - report.accepted
    return runs, utterances, rejected, time.perf_counter() - start


def run(quick: bool = False, soak_runs: int = 8, py_arg_limit: float = 30.0, seed: int = 1,
        log=print) -> dict:
    """Every figure of the three tables, as plain data."""
    ks = [k for k in CHECK_KS if not quick or k <= 1000]
    sizes = [n for n in AF_SIZES if not quick or n <= 1000]
    checks = []
    for k in ks:
        checks.append(measure_check(k, seed, incremental_total=True))
        log(f"done: check K={k}")
    frameworks = []
    for cyclic in (False, True):
        limit: float | None = py_arg_limit
        for n in sizes:
            r = measure_af(n, seed, cyclic, limit)
            frameworks.append(r)
            if r["py_arg"].startswith(">"):
                limit = None  # larger frameworks would only time out too
            log(f"done: frameworks n={n} cyclic={cyclic}")
    runs, utterances, rejected, seconds = soak(2 if quick else soak_runs, 150 if quick else 400)
    return {"quick": quick, "checks": checks, "frameworks": frameworks,
            "soak": {"conversations": runs, "utterances": utterances, "rejected": rejected, "seconds": seconds}}


def markdown(result: dict) -> str:
    from grounded.bench.report import markdown_table

    checks = markdown_table(
        ["K", "utterances", "check (end to end), s", "ASP one shot, s", "ASP turn by turn, s",
         "one more turn: incremental, ms", "one more turn: from scratch, s", "from scratch / incremental"],
        [[f"{r['k']:,}", f"{r['utterances']:,}", f"{r['check']:.2f}", f"{r['whole']:.2f}",
          f"{r['incremental']:.2f}", f"{r['per_turn'] * 1000:.1f}", f"{r['whole']:.2f}",
          f"{r['ratio']:.0f}x"] for r in result["checks"]])
    afs = markdown_table(
        ["arguments", "attacks", "attack graph", "preferred extensions", "fast path (acyclic), s",
         "general (domRec), s", "PyArg (pure Python)"],
        [[f"{r['n']:,}", f"{r['attacks']:,}", "acyclic" if r["acyclic"] else "cycles", r["count"],
          "-" if r["fast"] is None else f"{r['fast']:.3f}", f"{r['general']:.3f}", r["py_arg"]]
         for r in result["frameworks"]])
    s = result["soak"]
    soak_line = (f"Soak: {s['conversations']} noisy conversations, {s['utterances']:,} utterances "
                 f"({s['rejected']:,} rejected), Python = Prolog = ASP on every one (Proposition 2.5 / "
                 f"Corollary 2.6 decided on every fourth), {s['seconds']:.1f} s.")
    return ("## grounded check, and the ASP history in one shot or turn by turn\n\n" + checks +
            "\n\n## Preferred extensions of random frameworks\n\n" + afs + "\n\n" + soak_line + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="K <= 1000, frameworks <= 1000, short soak")
    parser.add_argument("--soak", type=int, default=8, help="conversations in the soak")
    parser.add_argument("--py-arg-limit", type=float, default=30.0, help="seconds PyArg may take")
    args = parser.parse_args(argv)
    result = run(args.quick, args.soak, args.py_arg_limit, args.seed,
                 log=lambda line: print(f"  {line}", file=sys.stderr))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
