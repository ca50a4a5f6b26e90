"""``python -m bench textcli``: how long ``grounded verify LOG --text "..."`` takes as a whole process.

Targets: at most 1 s of CPU per call after the first (the coverage check's issue), and 2 s wall on a warm disk
cache.  This runs the command as a user does: Phase 2 (``scenarios/phase2.yaml``) is written as an event log,
one call warms the disk cache, the bytecode and the log's snapshot, and then ``runs`` calls are timed.  Wall
seconds depend on what else runs; the child's CPU seconds (user + system) are what the call costs on an idle
core, so both are reported, with the load average before and after.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

TEXTS = ("Too many people retrying logins swamped the cache cluster",
         "The retry storm exhausted the Redis connection pool")
TARGET_S = 2.0
"""Wall seconds per warm call."""
TARGET_CPU_S = 1.0
"""CPU seconds per call after the first."""
TIMEOUT_S = 600
"""A call that takes longer is a failure of the run, not a figure."""


def write_phase2_log(path: Path) -> Path:
    """The Phase 2 scenario's gold turns as an event log at ``path``."""
    from importlib import resources

    from grounded.engine import Engine
    from grounded.scenario import Scenario

    scenario = Scenario.load(Path(str(resources.files("grounded.scenarios") / "phase2.yaml")))
    with Engine(scenario.header, log=path) as engine:
        for turn in scenario.turns:
            engine.apply(turn.utterance())
    return path


def time_call(args: Sequence[str], env: dict[str, str], command: Sequence[str] = (sys.executable, "-m", "grounded"),
              timeout: float = TIMEOUT_S) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system, of the child) of one ``grounded`` process (or of ``command``
    with ``args``), and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*command, *args], capture_output=True, text=True, env=env, timeout=timeout)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1 is a verdict (reject, abstain), 2 an error
        raise RuntimeError(f"{' '.join([*command, *args])} failed (exit {done.returncode}): {done.stderr.strip()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def _summary(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def run(runs: int, text: str = TEXTS[0], log: Callable[[str], None] = lambda line: None) -> dict:
    """Wall and CPU seconds of ``runs`` warm calls (min, median, max) and the verdict they print."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory(prefix="grounded-textcli-") as tmp:
        env["GROUNDED_CACHE_DIR"] = str(Path(tmp) / "cache")
        path = write_phase2_log(Path(tmp) / "phase2.jsonl")
        args = ["verify", str(path), "--text", text]
        load_before = os.getloadavg()[0]
        _, _, first = time_call(args, env)  # warm-up: disk cache, bytecode, snapshot
        result: dict = {"wall_s": [], "cpu_s": [], "read_by": next(
            (line.removeprefix("read by: ") for line in first.splitlines() if line.startswith("read by:")), ""),
            "verdict": first.splitlines()[0].removeprefix("verdict: ") if first else ""}
        log("textcli: warm")
        for i in range(runs):
            wall, cpu, _ = time_call(args, env)
            result["wall_s"].append(wall)
            result["cpu_s"].append(cpu)
            log(f"textcli: run {i + 1}/{runs}")
    result["wall"], result["cpu"] = _summary(result["wall_s"]), _summary(result["cpu_s"])
    return {"scenario": "phase2", "text": text, "runs": runs, "target_s": TARGET_S, "target_cpu_s": TARGET_CPU_S,
            "cores": os.cpu_count(), "load_average": [load_before, os.getloadavg()[0]], "call": result}


def markdown(result: dict) -> str:
    from bench.report import markdown_table

    r = result["call"]
    rows = [[r["read_by"], f"{r['wall']['min']:.2f}", f"{r['wall']['median']:.2f}", f"{r['wall']['max']:.2f}",
             f"{r['cpu']['min']:.2f}", f"{r['cpu']['median']:.2f}", f"{r['cpu']['max']:.2f}", r["verdict"]]]
    table = markdown_table(["read by", "wall min s", "wall median s", "wall max s", "CPU min s", "CPU median s",
                            "CPU max s", "verdict"], rows, "lrrrrrrl")
    load = result["load_average"]
    return (f"# grounded verify LOG --text: Phase 2 as a log, {result['runs']} warm run(s)\n\n"
            f"{table}\n\nText: \"{result['text']}\". Targets: {result['target_cpu_s']:.0f} s CPU per call after the "
            f"first, {result['target_s']:.0f} s wall on a warm disk cache. CPU is the child's user + system time, "
            f"what a call costs on an idle core; load average {load[0]:.1f} before and {load[1]:.1f} after on "
            f"{result['cores']} cores.")
