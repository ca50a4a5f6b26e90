"""Verify by text off the event loop: a pool of reader processes, a per-tenant limit, a deadline.

Reading a continuation's text (its clauses, each covered against the
grounded claims through WordNet) costs CPU in proportion to the text and the
claims: on a large conversation, seconds for a long text.  On the event loop that would hold
every other tenant's requests; in a thread of the server process it would
still take the GIL from the loop.  So it runs in worker processes, started
with ``spawn`` (the server process holds SWI-Prolog and a running loop,
which a fork would copy half-way) and, once started, at the lowest CPU
priority (``SCHED_IDLE``), so that on a machine with as many cores as busy
readers the loop's cheap requests still get the CPU first.

What a reading needs is the conversation's dependency map (plain Python
data) as it is when the request is answered: a child forked at that moment
pickles it into a file (``pickler.py``: the loop pays for the fork, not for
the pickling), so no append can change it half-way; a pickled state is kept
per (conversation, length), the version an append moves on.  The reader
rebuilds a ``StateView`` (Verify without Prolog) and reads.  The readers, their
turns per tenant and their deadline are ``readerpool.py``'s.

Three bounds keep one tenant from taking the service (values in
``Settings``, docs/serve.md):

* ``max_text``: a longer text is refused before anything is read (413);
* ``reads_per_tenant``: readings of one tenant in flight at once; one more is
  refused with 429 and ``Retry-After``; a slot is freed when the worker is done
  with the reading, not when its caller stops waiting;
* ``read_deadline``: seconds from the request to its answer; past it the
  caller gets 504 naming the deadline, and the worker stops between two
  clauses (or does not start a reading whose deadline has passed in the queue);
  a reader that has not stopped soon after is killed and replaced.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import shutil
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from grounded.core.cited import CitedContinuation
from grounded.dmap.state import DependencyMap
from grounded.service.errors import Busy, DeadlineExceeded, TooLarge
from grounded.service.lifeline import end_with_parent
from grounded.service.pickler import pickle_in_child
from grounded.service.readerpool import ReaderPool, Task

NICE = 19
"""How much lower the readers' CPU priority is than the server's (Linux nice increment: the lowest)."""
STARTUP = 120.0
"""Seconds the first reading waits for the reader processes to start (importing torch, loading the model)."""
PICKLED_STATES = 16
"""Pickled states kept (files, per server process) for the next reading of the same conversation version."""


@dataclass(frozen=True, slots=True)
class ReadingLimits:
    max_text: int
    workers: int
    per_tenant: int
    deadline: float


@dataclass(frozen=True, slots=True)
class Reading:
    """A text reading's inputs, taken on the engines' thread: who asks, and the state as of now."""

    tenant: str
    version: tuple[str, str, int]
    """(tenant, conversation id, length): ids are per tenant, and the state changes only when the length does."""
    state: DependencyMap


def check_text(text: str, limit: int) -> None:
    """A text over ``limit`` characters is refused (413) before anything reads it."""
    if len(text) > limit:
        raise TooLarge(f"text: {len(text)} characters, over the bound of {limit} (max_text, docs/serve.md)",
                       field="text", bound=limit)


class TextReaders:
    """The process's readers (``readerpool.py``, started at the first reading), each tenant's readings in flight,
    and the pickled states they read (files, made by a forked child: ``pickler.py``)."""

    def __init__(self, limits: ReadingLimits):
        self.limits = limits
        self._pool: ReaderPool | None = None
        self._in_flight: dict[str, int] = {}
        self._pickled: OrderedDict[tuple[str, str, int], asyncio.Future[str]] = OrderedDict()
        self._users: dict[str, int] = {}
        """Readings in flight by state file: a file is removed only when no reading will open it."""
        self._dir: str | None = None

    def check(self, text: str) -> None:
        check_text(text, self.limits.max_text)

    def pids(self) -> list[int]:
        """The reader processes' ids."""
        return [] if self._pool is None else self._pool.pids()

    async def verify(self, reading: Reading, text: str, at: int | None, threshold: float | None) -> dict[str, Any]:
        """The verdict on ``text`` (``TextVerdict.to_json``), read in a worker; Busy, DeadlineExceeded."""
        return await self._read(reading, read, text, at, threshold)

    async def verify_cited(self, reading: Reading, cited: CitedContinuation, at: int | None,
                           threshold: float | None) -> dict[str, Any]:
        """The verdict on a cited continuation (``CitedVerdict.to_json``): its text is read in a worker too."""
        return await self._read(reading, read_cited, cited.model_dump(), at, threshold)

    async def _read(self, reading: Reading, job: Callable[..., dict[str, Any]], what: Any, at: int | None,
                    threshold: float | None) -> dict[str, Any]:
        """``job(state, what, at, threshold, deadline)`` in a reader, within the tenant's limit and the deadline."""
        tenant = reading.tenant
        if self._in_flight.get(tenant, 0) >= self.limits.per_tenant:
            raise Busy(f"tenant {tenant} has {self.limits.per_tenant} text readings in flight, the most it may "
                       f"(reads_per_tenant); retry after the Retry-After seconds", retry_after=1,
                       bound=self.limits.per_tenant)
        self._in_flight[tenant] = self._in_flight.get(tenant, 0) + 1
        path: str | None = None
        try:
            made = self._state_file(reading)  # forked now: no append can move the state it pickles
            pool = await self._started()
            deadline = time.monotonic() + self.limits.deadline  # CLOCK_MONOTONIC: one clock for the machine
            # the child pickles while the loop goes on: only this reading waits for it
            path = await asyncio.wait_for(asyncio.shield(made), max(0.0, deadline - time.monotonic()))
            self._users[path] = self._users.get(path, 0) + 1
            future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            pool.submit(Task(tenant, job, (path, what, at, threshold), deadline, future))
        except BaseException as exc:
            self._done(tenant, path)
            if isinstance(exc, TimeoutError):
                raise self._late() from exc
            raise
        try:
            return await future
        except (TimeoutError, DeadlineExceeded) as exc:  # the pool's deadline or the reader's own: one answer
            raise self._late() from exc

    async def _started(self) -> ReaderPool:
        """The pool, a reader up (the reader imported, WordNet opened): started at the first reading,
        which waits for it (at most STARTUP seconds) before its own deadline starts."""
        if self._pool is None:
            self._pool = ReaderPool(self.limits.workers, _serve, self._finished)
        await self._pool.started(STARTUP)
        return self._pool

    def _finished(self, task: Task) -> None:
        """A reading left its reader (answered, failed or killed) or its queue: the tenant's slot is free."""
        self._done(task.tenant, task.args[0])

    def _done(self, tenant: str, path: str | None) -> None:
        n = self._in_flight.get(tenant, 0) - 1
        if n > 0:
            self._in_flight[tenant] = n
        else:
            self._in_flight.pop(tenant, None)
        if path is not None:
            self._users[path] -= 1
            if not self._users[path]:
                del self._users[path]
                if path not in (_made(f) for f in self._pickled.values()):
                    _unlink(path)

    def _late(self) -> DeadlineExceeded:
        return DeadlineExceeded(f"reading the text took longer than the deadline of {self.limits.deadline:g} s "
                                f"(read_deadline); send a shorter text", deadline=self.limits.deadline)

    def _state_file(self, reading: Reading) -> asyncio.Future[str]:
        """The file holding the state of ``reading.version``: pickled once per version, by a child forked at
        the first call for it (so as of now); a failed one is tried again."""
        made = self._pickled.get(reading.version)
        if made is None or (made.done() and made.exception() is not None):
            self._dir = self._dir or tempfile.mkdtemp(prefix="grounded-states-")
            made = asyncio.ensure_future(pickle_in_child(reading.state, self._dir))
            self._pickled[reading.version] = made
            while len(self._pickled) > PICKLED_STATES:
                _, old = self._pickled.popitem(last=False)
                old.add_done_callback(self._dropped)
        else:
            self._pickled.move_to_end(reading.version)
        return made

    def _dropped(self, made: asyncio.Future[str]) -> None:
        """A state no longer kept: its file goes once no reading will open it."""
        path = _made(made)
        if path is not None and path not in self._users:
            _unlink(path)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def _made(made: asyncio.Future[str]) -> str | None:
    """The file a pickling made, None while it runs or if it failed."""
    return made.result() if made.done() and not made.cancelled() and made.exception() is None else None


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _serve(conn: Connection, later: bool) -> None:
    """A reader process: started (``_start_worker``), it says so, then runs one reading at a time until its
    server closes the pipe.  A job's answer or its error goes back; the last state read is kept for the next."""
    _start_worker(later)
    conn.send(("ready", os.getpid()))
    kept: tuple[str, Any] | None = None
    while True:
        try:
            job, path, what, at, threshold, deadline = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        try:
            if kept is None or kept[0] != path:
                with open(path, "rb") as f:
                    kept = (path, pickle.load(f))
            answer: tuple[str, Any] = ("done", job(kept[1], what, at, threshold, deadline))
        except Exception as exc:  # noqa: BLE001 - handed to the caller, who reports it
            answer = ("error", exc)
        try:
            conn.send(answer)
        except (pickle.PicklingError, TypeError, AttributeError):
            conn.send(("error", RuntimeError(f"{type(answer[1]).__name__}: {answer[1]}")))


def _start_worker(later: bool = False) -> None:
    """A reader process: lower priority than the server; the reader imported and WordNet opened before the
    first text, not on its time (at full priority for the first readers: the server waits for them;
    ``later``, a spare or a replacement, at the lowest from the start: nothing waits on it).

    A reader ends with its server, however the server ends (kill -9 included): a spawned reader holds its
    pipe open itself, so without the lifeline it would wait on it forever.
    """
    end_with_parent()
    if later:
        _yield_cpu()
    import grounded.interpreter.anchor  # noqa: F401
    from grounded.interpreter.wordnet import lexicon

    lexicon().bases("ready")
    _yield_cpu()  # again (later): the threads the imports started


def _yield_cpu() -> None:
    """From now on this process runs only when nothing else wants the CPU: SCHED_IDLE where Linux has it (a
    request's process woken by the network preempts a reader at once; a lower nice value alone leaves it
    waiting out the reader's time slice, which showed as a p99 twice the idle one), else the lowest priority."""
    os.nice(NICE)
    if hasattr(os, "sched_setscheduler"):
        # Linux schedules threads, not processes: every thread the process has now (BLAS's pool, started
        # when NumPy was imported, spins on a core of its own between two products) is put at SCHED_IDLE,
        # and threads started later inherit it
        for tid in _threads():
            try:
                os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
            except OSError:  # not allowed here (a container's seccomp profile), or the thread ended
                pass


def _threads() -> list[int]:
    """The ids of this process's threads (Linux), or just the process (0: the calling thread) elsewhere."""
    try:
        return [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        return [0]


def read(state: DependencyMap, text: str, at: int | None, threshold: float | None, deadline: float) -> dict[str, Any]:
    """In a worker: the verdict on ``text`` against the pickled state (as ``Engine``-backed reading answers)."""
    from grounded.engine.view import StateView
    from grounded.interpreter.anchor import AnchorIndex

    if time.monotonic() > deadline:  # waited in the queue past it: nobody waits for the answer
        raise TimeoutError("the reading's deadline passed before it started")
    index = AnchorIndex(StateView(state), at, "auto", threshold)
    return index.verify(text, deadline).to_json()


def read_cited(state: DependencyMap, cited: dict[str, Any], at: int | None, threshold: float | None,
               deadline: float) -> dict[str, Any]:
    """In a worker: the verdict on a cited continuation against the pickled state (as ``verify_cited`` answers)."""
    from grounded.engine.view import StateView
    from grounded.interpreter.cited import verify_cited

    if time.monotonic() > deadline:
        raise TimeoutError("the reading's deadline passed before it started")
    view = StateView(state)
    return verify_cited(view, CitedContinuation.model_validate(cited), at, threshold=threshold,
                        deadline=deadline).to_json()


__all__ = ["Reading", "ReadingLimits", "TextReaders", "check_text", "read", "read_cited"]
