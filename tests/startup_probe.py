"""What a ``grounded`` process imports, read from ``python -X importtime`` (issue 23, item 5: start-up).

Shared by tests/test_startup.py, which holds the import structure, and the
start-up benchmark (bench/startup.py, ``python -m bench startup``), which times it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

CALL_TIMEOUT_S = 120
"""A call that takes longer is a failure of the run, not a figure."""
HEAVY = ("pyswip", "clingo", "clorm", "graphviz", "numpy", "scipy", "sklearn", "openai", "fastapi", "uvicorn",
         "torch", "sentence_transformers", "matplotlib", "networkx")
"""Modules none of the timed commands needs (the solvers, the models, the service, the figures)."""
GROUNDED = (sys.executable, "-m", "grounded")


def imported(args: Sequence[str], env: dict[str, str] | None = None, command: Sequence[str] = GROUNDED) -> set[str]:
    """Every module a ``grounded ARGS`` process imports (its exit status must be 0 or 1: an answer)."""
    _, _, stderr = _run([*command[:1], "-X", "importtime", *command[1:], *args], env)
    return {line.rpartition("|")[2].strip() for line in stderr.splitlines() if line.startswith("import time:")} - {
        "package"}  # the header line's last column


def _run(argv: Sequence[str], env: dict[str, str] | None) -> tuple[int, str, str]:
    done = subprocess.run(list(argv), capture_output=True, text=True, env=env, timeout=CALL_TIMEOUT_S)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(argv)} failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
    return done.returncode, done.stdout, done.stderr


def heavy(modules: set[str]) -> list[str]:
    """The HEAVY packages among ``modules`` (a package counts when it or any of its submodules is there)."""
    return sorted({m.partition(".")[0] for m in modules} & set(HEAVY))


def write_log(path: Path, k: int, seed: int = 1) -> tuple[str, str]:
    """A synthetic conversation of ``k`` turns written as an event log at ``path`` (no world model, so it
    is snapshotted); the newest claim (to verify) and the first (to retract: the most rests on it)."""
    from tests.synthetic import build

    conv = build(k, "naive", seed, log=path)
    conv.engine.close()
    return conv.claims[-1], conv.claims[0]




def grounded(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``python -m grounded ARGS`` in a process of its own."""
    return subprocess.run([*GROUNDED, *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=CALL_TIMEOUT_S)
