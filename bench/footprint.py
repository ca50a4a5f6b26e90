"""Memory of an engine holding a conversation, measured in a fresh interpreter.

``python -m grounded.bench.footprint ENGINE LOG MODE`` reads the utterances of
LOG (JSON lines, one utterance each), feeds them to ENGINE (``grounded``: our
Engine, its Prolog rules included; ``authors``: the authors' dict engine,
``reference.py``) and prints one JSON line: ``rss`` mode reports the growth of
the process's resident set (everything the engine keeps, Prolog clauses
included, as the operating system counts it); ``heap`` mode what Python's
allocator holds (tracemalloc: Python objects only).  A fresh process per
measurement keeps one engine's garbage out of the other's figure.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import tracemalloc
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


def _feeder(engine: str):
    if engine == "grounded":
        from grounded.bench.synthetic import HEADER
        from grounded.engine import Engine

        ours = Engine(HEADER)
        return ours, ours.apply
    if engine == "authors":
        from grounded.bench.reference import ReferenceEngine

        theirs = ReferenceEngine()
        return theirs, theirs.apply
    raise SystemExit(f"unknown engine {engine!r} (grounded or authors)")


def measure(engine: str, log: Path, mode: str) -> dict:
    utterances = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    holder, apply = _feeder(engine)  # the engine's fixed costs (the rules loaded) are not its growth
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


def main(argv: list[str] | None = None) -> int:
    engine, log, mode = argv if argv is not None else sys.argv[1:]
    print(json.dumps(measure(engine, Path(log), mode)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
