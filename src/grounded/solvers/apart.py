"""One piece of work in a fresh process of its own, so that what it grew goes back to the system when it ends.

clingo interns every symbol it ever makes in tables that live as long as the
process (potassco/clingo#203: never freed), and glibc keeps most of what a
released control or Prolog state had grown: a check that grounds a long
history piece by piece in one process holds, at its end, about the sum of its
pieces.  ``run_apart`` runs one piece (a probed check, a window of the ASP
history, its view, a batch of Affected*) in a process started with 'spawn' (no
copy of the caller's Prolog or clingo state), waits for it, and returns its
answer as plain data: the caller's peak is its own, plus one piece at a time.

A piece that ends without an answer (killed, out of memory, a library
aborting) raises ``ApartFailed`` naming the piece and how its process ended;
an exception the piece raised is raised again here (a MemoryError included,
so the check's memory budget still says what stopped it).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import multiprocessing
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from grounded.core.errors import GroundedError

T = TypeVar("T")

APART_FROM = 1000
"""Histories of at least this many utterances are checked piece by piece in processes of their own; a
shorter one's check peaks near the interpreter's own size, below what a fresh process costs to start."""

GLIBC_ALLOCATION_ABORT = 127
"""The exit status glibc's loader ends a process with when it cannot allocate (``cannot allocate memory for
thread-local data: ABORT``, a thread started past RLIMIT_AS); the child is the running Python, so 127 is not
"command not found"."""


class ApartFailed(GroundedError):
    """A piece of work run in a process of its own ended without an answer."""


def give_back() -> None:
    """Return to the system what this process freed (a released engine, a finished comparison) before
    a piece apart starts: glibc keeps freed memory for reuse unless asked (``malloc_trim``), and a
    process that waits on a piece would otherwise hold its own peak beside the piece's."""
    gc.collect()
    name = ctypes.util.find_library("c")
    if name is None:
        return
    trim = getattr(ctypes.CDLL(name), "malloc_trim", None)  # glibc only
    if trim is not None:
        trim(0)


def _serve(connection: Connection) -> None:
    """The child's side: read (fn, args), answer (True, value) or (False, exception)."""
    fn, args = connection.recv()
    try:
        answer: tuple[bool, Any] = (True, fn(*args))
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the caller
        answer = (False, exc)
    try:
        connection.send(answer)
    except Exception:  # noqa: BLE001 - an answer or exception that does not pickle: its text does
        ok, value = answer
        text = (f"the answer of {fn.__qualname__} cannot be sent back" if ok else
                "".join(traceback.format_exception(value)))
        connection.send((False, RuntimeError(text)))
    connection.close()


def how_it_ended(exitcode: int | None) -> str:
    """A process's exit status in words."""
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        return f"killed by signal {-exitcode}"
    if exitcode == GLIBC_ALLOCATION_ABORT:
        return "the C library could not allocate and ended it"
    return f"exit status {exitcode}"


def run_apart(what: str, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a fresh process; ``what`` names the piece in an ``ApartFailed``.

    ``fn`` and ``args`` are pickled (``fn`` by its module and name), so ``fn``
    is a module-level function and the arguments plain data."""
    context = multiprocessing.get_context("spawn")
    mine, theirs = context.Pipe()
    # the work goes through the pipe, not as the process's arguments: spawn writes those
    # before the child reads anything, and would wait forever on a child that died starting
    process = context.Process(target=_serve, args=(theirs,), name=f"grounded: {what}")
    process.start()
    theirs.close()  # the child holds its end: a child that ends makes this side see EOF
    try:
        try:
            mine.send((fn, args))
            ok, value = mine.recv()
        except (EOFError, OSError):
            process.join()
            raise ApartFailed(f"{what}: its process ended without an answer "
                              f"({how_it_ended(process.exitcode)})") from None
        process.join()
    finally:
        mine.close()
        if process.is_alive():  # the caller was interrupted: the piece goes too
            process.kill()
            process.join()
    if not ok:
        raise value
    return value
