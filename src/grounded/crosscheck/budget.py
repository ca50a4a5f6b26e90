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
from grounded.solvers.apart import ApartFailed, died, how_it_ended, limit_beyond

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


_OUT_OF_MEMORY = ("bad_alloc", "out of memory", "not enough memory", "cannot allocate memory",
                  "not enough resources", "resource_error(", "failed to map segment from shared object")
"""How clingo (C++), SWI-Prolog and the C library say an allocation failed (the dynamic loader, a library
loaded past the budget: a check apart loads SWI-Prolog in its own process); a message merely
mentioning memory (a literal named ``memory_leak``) is not one of them."""


def _out_of_memory(exc: BaseException) -> bool:
    """Also a piece apart that died (a signal, glibc's abort) under the budget, as the check's own process
    dying is (``run_isolated``): the check of a long log loads SWI-Prolog in a process of its own."""
    if isinstance(exc, MemoryError) or (isinstance(exc, ApartFailed) and exc.died):
        return True
    text = str(exc).lower()
    return any(words in text for words in _OUT_OF_MEMORY)


@contextmanager
def memory_bound(budget: int | None) -> Iterator[None]:
    """Run the body with at most ``budget`` bytes of address space beyond what is mapped now."""
    if budget is None:
        yield
        return
    soft = limit_beyond(budget)
    try:
        yield
    except Exception as exc:
        _put_back(soft)  # the stop is told with the machine's memory, not with what the budget left
        if not _out_of_memory(exc):
            raise
        raise MemoryBudgetError(
            f"the check needed more than its memory budget of {budget / GB:.2f} GB and was stopped "
            f"({type(exc).__name__}); check an earlier part with --at, or raise --memory-limit") from exc
    finally:
        _put_back(soft)


def _put_back(soft: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (soft, resource.getrlimit(resource.RLIMIT_AS)[1]))


# -- a check in a process of its own ------------------------------------------------
# RLIMIT_AS makes most allocations beyond the budget fail cleanly, but not all: a
# library may abort the process instead (glibc: "cannot allocate memory for
# thread-local data: ABORT").  So the CLI runs the check in a child process with
# the limit set there; whatever way the child dies of it, the parent says so.




def run_isolated(spec: dict, budget: int) -> dict:
    """Run ``check`` with ``spec`` (its keyword arguments, JSON-able) in a child process
    capped at ``budget`` bytes; return what the child reported (see ``_child``)."""
    import json
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "result.json"
        done = subprocess.run([sys.executable, "-m", "grounded.crosscheck.budget", json.dumps(spec), str(budget),
                               str(result)], check=False)
        answer = json.loads(result.read_text()) if result.is_file() else {}
    if "report" in answer:
        return answer
    if answer.get("internal"):
        raise RuntimeError(answer["error"])
    if answer.get("error") and not answer.get("memory"):
        from grounded.core.errors import InputError

        raise InputError(answer["error"])
    if not answer and not died(done.returncode):
        raise RuntimeError(f"the check's process ended with exit status {done.returncode} and no answer")
    why = answer.get("error") or how_it_ended(done.returncode)
    raise MemoryBudgetError(
        f"the check needed more than its memory budget of {budget / GB:.2f} GB and was stopped ({why}); "
        "check an earlier part with --at, or raise --memory-limit")


def _child(spec_json: str, budget: str, result_path: str) -> int:
    import json
    from pathlib import Path

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

    from grounded.crosscheck.check import check

    spec = json.loads(spec_json)
    out = Path(result_path)
    phases = {"read": f"reading {Path(spec['file']).name}", "replay": "replaying through the engine",
              "asp": "recomputing in ASP", "compare": "comparing",
              "probe": "probing the log's states with candidate utterances",
              "shrink": "shrinking the log to a smallest disagreeing history"}
    console = Console(stderr=True)
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=console, transient=True, disable=not console.is_terminal)
    tasks: dict[str, TaskID] = {}

    def tell(phase: str, done: int, total: int) -> None:
        if phase not in tasks:
            for task in tasks.values():
                progress.update(task, completed=progress.tasks[task].total)
            tasks[phase] = progress.add_task(phases.get(phase, phase), total=max(total, 1))
        progress.update(tasks[phase], completed=done, total=max(total, 1))

    try:
        with progress, memory_bound(int(budget)):
            report = check(spec["file"], spec["at"], spec["extensions"], incremental=spec["incremental"],
                           retraction=spec["retraction"], every_turn=spec["every_turn"], seed=spec["seed"],
                           partial=spec["partial"], allow_rules_change=spec["allow_rules_change"],
                           probes=spec.get("probes", 0), shrink=spec.get("shrink", False), progress=tell,
                           apart=False)  # this child is the check's process of its own
    except MemoryBudgetError as exc:
        out.write_text(json.dumps({"error": type(exc.__cause__ or exc).__name__, "memory": True}))
        return 2
    except GroundedError as exc:
        out.write_text(json.dumps({"error": str(exc)}))
        return 2
    except Exception as exc:  # noqa: BLE001 - reported by the parent as an internal error
        out.write_text(json.dumps({"error": f"{type(exc).__name__}: {exc}", "internal": True}))
        return 2
    status = report.log_status
    # the JSON report describes every retraction (and its extensions): built only when asked for
    out.write_text(json.dumps({"report": report.to_json() if spec.get("as_json") else None,
                               "lines": report.mismatches + report.failures,
                               "summary": report.summary(), "ok": report.ok, "utterances": report.utterances,
                               "shrunk": None if report.shrunk is None else report.shrunk.utterances,
                               "shrunk_summary": None if report.shrunk is None
                               else report.shrunk.summary(report.utterances),
                               "torn_note": None if status is None else status.torn_note(),
                               "partial_note": None if status is None else status.partial_note()}))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(_child(*sys.argv[1:4]))
