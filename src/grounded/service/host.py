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
ids, and commits once (one fsync for all of them) before any of them is
answered; then the loop serves what waits before the next group.  The loop
is blocked while a flush runs, so no read ever sees an engine moved on by a
write that is not yet committed; under load, more writes wait for a flush
and each commit carries more of them.  The writes of one flush were all in flight at
once, so any order among them is a valid one; sorting them by conversation
(tenant, id), the store's key, means two processes locking several
conversations' rows (PostgreSQL) take the locks in one global order and
cannot deadlock.  If the commit
fails, every write of the flush is answered with that failure (503) and the
engines they moved on are dropped, to be rebuilt from the store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from grounded.service.conversations import Conversations

T = TypeVar("T")

MAX_BATCH = 32
"""Writes committed together at most: a bound on how long one flush holds the loop (reads wait meanwhile)."""


class _Write:
    __slots__ = ("fn", "future", "order")

    def __init__(self, fn: Callable[[Conversations], Any], future: asyncio.Future, order: tuple[str, str]):
        self.fn, self.future, self.order = fn, future, order


class EngineHost:
    """The process's ``Conversations``, owned by the thread that creates the host (the event loop's)."""

    def __init__(self, make: Callable[[], Conversations]):
        self.conversations = make()
        self._writes: list[_Write] = []
        self._flushing = False

    async def call(self, job: Callable[[Conversations], T], write: bool = False,
                   order: tuple[str, str] = ("", "")) -> T:
        """Run ``job``: a read at once; a write at the next flush, answered once its group has committed.

        ``order``: the (tenant, conversation id) a write changes (a flush runs its writes sorted by it).
        """
        if not write:
            return job(self.conversations)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._writes.append(_Write(job, future, order))
        if not self._flushing:
            self._flushing = True
            loop.call_soon(self._flush)
        return await future

    def _flush(self) -> None:
        """Commit up to MAX_BATCH queued writes, then let the loop serve what waits before the next group."""
        batch, self._writes = self._writes[:MAX_BATCH], self._writes[MAX_BATCH:]
        try:
            batch.sort(key=lambda w: w.order)
            outcomes: list[tuple[Any, BaseException | None]] = []
            try:
                with self.conversations.batch():
                    outcomes = [_attempt(w.fn, self.conversations) for w in batch]
            except Exception as exc:  # the commit failed: nothing of the group is acknowledged
                outcomes = [(None, exc if error is None else error) for _, error in outcomes] \
                    or [(None, exc)] * len(batch)
            for w, (result, error) in zip(batch, outcomes, strict=True):
                if w.future.done():  # the client went away; the write stands
                    continue
                if error is not None:
                    w.future.set_exception(error)
                else:
                    w.future.set_result(result)
        finally:
            if self._writes:
                asyncio.get_running_loop().call_soon(self._flush)
            else:
                self._flushing = False

    def run(self, job: Callable[[Conversations], T], write: bool = False) -> T:
        """Run ``job`` from synchronous code on the owning thread (a write commits before it returns)."""
        if not write:
            return job(self.conversations)
        with self.conversations.batch():
            return job(self.conversations)

    def close(self) -> None:
        self.conversations.close()


def _attempt(fn: Callable[[Conversations], Any], conversations: Conversations) -> tuple[Any, BaseException | None]:
    try:
        return fn(conversations), None
    except Exception as exc:  # handed to the caller, who reports it
        return None, exc
