"""Dynamic epistemic updates on explicit models of 2^10 to 2^20 worlds, and the
muddy children end to end.

For each size 2^k: a model with every valuation of k atoms, three agents
(one observes the first half of the atoms, one the second half, one nothing)
and plausibility already shaped by two upgrades.  Timed, each as the median
of ``--repeat`` runs on the same model (models are immutable, so every run
starts from the same state):

* [!psi]  public announcement of psi = x0 | x1 (formula evaluation included);
* [!phi]  public announcement of the epistemic phi = ~K_a x0 & ~K_b x<k-1>;
* [^psi]  lexicographic upgrade with psi, for all three agents;
* [up psi] conservative upgrade with psi, for all three agents;
* K_a psi and B_a psi: the truth of knowledge and belief at every world.

Then muddy(n, m) end to end (build the model, the father's announcement,
"nobody knows" until the muddy children know, the last round's answers).
The paper's targets: announcement on 2^20 worlds <= 50 ms, lexicographic
upgrade on 2^20 worlds <= 500 ms.  Run:  python -m bench.epistemic [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from rich.console import Console
from rich.table import Table

from grounded.epistemic import updates as U
from grounded.epistemic.model import PlausibilityModel
from grounded.epistemic.parse import parse
from grounded.epistemic.semantics import truth
from tests.muddy import muddy

TARGETS = {"announce": 50.0, "lexicographic": 500.0}
MUDDY = ((5, 3), (10, 5), (15, 8), (20, 3), (20, 10), (20, 20))
QUICK_MUDDY = ((5, 3), (10, 5))


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def shaped_model(k: int) -> PlausibilityModel:
    atoms = [f"x{i}" for i in range(k)]
    half = k // 2
    model = PlausibilityModel.cube(atoms, {"a": atoms[:half], "b": atoms[half:], "c": []})
    model = U.lexicographic(model, parse(f"x2 | x{k - 1}"))
    return U.conservative(model, parse("x3 & ~x4"))


def updates_row(k: int, repeat: int) -> dict:
    model = shaped_model(k)
    psi = parse("x0 | x1")
    phi = parse(f"~K_a x0 & ~K_b x{k - 1}")
    knows, believes = parse("K_a (x0 | x1)"), parse("B_a (x0 | x1)")
    # model.replace(): a copy with an empty cache, so cached plausibility levels are not reused
    return {
        "k": k,
        "announce": median_ms(lambda: U.announce(model, psi), repeat),
        "announce_k": median_ms(lambda: U.announce(model.replace(), phi), repeat),
        "lexicographic": median_ms(lambda: U.lexicographic(model, psi), repeat),
        "conservative": median_ms(lambda: U.conservative(model, psi), repeat),
        "K": median_ms(lambda: truth(model.replace(), knows), repeat),
        "B": median_ms(lambda: truth(model.replace(), believes), repeat),
    }


def muddy_row(n: int, m: int, repeat: int) -> dict:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        run = muddy(n, m)
        runs.append(time.perf_counter() - start)
    assert run.rounds == m and run.clean_know_next, f"muddy({n}, {m}) went wrong: {run}"
    return {"n": n, "m": m, "worlds": 2 ** n, "rounds": run.rounds, "ms": 1000 * statistics.median(runs)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per figure (median)")
    parser.add_argument("--max-k", type=int, default=20, help="largest model: 2^max-k worlds")
    parser.add_argument("--quick", action="store_true", help="2^10..2^14 worlds, 3 runs, muddy n <= 10")
    args = parser.parse_args(argv)
    console = Console(highlight=False, soft_wrap=True, width=160)
    max_k = min(args.max_k, 14) if args.quick else args.max_k
    repeat = 3 if args.quick else args.repeat
    rows = [updates_row(k, repeat) for k in range(10, max_k + 1, 2)]

    table = Table(title=f"Updates on 2^k worlds, 3 agents: median of {repeat} runs, milliseconds",
                  header_style="bold")
    for name in ("worlds", "[!psi] announce", "[!phi] epistemic", "[^psi] lexicographic", "[up psi] conservative",
                 "K_a psi", "B_a psi"):
        table.add_column(name, justify="right")
    for r in rows:
        table.add_row(f"2^{r['k']} = {2 ** r['k']:,}", *(f"{r[c]:.2f}" for c in
                                                      ("announce", "announce_k", "lexicographic", "conservative",
                                                       "K", "B")))
    console.print(table)

    cases = QUICK_MUDDY if args.quick else MUDDY
    mud = [muddy_row(n, m, 1 if n >= 15 else repeat) for n, m in cases]
    table = Table(title="muddy(n, m) end to end", header_style="bold")
    for name in ("n", "m", "|W_0|", "round the muddy know", "ms"):
        table.add_column(name, justify="right")
    for r in mud:
        table.add_row(str(r["n"]), str(r["m"]), f"{r['worlds']:,}", str(r["rounds"]), f"{r['ms']:.0f}")
    console.print(table)

    largest = rows[-1]
    for key, limit in TARGETS.items():
        got = largest[key]
        verdict = "meets" if got <= limit else "MISSES"
        console.print(f"target: {key} on 2^{largest['k']} worlds <= {limit:g} ms: {got:.2f} ms ({verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
