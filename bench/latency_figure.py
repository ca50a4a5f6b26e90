"""The latency figure (paper, App. E4, Fig. cost b): per-query cost against K.

It reuses the latency benchmark's own measurement (``latency.measure``: a
synthetic conversation of K turns through the engine, then per query
Affected* timed over a loop, and the history-replay baseline answering the
same query from the raw history), over several seeds, and plots the medians
of the verifier's retraction query against history replay, in both regimes.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from .latency import measure

KS = (13, 100, 500, 1000, 2000)
REGIMES = ("naive", "bounded")


def run(seeds: int = 5, queries: int = 200, repeat: int = 200, ks: tuple[int, ...] = KS, prog=None) -> dict:
    measure(200, "naive", 99, 10, 10)  # warm-up, as the latency benchmark does
    task = prog.add_task("latency", total=len(REGIMES) * len(ks) * seeds) if prog else None
    rows = []
    for regime in REGIMES:
        for k in ks:
            every, replay, sizes, args = [], [], [], []
            for seed in range(seeds):
                r = measure(k, regime, seed, queries, repeat)
                every += r["every"]
                replay += r["replay"]
                sizes += r["sizes"]
                args.append(r["args"])
                if prog:
                    prog.advance(task)
            rows.append({"regime": regime, "k": k, "args": statistics.mean(args),
                         "affected_us": statistics.median(every) * 1e6, "replay_us": statistics.median(replay) * 1e6,
                         "mean_affected": statistics.mean(sizes)})
    if prog:
        prog.remove_task(task)
    return {"seeds": seeds, "queries_per_seed": queries, "calls_timed_per_query": repeat, "rows": rows,
            "paper": "retraction query 0.25-0.46 us up to K = 2000; history replay 1.1 us to 190 us"}


def markdown(result: dict) -> str:
    from .report import markdown_table

    rows = [[r["regime"], f"{r['k']:,}", f"{r['args']:,.0f}", f"{r['affected_us']:.2f}", f"{r['replay_us']:.2f}",
             f"{r['replay_us'] / r['affected_us']:.0f}x", f"{r['mean_affected']:.2f}"] for r in result["rows"]]
    return "\n".join([
        "# Retraction latency (App. E4)", "",
        f"Medians over {result['seeds']} seeds x {result['queries_per_seed']} queries, each timed over "
        f"{result['calls_timed_per_query']} calls; microseconds per query.", "",
        markdown_table(["regime", "K", "|Args|", "Affected* (verifier)", "history replay", "replay / verifier",
                        "mean |A*|"], rows), "",
        f"Paper: {result['paper']}.",
    ])


def figures(result: dict, out: Path) -> list[Path]:
    from .report import pyplot, save_figure

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for regime, style in (("naive", "-"), ("bounded", "--")):
        rows = [r for r in result["rows"] if r["regime"] == regime]
        ks = [r["k"] for r in rows]
        ax.plot(ks, [r["affected_us"] for r in rows], "o" + style, color="tab:blue",
                label=f"verifier: Affected* via reverse index ({regime})")
        ax.plot(ks, [r["replay_us"] for r in rows], "s" + style, color="tab:red",
                label=f"history replay ({regime})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("K (turns)")
    ax.set_ylabel("microseconds per query (median)")
    ax.set_title(f"Retraction query cost, medians over {result['seeds']} seeds")
    ax.legend(fontsize=7)
    return [save_figure(fig, out / "latency.png")]
