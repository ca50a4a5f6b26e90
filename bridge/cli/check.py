"""`grounded check`: Python, Prolog and ASP held equal over a whole history."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from grounded.cli.app import AsJson, At, Extensions, File, app, out
from grounded.crosscheck.budget import GB, default_budget, memory_bound
from grounded.crosscheck.check import check as check_history_file

PHASES = {"replay": "replaying through the engine", "asp": "recomputing in ASP", "compare": "comparing"}


@app.command("check")
def check_command(
    file: File,
    at: At = None,
    incremental: Annotated[bool, typer.Option(
        "--incremental", help="Ground the ASP history turn by turn instead of in one shot.")] = False,
    retraction: Annotated[bool, typer.Option(
        "--retraction", help="Also decide Proposition 2.5 and Corollary 2.6 for every literal in a Dep.")] = False,
    memory_limit: Annotated[float | None, typer.Option(
        "--memory-limit", min=0.01,
        help="GB the check may use beyond what the process holds at its start (default: half of the "
             "memory available); beyond it the check stops with exit 2.")] = None,
    as_json: AsJson = False,
    extension: Extensions = None,
) -> None:
    """Recompute the history with Python, Prolog and ASP; 'all agree' or the differences; exit 1 on any."""
    budget = int(memory_limit * GB) if memory_limit is not None else default_budget()
    with _progress() as progress:
        tasks: dict[str, TaskID] = {}

        def tell(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                for task in tasks.values():
                    progress.update(task, completed=progress.tasks[task].total)
                tasks[phase] = progress.add_task(PHASES.get(phase, phase), total=max(total, 1))
            progress.update(tasks[phase], completed=done, total=max(total, 1))

        with memory_bound(budget):
            report = check_history_file(file, at, extension or (), incremental=incremental, retraction=retraction,
                                        progress=tell)
    if report.load_error is not None:
        print(f"warning: {report.load_error}; checked the {report.utterances} utterances before it",
              file=sys.stderr)
    if as_json:
        print(json.dumps(report.to_json()))
    else:
        for line in report.mismatches + report.failures:
            out.print(line, style="red", markup=False)
        out.print(f"{file}: {report.summary()}", style="bold green" if report.ok else "bold red", markup=False)
    if not report.ok:
        raise typer.Exit(1)


def _progress() -> Progress:
    """Progress bars on stderr (shown on a terminal only; stdout keeps the answer)."""
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=Console(stderr=True), transient=True)
