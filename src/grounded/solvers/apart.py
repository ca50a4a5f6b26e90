"""One piece of work in a fresh process of its own, so that what it grew goes back to the system when it ends.

clingo interns every symbol it ever makes in tables that live as long as the
process (potassco/clingo#203: never freed), and glibc keeps most of what a
released control or Prolog state had grown: a check that grounds a long
history piece by piece in one process holds, at its end, about the sum of its
pieces.  ``run_apart`` runs one piece (a probed check, a window of the ASP
history, its view, a batch of Affected*) in a fresh Python (no copy of the
caller's Prolog or clingo state), waits for it, and returns its answer as
plain data: the caller's peak is its own, plus one piece at a time.

The child is ``python -c`` reading the caller's ``sys.path`` and then the
pickled piece on its standard input, and writing the pickled answer on its
standard output (anything else it prints goes to standard error).  Unlike
multiprocessing's 'spawn', it does not import the caller's main module again:
a piece costs a Python start and the modules it needs (about half a second),
and a caller's script needs no ``if __name__ == "__main__"`` guard.

A piece that ends without an answer (killed, out of memory, a library
aborting) raises ``ApartFailed`` naming the piece and how its process ended;
an exception the piece raised is raised again here (a MemoryError included,
so the check's memory budget still says what stopped it).

A memory budget (RLIMIT_AS, ``grounded check --memory-limit``) bounds the
check as a whole, not each process: a limit is per process, and inherited as
the caller's absolute figure it would let caller and piece each use it.  So a
piece may map only what the caller's budget has left when it starts (the
caller waits on it, growing nothing), beyond the piece's own start-up.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import pickle
import resource
import signal
import subprocess
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from grounded.core.errors import GroundedError

T = TypeVar("T")

APART_FROM = 1000
"""Histories of at least this many utterances are checked piece by piece in processes of their own; a
shorter one's check peaks near the interpreter's own size, below what a fresh process costs to start."""

APART_BOUND = 256 * 1024 ** 2
"""A process of pieces that go in order (windows of the ASP history, batches of Affected*) takes the next
one while its peak RSS is below this: a process a piece would cost half a second each, hundreds on a long log."""

GLIBC_ALLOCATION_ABORT = 127
"""The exit status glibc's loader ends a process with when it cannot allocate (``cannot allocate memory for
thread-local data: ABORT``, a thread started past RLIMIT_AS); the child is the running Python, so 127 is not
"command not found"."""


RAN_OUT = 3
"""The exit status of a piece that ran out of memory with not even its answer's few bytes left to send."""

RAN_OUT_TEXT = "the piece ran out of memory"


class ApartFailed(GroundedError):
    """A piece of work run in a process of its own ended without an answer."""

    def __init__(self, message: str, returncode: int | None = None) -> None:
        super().__init__(message)
        self.returncode = returncode

    def __reduce__(self) -> tuple:  # raised in a piece apart, pickled back to its caller with its status
        return ApartFailed, (str(self), self.returncode)

    @property
    def died(self) -> bool:
        return died(self.returncode)


def died(returncode: int | None) -> bool:
    """Ended by a signal or by glibc's allocation abort: under an address-space limit, the way a library
    that does not check its allocations runs out of memory (a segmentation fault, an abort); or out of
    memory with nothing left to say so (``RAN_OUT``)."""
    return returncode is not None and (returncode < 0 or returncode in (GLIBC_ALLOCATION_ABORT, RAN_OUT))


def mapped_bytes() -> int:
    """This process's address space (what RLIMIT_AS bounds); 0 where /proc does not say."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            return int(handle.read().split()[0]) * resource.getpagesize()
    except OSError:
        return 0


def headroom() -> int | None:
    """What this process's address-space limit has left (None: no limit), for a piece it starts."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else max(soft - mapped_bytes(), 0)


def limit_beyond(budget: int) -> int:
    """At most ``budget`` bytes of address space beyond what this process maps now (RLIMIT_AS, within
    its hard limit); returns the soft limit it replaced, for the caller to put back."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = mapped_bytes() + budget
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return soft


def peak_bytes() -> int:
    """This process's peak RSS (ru_maxrss, in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


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


PR_SET_PDEATHSIG = 1
"""prctl(2): the signal a process gets when its parent ends."""


def _die_with_parent() -> None:
    """A piece whose caller ended (killed at a time limit, say) ends too, instead of running on
    unowned: Linux's parent-death signal; where there is no prctl, the piece runs to its end."""
    name = ctypes.util.find_library("c")
    prctl = getattr(ctypes.CDLL(name), "prctl", None) if name else None
    if prctl is None:
        return
    parent = int(sys.argv[2]) if len(sys.argv) > 2 else None
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if parent is not None and os.getppid() != parent:  # the caller ended before the signal was asked for
        os._exit(1)


def serve() -> None:
    """The child's side: read ``sys.path`` and (fn, args) from standard input; write (True, value) or
    (False, exception) to what was standard output, which is standard error while ``fn`` runs.

    A piece that ran out of memory may have nothing left to pickle its answer or its MemoryError in:
    that answer is pickled before the budget applies, and sent in place of whatever could not be;
    should even that write fail, the process ends with ``RAN_OUT`` (never a traceback and status 1,
    which the caller would take for a failure other than memory)."""
    _die_with_parent()
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a print of the piece must not mix with its answer
    ran_out = pickle.dumps((False, MemoryError(RAN_OUT_TEXT)), pickle.HIGHEST_PROTOCOL)
    if sys.argv[3] != "None":  # the caller's budget: what it had left, beyond this piece's start-up
        limit_beyond(int(sys.argv[3]))
    try:
        data = _answer()
    except MemoryError:
        data = ran_out
    try:
        answers.write(data)
        answers.close()
        sys.stdout.flush()
        sys.stderr.flush()
    except MemoryError:
        os._exit(RAN_OUT)
    except OSError:  # the caller went away: nobody reads the answer
        pass
    os._exit(0)  # sent: an interpreter's shutdown that fails under the budget must not turn it into a failure


def _answer() -> bytes:
    """The piece run and its answer pickled: the value, or the exception it raised (as text where
    that does not pickle)."""
    sys.path[:] = pickle.load(sys.stdin.buffer)
    fn: Callable[..., Any] = serve
    try:  # reading the piece imports its modules: under a budget, that may be what runs out of memory
        fn, args = pickle.load(sys.stdin.buffer)
        answer: tuple[bool, Any] = (True, fn(*args))
    except MemoryError:
        raise
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the caller
        answer = (False, exc)
    try:
        return pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
    except MemoryError:
        raise
    except Exception:  # noqa: BLE001 - an answer or exception that does not pickle: its text does
        ok, value = answer
        text = (f"the answer of {fn.__qualname__} cannot be sent back" if ok else
                "".join(traceback.format_exception(value)))
        return pickle.dumps((False, RuntimeError(text)))


def how_it_ended(exitcode: int | None) -> str:
    """A process's exit status in words."""
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        return f"killed by signal {-exitcode}"
    if exitcode == GLIBC_ALLOCATION_ABORT:
        return "the C library could not allocate and ended it"
    if exitcode == RAN_OUT:
        return "it ran out of memory"
    return f"exit status {exitcode}"


def run_apart(what: str, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a fresh process; ``what`` names the piece in an ``ApartFailed``.

    ``fn`` and ``args`` are pickled (``fn`` by its module and name), so ``fn``
    is a module-level function and the arguments plain data."""
    root = str(Path(__file__).parents[2])  # where this grounded was imported from (symbolic links kept)
    job = pickle.dumps(list(sys.path), pickle.HIGHEST_PROTOCOL) + pickle.dumps((fn, args), pickle.HIGHEST_PROTOCOL)
    left = headroom()
    command = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
               "from grounded.solvers.apart import serve; serve()", root, str(os.getpid()), str(left)]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as process:
        try:
            out, _ = process.communicate(job)
        except BrokenPipeError:  # it ended before reading the piece
            out = b""
            process.wait()
        finally:
            if process.poll() is None:  # the caller was interrupted: the piece goes too
                process.kill()
    if process.returncode != 0 or not out:
        raise ApartFailed(f"{what}: its process ended without an answer ({how_it_ended(process.returncode)})",
                          process.returncode)
    ok, value = pickle.loads(out)
    if not ok:
        raise value
    return value
