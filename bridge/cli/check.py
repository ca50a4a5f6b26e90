"""`grounded check`: Python, Prolog and ASP held equal over a whole history.

The check runs in a child process capped at its memory budget
(grounded.crosscheck.budget): a history too large for the machine stops the
child, and this command says so in one line (exit 2), whatever way it died.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from grounded.cli.app import AsJson, At, Extensions, File, app, out
from grounded.crosscheck.budget import GB, default_budget, run_isolated


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
        help="GB the check may use beyond what its process holds at the start (default: half of the "
             "memory available); beyond it the check stops with exit 2.")] = None,
    as_json: AsJson = False,
    extension: Extensions = None,
) -> None:
    """Recompute the history with Python, Prolog and ASP; 'all agree' or the differences; exit 1 on any."""
    budget = int(memory_limit * GB) if memory_limit is not None else default_budget()
    spec = {"file": str(file), "at": at, "extensions": [str(p) for p in extension or ()],
            "incremental": incremental, "retraction": retraction}
    answer = run_isolated(spec, budget)
    if answer["load_error"] is not None:
        print(f"warning: {answer['load_error']}; checked the {answer['utterances']} utterances before it",
              file=sys.stderr)
    if as_json:
        print(json.dumps(answer["report"]))
    else:
        for line in answer["lines"]:
            out.print(line, style="red", markup=False)
        out.print(f"{file}: {answer['summary']}", style="bold green" if answer["ok"] else "bold red", markup=False)
    if not answer["ok"]:
        raise typer.Exit(1)
