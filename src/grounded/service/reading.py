"""Verify by text off the event loop: a pool of reader processes, a per-tenant limit, a deadline.

Reading a continuation's text (its clauses, each covered word by word by the
claims through WordNet) costs milliseconds per clause, and a long text has
many.  On the event loop that would hold
every other tenant's requests; in a thread of the server process it would
still take the GIL from the loop.  So it runs in worker processes, started
with ``spawn`` (the server process holds SWI-Prolog and a running loop,
which a fork would copy half-way) and, once started, at the lowest CPU
priority (``SCHED_IDLE``), so that on a machine with as many cores as busy
readers the loop's cheap requests still get the CPU first.

What a reading needs is taken on the loop, where the engines live: the
conversation's dependency map (plain Python data), pickled there before the
loop moves on, so no append can change it half-way; a pickled state is kept
per (conversation, length), the version an append moves on.  The worker
rebuilds a ``StateView`` (Verify without Prolog) and reads.

Three bounds keep one tenant from taking the service (values in
``Settings``, docs/serve.md):

* ``max_text``: a longer text is refused before anything is read (413);
* ``reads_per_tenant``: readings of one tenant in flight at once; one more is
  refused with 429 and ``Retry-After``; a slot is freed when the worker is done
  with the reading, not when its caller stops waiting;
* ``read_deadline``: seconds from the request to its answer; past it the
  caller gets 504 naming the deadline, and the worker stops between two
  clauses (or does not start a reading whose deadline has passed in the queue).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import pickle
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from grounded.core.cited import CitedContinuation
from grounded.dmap.state import DependencyMap
from grounded.service.errors import Busy, DeadlineExceeded, ServiceUnavailable, TooLarge
from grounded.service.lifeline import end_with_parent

NICE = 19
"""How much lower the readers' CPU priority is than the server's (Linux nice increment: the lowest)."""
STARTUP = 120.0
"""Seconds the first reading waits for the reader processes to start (importing torch, loading the model)."""
PICKLED_STATES = 64
"""Pickled states kept (per server process) for the next reading of the same conversation version."""


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
    """The process's reader pool (started at the first reading) and each tenant's readings in flight."""

    def __init__(self, limits: ReadingLimits):
        self.limits = limits
        self._pool: ProcessPoolExecutor | None = None
        self._in_flight: dict[str, int] = {}
        self._pickled: OrderedDict[tuple[str, str, int], bytes] = OrderedDict()
        self._ready: asyncio.Future[list[int]] | None = None

    def check(self, text: str) -> None:
        check_text(text, self.limits.max_text)

    async def verify(self, reading: Reading, text: str, at: int | None, threshold: float | None) -> dict[str, Any]:
        """The verdict on ``text`` (``TextVerdict.to_json``), read in a worker; Busy, DeadlineExceeded."""
        return await self._read(reading, read, text, at, threshold)

    async def verify_cited(self, reading: Reading, cited: CitedContinuation, at: int | None,
                           threshold: float | None) -> dict[str, Any]:
        """The verdict on a cited continuation (``CitedVerdict.to_json``): its text is read in a worker too."""
        return await self._read(reading, read_cited, cited.model_dump(), at, threshold)

    async def _read(self, reading: Reading, job: Callable[..., dict[str, Any]], what: Any, at: int | None,
                    threshold: float | None) -> dict[str, Any]:
        """``job(state, what, at, threshold, deadline)`` in a worker, within the tenant's limit and the deadline."""
        tenant = reading.tenant
        if self._in_flight.get(tenant, 0) >= self.limits.per_tenant:
            raise Busy(f"tenant {tenant} has {self.limits.per_tenant} text readings in flight, the most it may "
                       f"(reads_per_tenant); retry after the Retry-After seconds", retry_after=1,
                       bound=self.limits.per_tenant)
        self._in_flight[tenant] = self._in_flight.get(tenant, 0) + 1
        loop = asyncio.get_running_loop()
        try:
            state = self._state_bytes(reading)  # now, on the loop: no append can move the state half-way
            pool = await self._started()
            deadline = time.monotonic() + self.limits.deadline  # CLOCK_MONOTONIC: one clock for the machine
            future = pool.submit(job, state, what, at, threshold, deadline)
        except BrokenProcessPool as exc:  # a reader died since the last reading: the pool is replaced next time
            self._release(tenant)
            self._broken(self._pool)
            raise ServiceUnavailable("a text reader process stopped; retry") from exc
        except BaseException:
            self._release(tenant)
            raise
        future.add_done_callback(lambda _: _call_soon(loop, self._release, tenant))
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.limits.deadline)
        except TimeoutError as exc:  # ours (wait_for) or the worker's (between two clauses): one answer
            raise self._late() from exc
        except BrokenProcessPool as exc:
            self._broken(pool)
            raise ServiceUnavailable("a text reader process stopped; retry") from exc

    async def _started(self) -> ProcessPoolExecutor:
        """The pool, its workers up (the reader imported, the sentence model loaded): started at the first
        reading, which waits for it (at most STARTUP seconds) before its own deadline starts."""
        if self._pool is None:
            pool = ProcessPoolExecutor(self.limits.workers, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=_start_worker)
            self._pool = pool
            self._ready = asyncio.ensure_future(asyncio.gather(
                *(asyncio.wrap_future(pool.submit(os.getpid)) for _ in range(self.limits.workers))))
        pool, ready = self._pool, self._ready
        assert ready is not None
        try:
            await asyncio.wait_for(asyncio.shield(ready), STARTUP)
        except (TimeoutError, BrokenProcessPool) as exc:
            self._broken(pool)
            raise ServiceUnavailable(f"the text readers did not start within {STARTUP:g} s; retry") from exc
        return pool

    def _broken(self, pool: ProcessPoolExecutor | None) -> None:
        """Drop ``pool`` if it is still the current one (a reading that saw an older one fail leaves a new one
        alone): the next reading starts a new one."""
        if pool is not None and pool is self._pool:
            pool.shutdown(wait=False, cancel_futures=True)
            self._pool, self._ready = None, None

    def _late(self) -> DeadlineExceeded:
        return DeadlineExceeded(f"reading the text took longer than the deadline of {self.limits.deadline:g} s "
                                f"(read_deadline); send a shorter text", deadline=self.limits.deadline)

    def _release(self, tenant: str) -> None:
        n = self._in_flight.get(tenant, 0) - 1
        if n > 0:
            self._in_flight[tenant] = n
        else:
            self._in_flight.pop(tenant, None)

    def _state_bytes(self, reading: Reading) -> bytes:
        data = self._pickled.get(reading.version)
        if data is None:
            data = pickle.dumps(reading.state, protocol=pickle.HIGHEST_PROTOCOL)
            self._pickled[reading.version] = data
            if len(self._pickled) > PICKLED_STATES:
                self._pickled.popitem(last=False)
        else:
            self._pickled.move_to_end(reading.version)
        return data

    def close(self) -> None:
        """The server is stopping: the readers end now, whatever they are reading (nobody waits for the answer,
        and the interpreter's exit would wait for the reading to end, up to the deadline, and longer)."""
        pool = self._pool
        readers = list((getattr(pool, "_processes", None) or {}).values())  # the executor has no public kill
        self._broken(pool)
        for process in readers:
            process.kill()


def _start_worker() -> None:
    """A reader process: lower priority than the server; the reader imported and WordNet opened before the
    first text, not on its time (and at full priority: the server waits for it).

    A reader ends with its server, however the server ends (kill -9 included): a spawned worker holds the
    pool's queue open itself, so without the lifeline it would wait on it forever.
    """
    end_with_parent()
    import grounded.interpreter.anchor  # noqa: F401
    from grounded.interpreter.wordnet import lexicon

    lexicon().bases("ready")
    _yield_cpu()


def _call_soon(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any) -> None:
    """``fn(*args)`` on ``loop`` from a pool's thread; nothing if the loop has closed (the server stopped, and its
    readers were ended with their readings)."""
    try:
        loop.call_soon_threadsafe(fn, *args)
    except RuntimeError:
        if not loop.is_closed():
            raise


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


def read(state: bytes, text: str, at: int | None, threshold: float | None, deadline: float) -> dict[str, Any]:
    """In a worker: the verdict on ``text`` against the pickled state (as ``Engine``-backed reading answers)."""
    from grounded.engine.view import StateView
    from grounded.interpreter.anchor import AnchorIndex

    if time.monotonic() > deadline:  # waited in the queue past it: nobody waits for the answer
        raise TimeoutError("the reading's deadline passed before it started")
    index = AnchorIndex(StateView(pickle.loads(state)), at, "auto", threshold)
    return index.verify(text, deadline).to_json()


def read_cited(state: bytes, cited: dict[str, Any], at: int | None, threshold: float | None,
               deadline: float) -> dict[str, Any]:
    """In a worker: the verdict on a cited continuation against the pickled state (as ``verify_cited`` answers)."""
    from grounded.engine.view import StateView
    from grounded.interpreter.cited import verify_cited

    if time.monotonic() > deadline:
        raise TimeoutError("the reading's deadline passed before it started")
    view = StateView(pickle.loads(state))
    return verify_cited(view, CitedContinuation.model_validate(cited), at, threshold=threshold,
                        deadline=deadline).to_json()


__all__ = ["Reading", "ReadingLimits", "TextReaders", "check_text", "read", "read_cited"]
