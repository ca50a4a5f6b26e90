"""`grounded check`: Python, Prolog and ASP held equal over a whole history.

The check runs in a child process capped at its memory budget
(grounded.crosscheck.budget): a history too large for the machine stops the
child, and this command says so in one line (exit 2), whatever way it died.
A log is read as every command reads it: strict, or up to its first bad line
with --partial.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from grounded.cli.app import (
    DEFAULT_READING,
    AsJson,
    At,
    File,
    LogReading,
    app,
    err,
    out,
    reads_log,
)
from grounded.cli.retraction import EveryTurn, Seed
from grounded.core.errors import InputError
from grounded.crosscheck.budget import GB, default_budget, run_isolated
from grounded.crosscheck.probe import PER_OP, PROBE_STATES
from grounded.scenario import SCENARIO_SUFFIXES


@app.command("check")
@reads_log("partial", "allow_rules_change")
def check_command(
    file: File,
    at: At = None,
    incremental: Annotated[bool, typer.Option(
        "--incremental", help="Ground the ASP history turn by turn instead of in one shot.")] = False,
    retraction: Annotated[bool, typer.Option(
        "--retraction", help="Also decide Proposition 2.5 and Corollary 2.6 from the raw history, for every "
        "literal at every turn (docs/retraction.md), and audit every standing against the attacks of AF_t.")] = False,
    every_turn: EveryTurn = None,
    seed: Seed = None,
    memory_limit: Annotated[float | None, typer.Option(
        "--memory-limit", min=0.01,
        help="GB the check may use beyond what its process holds at the start (default: half of the "
             "memory available); beyond it the check stops with exit 2.")] = None,
    probes: Annotated[int, typer.Option(
        "--probes", min=0,
        help=f"A log: candidate utterances per operation tried on each probed state (at most {PROBE_STATES} "
             "states, seeded by --seed or by the log; 0: no probing), so that a twin's preconditions are "
             "compared although a log holds no rejected utterance.")] = PER_OP,
    shrink: Annotated[bool, typer.Option(
        "--shrink", help="A log that disagrees: reduce it to a smallest history (header kept, utterances "
                         "dropped by delta debugging) that the rules accept and that still disagrees; printed "
                         "as a log, or written to -o.")] = False,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="With --shrink: write the smallest log here instead of printing it.")] = None,
    as_json: AsJson = False,
    reading: LogReading = DEFAULT_READING,
) -> None:
    """Recompute the history with Python, Prolog and ASP; 'all agree' or the differences; exit 1 on any."""
    if (shrink or output is not None) and file.suffix in SCENARIO_SUFFIXES:
        raise InputError(f"--shrink reduces an event log, not the scenario {file}")
    if output is not None and not shrink:
        raise InputError("-o/--output goes with --shrink")
    budget = int(memory_limit * GB) if memory_limit is not None else default_budget()
    spec = {"file": str(file), "at": at, "extensions": [str(p) for p in reading.extension or ()],
            "incremental": incremental, "retraction": retraction, "every_turn": every_turn, "seed": seed,
            "probes": probes, "shrink": shrink, "partial": reading.partial,
            "allow_rules_change": reading.allow_rules_change,
            "as_json": as_json}
    answer = run_isolated(spec, budget)
    for note in (answer["torn_note"], answer["partial_note"]):
        if note is not None:
            err.print(f"warning: {note}", style="yellow", markup=False)
    if as_json:
        print(json.dumps(answer["report"]))
    else:
        for line in answer["lines"]:
            out.print(line, style="red", markup=False)
        out.print(f"{file}: {answer['summary']}", style="bold green" if answer["ok"] else "bold red", markup=False)
        if answer["partial_note"] is not None:
            out.print(answer["partial_note"], style="bold yellow", markup=False)
    if answer.get("shrunk") is not None and not (as_json and output is None):  # --json holds it already
        _write_shrunk(file, answer["shrunk"], output)
        err.print(answer["shrunk_summary"] + ("" if output is None else f": written to {output}"), markup=False)
    if not answer["ok"]:
        raise typer.Exit(1)


def _write_shrunk(log: Path, utterances: list[dict], output: Path | None) -> None:
    """The log's own header line, then the utterances kept, one JSON line each."""
    with log.open("rb") as f:
        header = f.readline().rstrip(b"\r\n").decode("utf-8")
    text = "".join(f"{line}\n" for line in [header, *(json.dumps(u, ensure_ascii=False) for u in utterances)])
    if output is None:
        print(text, end="")
    else:
        output.write_text(text, encoding="utf-8")
