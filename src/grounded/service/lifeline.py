"""Processes that end with the process that started them, however it ends (kill -9 included).

The server's worker processes (``grounded serve --workers N``) and each one's text readers are started
by ``multiprocessing`` (spawn).  A spawned child holds the sockets or queues it was given open itself:
when its parent is killed, nothing tells it, and it goes on serving the port (a restart then cannot bind
it) or waiting on a queue nobody writes.  ``end_with_parent`` watches the parent's sentinel, a pipe the
kernel closes when the parent exits, from a daemon thread, and ends the child then.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from typing import Any


def end_with_parent() -> None:
    """In a ``multiprocessing`` child: end this process as soon as its parent is gone (elsewhere: nothing)."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent,), name="grounded-lifeline", daemon=True).start()


def _end_with(parent: Any) -> None:
    parent.join()  # waits on the parent's sentinel: returns when the parent process is gone
    os._exit(0)
