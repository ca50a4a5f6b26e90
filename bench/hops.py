"""``python -m bench hops``: how many of grounded's files two paths pass through, and how often they change file.

The two paths are an HTTP POST of an utterance through the service (the application in this process, on a
SQLite store, through Starlette's test client: the routes, the host's queue, the store and the engine, the
network left out) and ``grounded verify LOG c1`` (the command's entry point run in this process, on a log of
a few utterances, twice: with the snapshot a first call wrote beside it, and without it, when the log
is read from the effects recorded beside it).  Each is run once untraced first, so that what it imports
lazily is imported, then once traced with ``sys.setprofile`` (and ``threading.setprofile`` for the
service's engine thread): every Python call whose code lives under ``src/grounded`` is kept, per thread,
in order.

Two figures per path: **files**, the distinct files of grounded entered; **hops**, the calls whose file is
not the file of the thread's previous call into grounded (one module handing work to another).  Calls into
other packages (pydantic, Starlette, the standard library) are neither counted nor break a run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import grounded

ROOT = str(Path(grounded.__file__).resolve().parent)


@dataclass
class Trace:
    """The grounded calls of one traced run, per thread: each a (file, function) in order."""

    calls: dict[int, list[tuple[str, str]]] = field(default_factory=dict)

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        path = frame.f_code.co_filename
        if path.startswith(ROOT):
            self.calls.setdefault(threading.get_ident(), []).append((path[len(ROOT) + 1:], frame.f_code.co_name))

    def files(self) -> list[str]:
        return sorted({f for calls in self.calls.values() for f, _ in calls})

    def hops(self) -> list[tuple[str, str]]:
        """Each change of file, thread by thread: (file left, file entered with its function)."""
        out = []
        for calls in self.calls.values():
            last = None
            for f, name in calls:
                if last is not None and f != last:
                    out.append((last, f"{f}:{name}"))
                last = f
        return out


@contextmanager
def traced() -> Iterator[Trace]:
    trace = Trace()
    threading.setprofile(trace.profile)
    sys.setprofile(trace.profile)
    try:
        yield trace
    finally:
        sys.setprofile(None)
        threading.setprofile(None)


def http_append(work: Path) -> Trace:
    """One POST /v1/conversations/{id}/utterances, traced on the engine thread and the request's."""
    from starlette.testclient import TestClient

    from grounded.service.api import create_app
    from grounded.service.settings import Settings
    from grounded.service.store import create_key

    db = str(work / "hops.db")
    key = create_key(db, "t")
    said = [{"speaker": "ann", "ops": [{"op": "observe", "claim": f"o{i}", "text": f"observation {i}"}]}
            for i in range(1, 4)]
    trace = Trace()
    # The engines' thread starts with the application: it is profiled from its start, and only the
    # traced request's calls are kept.
    armed = [False]

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if armed[0]:
            trace.profile(frame, event, arg)

    threading.setprofile(profile)
    try:
        with TestClient(create_app(Settings(db=db, quiet=True))) as client:
            headers = {"Authorization": f"Bearer {key}"}
            client.post("/v1/conversations", json={"id": "c", "header": {"agents": {"ann": {"authority": True}}}},
                        headers=headers).raise_for_status()
            for u in said[:2]:  # what the route imports and caches is in place before the traced one
                client.post("/v1/conversations/c/utterances", json=u, headers=headers).raise_for_status()
            sys.setprofile(profile)
            armed[0] = True
            reply = client.post("/v1/conversations/c/utterances", json=said[2], headers=headers)
            armed[0] = False
            sys.setprofile(None)
            reply.raise_for_status()
    finally:
        threading.setprofile(None)
    return trace


def cli_verify(work: Path, snapshot: bool = True) -> Trace:
    """``grounded verify LOG c1`` on a log of three utterances: as a second call finds it, the snapshot the
    first wrote beside it, or (``snapshot=False``) as a first call, the log read from the effects recorded
    beside it."""
    from grounded.engine import Engine
    from tests.inprocess import run_cli

    log = work / "hops.jsonl"
    engine = Engine({"agents": {"ann": {"authority": True}}}, log=log)
    engine.apply({"speaker": "ann", "ops": [{"op": "observe", "claim": "c0"}]})
    engine.apply({"speaker": "ann", "ops": [{"op": "hypothesize", "claim": "c1", "deps": ["c0"]}]})
    engine.apply({"speaker": "ann", "ops": [{"op": "observe", "claim": "c2"}]})
    engine.close()
    code, _, err = run_cli("verify", log, "c1")  # the first run imports what the command imports lazily
    assert code == 0, err
    if not snapshot:
        Path(f"{log}.snapshot").unlink()
    with traced() as trace:
        code, _, err = run_cli("verify", log, "c1")
    assert code == 0, err
    return trace


PATHS: dict[str, Callable[[Path], Trace]] = {
    "http append": http_append, "cli verify": cli_verify,
    "cli verify, no snapshot": lambda work: cli_verify(work, snapshot=False)}


def measure(name: str) -> dict[str, Any]:
    """One path's files and hops, and the hops themselves in order."""
    with tempfile.TemporaryDirectory() as work:
        trace = PATHS[name](Path(work))
    hops = trace.hops()
    return {"files": len(trace.files()), "hops": len(hops), "file_list": trace.files(),
            "hop_list": [f"{a} -> {b}" for a, b in hops]}


def run(show: bool = False) -> dict[str, dict[str, Any]]:
    """Each path measured in a process of its own (SWI-Prolog stays on the thread that started it: the service's
    engine thread for one, the main thread for the other); the hops listed only when ``show``."""
    out: dict[str, dict[str, Any]] = {}
    for name in PATHS:
        done = subprocess.run([sys.executable, "-m", "bench.hops", name], capture_output=True, text=True, check=False,
                              timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"bench hops: {name} failed: {done.stderr[-2000:]}")
        out[name] = json.loads(done.stdout)
        if not show:
            del out[name]["hop_list"]
    return out


def markdown(result: dict[str, dict[str, Any]]) -> str:
    lines = ["| path | files of src/grounded entered | module hops |", "| --- | ---: | ---: |"]
    lines += [f"| {name} | {r['files']} | {r['hops']} |" for name, r in result.items() if isinstance(r, dict)]
    return "\n".join(lines)


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1])))
