"""``python -m bench ingest``: reading logs in bulk, applying live, deep inputs, the snapshot (issue 13).

What is measured (one run, figures as ratios within it where a peer exists):

* **bulk**: ``Engine.load`` of the naive synthetic stream of K turns
  (``synthetic.py``, written as a real log), against the paper authors'
  engine fed the same utterances (``reference.py``), in alternating rounds:
  utterances per second of wall time and of CPU time, and the time of each
  tenth of the log (flat when the cost per line does not grow);
* **live**: the same utterances through ``Engine.apply`` one at a time into a
  fresh engine without a log: utterances per second and the time of every
  10,000 (the first against the last: flat per utterance);
* **memory** after the K utterances, each engine in a fresh interpreter
  (``footprint.py``): resident-set growth and Python heap, ours fed live and
  loaded from the log;
* **realistic**: a conversation of R turns as people have them (synthetic.py's
  realistic regime: every operation, competing hypotheses sharing questions,
  supports, undermines, revisions, resolutions over dissent), applied live,
  with the time and the rules' inferences of each tenth;
* **deep inputs**: a Dep chain of D hypotheses (each resting on the one
  before), built live, with the time of each tenth (the acyclicity check must
  not grow with the depth); D hypotheses resting on one literal; every one of
  them explains one shared question (settling it must not grow with the
  number of its explanations); for both, Verify and Affected* and
  ``Engine.load`` of their log;
* **the snapshot**: ``grounded verify`` on the K-turn log as a command (a new
  process): the first call replays the log and writes the snapshot, the next
  ones read it; beside them the same command on a two-line log, the cost of
  starting the interpreter and the rules;
* **durability**: live apply with an event log under each fsync policy.

``--foreign-only`` runs one part alone: the realistic stream of R turns
written as a log no engine of this user wrote (every line judged by the
rules, issue 23 item 3), loaded ``rounds`` times after a warm-up load, each
load's CPU per utterance split into the rules' batch requests and Python.
Every load of a log to measure its rate (the bulk rounds, the realistic logs, a
foreign log) is one ``timed_load``; the deep inputs time their own log's
reloads, which are checked against the engine they were written from.

The realistic stream and the deep inputs check that the cost per utterance
does not grow with the history: the rules' logical inferences per operation
in the last tenth are at most ``FLAT`` times those in the first (a count, the
same under any load, so the check holds at the smoke size run in CI), or the
run fails.  The seconds per tenth are printed beside them.  A check that did
not hold is kept with the figures it judged (a ``*_check`` key: what failed),
and ``check`` fails the run once they are printed and written.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.checks import CheckFailed
from bench.footprint import measure_engines
from bench.reference import ReferenceEngine
from bench.report import markdown_table
from grounded.engine import Engine
from grounded.io.eventlog import header_json
from grounded.solvers.prolog import PrologRules
from tests.synthetic import HEADER, build, realistic


@dataclass
class Settings:
    k: int = 100_000
    """Turns of the naive synthetic stream."""
    realistic: int = 100_000
    """Turns of the realistic synthetic stream."""
    depth: int = 100_000
    """Hypotheses in the Dep chain, and resting on one literal."""
    rounds: int = 3
    """Alternating rounds of bulk reading (grounded, authors)."""
    fsync_utterances: int = 2_000
    seed: int = 0
    memory: bool = True
    cli_calls: int = 3
    deep_only: bool = False
    """Only the deep inputs: their tenths without the minutes the other parts take first (without what those
    parts leave alive either, so Python's full collections come more often: each tenth's are printed)."""
    foreign_only: bool = False
    """Only the realistic stream as a log written elsewhere, loaded ``rounds`` times (``measure_foreign``)."""
    extra: dict = field(default_factory=dict)

    @classmethod
    def quick(cls) -> Settings:
        return cls(k=2_000, realistic=2_000, depth=500, rounds=1, fsync_utterances=100, memory=False, cli_calls=1)


Log = Callable[[str], None]


def write_log(path: Path, header: dict, utterances: list[dict]) -> None:
    with open(path, "w") as f:
        f.write(json.dumps(header) + "\n")
        for u in utterances:
            f.write(json.dumps(u) + "\n")


def write_foreign(path: Path, utterances: list[dict]) -> None:
    """``utterances`` of the synthetic header as a log no engine of this user wrote: no record of effects
    beside it, so a load judges every line by the rules."""
    engine = Engine(HEADER)
    write_log(path, header_json(engine.header, engine.origin()), utterances)
    engine.close()


def _timed(fn: Callable[[], object]) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds of this process, result)."""
    gc.collect()
    w, c = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - w, time.process_time() - c, result


# -- a timed load of a log ----------------------------------------------------------

@contextmanager
def rules_clock() -> Iterator[dict[str, float]]:
    """CPU seconds spent in the rules' ``apply_batch`` requests while the block runs (the crossing and
    SWI-Prolog: timed around the bridge's call), and how many there were."""
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


def timed_load(path: Path, n: int, label: str, record: bool | None = None) -> dict:
    """One ``Engine.load`` of the log at ``path`` (``n`` utterances): wall and CPU seconds, utterances/s of
    each, CPU microseconds per utterance in all, in the rules' batch requests (``rules_clock``) and in the
    rest (Python: reading and validating the lines, the flat text, reading the reply, the mirror), the
    rules' inferences per utterance (a count that does not depend on the machine's load), the seconds of
    each tenth of the log, and the lines applied from the record beside it (``bulk``).  ``load_check`` says
    what failed when the load did not give back ``n`` utterances, or when ``record`` is True (every line from
    the record) or False (none: every line judged by the rules) and the load did otherwise; ``label`` names
    the log in that message."""
    rules = PrologRules.get()  # started before the clock runs
    marks: list[tuple[float, int]] = []
    gc.collect()
    inferences = rules.inferences()
    with rules_clock() as spent:
        cpu, start = time.process_time(), time.perf_counter()
        engine = Engine.load(path, progress=lambda done, total: marks.append((time.perf_counter() - start, done)))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    inferences = rules.inferences() - inferences
    status = engine.log_status
    engine.close()
    loaded, bulk = (status.utterances, status.bulk) if status is not None else (0, 0)
    failed = None
    if loaded != n:
        failed = f"{label}: {loaded:,} of {n:,} utterances loaded"
    elif record is not None and bulk != (n if record else 0):
        failed = f"{label}: {bulk:,} of {n:,} lines applied from its record, expected {'all' if record else 'none'}"
    tenths = _tenths(marks)
    return {"utterances": n, "wall_s": wall, "cpu_s": cpu, "per_second": n / wall, "cpu_per_second": n / cpu,
            "cpu_us": 1e6 * cpu / n, "rules_us": 1e6 * spent["seconds"] / n,
            "python_us": 1e6 * (cpu - spent["seconds"]) / n, "batches": spent["requests"],
            "inferences": inferences / n, "tenths": tenths, "last_over_first": _ratio(tenths), "bulk": bulk,
            "load_check": failed}


def measure_foreign(turns: int, rounds: int, seed: int, tmp: Path, log: Log) -> dict:
    """``--foreign-only``: the realistic stream of ``turns`` turns as a log written elsewhere, loaded ``rounds``
    times after a warm-up load (the rules started and every model built before the clock runs)."""
    utterances = realistic(turns, seed).history
    path = tmp / "foreign.jsonl"
    write_foreign(path, utterances)
    Engine.load(path).close()
    found = []
    for r in range(rounds):
        found.append(timed_load(path, len(utterances), "a log written elsewhere", record=False))
        log(f"foreign: round {r + 1}/{rounds}")
    return {"turns": turns, "utterances": len(utterances), "rounds": found}


# -- bulk and live -------------------------------------------------------------------

def measure_bulk(path: Path, utterances: list[dict], settings: Settings, log: Log) -> dict:
    rows: dict[str, list] = {"grounded": [], "authors": []}
    tenths: list[float] = []
    failed = None
    for r in range(settings.rounds):
        order = ["grounded", "authors"] if r % 2 == 0 else ["authors", "grounded"]
        for name in order:
            if name == "grounded":
                load = timed_load(path, len(utterances), "the naive stream's log")
                rows[name].append((load["wall_s"], load["cpu_s"]))
                tenths, failed = load["tenths"], failed or load["load_check"]
            else:
                def feed() -> None:
                    ref = ReferenceEngine()
                    for u in utterances:
                        ref.apply(u)
                wall, cpu, _ = _timed(feed)
                rows[name].append((wall, cpu))
        log(f"bulk: round {r + 1}/{settings.rounds}")
    n = len(utterances)
    walls = {k: statistics.median(w for w, _ in v) for k, v in rows.items()}
    cpus = {k: statistics.median(c for _, c in v) for k, v in rows.items()}
    ratios = [g[0] / a[0] for g, a in zip(rows["grounded"], rows["authors"], strict=True)]
    return {"utterances": n, "per_second": {k: n / v for k, v in walls.items()},
            "cpu_per_second": {k: n / v for k, v in cpus.items()}, "ratio": statistics.median(ratios),
            "tenths": tenths, "load_check": failed}


def _tenths(marks: list[tuple[float, int]]) -> list[float]:
    """Seconds spent on each tenth of the bytes, from (elapsed, bytes done) marks."""
    if not marks:
        return []
    total = marks[-1][1]
    out, last_t, step = [], 0.0, 1
    for t, done in marks:
        while step <= 10 and done >= total * step / 10:
            out.append(t - last_t)
            last_t, step = t, step + 1
    return out


def measure_live(utterances: list[dict], log: Log, chunk: int = 10_000) -> dict:
    lines = [json.dumps(u) for u in utterances]  # what a caller holds: text, parsed as it is applied
    engine = Engine(HEADER)
    chunk = min(chunk, max(1, len(lines) // 10))
    gc.collect()
    times: list[float] = []
    w0, c0 = time.perf_counter(), time.process_time()
    t = w0
    for i, line in enumerate(lines, 1):
        engine.apply(json.loads(line))
        if i % chunk == 0:
            now = time.perf_counter()
            times.append(now - t)
            t = now
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    engine.close()
    log("live: done")
    return {"utterances": len(lines), "per_second": len(lines) / wall, "cpu_per_second": len(lines) / cpu,
            "chunk": chunk, "chunks": times, "last_over_first": times[-1] / times[0] if times else None}


class FullCollections:
    """Python's full (generation 2) garbage collections while it is entered: how many, and their wall seconds
    (``gc.callbacks``).  Each scans every container the process holds, so their cost per collection grows
    with what an engine keeps: the one part of a live apply's time that may grow with the history."""

    def __init__(self) -> None:
        self.count, self.seconds, self._start = 0, 0.0, 0.0

    def _on(self, phase: str, info: dict) -> None:
        if info["generation"] == 2:
            if phase == "start":
                self._start = time.perf_counter()
            else:
                self.count += 1
                self.seconds += time.perf_counter() - self._start

    def __enter__(self) -> FullCollections:
        gc.callbacks.append(self._on)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._on)


class Tenths:
    """The wall and CPU seconds, the operations, the rules' inferences and Python's full collections of each
    tenth of n utterances."""

    def __init__(self, n: int, engine: Engine, collections: FullCollections | None = None):
        self.every = max(1, n // 10)
        self.rules = engine.rules.rules
        self.collections = collections or FullCollections()  # counts only while entered
        self.seconds: list[float] = []
        self.cpu: list[float] = []
        self.inferences: list[int] = []
        self.ops: list[int] = []
        self.full_collections: list[int] = []
        self.collection_seconds: list[float] = []
        self._count, self._ops = self.rules.inferences(), 0
        self._gc = (self.collections.count, self.collections.seconds)
        self._at, self._cpu = time.perf_counter(), time.process_time()

    def step(self, done: int, ops: int = 1) -> None:
        """Utterance ``done`` (counted from 1), with ``ops`` operations, is applied."""
        self._ops += ops
        if done % self.every == 0 and len(self.seconds) < 10:
            now, cpu, count = time.perf_counter(), time.process_time(), self.rules.inferences()
            collections = (self.collections.count, self.collections.seconds)
            self.seconds.append(now - self._at)
            self.cpu.append(cpu - self._cpu)
            self.inferences.append(count - self._count)
            self.ops.append(self._ops)
            self.full_collections.append(collections[0] - self._gc[0])
            self.collection_seconds.append(collections[1] - self._gc[1])
            self._at, self._cpu, self._count, self._ops, self._gc = now, cpu, count, 0, collections

    def report(self, name: str, timed: bool = False) -> dict:
        """The figures, with ``flat_check`` (None when the rules' work per operation stayed flat, else what
        grew) and, with ``timed``, ``time_check`` (the same of the CPU seconds): ``check`` fails the run on
        either once its figures are out."""
        per_op = [n / max(1, k) for n, k in zip(self.inferences, self.ops, strict=True)]
        found: dict = {"tenths": self.seconds, "last_over_first": _ratio(self.seconds), "cpu_tenths": self.cpu,
                 "cpu_last_over_first": _ratio(self.cpu), "inference_tenths": self.inferences,
                 "op_tenths": self.ops, "inferences_last_over_first": _ratio(per_op),
                 "full_collections": self.full_collections, "collection_seconds": self.collection_seconds}
        found["flat_check"] = flat_check(name, found)
        found["time_check"] = time_check(name, found) if timed else None
        return found


FLAT = 1.2
"""The most the rules' inferences per operation may grow from the first tenth of a run to the last."""


def _ratio(xs: list) -> float | None:
    return xs[-1] / xs[0] if xs and xs[0] else None


def flat_check(name: str, found: dict) -> str | None:
    """The benchmark's own check: the rules' work per operation did not grow with the history; None when it
    holds, else what grew.  Per operation, not per tenth: a tenth of a random stream may hold more
    operations than another."""
    ratio = found["inferences_last_over_first"]
    if ratio is not None and ratio <= FLAT:
        return None
    first, last = (f"{n:,} in {k:,} operations" for n, k in ((found["inference_tenths"][i], found["op_tenths"][i])
                                                              for i in (0, -1)))
    shown = "none" if ratio is None else f"{ratio:.2f}"
    return (f"{name}: the rules' inferences per operation grew from the first tenth ({first}) "
            f"to the last ({last}): last / first {shown}, at most {FLAT}")


TIMED = 10_000
"""Operations per tenth from which a run's time per tenth is checked (``time_check``): the deep inputs at
10^5.  A shorter tenth lasts a few clock ticks of CPU, as long as one full collection of the garbage collector."""


def time_check(name: str, found: dict) -> str | None:
    """The benchmark's own check on time: the CPU seconds of the last tenth at most ``FLAT`` times the
    first's; None when it holds, else what failed.  CPU, not wall: the machine may be shared, and the other
    jobs' load lengthens the wall seconds of whichever tenth they fall in (printed beside, with a note when
    they alone pass ``FLAT``)."""
    ratio = found["cpu_last_over_first"]
    if ratio is not None and ratio <= FLAT:
        return None
    shown = "none" if ratio is None else f"{ratio:.2f}"
    return (f"{name}: the CPU seconds per tenth grew from the first ({found['cpu_tenths'][0]:.2f}) to the last "
            f"({found['cpu_tenths'][-1]:.2f}): last / first {shown}, at most {FLAT}")


CHECKS = ("flat_check", "time_check", "load_check")
"""The keys under which a part of the run keeps what its own check found wrong (None when it held)."""


def failed_checks(found: object) -> list[str]:
    """Every check that did not hold anywhere in a run's figures, in the order they were measured."""
    if isinstance(found, dict):
        return [m for k, v in found.items() for m in ([v] if k in CHECKS and v else failed_checks(v))]
    if isinstance(found, list):
        return [m for v in found for m in failed_checks(v)]
    return []


def check(result: dict) -> None:
    """Fail a run whose own checks did not hold (``failed_checks``): called once its figures are printed and
    written, so a failing run is not lost."""
    failed = failed_checks(result)
    if failed:
        raise CheckFailed("; ".join(failed))


def measure_realistic(k: int, seed: int, log: Log, utterances: list[dict] | None = None) -> dict:
    """The realistic stream of k turns, applied live into a fresh engine, tenth by tenth."""
    utterances = realistic(k, seed).history if utterances is None else utterances
    engine = Engine(HEADER)
    gc.collect()
    with FullCollections() as collections:
        clock = Tenths(len(utterances), engine, collections)
        start = time.perf_counter()
        for i, u in enumerate(utterances, 1):
            engine.apply(u)
            clock.step(i, len(u["ops"]))
        wall = time.perf_counter() - start
    engine.close()
    log("realistic: done")
    ops: dict[str, int] = {}
    for u in utterances:
        for op in u["ops"]:
            ops[op["op"]] = ops.get(op["op"], 0) + 1
    return {"turns": k, "utterances": len(utterances), "ops": ops, "per_second": len(utterances) / wall,
            **clock.report("realistic")}


def measure_realistic_logs(utterances: list[dict], tmp: Path, log: Log) -> dict:
    """The realistic stream as logs read back: one written elsewhere (every line judged by the rules),
    tenth by tenth, and one this engine wrote as it applied the stream live (its lines applied from the
    effects it recorded beside the log, grounded.io.effectlog).  (The authors' engine has no
    ``expand_awareness``: memory against theirs is measured on the naive stream.)"""
    foreign, own = tmp / "realistic.jsonl", tmp / "realistic-own.jsonl"
    write_foreign(foreign, utterances)
    writer = Engine(HEADER, log=own, fsync="never")
    wall, _, _ = _timed(lambda: [writer.apply(u) for u in utterances])
    writer.close()
    n = len(utterances)
    found: dict = {"utterances": n, "live_logged_per_second": n / wall}
    found["foreign"] = timed_load(foreign, n, "the realistic log written elsewhere", record=False)
    found["own"] = timed_load(own, n, "the engine's own log", record=True)
    log("realistic logs: done")
    return found


def measure_memory(path: Path, log: Log) -> dict:
    engines = ("grounded", "grounded-load", "authors")
    found = measure_engines(path, engines, log)
    return {"bytes": found, "ratio": {e: {m: found[e][m] / max(1, found["authors"][m]) for m in ("rss", "heap")}
                                      for e in engines if e != "authors"}}


# -- deep inputs ---------------------------------------------------------------------

def deep(kind: str, depth: int, tmp: Path, log: Log) -> dict:
    """A Dep chain of ``depth`` hypotheses (``chain``) or ``depth`` hypotheses on one literal (``wide``),
    each explaining the question q0: competing explanations of one question."""
    header = {"agents": {"a": {"authority": True}}}
    path = tmp / f"{kind}.jsonl"
    engine = Engine(header, log=path, fsync="never")
    engine.apply({"speaker": "a", "ops": [{"op": "observe", "claim": "o0"}, {"op": "question", "claim": "q0"}]})
    # What the earlier parts left for the collector (their engines, freed by a full collection: 10^6 objects
    # after the realistic logs) is collected now, not by whichever tenth the next full collection falls in
    # (a second of CPU at 10^5: it made the chain's last tenths 1.28 times its first on a quiet machine).
    left = gc.collect()
    with FullCollections() as collections:
        clock = Tenths(depth, engine, collections)
        start, cpu0 = time.perf_counter(), time.process_time()
        prev = "o0"
        for i in range(1, depth + 1):
            dep = prev if kind == "chain" else "o0"
            engine.apply({"speaker": "a", "ops": [{"op": "hypothesize", "claim": f"h{i}", "deps": [dep],
                                                   "explains": ["q0"]}]})
            prev = f"h{i}"
            clock.step(i)
        build, build_cpu = time.perf_counter() - start, time.process_time() - cpu0
    tenths = clock.report(kind, timed=depth // 10 >= TIMED)
    engine.close()
    log(f"{kind}: built")
    top = f"h{depth}"
    verify_s, _, v = _timed(lambda: engine.verify(top))
    affected_s, _, a = _timed(lambda: engine.affected("o0"))
    assert v.grounded and len(v.arguments) == (depth + 1 if kind == "chain" else 2)  # type: ignore[attr-defined]
    assert len(a.arguments) == depth  # type: ignore[attr-defined]
    load_s, _, loaded = _timed(lambda: Engine.load(path))
    assert isinstance(loaded, Engine) and loaded.snapshot() == engine.snapshot()
    write_s, _, _ = _timed(lambda: Engine.load(path, snapshot=True))
    restore_s, _, restored = _timed(lambda: Engine.load(path, snapshot=True))
    assert isinstance(restored, Engine) and restored.log_status is not None
    assert restored.log_status.restored == depth + 1
    assert restored.open_problems() == ["o0", "q0"]  # competing explanations settle neither
    # the first utterance after the snapshot: the rules' facts are put in when first needed
    facts_s, _, _ = _timed(lambda: restored.apply({"speaker": "a", "ops": [{"op": "observe", "claim": "z0"}]}))
    log(f"{kind}: queried")
    return {"kind": kind, "depth": depth, "build_s": build, "build_cpu_s": build_cpu, "collected_before": left,
            "per_hypothesize_us": build / depth * 1e6, **tenths,
            "verify_ms": verify_s * 1e3, "affected_ms": affected_s * 1e3, "load_s": load_s,
            "snapshot_write_s": write_s, "snapshot_read_s": restore_s, "rules_restore_s": facts_s}


# -- the snapshot, as a command ----------------------------------------------------------

def measure_cli(path: Path, claim: str, tmp: Path, settings: Settings, log: Log) -> dict:
    """Wall and CPU seconds (user + system, of the child) of each call.  The child writes and
    reads its modules' bytecode as an installed package does: PYTHONDONTWRITEBYTECODE, if
    set here, is not passed on (else every call compiles the package's modules again)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["GROUNDED_CACHE_DIR"] = str(tmp / "cache")
    tiny = tmp / "tiny.jsonl"
    write_log(tiny, {"grounded": 1, **HEADER},
              [{"turn": 1, "speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]}])

    def run(log_path: Path, literal: str) -> tuple[float, float]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "grounded", "verify", str(log_path), literal],
                              capture_output=True, text=True, env=env, timeout=3600)
        took = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1):
            raise RuntimeError(f"grounded verify failed: {done.stderr}")
        return took, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    Path(str(path) + ".snapshot").unlink(missing_ok=True)
    run(tiny, "o1")  # the package's bytecode written, as after an install
    cold = run(path, claim)
    warm = [run(path, claim) for _ in range(settings.cli_calls)]
    start = [run(tiny, "o1") for _ in range(settings.cli_calls)]
    log("cli: done")
    return {"cold_s": cold[0], "cold_cpu_s": cold[1],
            "warm_s": statistics.median(w for w, _ in warm), "warm_cpu_s": statistics.median(c for _, c in warm),
            "start_s": statistics.median(w for w, _ in start), "start_cpu_s": statistics.median(c for _, c in start),
            "snapshot_bytes": Path(str(path) + ".snapshot").stat().st_size, "log_bytes": path.stat().st_size}


# -- durability -------------------------------------------------------------------------

def measure_fsync(utterances: list[dict], tmp: Path, settings: Settings, log: Log) -> dict:
    stream = utterances[: settings.fsync_utterances]
    rates = {}
    for policy in ("none", "never", "batch", "always"):
        path = tmp / f"fsync-{policy}.jsonl"
        path.unlink(missing_ok=True)
        engine = Engine(HEADER) if policy == "none" else Engine(HEADER, log=path, fsync=policy)  # type: ignore[arg-type]
        start = time.perf_counter()
        for u in stream:
            engine.apply(u)
        engine.close()
        rates[policy] = len(stream) / (time.perf_counter() - start)
        log(f"fsync: {policy}")
    return {"utterances": len(stream), "per_second": rates,
            "slowdown": {p: rates["none"] / r for p, r in rates.items() if p != "none"}}


# -- the whole run -------------------------------------------------------------------------

def run(settings: Settings, log: Log = lambda line: None) -> dict:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        chosen = {k: v for k, v in settings.__dict__.items() if k != "extra"}
        if settings.deep_only:
            return {"settings": chosen,
                    "deep": [deep("chain", settings.depth, tmp, log), deep("wide", settings.depth, tmp, log)]}
        if settings.foreign_only:
            return {"settings": chosen,
                    "foreign": measure_foreign(settings.realistic, settings.rounds, settings.seed, tmp, log)}
        conv = build(settings.k, "naive", settings.seed)
        utterances = conv.history
        header = header_json(conv.engine.header, conv.engine.origin())
        conv.engine.close()
        del conv
        path = tmp / "naive.jsonl"
        write_log(path, header, utterances)
        log(f"stream: {len(utterances):,} utterances")
        result: dict = {"settings": chosen}
        result["bulk"] = measure_bulk(path, utterances, settings, log)
        result["live"] = measure_live(utterances, log)
        result["memory"] = measure_memory(path, log) if settings.memory else None
        stream = realistic(settings.realistic, settings.seed).history
        result["realistic"] = measure_realistic(settings.realistic, settings.seed, log, stream)
        result["realistic_logs"] = measure_realistic_logs(stream, tmp, log)
        del stream
        result["deep"] = [deep("chain", settings.depth, tmp, log), deep("wide", settings.depth, tmp, log)]
        claim = next(op["claim"] for u in reversed(utterances) for op in u["ops"] if op["op"] == "hypothesize")
        result["cli"] = measure_cli(path, claim, tmp, settings, log)
        result["fsync"] = measure_fsync(utterances, tmp, settings, log)
    return result


def markdown(result: dict) -> str:
    """The run's tables, then every check that did not hold."""
    if "foreign" in result:
        lines = _foreign_markdown(result["foreign"])
    elif "bulk" not in result:  # --deep-only
        lines = _deep_markdown(result)[1:]
    else:
        lines = _markdown(result)
    return "\n".join(lines + [f"\n**A check failed**: {m}" for m in failed_checks(result)])


def _markdown(result: dict) -> list[str]:
    b, lv = result["bulk"], result["live"]
    lines = [f"## Reading a log in bulk: `Engine.load` of {b['utterances']:,} utterances (naive stream)", "",
             markdown_table(["engine", "utterances/s (wall)", "utterances/s (CPU)"],
                            [[n, f"{b['per_second'][n]:,.0f}", f"{b['cpu_per_second'][n]:,.0f}"]
                             for n in ("grounded", "authors")]),
             "", f"grounded / authors (time): {b['ratio']:.1f}x; seconds per tenth of the log: "
                 + ", ".join(f"{t:.2f}" for t in b["tenths"]), "",
             f"## Live: `Engine.apply` of the same {lv['utterances']:,} utterances", "",
             f"{lv['per_second']:,.0f} utterances/s (wall), {lv['cpu_per_second']:,.0f} (CPU); seconds per "
             f"{lv['chunk']:,}: " + ", ".join(f"{t:.2f}" for t in lv["chunks"])
             + (f" (last / first: {lv['last_over_first']:.2f})" if lv["last_over_first"] else "")]
    mem = result.get("memory")
    if mem:
        mb = mem["bytes"]
        lines += ["", f"## Memory after {b['utterances']:,} utterances (a fresh interpreter per figure)", "",
                  markdown_table(["engine", "resident set growth, MB", "Python heap, MB", "RSS / authors",
                                  "heap / authors"],
                                 [[n, f"{mb[n]['rss'] / 2**20:.1f}", f"{mb[n]['heap'] / 2**20:.1f}",
                                   f"{mem['ratio'][n]['rss']:.2f}" if n in mem["ratio"] else "-",
                                   f"{mem['ratio'][n]['heap']:.2f}" if n in mem["ratio"] else "-"]
                                  for n in ("grounded", "grounded-load", "authors")])]
    r = result.get("realistic")
    if r:
        lines += ["", f"## Realistic: `Engine.apply` of a conversation of {r['utterances']:,} utterances "
                      "(every operation, competing hypotheses sharing questions, resolutions over dissent)", "",
                  "operations: " + ", ".join(f"{n} {c:,}" for n, c in sorted(r["ops"].items())), "",
                  f"{r['per_second']:,.0f} utterances/s; " + _tenths_line(r)]
    rl = result.get("realistic_logs")
    if rl:
        lines += ["", f"## Realistic logs read back: `Engine.load` of the {rl['utterances']:,} utterances", "",
                  markdown_table(["log", "utterances/s (wall)", "utterances/s (CPU)", "CPU us: rules + Python",
                                  "seconds per tenth", "last / first", "lines from the record"],
                                 [[label, f"{rl[k]['per_second']:,.0f}", f"{rl[k]['cpu_per_second']:,.0f}",
                                   f"{rl[k]['rules_us']:.1f} + {rl[k]['python_us']:.1f}",
                                   ", ".join(f"{t:.2f}" for t in rl[k]["tenths"]),
                                   f"{rl[k]['last_over_first']:.2f}" if rl[k]["last_over_first"] else "-",
                                   f"{rl[k]['bulk']:,}"]
                                  for label, k in (("written elsewhere (judged by the rules)", "foreign"),
                                                   ("written by the engine (its recorded effects)", "own"))]),
                  "", f"live `Engine.apply` writing the log and the record: {rl['live_logged_per_second']:,.0f} "
                      "utterances/s"]
    lines += _deep_markdown(result)
    c = result["cli"]
    lines += ["", "## `grounded verify` as a command on the stream's log", "",
              markdown_table(["call", "seconds (wall)", "seconds (CPU)"],
                             [[label, f"{c[key + '_s']:.2f}", f"{c[key + '_cpu_s']:.2f}"] for label, key in (
                                 ("first (replays the log, writes the snapshot)", "cold"),
                                 ("next (reads the snapshot)", "warm"),
                                 ("on a one-line log (interpreter and rules starting)", "start"))]),
              "", f"log {c['log_bytes'] / 2**20:.1f} MB, snapshot {c['snapshot_bytes'] / 2**20:.1f} MB."]
    f = result["fsync"]
    lines += ["", f"## Durability: live apply with an event log ({f['utterances']:,} utterances)", "",
              markdown_table(["log", "utterances/s", "slowdown"],
                             [[p if p != "none" else "no log", f"{r:,.0f}",
                               f"{f['slowdown'][p]:.2f}x" if p in f["slowdown"] else "-"]
                              for p, r in f["per_second"].items()])]
    return lines


def _foreign_markdown(f: dict) -> list[str]:
    """``--foreign-only``: one row per load, then each load's seconds per tenth."""
    rounds = f["rounds"]
    return [f"## A log written elsewhere: `Engine.load` of the realistic stream of {f['turns']:,} turns "
            f"({f['utterances']:,} utterances), every line judged by the rules", "",
            markdown_table(["load", "utterances/s (wall)", "utterances/s (CPU)", "CPU us per utterance",
                            "rules us", "Python us", "batches", "inferences per utterance", "last / first tenth"],
                           [[str(i), f"{r['per_second']:,.0f}", f"{r['cpu_per_second']:,.0f}", f"{r['cpu_us']:.1f}",
                             f"{r['rules_us']:.1f}", f"{r['python_us']:.1f}", f"{r['batches']:,}",
                             f"{r['inferences']:.0f}",
                             f"{r['last_over_first']:.2f}" if r["last_over_first"] else "-"]
                            for i, r in enumerate(rounds, 1)]), ""] + [
        f"load {i}: seconds per tenth: " + ", ".join(f"{t:.2f}" for t in r["tenths"]) for i, r in enumerate(rounds, 1)]


def _deep_markdown(result: dict) -> list[str]:
    """The deep inputs' section: its table and each input's tenths."""
    rows = [[d["kind"], f"{d['depth']:,}", f"{d['build_s']:.2f}", f"{d['per_hypothesize_us']:.0f}",
             f"{d['last_over_first']:.2f}", f"{d['cpu_last_over_first']:.2f}", f"{d['inferences_last_over_first']:.2f}",
             f"{d['verify_ms']:.1f}",
             f"{d['affected_ms']:.1f}", f"{d['load_s']:.2f}",
             f"{d['snapshot_read_s']:.2f}", f"{d['rules_restore_s']:.2f}"] for d in result["deep"]]
    lines = ["", "## Deep inputs: a Dep chain (each hypothesis rests on the one before) and a fan "
                 "(every hypothesis rests on o0), each hypothesis explaining the question q0, built live", "",
             markdown_table(["input", "hypotheses", "built in, s", "us per Hypothesize", "last / first tenth (wall)",
                             "last / first tenth (CPU)",
                             "inferences per operation, last / first tenth",
                             "Verify (top), ms", "Affected*(o0), ms", "Engine.load, s", "from the snapshot, s",
                             "next utterance (rules restored), s"], rows)]
    lines += [""] + [f"{d['kind']}: " + _tenths_line(d) for d in result["deep"]]
    return lines


def _tenths_line(found: dict) -> str:
    """The wall and CPU seconds, Python's full collections and the rules' inferences of each tenth, with
    last / first; a note when the wall seconds alone pass ``FLAT`` (the machine's other jobs)."""
    wall, cpu = found["last_over_first"], found["cpu_last_over_first"]
    note = (f" (wall above {FLAT} with CPU at or under it: other jobs on the machine)"
            if wall is not None and cpu is not None and wall > FLAT >= cpu else "")
    return ("seconds per tenth: " + ", ".join(f"{t:.2f}" for t in found["tenths"])
            + f" (last / first {wall:.2f}){note}; CPU seconds: " + ", ".join(f"{t:.2f}" for t in found["cpu_tenths"])
            + f" (last / first {cpu:.2f}); Python's full collections: "
            + ", ".join(f"{n} ({t:.2f} s)" for n, t in zip(found["full_collections"], found["collection_seconds"],
                                                            strict=True))
            + "; the rules' inferences per tenth: " + ", ".join(f"{n:,}" for n in found["inference_tenths"])
            + f" (per operation, last / first {found['inferences_last_over_first']:.2f})")
