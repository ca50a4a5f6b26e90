"""``python -m bench startup``: how long the command line takes to start, and to answer from a snapshot.

Issue 23 (item 5) measured ``grounded --version`` at 0.56-0.62 s and a query
answered from the snapshot beside its log at 1.02-1.06 s, nearly all of it
imports: every command module, the solvers (SWI-Prolog, clingo), numpy and the
presenters, whatever the command.  The targets: ``--version`` in at most
``VERSION_TARGET_S``, and a snapshot query in at most ``RATIO_TARGET`` times that.

One run times, interleaved so that a change in the machine's load falls on all
of them alike, ``runs`` rounds of four processes: ``python -c pass`` (the
interpreter's own start, the floor), ``grounded --version``, and ``grounded
verify`` and ``grounded affected`` on a synthetic log of ``k`` turns whose
snapshot a first call wrote (every process is ``python -m grounded``).  Wall
seconds depend on what else runs; the child's CPU seconds (user + system) are
what a call costs on an idle core, so both are reported (medians), with the
load average before and after.  What a command imports is structure, not
timing: ``imported`` reads it from ``python -X importtime``, and the result
lists the heavy modules each command loaded (tests/test_startup.py holds them
to none).
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.textcli import time_call
from tests.startup_probe import CALL_TIMEOUT_S, GROUNDED, HEAVY, heavy, imported, write_log

VERSION_TARGET_S = 0.25
RATIO_TARGET = 1.3
PYTHON = (sys.executable,)


def run(runs: int, k: int, log: Callable[[str], None] = lambda line: None, realistic: bool = False) -> dict:
    """Medians of ``runs`` interleaved rounds of the four processes (see the module docstring); with
    ``realistic``, on the realistic stream (``write_realistic``) and with a fifth process, a question of one
    claim that reads the whole snapshot (``grounded query dep``: what verify and affected cost before the
    snapshot's index)."""
    env = {key: v for key, v in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory(prefix="grounded-startup-") as tmp:
        env["GROUNDED_CACHE_DIR"] = str(Path(tmp) / "cache")
        path = Path(tmp) / "talk.jsonl"
        claim, retracted = write_realistic(path, k) if realistic else write_log(path, k)
        log(f"startup: log of {k} turns written ({path.stat().st_size} bytes)")
        calls: dict[str, tuple[Sequence[str], Sequence[str]]] = {
            "python -c pass": (PYTHON, ["-c", "pass"]),
            "grounded --version": (GROUNDED, ["--version"]),
            "grounded verify (snapshot)": (GROUNDED, ["verify", str(path), claim]),
            "grounded affected (snapshot)": (GROUNDED, ["affected", str(path), retracted]),
        }
        if realistic:
            calls[WHOLE] = (GROUNDED, ["query", str(path), "dep", claim])
        _, _, answer = time_call(["verify", str(path), claim], env, timeout=CALL_TIMEOUT_S)  # writes the snapshot
        if not Path(str(path) + ".snapshot").is_file():
            raise RuntimeError(f"the first query wrote no snapshot beside {path}")
        modules = {name: heavy(imported(args, env, command)) for name, (command, args) in calls.items()}
        log(f"startup: log of {k} turns, snapshot written; heavy imports {modules}")
        load_before = os.getloadavg()[0]
        wall: dict[str, list[float]] = {name: [] for name in calls}
        cpu: dict[str, list[float]] = {name: [] for name in calls}
        for i in range(runs):
            for name, (command, args) in calls.items():
                w, c, _ = time_call(args, env, command=command, timeout=CALL_TIMEOUT_S)
                wall[name].append(w)
                cpu[name].append(c)
            log(f"startup: round {i + 1}/{runs}")
    medians = {name: {"wall": statistics.median(wall[name]), "cpu": statistics.median(cpu[name])} for name in calls}
    version = medians["grounded --version"]
    ratios = {name: {kind: m[kind] / version[kind] for kind in ("wall", "cpu")}
              for name, m in medians.items() if "snapshot" in name}
    return {"k": k, "runs": runs, "claim": claim, "retracted": retracted, "answer": answer.strip(),
            "version_target_s": VERSION_TARGET_S, "ratio_target": RATIO_TARGET, "cores": os.cpu_count(),
            "load_average": [load_before, os.getloadavg()[0]], "wall_s": wall, "cpu_s": cpu,
            "median": medians, "ratio_to_version": ratios, "heavy_imports": modules}


WHOLE = "grounded query dep (whole snapshot)"
"""A question of one claim answered from the whole snapshot (``dep`` is not read from the index)."""


def write_realistic(path: Path, k: int, seed: int = 1) -> tuple[str, str]:
    """The realistic stream of ``k`` turns (tests/synthetic.py: every operation, competing hypotheses) as a
    log no engine of this user wrote; the newest argument's claim (to verify) and the first (to retract)."""
    from bench.ingest import write_foreign
    from tests.synthetic import realistic

    conv = realistic(k, seed)
    write_foreign(path, conv.history)
    args = conv.engine.state.args
    return args[-1].claim, args[0].claim


def markdown(result: dict) -> str:
    from bench.report import markdown_table

    rows = []
    for name, m in result["median"].items():
        ratio = result["ratio_to_version"].get(name)
        rows.append([name, f"{m['wall']:.3f}", f"{m['cpu']:.3f}",
                     f"{ratio['wall']:.2f}" if ratio else "", f"{ratio['cpu']:.2f}" if ratio else "",
                     ", ".join(result["heavy_imports"][name]) or "none"])
    table = markdown_table(["process", "wall median s", "CPU median s", "wall / --version", "CPU / --version",
                            "heavy imports"], rows, "lrrrrl")
    load = result["load_average"]
    return (f"# grounded start-up: {result['runs']} interleaved round(s), a snapshot of {result['k']} turns\n\n"
            f"{table}\n\nTargets: `grounded --version` at most {result['version_target_s']:.2f} s; a query from "
            f"the snapshot at most {result['ratio_target']:.1f}x that. CPU is the child's user + system time, "
            f"what a call costs on an idle core; load average {load[0]:.1f} before and {load[1]:.1f} after on "
            f"{result['cores']} cores. Heavy imports: which of {', '.join(HEAVY)} the process loaded.")


__all__ = ["HEAVY", "RATIO_TARGET", "VERSION_TARGET_S", "WHOLE", "heavy", "imported", "markdown", "run", "write_log",
           "write_realistic"]
