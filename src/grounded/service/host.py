"""Where a process's engines live: on its event loop's thread, with writes committed in groups.

SWI-Prolog may be called only from the thread that started it, and the rules
hold one engine's state at a time; so a process serves all its conversations
from one thread.  That thread is the event loop's own: a read (Verify,
Affected, state) is a pure Python walk over an engine's state plus the
store's two small lookups, cheaper than handing it to another thread and
back (a hop costs a GIL hand-off, up to the interpreter's switch interval
under load), so it runs inline in the request handler.

A write (an append, a new conversation) is queued; the first write of a loop
iteration schedules a flush, which runs the queued writes (up to
``MAX_BATCH``) in one store transaction, in the order of their conversation
ids, and hands the COMMIT (one fsync for all of them) to a thread of its
own; each write is answered only once that commit has returned.  The flush's
plain appends are decided by the rules first, in one request
(``Conversations.decide``), not one request each between the others' SQL: each
one that is its conversation's first write in the flush (``_leading_appends``).
A write that comes before it (an append expecting a turn, an interpreted one,
...) moves the engine, so a decision taken ahead of it would no longer hold,
and the engine it moved would be dropped and rebuilt from the store.  While the
disk syncs, the loop goes on reading requests, validating bodies and queuing
the next group's writes, which is what lets more writes share each commit;
a read (and the key check of a write, which reads the store) does not wait
for it: its lookups use the store's read connection (``Conversations.reads``:
the committed rows, never the connection the commit thread is using), and a
conversation the group moved on is answered as of its last committed turn
(``Conversations._view``), so no read ever sees a write that is not yet
committed.  The few reads that need the whole engine (a reading by text, a
description, a snapshot) wait for the commit in flight (``Unsettled``) and
run again.  The writes of one flush were all in flight at once, so any order
among them is a valid one; sorting them by conversation
(tenant, id), the store's key, means two processes locking several
conversations' rows (PostgreSQL) take the locks in one global order and
cannot deadlock.  If the commit
fails, every write of the flush is answered with that failure (503) and the
engines they moved on are dropped, to be rebuilt from the store.

A conversation not cached whose history is long (``Conversations.cold_rows``)
is built off the loop: its rows' recorded decisions are mirrored on a thread
of their own (``Conversations.build_cold``: pure Python, no rules), which lets
the GIL go every few rows, while the loop goes on answering the others.  A
request that needs it waits ``cold_wait`` seconds at most, then is answered
503 with Retry-After (``Loading``), the build going on; the next request finds
the engine cached.  The build ends on the loop: the rules, which only this
thread may call, are given the state the thread made as facts, a small part
per loop iteration (``Conversations.warming``), so that the other
conversations' requests are served between two parts, not after the whole
state (seconds at 10^5 utterances).

A flush's transaction begins without waiting for the store's write lock: if
another process holds it (SQLite's one writer), the flush waits for it on a
thread of its own (``Store.wait_for_lock``, another connection) while the
loop goes on answering reads, which SQLite's WAL lets through a held write
lock, and queuing writes; then it tries again.  Only the writes wait, and past
``Store.LOCK_TIMEOUT`` they are answered 503.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from grounded.service.conversations import Batch, Cold, Conversations, Key, Unsettled
from grounded.service.errors import Loading, StoreLocked, StoreUnavailable

T = TypeVar("T")

MAX_BATCH = 32
"""Writes run together at most: a bound on how long one flush holds the loop (reads wait meanwhile)."""


Append = tuple[str, str, dict[str, Any]]
"""(tenant, conversation id, utterance): a plain append, which the rules may decide with its group's others."""


class _Write:
    __slots__ = ("fn", "future", "order", "append")

    def __init__(self, fn: Callable[[Conversations], Any], future: asyncio.Future, order: tuple[str, str],
                 append: Append | None):
        self.fn, self.future, self.order, self.append = fn, future, order, append


Outcome = tuple[Any, BaseException | None]


BUILD_SWITCH = 0.0005
"""Seconds between the interpreter's GIL hand-overs while a cold engine is built on the builder thread."""


class EngineHost:
    """The process's ``Conversations``, owned by the thread that creates the host (the event loop's)."""

    COLD_TRIES = 4
    """Times a read runs again after waiting for a cold engine (more: the engine built is not kept, 503)."""

    COLD_DEADLINE = 600.0
    """Seconds a cold engine's build may take before it gives up (each request waits ``cold_wait`` of them)."""

    def __init__(self, make: Callable[[], Conversations], cold_wait: float = 1.0):
        self.conversations = make()
        self.cold_wait = cold_wait
        """Seconds a request waits for a cold engine being built before it is answered 503 (Retry-After)."""
        self._builder = ThreadPoolExecutor(1, thread_name_prefix="grounded-build")
        self._builds = 0
        """Cold builds queued or running: the interpreter's switch interval is ``BUILD_SWITCH`` while there are any."""
        self._switch = sys.getswitchinterval()
        self._building: dict[Key, tuple[Cold, asyncio.Future[None]]] = {}
        self._writes: list[_Write] = []
        self._flushing = False
        self._readers: list[asyncio.Future[None]] | None = None
        """While a commit is in flight: the reads waiting for it (None: no commit in flight)."""
        self._committer = ThreadPoolExecutor(1, thread_name_prefix="grounded-commit")
        self._waiter = ThreadPoolExecutor(1, thread_name_prefix="grounded-lock-wait")
        """Where a flush waits for a write lock another process holds (``Store.wait_for_lock``)."""
        self._lock_wait: asyncio.Future[None] | None = None
        self._locked_since: float | None = None

    async def call(self, job: Callable[[Conversations], T], write: bool = False,
                   order: tuple[str, str] = ("", ""), append: Append | None = None) -> T:
        """Run ``job``: a read at once, from what is committed (after the commit in flight only if it needs the
        whole engine of a conversation that commit moved on); a write at the next flush, answered once its group
        has committed.

        ``order``: the (tenant, conversation id) a write changes (a flush runs its writes sorted by it).
        ``append``: the write is ``Conversations.append`` of this utterance (operations, no expected turn, no
        interpreter), which the rules decide together with the group's others (``Conversations.decide``).
        """
        if not write:
            colds = 0
            while True:
                try:
                    return job(self.conversations)
                except Unsettled:
                    if self._readers is None:  # nothing in flight: cannot be (a group settles when it commits)
                        raise
                    waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                    self._readers.append(waiter)
                    await waiter
                except Cold as needed:
                    colds += 1
                    if colds > self.COLD_TRIES:
                        needed.entry.engine.close()
                        raise Loading(f"conversation {needed.key[1]}: its engine was built and dropped again (its "
                                      "tenant's cache is full?); retry after the Retry-After seconds",
                                      retry_after=1, conversation=needed.key[1]) from None
                    await self._warm(needed)
        cold = self.conversations.cold(*order) if order[1] else None
        if cold is not None:  # built before the write is queued: a flush would build it inline
            await self._warm(cold)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._writes.append(_Write(job, future, order, append))
        if not self._flushing:
            self._flushing = True
            loop.call_soon(self._flush)
        return await future

    async def _warm(self, cold: Cold) -> None:
        """Have ``cold``'s engine built on the builder thread (or join the build under way), waiting for it at
        most ``cold_wait`` seconds: past them Loading (503, Retry-After), the build going on."""
        building = self._building.get(cold.key)
        if building is None:
            cold.started = time.monotonic()
            cold.deadline = cold.started + self.COLD_DEADLINE
            built: asyncio.Future[None] = asyncio.ensure_future(self._make(cold))
            building = self._building[cold.key] = (cold, built)
            built.add_done_callback(lambda done: self._built(building[0], done))
        else:
            cold.entry.engine.close()  # made for this request; the build under way has its own
        cold, built = building
        try:
            await asyncio.wait_for(asyncio.shield(built), self.cold_wait)
            self._built(cold, built)  # cached now, not when its callback runs: the read about to run again needs it
        except asyncio.TimeoutError:
            left = (cold.length - cold.done) * (time.monotonic() - cold.started) / max(cold.done, 1)  # at its pace
            warming = f", then its state given to the rules ({cold.warmed} facts so far)" if cold.warmed else ""
            raise Loading(f"conversation {cold.key[1]} is being loaded from the store ({cold.done} of {cold.length} "
                          f"utterances so far{warming}), off this server's event loop; retry after the Retry-After "
                          "seconds",
                          retry_after=max(1, min(60, round(left))), conversation=cold.key[1]) from None

    async def _make(self, cold: Cold) -> None:
        """``cold``'s engine built on the builder thread, then its state given to the rules here, a part per loop
        iteration (``Conversations.warming``): the requests of other conversations are served between two parts.

        While the builder thread runs, the interpreter hands the GIL between threads every ``BUILD_SWITCH``
        seconds instead of its default: a request arriving while the builder holds the GIL waits for the next
        hand-over, and at the default interval that wait is several times a Verify's whole answer."""
        if not self._builds:
            self._switch = sys.getswitchinterval()
            sys.setswitchinterval(min(self._switch, BUILD_SWITCH))
        self._builds += 1
        try:
            await asyncio.get_running_loop().run_in_executor(self._builder, self.conversations.build_cold, cold)
        finally:
            self._builds -= 1
            if not self._builds:
                sys.setswitchinterval(self._switch)
        for _ in self.conversations.warming(cold):
            await asyncio.sleep(0)

    def _built(self, cold: Cold, done: asyncio.Future[None]) -> None:
        """Back on the loop once a cold build ended: its engine cached (a failed one dropped); once, whether its
        callback or the request that waited for it comes first."""
        if self._building.get(cold.key, (None, None))[1] is not done:
            return
        del self._building[cold.key]
        if done.cancelled() or done.exception() is not None:
            cold.entry.engine.close()
        else:
            self.conversations.install(cold)

    def _flush(self) -> None:
        """Run up to MAX_BATCH queued writes in one transaction and hand its commit to the commit thread."""
        try:
            group = self.conversations.open_batch(wait=False)
        except StoreLocked:  # another process holds the write lock: wait for it on a thread, the loop goes on
            self._lock_wait = asyncio.ensure_future(self._wait_for_lock())
            return
        except Exception as exc:  # the transaction did not begin (the store is gone)
            batch, self._writes = self._writes[:MAX_BATCH], self._writes[MAX_BATCH:]
            self._answer(batch, [(None, exc)] * len(batch))
            return
        self._locked_since = None
        batch, self._writes = self._writes[:MAX_BATCH], self._writes[MAX_BATCH:]
        batch.sort(key=lambda w: w.order)
        try:
            try:
                self.conversations.decide(_leading_appends(batch))
                outcomes = [_attempt(w.fn, self.conversations) for w in batch]
            finally:
                self.conversations.undecided()
                self.conversations.writes_done()
        except BaseException as exc:  # not a write's refusal (those are outcomes): nothing of the group stands
            try:
                group.abort(exc)
            finally:
                group.forget()
                self._answer(batch, [(None, exc if isinstance(exc, Exception) else RuntimeError(str(exc)))]
                             * len(batch))
            raise
        self._readers = []
        committed = asyncio.get_running_loop().run_in_executor(self._committer, group.commit)
        committed.add_done_callback(lambda done: self._committed(done, group, batch, outcomes))

    async def _wait_for_lock(self) -> None:
        """Wait (on the waiter thread, reads answered meanwhile) until the write lock is free, then flush again;
        past ``LOCK_TIMEOUT`` from the first refusal, the writes waiting are answered 503."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self._locked_since is None:
            self._locked_since = now
        store = self.conversations.store
        left = store.LOCK_TIMEOUT - (now - self._locked_since)
        try:
            if left <= 0:
                raise StoreUnavailable(f"{store.url}: the write lock was held past {store.LOCK_TIMEOUT:g} s")
            await loop.run_in_executor(self._waiter, store.wait_for_lock, left)
        except Exception as exc:  # noqa: BLE001 - held past the timeout (or the store is gone): these writes fail
            self._locked_since = None
            batch, self._writes = self._writes[:MAX_BATCH], self._writes[MAX_BATCH:]
            self._answer(batch, [(None, exc)] * len(batch))
            return
        self._flush()

    def _committed(self, done: asyncio.Future[None], group: Batch, batch: list[_Write],
                   outcomes: list[Outcome]) -> None:
        """Back on the loop after the commit: the reads that waited go first, then the group is answered."""
        waiting, self._readers = self._readers or [], None
        for waiter in waiting:
            if not waiter.done():
                waiter.set_result(None)
        error = done.exception()
        if error is not None:  # the commit failed: nothing of the group is acknowledged
            group.forget()
            outcomes = [(None, error if failed is None else failed) for _, failed in outcomes]
        else:
            group.settle()
        self._answer(batch, outcomes)

    def _answer(self, batch: list[_Write], outcomes: list[Outcome]) -> None:
        """Settle each write's future, then let the loop serve what waits before the next group."""
        for w, (result, error) in zip(batch, outcomes, strict=True):
            if w.future.done():  # the client went away; the write stands
                continue
            if error is not None:
                w.future.set_exception(error)
            else:
                w.future.set_result(result)
        if self._writes:
            asyncio.get_running_loop().call_soon(self._flush)
        else:
            self._flushing = False

    def run(self, job: Callable[[Conversations], T], write: bool = False) -> T:
        """Run ``job`` from synchronous code on the owning thread, no flush in flight (a write commits before
        it returns)."""
        if not write:
            return job(self.conversations)
        with self.conversations.batch():
            return job(self.conversations)

    def close(self) -> None:
        if self._lock_wait is not None:
            self._lock_wait.cancel()
        for cold, built in self._building.values():
            cold.deadline = 0.0  # a build under way stops at its next part
            built.cancel()  # and its warming, if it has begun, goes no further
        self._builder.shutdown(wait=True)
        self._waiter.shutdown(wait=True)
        self._committer.shutdown(wait=True)
        self.conversations.close()


def _leading_appends(batch: list[_Write]) -> list[Append]:
    """The plain appends of a flush (sorted by conversation, each one's writes in the order they came) that
    are the first write to their conversation: the ones whose decision, taken ahead, still holds when they run."""
    leading: list[Append] = []
    seen: set[tuple[str, str]] = set()
    for w in batch:
        if w.order not in seen:
            seen.add(w.order)
            if w.append is not None:
                leading.append(w.append)
    return leading


def _attempt(fn: Callable[[Conversations], Any], conversations: Conversations) -> Outcome:
    try:
        return fn(conversations), None
    except Exception as exc:  # handed to the caller, who reports it
        return None, exc
