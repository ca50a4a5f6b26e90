"""The one thread that owns every Engine of a process, and how async code reaches it.

SWI-Prolog may be called only from the thread that started it, and the rules
hold one engine's state at a time; so a process serves all its conversations
from one thread.  That thread also holds the store's connection (a SQLite
connection belongs to its thread).  Requests arrive as jobs on a queue; each
job authenticates its key and runs one method of ``Conversations``; the
answer (or the exception) goes back to the awaiting coroutine through its
event loop.  Verify and Affected are pure Python walks over the engine's
state, so a read costs the store's two small lookups plus microseconds.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from grounded.service.conversations import Conversations

T = TypeVar("T")
Job = Callable[[Conversations], Any]

_STOP = object()


class EngineHost:
    """Starts the engine thread; ``call`` runs a job there and awaits its answer."""

    def __init__(self, make: Callable[[], Conversations]):
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._ready: Future[None] = Future()
        self._thread = threading.Thread(target=self._run, args=(make,), name="grounded-engines", daemon=True)
        self._thread.start()
        self._ready.result()  # re-raises what opening the store or starting Prolog raised

    def _run(self, make: Callable[[], Conversations]) -> None:
        try:
            conversations = make()
        except BaseException as exc:
            self._ready.set_exception(exc)
            return
        self._ready.set_result(None)
        try:
            while True:
                item = self._jobs.get()
                if item is _STOP:
                    return
                job, done = item
                try:
                    result = job(conversations)
                except BaseException as exc:  # handed to the caller, who reports it
                    done(None, exc)
                else:
                    done(result, None)
        finally:
            conversations.close()

    async def call(self, job: Callable[[Conversations], T]) -> T:
        """Run ``job`` on the engine thread and await its result (or its exception)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def settle(result: Any, exc: BaseException | None) -> None:
            if not future.done():
                if exc is not None:
                    future.set_exception(exc)
                else:
                    future.set_result(result)

        def done(result: Any, exc: BaseException | None) -> None:
            loop.call_soon_threadsafe(settle, result, exc)

        self._jobs.put((job, done))
        return await future

    def run(self, job: Callable[[Conversations], T]) -> T:
        """Run ``job`` on the engine thread from synchronous code and wait for it."""
        future: Future[T] = Future()

        def done(result: Any, exc: BaseException | None) -> None:
            if exc is not None:
                future.set_exception(exc)
            else:
                future.set_result(result)

        self._jobs.put((job, done))
        return future.result()

    def close(self) -> None:
        if self._thread.is_alive():
            self._jobs.put(_STOP)
            self._thread.join()
