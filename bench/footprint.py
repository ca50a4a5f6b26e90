"""Memory of an engine holding a conversation, measured in a fresh interpreter.

``python -m bench.footprint ENGINE LOG MODE`` reads the utterances of
LOG (JSON lines, one utterance each), feeds them to ENGINE (``grounded``: our
Engine, its Prolog rules included; ``authors``: the authors' dict engine,
``reference.py``; ``grounded-load``: ``Engine.load`` of LOG, which must then
be an event log) and prints one JSON line: ``rss`` mode reports the growth of
the process's resident set (everything the engine keeps, Prolog clauses
included, as the operating system counts it); ``heap`` mode what Python's
allocator holds (tracemalloc: Python objects only).  A fresh process per
measurement keeps one engine's garbage out of the other's figure.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path


def resident_bytes() -> int:
    """The process's resident set now (Linux /proc; elsewhere the peak, from getrusage)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


WARM = 200
"""Utterances fed to a throwaway engine before the measured one starts."""


def _feeder(engine: str):
    if engine == "grounded":
        from grounded.engine import Engine
        from tests.synthetic import HEADER

        ours = Engine(HEADER)
        return ours, ours.apply
    if engine == "authors":
        from bench.reference import ReferenceEngine

        theirs = ReferenceEngine()
        return theirs, theirs.apply
    raise SystemExit(f"unknown engine {engine!r} (grounded or authors)")


def measure(engine: str, log: Path, mode: str) -> dict:
    if engine == "grounded-load":
        return _measure_load(log, mode)
    utterances = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    if utterances and "grounded" in utterances[0]:  # an event log: its header is not an utterance
        utterances = utterances[1:]
    _, warm = _feeder(engine)  # what a process makes once, when first used (the rules, the models, the
    for u in utterances[:WARM]:  # effect classes), is not growth: a throwaway engine makes it first
        warm(u)
    del _, warm
    holder, apply = _feeder(engine)
    gc.collect()
    if mode == "heap":
        tracemalloc.start()
    before = resident_bytes()
    for u in utterances:
        apply(u)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] if mode == "heap" else resident_bytes() - before
    del holder
    return {"engine": engine, "mode": mode, "utterances": len(utterances), "bytes": grown}


def _measure_load(log: Path, mode: str) -> dict:
    from grounded.engine import Engine

    Engine(HEADER_OF_NOTHING)  # the rules loaded: a fixed cost, not growth
    gc.collect()
    if mode == "heap":
        tracemalloc.start()
    before = resident_bytes()
    engine = Engine.load(log)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] if mode == "heap" else resident_bytes() - before
    assert engine.log_status is not None
    return {"engine": "grounded-load", "mode": mode, "utterances": engine.log_status.utterances, "bytes": grown}


HEADER_OF_NOTHING: dict = {}


def measure_engines(path: Path, engines: tuple[str, ...], log: Callable[[str], None]) -> dict[str, dict[str, int]]:
    """engine -> mode (rss, heap) -> bytes grown holding the utterances of ``path``, each figure
    measured in a fresh interpreter."""
    found: dict[str, dict[str, int]] = {}
    for mode in ("rss", "heap"):
        for engine in engines:
            done = subprocess.run([sys.executable, "-m", "bench.footprint", engine, str(path), mode],
                                  capture_output=True, text=True, check=True, timeout=3600)
            found.setdefault(engine, {})[mode] = json.loads(done.stdout)["bytes"]
            log(f"memory: {engine} ({mode})")
    return found


def main(argv: list[str] | None = None) -> int:
    engine, log, mode = argv if argv is not None else sys.argv[1:]
    print(json.dumps(measure(engine, Path(log), mode)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
