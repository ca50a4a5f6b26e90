"""The latency figure (paper, App. E4, Fig. cost b): per-query cost against K.

It runs the latency benchmark's own measurement (``latency.collect``: for
each seed, a synthetic conversation of every K built through the engine and
their queries timed interleaved, Affected* over a loop of calls and the
history-replay baseline answering the same query from the raw history) and
reports, in both regimes, the medians of the verifier's retraction query per
answer size (|A*| = 0 and |A*| = 1, and over all queries) against history
replay.  Equal answer sizes are what compare across K: the share of empty
answers changes with K, and an empty answer costs about half a one-element
one, so the median over all queries moves with that share.
"""

from __future__ import annotations

import functools
import statistics
from pathlib import Path

from bench.latency import collect, growth, warm_up

KS = (13, 100, 500, 1000, 2000)
REGIMES = ("naive", "bounded")


def _median_us(values: list[float]) -> float | None:
    return statistics.median(values) * 1e6 if values else None


def run(seeds: int = 5, queries: int = 200, repeat: int = 200, ks: tuple[int, ...] = KS, prog=None) -> dict:
    warm_up()
    task = prog.add_task("latency", total=len(REGIMES) * seeds) if prog else None
    advance = functools.partial(_advance, prog, task) if prog else None
    rows, growths = [], {}
    for regime in REGIMES:
        merged = collect(ks, regime, seeds, queries, repeat, advance)
        for k in ks:
            r = merged[k]
            rows.append({"regime": regime, "k": k, "args": r["args"],
                         "none_us": _median_us(r["none"]), "one_us": _median_us(r["one"]),
                         "affected_us": _median_us(r["every"]), "replay_us": _median_us(r["replay"]),
                         "none_queries": len(r["none"]), "one_queries": len(r["one"]),
                         "mean_affected": statistics.mean(r["sizes"])})
        if len(ks) >= 2:
            growths[regime] = {"from_k": ks[0], "to_k": ks[-1], **growth(merged[ks[0]], merged[ks[-1]])}
    if prog:
        prog.remove_task(task)
    return {"seeds": seeds, "queries_per_seed": queries, "calls_timed_per_query": repeat, "rows": rows,
            "growth": growths,
            "paper": "retraction query 0.25-0.46 us up to K = 2000; history replay 1.1 us to 190 us"}


def _advance(prog, task, _seed: int) -> None:
    prog.advance(task)


def _us(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def markdown(result: dict) -> str:
    from bench.report import markdown_table

    rows = [[r["regime"], f"{r['k']:,}", f"{r['args']:,.0f}", _us(r["none_us"]), _us(r["one_us"]),
             _us(r["affected_us"]), _us(r["replay_us"]),
             f"{r['replay_us'] / r['one_us']:.0f}x" if r["one_us"] else "-", f"{r['mean_affected']:.2f}"]
            for r in result["rows"]]
    lines = [
        "# Retraction latency (App. E4)", "",
        f"Medians over {result['seeds']} seeds x {result['queries_per_seed']} queries, each timed over "
        f"{result['calls_timed_per_query']} calls; microseconds per query. Every K of a seed is built first and "
        "their queries timed interleaved, so the machine's drift falls on every K alike.", "",
        markdown_table(["regime", "K", "|Args|", "Affected* |A*|=0", "Affected* |A*|=1", "Affected* all",
                        "history replay", "replay / Affected* |A*|=1", "mean |A*|"], rows), "",
    ]
    for regime, g in result["growth"].items():
        sizes = ", ".join(f"{g[key]:.2f} (|A*| = {n})" for n, key in ((0, "none"), (1, "one")) if key in g)
        lines.append(f"{regime}: Affected* at K = {g['to_k']:,} over K = {g['from_k']:,}: {sizes}; "
                     f"history replay {g['replay']:.0f}x.")
    lines += ["", f"Paper: {result['paper']}."]
    return "\n".join(lines)


def figures(result: dict, out: Path) -> list[Path]:
    from matplotlib.ticker import NullFormatter

    from bench.report import pyplot, save_figure

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    series = (("none_us", "o", "tab:blue", "verifier: Affected*, |A*| = 0"),
              ("one_us", "^", "tab:purple", "verifier: Affected*, |A*| = 1"),
              ("replay_us", "s", "tab:red", "history replay"))
    for regime, style in (("naive", "-"), ("bounded", "--")):
        rows = [r for r in result["rows"] if r["regime"] == regime]
        ks = [r["k"] for r in rows]
        for key, marker, colour, label in series:
            values = [float("nan") if r[key] is None else r[key] for r in rows]
            ax.plot(ks, values, marker + style, color=colour, label=f"{label} ({regime})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ks = sorted({r["k"] for r in result["rows"]})
    ax.set_xticks(ks, [f"{k:,}" for k in ks])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("K (turns)")
    ax.set_ylabel("microseconds per query (median)")
    ax.set_title(f"Retraction query cost, medians over {result['seeds']} seeds")
    ax.legend(fontsize=7)
    return [save_figure(fig, out / "latency.png")]
