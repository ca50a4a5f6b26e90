"""A conversation's state pickled to a file by a forked child, so the event loop never pickles it.

A reader process needs the state it reads against, and the only way to hand it
over is to serialise it.  Pickling a dependency map of tens of thousands of
arguments takes seconds of CPU, all of it holding the GIL (the C pickler never
lets go), so neither the loop nor a thread of the server may do it without
stalling every tenant.  A ``fork`` costs the loop only the copy of its page
tables (milliseconds): the child sees the state exactly as it was at the fork,
whatever appends move the engine meanwhile, pickles it into a file and exits.
The loop waits for the child's end on a pipe, as for any other I/O.

The child touches nothing but the state and its file (no store, no Prolog, no
loop) and leaves with ``os._exit``: none of the parent's threads, locks or
handlers run in it.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import tempfile
from collections.abc import Coroutine
from typing import Any

from grounded.service.errors import ServiceUnavailable


def pickle_in_child(obj: Any, directory: str) -> Coroutine[Any, Any, str]:
    """Fork now (``obj`` as it is at this call); awaited, the path of a new file in ``directory`` holding it
    pickled, or ServiceUnavailable if the child failed (the file is then removed)."""
    fd, path = tempfile.mkstemp(dir=directory, suffix=".state")
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError as exc:
        for each in (fd, r, w):
            os.close(each)
        os.unlink(path)
        raise ServiceUnavailable(f"could not start a process to hand the state to a reader: {exc}") from exc
    if pid == 0:  # the child: pickle, report, leave without running anything of the parent's
        status = 1
        try:
            os.close(r)
            with os.fdopen(fd, "wb") as out:
                pickle.dump(obj, out, protocol=pickle.HIGHEST_PROTOCOL)
            os.write(w, b"1")
            status = 0
        finally:
            os._exit(status)
    os.close(fd)
    os.close(w)
    return _pickled(pid, r, path)


async def _pickled(pid: int, r: int, path: str) -> str:
    """The child's file once it has exited."""
    try:
        ok = await _read_to_end(r)
    finally:
        os.close(r)
        os.waitpid(pid, 0)  # the pipe's end came with the child's exit: reaped at once
    if not ok:
        os.unlink(path)
        raise ServiceUnavailable("the process handing the state to a reader failed; retry")
    return path


async def _read_to_end(fd: int) -> bool:
    """Whether the child reported success before its end of the pipe closed (read without blocking the loop)."""
    loop = asyncio.get_running_loop()
    got = bytearray()
    while True:
        readable: asyncio.Future[None] = loop.create_future()
        loop.add_reader(fd, _settle, readable)
        try:
            await readable
        finally:
            loop.remove_reader(fd)
        try:
            chunk = os.read(fd, 16)
        except BlockingIOError:  # woken with nothing to read (uvloop makes a watched fd non-blocking)
            continue
        if not chunk:
            return bytes(got) == b"1"
        got += chunk


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
