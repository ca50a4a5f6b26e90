"""``python -m bench compare``: grounded beside its peers, interleaved, as ratios.

The peers:

* the paper authors' engine (``reference.py``: their dict walk, re-implemented
  with its source cited), the baseline of every query and ingestion figure;
* networkx: reachability (``nx.descendants``) for Affected*, the same walk
  down Dep for Verify;
* for Dung semantics on acyclic frameworks: our own ASP encodings on clingo,
  an ASPARTIX-style encoding on the same clingo (``aspartix.py``), and PyArg
  (python-argumentation), the last two in a subprocess with a time limit.

What is measured, on synthetic conversations of K turns fed through
``Engine.apply`` (``synthetic.py``: the naive regime; the realistic
stream, with every operation and competing hypotheses sharing questions;
and the deep one, the realistic stream with long support chains, which
alone fills the |A*| > 20 band and most of the 5+ witnesses);
the authors' engine is fed the same accepted utterances:

* Verify and Affected* per query, at equal answer size: a query enters a
  bucket (|A*| 0-1, 2-4, 5-20, > 20; a grounded witness of 1, 2-4 or 5+
  claims; not grounded) only when every peer's answer has that size, and
  ``check`` says which buckets meet issue 23's targets at every K and
  stream (grounded at most the authors' time, reading ``.reason`` at most
  1.5x).  ``grounded`` is the
  call users make (``Engine.verify``, ``Engine.affected``: the query walks, methods
  of the engine), ``walk`` the query function on the DependencyMap
  (``grounded.queries``: it wraps the map for that one question), ``+read`` the
  call and reading what the authors' engine returns (``.claims``, ``.chain``,
  ``.reason``), since our results are built lazily;
* ingestion: the same utterances replayed into a fresh engine of each kind;
* memory after the same utterances, in a fresh interpreter per engine
  (``footprint.py``): resident-set growth, and Python's heap by tracemalloc;
* the grounded extension, and the preferred ones, of random acyclic
  frameworks (``crosscheck.random_framework``), in CPU seconds of the process
  doing the work (``time.process_time``, clingo's threads included): these
  runs last up to seconds, long enough for other users of a shared machine to
  change their wall time several-fold.

Shared machines drift, so nothing is compared across time: in every round
each query is timed on every peer back to back, in a shuffled order, and the
figure reported is the median over queries and rounds of the per-query ratio
(peer time / authors' time); ingestion and Dung are ratios within a round,
medianed over rounds.  Each per-query time is a loop of ``repeat`` calls
after one untimed call.
"""

from __future__ import annotations

import gc
import json
import multiprocessing as mp
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx

from bench.checks import CheckFailed
from bench.footprint import measure_engines
from bench.latency import per_call
from bench.reference import ReferenceEngine
from bench.report import markdown_table
from grounded.core.vocabulary import GOOD_STANDING
from grounded.dung import Framework, extensions
from grounded.engine import Engine
from grounded.queries.affected import affected as affected_walk
from grounded.queries.verify import verify as verify_walk
from tests.synthetic import HEADER, Conversation, build, realistic

KS = (100, 1_000, 10_000, 100_000)
AF_SIZES = (100, 1_000, 10_000, 100_000)
AFFECTED_BANDS = ((0, 1), (2, 4), (5, 20), (21, None))
"""|A*| bands: (least, most), None for no upper bound."""
BUCKETS = ("Affected* |A*|=0-1", "Affected* |A*|=2-4", "Affected* |A*|=5-20", "Affected* |A*|>20",
           "Verify |Dep*|=1", "Verify |Dep*|=2-4", "Verify |Dep*|>=5", "Verify not grounded")
STREAMS = ("naive", "realistic", "deep")
DEEP_LINE = 12
"""Topics per line of the deep stream (``synthetic.realistic``'s ``depth``): witnesses of up to about
two dozen claims, and Affected* answers of dozens, short of the authors' recursive walk's depth limit."""
TARGET, REASON_TARGET = 1.0, 1.5
"""Issue 23: the ``Engine`` call at most the authors' time in every band; the call and reading ``.reason``
of a not-grounded answer at most 1.5x."""
QUERY_PEERS = ("authors", "grounded", "walk", "grounded+read", "networkx")


@dataclass
class Settings:
    ks: tuple[int, ...] = KS
    rounds: int = 5
    queries: int = 40
    """Queries per bucket and K (at most; fewer when the conversation has fewer)."""
    repeat: int = 200
    ingest: int = 10_000
    """Utterances replayed per ingestion round."""
    memory: int = 100_000
    """Utterances held when memory is measured."""
    af_sizes: tuple[int, ...] = AF_SIZES
    peer_limit: float = 30.0
    """Seconds a subprocess peer (ASPARTIX-style, PyArg) may take on one framework."""
    seed: int = 0
    streams: tuple[str, ...] = STREAMS
    """Conversations queried: ``synthetic.build`` (naive), ``synthetic.realistic`` (every operation), and the
    realistic stream in lines of ``DEEP_LINE`` topics each resting on the last (deep)."""
    queries_only: bool = False
    """Skip ingestion, memory and Dung semantics (the per-band query table and its check only)."""

    @classmethod
    def quick(cls) -> Settings:
        return cls(ks=(100, 1_000), rounds=2, queries=8, repeat=20, ingest=500, memory=500,
                   af_sizes=(100, 1_000), peer_limit=10.0)


# -- one conversation, in every engine -----------------------------------------------

@dataclass
class Subject:
    k: int
    stream: str
    conv: Conversation
    authors: ReferenceEngine
    dependents: nx.DiGraph  # literal -> claims resting on it
    rests_on: nx.DiGraph  # claim -> its Dep literals
    good: set[str]  # claims some argument in S_t makes
    buckets: dict[str, list[str]] = field(default_factory=dict)


def subject(k: int, seed: int, queries: int, stream: str = "naive") -> Subject:
    """One conversation of k turns in ``stream``, fed to every peer, and the queries drawn for each bucket."""
    if stream == "naive":
        conv = build(k, "naive", seed)
    elif stream in ("realistic", "deep"):
        conv = realistic(k, seed, DEEP_LINE if stream == "deep" else 0)
    else:
        raise ValueError(f"no stream {stream!r} (expected one of {', '.join(STREAMS)})")
    authors = ReferenceEngine()
    for u in conv.history:
        authors.apply(u)
    dm = conv.engine.state
    dependents, rests_on = nx.DiGraph(), nx.DiGraph()
    for r in dm.args:
        rests_on.add_node(r.claim)
        for d in r.deps:
            dependents.add_edge(d, r.claim)
            rests_on.add_edge(r.claim, d)
    good = {r.claim for r in dm.args if r.standing in GOOD_STANDING}
    s = Subject(k, stream, conv, authors, dependents, rests_on, good)
    rng = random.Random(seed + 1)
    claims = conv.claims or list(dict.fromkeys(r.claim for r in dm.args))  # the realistic stream lists none
    picks = list(dict.fromkeys(rng.choice(claims) for _ in range(20 * queries)))
    # the long answers are few: every literal with more than 4 dependents is a candidate
    picks += [p for p in dict.fromkeys(dependents.nodes) if dependents.out_degree(p) > 4]
    for p in picks:
        for bucket in _buckets(s, p):
            chosen = s.buckets.setdefault(bucket, [])
            if len(chosen) < queries:
                chosen.append(p)
    return s


def nx_affected(g: nx.DiGraph, p: str) -> list[str]:
    return sorted(nx.descendants(g, p)) if p in g else []


def nx_verify(g: nx.DiGraph, good: set[str], claim: str) -> list[str] | None:
    """The claims under ``claim`` down Dep when each is made by an argument in S_t, else None."""
    if claim not in good:
        return None
    below = nx.descendants(g, claim)
    return None if not below <= good else [claim, *below]


def _buckets(s: Subject, p: str) -> list[str]:
    """The buckets query p belongs to: where every peer's answer has the same size."""
    engine, found = s.conv.engine, []
    sizes = {len(engine.affected(p).claims), len(s.authors.affected_closure(p)), len(nx_affected(s.dependents, p))}
    if len(sizes) == 1:
        found.append(affected_band(sizes.pop()))
    v = engine.verify(p)
    status, chain = s.authors.verify(p)
    walked = nx_verify(s.rests_on, s.good, p)
    if not v.grounded and status != "grounded" and walked is None:
        found.append("Verify not grounded")
    elif v.grounded and status == "grounded" and walked is not None:
        sizes = {len(v.chain), len(chain), len(walked)}
        if len(sizes) == 1:
            n = sizes.pop()
            found.append(BUCKETS[4] if n == 1 else BUCKETS[5] if n <= 4 else BUCKETS[6])
    return found


def affected_band(n: int) -> str:
    """The Affected* bucket of an answer of n claims."""
    for (_, most), bucket in zip(AFFECTED_BANDS, BUCKETS, strict=False):
        if most is None or n <= most:
            return bucket
    raise AssertionError(n)  # the last band has no upper bound


def _calls(s: Subject, bucket: str, p: str) -> dict[str, Callable[[], object]]:
    """What each peer runs for query p: ``grounded`` is Engine's method, ``walk`` the query function itself."""
    engine, authors, dm = s.conv.engine, s.authors, s.conv.engine.state
    if bucket.startswith("Affected"):
        return {"authors": lambda: authors.affected_closure(p), "grounded": lambda: engine.affected(p),
                "walk": lambda: affected_walk(dm, p), "grounded+read": lambda: engine.affected(p).claims,
                "networkx": lambda: nx_affected(s.dependents, p)}
    if bucket == "Verify not grounded":  # the authors' answer carries its reason; ours finds it when read
        read: Callable[[], object] = lambda: engine.verify(p).reason  # noqa: E731
    else:
        read = lambda: engine.verify(p).chain  # noqa: E731
    return {"authors": lambda: authors.verify(p), "grounded": lambda: engine.verify(p),
            "walk": lambda: verify_walk(dm, p), "grounded+read": read,
            "networkx": lambda: nx_verify(s.rests_on, s.good, p)}


def measure_queries(subjects: list[Subject], settings: Settings, log: Callable[[str], None]) -> list[dict]:
    """Per K and bucket: median microseconds per peer, and medians of per-query ratios to the authors'."""
    times: dict[tuple[str, int, str], dict[str, list[float]]] = {}
    ratios: dict[tuple[str, int, str], dict[str, list[float]]] = {}
    rng = random.Random(settings.seed)
    for r in range(settings.rounds):
        work = [(s, b, p) for s in subjects for b, ps in s.buckets.items() for p in ps]
        rng.shuffle(work)
        for s, bucket, p in work:
            calls = list(_calls(s, bucket, p).items())
            rng.shuffle(calls)
            took = {name: per_call(fn, settings.repeat)[0] for name, fn in calls}
            key = (s.stream, s.k, bucket)
            for name, t in took.items():
                times.setdefault(key, {}).setdefault(name, []).append(t)
                ratios.setdefault(key, {}).setdefault(name, []).append(t / took["authors"])
        log(f"queries: round {r + 1}/{settings.rounds}")
    rows = []
    for s in subjects:
        for bucket in BUCKETS:
            key = (s.stream, s.k, bucket)
            if key not in times:
                continue
            rows.append({"stream": s.stream, "k": s.k, "bucket": bucket, "queries": len(s.buckets[bucket]),
                         "us": {n: statistics.median(v) * 1e6 for n, v in times[key].items()},
                         "ratio": {n: statistics.median(v) for n, v in ratios[key].items() if n != "authors"}})
    return rows


# -- ingestion and memory ------------------------------------------------------------

def measure_ingestion(history: list[dict], settings: Settings, log: Callable[[str], None]) -> dict:
    """The same utterances into a fresh engine of each kind, alternating; utterances per second."""
    stream = history[: settings.ingest]
    rates: dict[str, list[float]] = {"grounded": [], "authors": []}
    ratios = []
    for r in range(settings.rounds):
        took = {}
        order = ["grounded", "authors"] if r % 2 == 0 else ["authors", "grounded"]
        for name in order:
            gc.collect()
            if name == "grounded":
                engine = Engine(HEADER)
                start = time.perf_counter()
                for u in stream:
                    engine.apply(u)
                took[name] = time.perf_counter() - start
                engine.close()
            else:
                authors = ReferenceEngine()
                start = time.perf_counter()
                for u in stream:
                    authors.apply(u)
                took[name] = time.perf_counter() - start
            rates[name].append(len(stream) / took[name])
        ratios.append(took["grounded"] / took["authors"])
        log(f"ingestion: round {r + 1}/{settings.rounds}")
    return {"utterances": len(stream), "per_second": {n: statistics.median(v) for n, v in rates.items()},
            "ratio": statistics.median(ratios)}


def measure_memory(history: list[dict], settings: Settings, log: Callable[[str], None]) -> dict:
    """Resident-set growth and Python heap after the same utterances, each engine in a fresh interpreter."""
    stream = history[: settings.memory]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "utterances.jsonl"
        path.write_text("".join(json.dumps(u) + "\n" for u in stream))
        found = measure_engines(path, ("grounded", "authors"), log)
    return {"utterances": len(stream), "bytes": found,
            "ratio": {mode: found["grounded"][mode] / max(1, found["authors"][mode]) for mode in ("rss", "heap")}}


# -- Dung semantics on acyclic frameworks ----------------------------------------------

def _aspartix(af: Framework) -> tuple[float, frozenset[int]]:
    """The ASPARTIX-style encoding, timed as ours: program text, parsing, grounding, solving."""
    from bench.aspartix import GROUNDED
    from grounded.dung.facts import framework_program, members
    from grounded.solvers.asp import new_control

    start = time.process_time()
    ctl = new_control()
    ctl.add("base", [], GROUNDED + framework_program(af))
    ctl.ground([("base", [])])
    found: list[frozenset[int]] = []
    ctl.solve(on_model=lambda m: found.append(members(m)))
    return time.process_time() - start, found[0]


def _py_arg(af: Framework) -> tuple[float, frozenset[int]]:
    """PyArg's grounded extension, timed without the conversion to its classes."""
    from py_arg.algorithms.semantics.get_grounded_extension import get_grounded_extension

    from tests.pyarg import from_py_arg_extensions, to_py_arg

    converted = to_py_arg(af)
    start = time.process_time()
    found = get_grounded_extension(converted)
    seconds = time.process_time() - start
    (ext,) = from_py_arg_extensions([found])
    return seconds, ext


def _worker(name: str, af: Framework, queue: mp.Queue) -> None:
    sys.setrecursionlimit(max(10_000, 4 * len(af)))
    try:
        seconds, ext = (_aspartix if name == "ASPARTIX-style" else _py_arg)(af)
        queue.put(("ok", seconds, sorted(ext)))
    except BaseException as exc:  # noqa: BLE001 - reported in the table
        queue.put(("error", 0.0, type(exc).__name__))


def in_subprocess(name: str, af: Framework, limit: float) -> tuple[float | None, object]:
    """(seconds, extension) of a peer run in a forked process, or (None, why) past the limit."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_worker, args=(name, af, queue))
    proc.start()
    proc.join(limit)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return None, f"> {limit:.0f} s"
    status, seconds, detail = queue.get()
    return (seconds, frozenset(detail)) if status == "ok" else (None, f"failed: {detail}")


def measure_dung(settings: Settings, log: Callable[[str], None]) -> list[dict]:
    """Grounded (and preferred) extensions of random acyclic frameworks: seconds, and ratios to the labelling."""
    from bench.crosscheck import random_framework

    rows = []
    given_up: dict[str, int] = {}  # subprocess peer -> the size at which it passed the time limit
    rng = random.Random(settings.seed)
    rounds = max(1, min(settings.rounds, 3))
    for n in settings.af_sizes:
        af = random_framework(n, settings.seed + n)
        seconds: dict[str, list[float]] = {}
        ratios: dict[str, list[float]] = {}
        notes = {p: f"not run (> {settings.peer_limit:.0f} s at {given_up[p]:,})" for p in given_up}
        slow: set[str] = set()  # subprocess peers timed once only at this size: a run took a quarter of the limit
        truth: frozenset[int] | None = None
        for _ in range(rounds):
            peers = _dung_peers(af, settings.peer_limit,
                                [p for p in SUBPROCESS_PEERS if p not in given_up and p not in slow])
            took: dict[str, float] = {}
            for name, run in rng.sample(list(peers.items()), len(peers)):
                t, ext = run()
                if t is None:
                    notes[name] = str(ext)
                    given_up[name] = n
                    continue
                if name in SUBPROCESS_PEERS and t > settings.peer_limit / 4:
                    slow.add(name)
                assert isinstance(ext, frozenset)
                truth = ext if truth is None else truth
                if ext != truth:
                    raise CheckFailed(f"{name} disagrees on the framework of {n} arguments")
                took[name] = t
            for name, t in took.items():
                seconds.setdefault(name, []).append(t)
                ratios.setdefault(name, []).append(t / took["labelling"])
        rows.append({"n": n, "attacks": len(af.attacks), "in": len(truth or ()),
                     "seconds": {k: statistics.median(v) for k, v in seconds.items()},
                     "ratio": {k: statistics.median(v) for k, v in ratios.items() if k != "labelling"},
                     "notes": notes})
        log(f"dung: {n} arguments")
    return rows


SUBPROCESS_PEERS = ("ASPARTIX-style", "PyArg")


def _dung_peers(af: Framework, limit: float, subprocess_peers: list[str]
                ) -> dict[str, Callable[[], tuple[float | None, object]]]:
    """Each peer as a call giving (seconds or None when it gave up, the extension or why not)."""
    peers: dict[str, Callable[[], tuple[float | None, object]]] = {
        "labelling": lambda: _timed(lambda: extensions(af, "grounded")[0]),
        "labelling, preferred": lambda: _timed(lambda: extensions(af, "preferred")[0]),
        "clingo (ours)": lambda: _timed(lambda: extensions(af, "grounded", fast=False)[0]),
        "clingo (ours), preferred": lambda: _timed(lambda: extensions(af, "preferred", fast=False)[0]),
    }
    for name in subprocess_peers:
        peers[name] = lambda name=name: in_subprocess(name, af, limit)  # type: ignore[misc]
    return peers


def _timed(fn: Callable[[], object]) -> tuple[float | None, object]:
    gc.collect()
    start = time.process_time()
    value = fn()
    return time.process_time() - start, value


# -- the whole run -------------------------------------------------------------------

def run(settings: Settings, log: Callable[[str], None] = lambda line: None) -> dict:
    subjects = []
    for stream in settings.streams:
        for k in settings.ks:
            subjects.append(subject(k, settings.seed, settings.queries, stream))
            log(f"built {stream} K={k:,}: {len(subjects[-1].conv.engine.state.args):,} arguments")
    queries = measure_queries(subjects, settings, log)
    naive = [s for s in subjects if s.stream == "naive"]
    history = max(naive, key=lambda s: s.k).conv.history if naive else []
    for s in subjects:
        s.conv.engine.close()
    del subjects, naive
    if settings.queries_only:
        return {"settings": settings.__dict__, "queries": queries, "check": check(queries)}
    if len(history) < settings.memory:  # the memory figure wants more utterances than the largest K made
        history = build(settings.memory, "naive", settings.seed).history
    ingestion = measure_ingestion(history, settings, log)
    memory = measure_memory(history, settings, log)
    dung = measure_dung(settings, log)
    return {"settings": settings.__dict__, "queries": queries, "check": check(queries), "ingestion": ingestion,
            "memory": memory, "dung": dung}


def check(rows: list[dict]) -> list[dict]:
    """Per bucket, over every stream and K: the largest ratio of the ``Engine`` call (target ``TARGET``) and
    of the call with the answer read (the target only for ``.reason``: ``REASON_TARGET``; the other reads
    are shown, since our answers make what is read when it is read)."""
    found = []
    for bucket in BUCKETS:
        mine = [r for r in rows if r["bucket"] == bucket]
        if not mine:
            continue
        call = max(r["ratio"]["grounded"] for r in mine)
        read = max(r["ratio"]["grounded+read"] for r in mine)
        reason = bucket == "Verify not grounded"
        found.append({"bucket": bucket, "rows": len(mine), "call": call, "read": read,
                      "read_target": REASON_TARGET if reason else None,
                      "met": call <= TARGET and (not reason or read <= REASON_TARGET)})
    return found


def markdown(result: dict) -> str:
    st = result["settings"]
    lines = [f"## Queries: microseconds per call, and ratios to the authors' engine "
             f"(medians of per-query ratios over {st['rounds']} interleaved rounds, {st['repeat']} calls per time)",
             ""]
    rows = [[r["stream"], f"{r['k']:,}", r["bucket"], r["queries"], *(f"{r['us'][p]:.2f}" for p in QUERY_PEERS),
             *(f"{r['ratio'][p]:.2f}" for p in QUERY_PEERS[1:])] for r in result["queries"]]
    lines.append(markdown_table(["stream", "K", "answer", "queries", "authors us", "grounded us", "walk us", "+read us",
                                 "networkx us", "grounded / authors", "walk / authors", "+read / authors",
                                 "networkx / authors"], rows, align="llllrrrrrrrrr"))
    if result["queries"]:
        worst = {p: _worst(result["queries"], p) for p in QUERY_PEERS[1:4]}
        lines += ["", "Largest ratio to the authors' engine: " + "; ".join(
            f"{p} {w['ratio'][p]:.2f} ({w['bucket']}, {w['stream']} K={w['k']:,})" for p, w in worst.items()) + "."]
        lines += ["", check_markdown(result["check"])]
    if "ingestion" not in result:  # --queries-only
        return "\n".join(lines)
    ing = result["ingestion"]
    lines += ["", f"## Ingestion: {ing['utterances']:,} utterances replayed into a fresh engine "
                  f"(medians over {st['rounds']} alternating rounds)", "",
              markdown_table(["engine", "utterances/s"],
                             [[n, f"{v:,.0f}"] for n, v in ing["per_second"].items()]),
              "", f"grounded takes {ing['ratio']:.1f}x the authors' engine's time (median of per-round ratios)."]
    mem = result["memory"]
    mb = mem["bytes"]
    lines += ["", f"## Memory after {mem['utterances']:,} utterances (a fresh interpreter per figure)", "",
              markdown_table(["engine", "resident set growth, MB", "Python heap (tracemalloc), MB"],
                             [[n, f"{v['rss'] / 2**20:.1f}", f"{v['heap'] / 2**20:.1f}"] for n, v in mb.items()]),
              "", f"grounded / authors: {mem['ratio']['rss']:.2f}x (resident set), "
                  f"{mem['ratio']['heap']:.2f}x (Python heap)."]
    lines += ["", "## Dung semantics on random acyclic frameworks: CPU milliseconds (medians), "
                  "and ratios to the labelling", ""]
    peers = ("labelling", "labelling, preferred", "clingo (ours)", "clingo (ours), preferred", "ASPARTIX-style",
             "PyArg")
    rows = []
    for r in result["dung"]:
        cells = []
        for p in peers:
            if p in r["seconds"]:
                ratio = f" ({r['ratio'][p]:,.1f}x)" if p in r["ratio"] else ""
                cells.append(f"{_ms(r['seconds'][p])}{ratio}")
            else:
                cells.append(r["notes"].get(p, "-"))
        rows.append([f"{r['n']:,}", f"{r['attacks']:,}", f"{r['in']:,}", *cells])
    lines.append(markdown_table(["arguments", "attacks", "grounded ext.", "labelling (grounded)",
                                 "labelling (preferred)", "clingo grounded", "clingo preferred (domRec)",
                                 "ASPARTIX-style grounded", "PyArg grounded"], rows))
    return "\n".join(lines)


def check_markdown(found: list[dict]) -> str:
    """The target check as a table: which buckets meet issue 23's targets at every stream and K."""
    rows = [[f["bucket"], f["rows"], f"{f['call']:.2f}",
             f"{f['read']:.2f}" + ("" if f["read_target"] is None else f" (<= {f['read_target']:.1f})"),
             "met" if f["met"] else "NOT met"] for f in found]
    return "\n".join([f"### Target: the Engine call <= {TARGET:.1f}x the authors' per bucket, with .reason read "
                      f"<= {REASON_TARGET:.1f}x; the largest median over streams and K", "",
                      markdown_table(["answer", "stream x K rows", "Engine call, largest", "+read, largest",
                                      "target"], [[str(c) for c in r] for r in rows], align="lrrrl")])


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:,.0f}" if ms >= 100 else f"{ms:.3g}"


def _worst(rows: list[dict], peer: str) -> dict:
    """The row where ``peer`` is slowest against the authors' engine."""
    return max(rows, key=lambda r: r["ratio"][peer])
