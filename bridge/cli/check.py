"""`grounded check`: Python, Prolog and ASP held equal over a whole history."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from grounded.cli.app import AllowRulesChange, AsJson, At, Extensions, File, LoadProgress, Partial, app, err, out
from grounded.cli.retraction import EveryTurn, Seed
from grounded.crosscheck.check import check as check_history_file


@app.command("check")
def check_command(
    file: File,
    at: At = None,
    incremental: Annotated[bool, typer.Option(
        "--incremental", help="Ground the ASP history turn by turn instead of in one shot.")] = False,
    retraction: Annotated[bool, typer.Option(
        "--retraction", help="Also decide Proposition 2.5 and Corollary 2.6 from the raw history, for every "
        "literal at every turn (docs/retraction.md).")] = False,
    every_turn: EveryTurn = None,
    seed: Seed = None,
    as_json: AsJson = False,
    extension: Extensions = None,
    partial: Partial = False,
    allow_rules_change: AllowRulesChange = False,
) -> None:
    """Recompute the history with Python, Prolog and ASP; 'all agree' or the differences; exit 1 on any.

    A log is read as every command reads it: strict, or up to its first bad line with --partial.
    """
    with LoadProgress(f"reading {file.name}", then="checking: Python, Prolog and ASP", delay=0) as progress:
        report = check_history_file(file, at, extension or (), incremental=incremental, retraction=retraction,
                                    partial=partial, allow_rules_change=allow_rules_change, progress=progress,
                                    every_turn=every_turn, seed=seed)
    status = report.log_status
    if status is not None and status.torn_line is not None:
        err.print(f"warning: {status.torn_note()}", style="yellow", markup=False)
    note = status.partial_note() if status is not None else None
    if note is not None:
        err.print(f"warning: {note}", style="yellow", markup=False)
    if as_json:
        print(json.dumps(report.to_json()))
    else:
        for line in report.mismatches + report.failures:
            out.print(line, style="red", markup=False)
        out.print(f"{file}: {report.summary()}", style="bold green" if report.ok else "bold red", markup=False)
        if note is not None:
            out.print(note, style="bold yellow", markup=False)
    if not report.ok:
        raise typer.Exit(1)
