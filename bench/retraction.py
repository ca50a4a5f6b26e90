"""What the retraction check (Proposition 2.5 and Corollary 2.6 at every turn) costs.

For the paper's scenarios and synthetic conversations (tests/synthetic.py) of
K turns, the check of crosscheck/retraction.py over the whole history: how
many (turn, literal) pairs the history has, how many retractions are decided
(both propositions per pair), and the time of one clingo program deciding
them all, every turn (``--every-turn``) and by default (every turn up to
EVERY_TURN_LIMIT pairs, a seeded sample above).  Beside it, ``grounded
check`` on the same file with and without ``--retraction``, so the share of
the three-way check the retraction part takes is read in one run.

Run:  python -m bench.retraction [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from grounded.crosscheck.check import check
from grounded.crosscheck.retraction import EVERY_TURN_LIMIT, check_retractions
from grounded.engine import Engine
from grounded.scenario import Scenario, run
from tests.synthetic import build

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ("phase2", "phase3")


def median_seconds(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(label: str, engine: Engine, path: Path, repeats: int) -> dict:
    every = check_retractions(engine.state, every_turn=True)
    default = check_retractions(engine.state, seed=0)
    assert every.ok and default.ok, every.failure_lines()[:3] + every.mismatches[:3]
    every_s = median_seconds(lambda: check_retractions(engine.state, every_turn=True), repeats)
    row: dict[str, object] = {
        "history": label, "turns": engine.state.last_turn, "arguments": len(engine.state.args),
        "checked_turns": len(every.turns), "pairs": every.pairs, "retractions": len(every.results),
        "every_turn_s": every_s,
        "default": "every turn" if not default.sampled else f"sample of {len(default.results)}",
        "default_s": median_seconds(lambda: check_retractions(engine.state, seed=0), repeats),
        "check_s": median_seconds(lambda: check(path), 1),
        "check_retraction_s": median_seconds(lambda: check(path, retraction=True), 1),
    }
    row["us_per_retraction"] = 1e6 * every_s / max(1, len(every.results))
    return row


def rows(quick: bool) -> list[dict]:
    out = []
    repeats = 3 if quick else 5
    for name in SCENARIOS:
        path = ROOT / "scenarios" / f"{name}.yaml"
        scenario = Scenario.load(path)
        with Engine(scenario.header) as engine:
            list(run(scenario, engine))
            out.append(measure(name, engine, path, repeats))
    with tempfile.TemporaryDirectory() as tmp:
        for k in (500,) if quick else (500, 1000, 2000):
            for regime in ("naive", "bounded"):
                path = Path(tmp) / f"{regime}-{k}.jsonl"
                conv = build(k, regime, 1, log=path)
                out.append(measure(f"synthetic {regime} K={k}", conv.engine, path, repeats))
                conv.engine.close()
    return out


def table(data: list[dict]) -> str:
    head = ("| history | turns | args | checked turns | pairs | retractions | every turn (s) | us/retraction "
            "| default | default (s) | check (s) | check --retraction (s) |")
    lines = [head, "|" + "---|" * 12]
    for r in data:
        lines.append(f"| {r['history']} | {r['turns']} | {r['arguments']} | {r['checked_turns']} | {r['pairs']} "
                     f"| {r['retractions']} | {r['every_turn_s']:.3f} | {r['us_per_retraction']:.1f} "
                     f"| {r['default']} | {r['default_s']:.3f} | {r['check_s']:.2f} | {r['check_retraction_s']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="K = 500 only, fewer repeats")
    args = parser.parse_args(argv)
    print(f"EVERY_TURN_LIMIT = {EVERY_TURN_LIMIT} (turn, literal) pairs; medians of repeated runs, seconds")
    print(table(rows(args.quick)))


if __name__ == "__main__":
    main()
