"""A memory bound for `grounded check`: refuse clearly instead of taking the machine down.

A whole history is grounded at once, and a history far beyond what the linear
encodings were measured on (or a pathological one) can need more memory than
the machine has.  While a check runs, the address space of the process is
capped (RLIMIT_AS) at what it already uses plus a budget; an allocation beyond
it fails in Python (MemoryError), in clingo (bad_alloc) or in SWI-Prolog (a
resource error), and the check stops with ``MemoryBudgetError``: one line that
says so, exit 2.
"""

from __future__ import annotations

import resource
from collections.abc import Iterator
from contextlib import contextmanager

from grounded.core.errors import GroundedError

GB = 1024 ** 3


class MemoryBudgetError(GroundedError):
    """The check needed more memory than its budget."""


def available_bytes() -> int | None:
    """MemAvailable from /proc/meminfo (None where there is no such file)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def default_budget() -> int:
    """Half of the memory available now, at least 1 GB."""
    available = available_bytes()
    return max(GB, available // 2) if available else 4 * GB


def _mapped_bytes() -> int:
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            return int(handle.read().split()[0]) * resource.getpagesize()
    except OSError:
        return 0


def _out_of_memory(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError):
        return True
    text = str(exc).lower()
    return any(word in text for word in ("bad_alloc", "out of memory", "not enough memory",
                                         "resource_error", "memory"))


@contextmanager
def memory_bound(budget: int | None) -> Iterator[None]:
    """Run the body with at most ``budget`` bytes of address space beyond what is mapped now."""
    if budget is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _mapped_bytes() + budget
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    except Exception as exc:
        if isinstance(exc, GroundedError) and not _out_of_memory(exc):
            raise
        if not _out_of_memory(exc):
            raise
        raise MemoryBudgetError(
            f"the check needed more than its memory budget of {budget / GB:.2f} GB and was stopped "
            f"({type(exc).__name__}); check an earlier part with --at, or raise --memory-limit") from exc
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
