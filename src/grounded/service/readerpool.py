"""The reader processes: each tenant's readings queued apart, served in turn, and stopped at their deadline.

A pool of ``spawn``-started processes, one reading at a time each, talking to
the loop over a pipe (small messages: the state goes by file, ``pickler.py``),
each pipe watched by a thread of its own that hands what arrives to the loop.
Three rules keep one tenant's readings from taking the others' time:

* **turns**: each tenant's waiting readings are a queue of their own, and a
  free reader takes the first reading of the tenant served longest ago (a
  tenant that just arrived first), not the oldest reading overall;
* **a share**: one tenant holds at most ``workers`` readers at once; the pool
  starts with one reader more than that (a spare), and while a reading of
  another tenant waits with every reader busy, one more is started (up to twice
  ``workers``), so a tenant's readings do not wait behind another tenant's long ones;
* **a deadline that stops the work**: a reading still running ``KILL_GRACE``
  seconds past its deadline (the reader checks the deadline itself between two
  clauses, but a step such as indexing every claim may not come back to it) is
  ended with SIGKILL and its reader replaced; only its own tenant waited.

A reader that dies on its own fails its reading (503) and is replaced the same way.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from grounded.service.errors import DeadlineExceeded, ServiceUnavailable

KILL_GRACE = 1.0
"""Seconds past its deadline a reading may take to notice it itself before its reader is killed."""

REAP_EVERY, REAP_TRIES = 0.1, 600
"""How often, and how many times, an ended reader's exit status is looked for (a minute in all)."""

Job = Callable[..., dict[str, Any]]
"""``job(state, what, at, threshold, deadline)``: a module-level function (it goes to the reader by name)."""


class Task:
    """One reading: whose, what to run, when it must be done, and the future its caller awaits."""

    __slots__ = ("tenant", "job", "args", "deadline", "future", "reader", "timer")

    def __init__(self, tenant: str, job: Job, args: tuple[Any, ...], deadline: float, future: asyncio.Future[Any]):
        self.tenant, self.job, self.args, self.deadline, self.future = tenant, job, args, deadline, future
        self.reader: Reader | None = None
        self.timer: asyncio.TimerHandle | None = None


class Reader:
    """One reader process, the loop's end of its pipe, and the reading it runs (if any)."""

    def __init__(self, serve: Callable[[Connection, bool], None], later: bool):
        """``later``: a spare or a replacement, started while the server is serving: it loads at the lowest
        CPU priority from the start (the first readers load at full priority: the first reading waits)."""
        ctx = multiprocessing.get_context("spawn")  # the server holds SWI-Prolog and a running loop: no fork
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=serve, args=(child, later), name="grounded-reader", daemon=True)
        self.process.start()
        child.close()
        self.pid: int | None = None
        """Set once the reader says it is ready (its model loaded)."""
        self.task: Task | None = None

    def kill(self) -> None:
        """SIGKILL: a reader past its deadline is not asked, it is ended (and reaped, off the loop's time)."""
        try:
            if self.process.pid is not None:
                os.kill(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.conn.close()
        self.reap(REAP_TRIES)

    def reap(self, tries: int) -> None:
        """Collect the ended process's exit status (no zombie left), checking every REAP_EVERY s without
        blocking the loop: its pipe closes a moment before the kernel lets its status be collected."""
        self.process.join(timeout=0)
        if self.process.exitcode is None and tries > 0 and _loop_running():
            asyncio.get_running_loop().call_later(REAP_EVERY, self.reap, tries - 1)


class ReaderPool:
    """Up to ``2 * workers`` readers; a tenant's share ``workers``; readings queued per tenant."""

    def __init__(self, workers: int, serve: Callable[[Connection, bool], None], on_done: Callable[[Task], None]):
        self.workers = workers
        self._serve = serve
        self._on_done = on_done
        self._readers: list[Reader] = []
        self._queues: dict[str, deque[Task]] = {}
        """Each tenant's readings waiting, oldest first."""
        self._served: dict[str, int] = {}
        """When each tenant with readings waiting or running last got a reader (a count of turns): the tenant
        served longest ago goes next; one that has none is forgotten, and counts as never served when back."""
        self._turns = 0
        self._ready: asyncio.Future[None] | None = None
        """Done once a reader is ready; failed if every reader died before that."""
        self._unready_deaths = 0
        """Readers that died before they were ready since one last became ready (see ``_lost``)."""

    def pids(self) -> list[int]:
        """The ready readers' process ids (for the tests and the log)."""
        return [r.pid for r in self._readers if r.pid is not None]

    async def started(self, within: float) -> None:
        """Start ``workers`` readers and a spare (at the first reading); wait until one is ready (``within`` s)."""
        if self._ready is None:
            self._ready = asyncio.get_running_loop().create_future()
            for _ in range(self.workers):
                self._start(later=False)
            self._start()  # a spare, loaded at the lowest priority: the first tenant to wait behind another's gets it
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), within)
        except TimeoutError as exc:
            self.close()
            raise ServiceUnavailable(f"the text readers did not start within {within:g} s; retry") from exc

    def submit(self, task: Task) -> None:
        self._queues.setdefault(task.tenant, deque()).append(task)
        loop = asyncio.get_running_loop()
        task.timer = loop.call_at(_loop_time(task.deadline), self._expired, task)
        self._dispatch()

    # -- scheduling ----------------------------------------------------------------------

    def _dispatch(self) -> None:
        """Give each free reader the next reading in turn; start a spare reader if a tenant under its share waits."""
        while self._queues:
            waiting = [t for t in self._queues if self._held(t) < self.workers]
            if not waiting:
                return
            tenant = min(waiting, key=lambda t: self._served.get(t, -1))  # served longest ago (or never) first
            reader = next((r for r in self._readers if r.pid is not None and r.task is None), None)
            if reader is None:
                starting = any(r.pid is None for r in self._readers)
                if not starting and len(self._readers) < 2 * self.workers:
                    self._start()
                return
            queue = self._queues[tenant]
            task = queue.popleft()
            if not queue:
                del self._queues[tenant]
            self._turns += 1
            self._served[tenant] = self._turns
            self._run(reader, task)

    def _held(self, tenant: str) -> int:
        return sum(1 for r in self._readers if r.task is not None and r.task.tenant == tenant)

    def _run(self, reader: Reader, task: Task) -> None:
        reader.task, task.reader = task, reader
        try:
            reader.conn.send((task.job, *task.args, task.deadline))
        except (OSError, ValueError):  # the reader is gone: its end is seen by _message
            self._lost(reader, "a text reader process stopped; retry")

    # -- what the readers say ----------------------------------------------------------------

    def _start(self, later: bool = True) -> None:
        reader = Reader(self._serve, later)
        self._readers.append(reader)
        loop = asyncio.get_running_loop()
        threading.Thread(target=_listen, args=(reader, loop, self._message), name="grounded-reader-pipe",
                         daemon=True).start()

    def _message(self, reader: Reader, message: tuple[str, Any] | None) -> None:
        """What a reader said (None: its pipe closed, it is gone), on the loop."""
        if reader not in self._readers:  # killed and replaced already
            return
        if message is None:
            self._lost(reader, "a text reader process stopped; retry")
            return
        kind, value = message
        if kind == "ready":
            reader.pid = value
            self._unready_deaths = 0
            if self._ready is not None and not self._ready.done():
                self._ready.set_result(None)
        else:
            task = reader.task
            reader.task = None
            if task is not None:
                self._finish(task, value if kind == "done" else None, value if kind == "error" else None)
        self._dispatch()

    def _expired(self, task: Task) -> None:
        """At the deadline: the caller is answered 504; a reading still waiting is dropped, one still running
        gets ``KILL_GRACE`` seconds to stop on its own, then its reader is killed and replaced."""
        if not task.future.done():
            task.future.set_exception(DeadlineExceeded("deadline"))  # worded by the caller
        if task.reader is None:
            queue = self._queues.get(task.tenant)
            if queue is not None and task in queue:
                queue.remove(task)
                if not queue:
                    del self._queues[task.tenant]
                self._on_done(task)
            return
        task.timer = asyncio.get_running_loop().call_later(KILL_GRACE, self._overdue, task)

    def _overdue(self, task: Task) -> None:
        reader = task.reader
        if reader is not None and reader.task is task:
            self._lost(reader, None)

    def _lost(self, reader: Reader, why: str | None) -> None:
        """The reader is gone (or killed now): its reading fails, and a reader that had started is replaced.

        One that died before it was ready is replaced only while readers have been seen to start (a reader
        was ready before, and fewer than ``2 * workers`` died unready since): otherwise it would die again (a
        broken install, no memory).  Once no reader is left, what waits fails with 503 and the next reading
        starts the pool anew."""
        if reader in self._readers:
            self._readers.remove(reader)
            reader.kill()
            task, reader.task = reader.task, None
            if task is not None:
                self._finish(task, None, ServiceUnavailable(why) if why else None)
            if reader.pid is None:
                self._unready_deaths += 1
            proven = (self._ready is not None and self._ready.done() and not self._ready.cancelled()
                      and self._ready.exception() is None)
            if reader.pid is not None or (proven and self._unready_deaths <= 2 * self.workers):
                self._start()
            elif not self._readers:
                self.close()
                return
        self._dispatch()

    def _finish(self, task: Task, result: Any, error: BaseException | None) -> None:
        if task.timer is not None:
            task.timer.cancel()
        task.reader = None
        if task.tenant not in self._queues and not self._held(task.tenant):
            self._served.pop(task.tenant, None)
        if not task.future.done():
            if error is not None:
                task.future.set_exception(error)
            else:
                task.future.set_result(result)
        self._on_done(task)

    def close(self) -> None:
        for reader in self._readers:
            reader.kill()
        self._readers = []
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(ServiceUnavailable("the text readers stopped before they were ready; retry"))
        self._ready = None
        for queue in self._queues.values():
            for task in queue:
                if task.timer is not None:
                    task.timer.cancel()
                if not task.future.done():
                    task.future.set_exception(ServiceUnavailable("the server is stopping"))
        self._queues.clear()


def _listen(reader: Reader, loop: asyncio.AbstractEventLoop,
            message: Callable[[Reader, tuple[str, Any] | None], None]) -> None:
    """A thread per reader: waits on its pipe (blocking: the loop's own watch would make the pipe non-blocking,
    and a long answer arrives in pieces) and hands each message to the loop; None once the pipe is closed."""
    while True:
        try:
            got: tuple[str, Any] | None = reader.conn.recv()
        except (EOFError, OSError):
            got = None
        except Exception as exc:  # noqa: BLE001 - an answer that does not unpickle: the reading failed
            got = ("error", RuntimeError(f"a reader's answer could not be read: {exc}"))
        try:
            loop.call_soon_threadsafe(message, reader, got)
        except RuntimeError:  # the loop is closed: the server is gone
            return
        if got is None:
            return


def _loop_time(deadline: float) -> float:
    """A ``time.monotonic`` deadline on the running loop's clock (the same clock by default; kept apart so the
    readers, which share ``time.monotonic`` with the server, and the loop agree whatever the loop's clock)."""
    loop = asyncio.get_running_loop()
    return loop.time() + (deadline - time.monotonic())


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
