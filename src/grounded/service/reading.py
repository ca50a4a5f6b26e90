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

Four bounds keep one tenant from taking the service (values in
``Settings``, docs/serve.md):

* ``max_text``: a longer text is refused before anything is read (413);
* ``reads_per_tenant``: readings of one tenant in flight at once, counted in
  the store across every server process on it (``tenantlimits.py``); one more
  is refused with 429 and ``Retry-After``; a slot is freed when the worker is
  done with the reading, not when its caller stops waiting;
* ``reads_per_minute``: readings one tenant may start per minute, counted
  likewise (0: no such bound); one more is refused with 429 and ``Retry-After``;
* ``read_deadline``: seconds from the request to its answer; past it the
  caller gets 504 naming the deadline, and the worker stops between two
  clauses (or does not start a reading whose deadline has passed in the queue);
  a reader that has not stopped soon after is killed and replaced.
"""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import shutil
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from grounded.core.cited import CitedContinuation
from grounded.dmap.state import DependencyMap
from grounded.service.errors import Busy, DeadlineExceeded, TooLarge
from grounded.service.lifeline import end_with_parent
from grounded.service.pickler import pickle_in_child
from grounded.service.readerpool import ReaderPool, Task
from grounded.service.tenantlimits import LocalLimits, TenantLimits

LOG = logging.getLogger("grounded.reading")
RATE_WINDOW = 60
"""Seconds of ``reads_per_minute``'s window (and its Retry-After)."""

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
    per_minute: int = 0
    """Readings one tenant may start per minute (0: no bound)."""


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

    def __init__(self, limits: ReadingLimits, counts: Callable[[], TenantLimits] | None = None):
        """``counts`` opens where the tenants' bounds are counted (``tenantlimits.open_limits`` on the service's
        store: across processes); without it, in this process alone."""
        self.limits = limits
        self._pool: ReaderPool | None = None
        self._open_counts = counts
        self._counts: TenantLimits | None = None if counts is not None else LocalLimits()
        self._counter: ThreadPoolExecutor | None = None
        """The thread the store's counts are asked on (a round trip each: off the loop)."""
        self._slots: dict[asyncio.Future[dict[str, Any]], int] = {}
        """The slot each reading in the pool holds, by its future."""
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
        slot = await self._take_slot(tenant)
        path: str | None = None
        future: asyncio.Future[dict[str, Any]] | None = None
        try:
            made = self._state_file(reading)  # forked now: no append can move the state it pickles
            pool = await self._started()
            deadline = time.monotonic() + self.limits.deadline  # CLOCK_MONOTONIC: one clock for the machine
            # the child pickles while the loop goes on: only this reading waits for it
            path = await asyncio.wait_for(asyncio.shield(made), max(0.0, deadline - time.monotonic()))
            self._users[path] = self._users.get(path, 0) + 1
            future = asyncio.get_running_loop().create_future()
            self._slots[future] = slot
            pool.submit(Task(tenant, job, (path, what, at, threshold), deadline, future))
        except BaseException as exc:
            if future is not None:
                self._slots.pop(future, None)
            self._done(tenant, path, slot)
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

    async def _take_slot(self, tenant: str) -> int:
        """One of the tenant's slots of readings in flight, within its readings per minute; Busy (429) if not."""
        if self._counts is not None and self._counter is None:  # counted here: no round trip to wait on
            taken = self._acquire(tenant)
        else:
            asked = asyncio.get_running_loop().run_in_executor(self._counting(), self._acquire, tenant)
            try:
                taken = await asyncio.shield(asked)
            except asyncio.CancelledError:  # the caller left: a slot taken meanwhile is given back
                asked.add_done_callback(lambda done: self._give_back(tenant, done))
                raise
        if isinstance(taken, int):
            return taken
        if taken == "per_minute":
            raise Busy(f"tenant {tenant} has started {self.limits.per_minute} text readings this minute, the most "
                       f"it may (reads_per_minute); retry after the Retry-After seconds", retry_after=RATE_WINDOW,
                       bound=self.limits.per_minute)
        raise Busy(f"tenant {tenant} has {self.limits.per_tenant} text readings in flight, the most it may "
                   f"(reads_per_tenant); retry after the Retry-After seconds", retry_after=1,
                   bound=self.limits.per_tenant)

    def _acquire(self, tenant: str) -> int | str:
        """A slot, or which bound refuses one (on the counting thread: the store's counts are opened there)."""
        if self._counts is None:
            assert self._open_counts is not None
            self._counts = self._open_counts()
        slot = self._counts.acquire(tenant, self.limits.per_tenant)
        if slot is None:
            return "per_tenant"
        if self.limits.per_minute and not self._counts.admit(tenant, self.limits.per_minute, RATE_WINDOW):
            self._counts.release(tenant, slot)
            return "per_minute"
        return slot

    def _give_back(self, tenant: str, taken: asyncio.Future[int | str]) -> None:
        if not taken.cancelled() and taken.exception() is None and isinstance(taken.result(), int):
            self._release(tenant, taken.result())  # type: ignore[arg-type]  # an int, tested

    def _counting(self) -> ThreadPoolExecutor:
        if self._counter is None:
            self._counter = ThreadPoolExecutor(1, thread_name_prefix="grounded-limits")
        return self._counter

    def _release(self, tenant: str, slot: int) -> None:
        if self._counter is None:
            assert self._counts is not None
            self._counts.release(tenant, slot)
        else:  # after the acquire that gave it, on the same thread
            self._counter.submit(_quietly, self._counts_release, tenant, slot)

    def _counts_release(self, tenant: str, slot: int) -> None:
        if self._counts is not None:
            self._counts.release(tenant, slot)

    def _finished(self, task: Task) -> None:
        """A reading left its reader (answered, failed or killed) or its queue: the tenant's slot is free."""
        self._done(task.tenant, task.args[0], self._slots.pop(task.future))

    def _done(self, tenant: str, path: str | None, slot: int) -> None:
        self._release(tenant, slot)
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
        if self._counter is not None:
            self._counter.submit(self._close_counts)
            self._counter.shutdown(wait=True)
            self._counter = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


    def _close_counts(self) -> None:
        if self._counts is not None:
            self._counts.close()  # (PostgreSQL: and with its session, any slot still held)
            self._counts = None


def _quietly(fn: Callable[..., None], *args: Any) -> None:
    """``fn(*args)``, a store error logged: a slot not given back is taken back when its holder is gone."""
    try:
        fn(*args)
    except Exception:  # noqa: BLE001 - logged; the slot's lease or session ends it
        LOG.exception("giving back a tenant's reading slot failed")


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
