"""`grounded check`: Python, Prolog and ASP held equal over a whole history."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from grounded.cli.app import AsJson, At, Extensions, File, app, out
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
) -> None:
    """Recompute the history with Python, Prolog and ASP; 'all agree' or the differences; exit 1 on any."""
    report = check_history_file(file, at, extension or (), incremental=incremental, retraction=retraction,
                                every_turn=every_turn, seed=seed)
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
