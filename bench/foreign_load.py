"""A log written elsewhere, loaded through the rules: where each utterance's CPU time goes.

``python -m bench.foreign_load K [ROUNDS]`` writes the realistic stream of K
turns as a log no engine of this user wrote (so every line is judged by the
rules, issue 23 item 3), loads it ROUNDS times with ``Engine.load``, each in
a fresh engine after a warm-up load, and prints one JSON line per round:
utterances/s (wall and CPU), CPU microseconds per utterance in all, in the
rules' batch requests (timed around the bridge's call: the crossing and
SWI-Prolog) and in the rest (Python: reading and validating the lines, the
flat text, reading the reply, the mirror), the rules' inferences per
utterance (a count that does not depend on the machine's load), and the
wall seconds of each tenth of the log with last / first.  The whole
``python -m bench ingest`` runs a dozen other measurements around this one.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.checks import CheckFailed
from bench.ingest import _ratio, _tenths, write_log
from grounded.engine import Engine
from grounded.io.eventlog import header_json
from grounded.solvers.prolog import PrologRules
from tests.synthetic import HEADER, realistic


@contextmanager
def rules_clock() -> Iterator[dict[str, float]]:
    """CPU seconds spent in the rules' ``apply_batch`` requests while the block runs."""
    spent = {"seconds": 0.0, "requests": 0}
    request = PrologRules.request

    def timed(self: PrologRules, req: tuple, shape: Any = "any") -> Any:
        if req[0] != "apply_batch":
            return request(self, req, shape)
        start = time.process_time()
        try:
            return request(self, req, shape)
        finally:
            spent["seconds"] += time.process_time() - start
            spent["requests"] += 1

    PrologRules.request = timed  # type: ignore[method-assign, assignment]
    try:
        yield spent
    finally:
        PrologRules.request = request  # type: ignore[method-assign]


def write_foreign(path: Path, turns: int, seed: int = 0) -> int:
    """The realistic stream of ``turns`` turns as a log written elsewhere; its utterances."""
    utterances = realistic(turns, seed).history
    header = Engine(HEADER)
    write_log(path, header_json(header.header, header.origin()), utterances)
    header.close()
    return len(utterances)


def measure(path: Path, n: int) -> dict:
    """One load of the log at ``path`` (``n`` utterances), timed as the module says."""
    warm = Engine.load(path)  # the rules started and every model built before the clock runs
    warm.close()
    rules = PrologRules.get()
    marks: list[tuple[float, int]] = []
    inferences = rules.inferences()
    with rules_clock() as spent:
        cpu, start = time.process_time(), time.perf_counter()
        engine = Engine.load(path, progress=lambda done, total: marks.append((time.perf_counter() - start, done)))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    inferences = rules.inferences() - inferences
    if engine.log_status is None or engine.log_status.utterances != n or engine.log_status.bulk:
        raise CheckFailed(f"{path}: not every line judged by the rules ({engine.log_status})")
    engine.close()
    tenths = _tenths(marks)
    return {"utterances": n, "per_second": n / wall, "cpu_per_second": n / cpu,
            "cpu_us": 1e6 * cpu / n, "rules_us": 1e6 * spent["seconds"] / n,
            "python_us": 1e6 * (cpu - spent["seconds"]) / n, "batches": spent["requests"],
            "inferences": inferences / n, "tenths": tenths, "last_over_first": _ratio(tenths)}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not 1 <= len(args) <= 2 or not all(a.isdigit() for a in args):
        print("usage: python -m bench.foreign_load K [ROUNDS]", file=sys.stderr)
        return 2
    turns, rounds = int(args[0]), int(args[1]) if len(args) > 1 else 1
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "foreign.jsonl"
        n = write_foreign(path, turns)
        for _ in range(rounds):
            try:
                print(json.dumps(measure(path, n)), flush=True)
            except CheckFailed as exc:  # as ``python -m bench`` ends a run whose own check failed
                print(f"check failed: {exc}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
