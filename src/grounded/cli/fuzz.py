"""``grounded fuzz -x FILE``: aimed histories mixing the built-ins with the author's
operations, each checked three ways, and the coverage they reached; the seed is printed so that a
failure can be redrawn.  ``grounded cover FILE``: the transitions property alone."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Annotated

import typer

from grounded.authoring import fuzz
from grounded.authoring.coverage import cover
from grounded.cli.app import Extensions, Timeout, app, err, exit_with, out
from grounded.core.errors import InputError


@app.command("fuzz")
def fuzz_command(
    extension: Extensions = None,
    timeout: Timeout = None,
    histories: Annotated[int, typer.Option("--histories", min=1, max=10_000, help="How many histories.")] = 20,
    length: Annotated[int, typer.Option("--length", min=1, max=200, help="Utterances per history.")] = 12,
    seed: Annotated[int | None, typer.Option("--seed", min=0, help="First seed (default: drawn, and printed).")
                    ] = None,
) -> None:
    """Check random histories using the -x operations three ways (Python, Prolog, ASP); exit 1 naming the
    first disagreement."""
    if not extension:
        raise InputError("fuzz: give the rule file of the operation to fuzz: -x FILE.pl")
    seed = secrets.randbelow(2**31) if seed is None else seed
    out.print(f"fuzz: seed {seed}, {histories} histories of {length} utterances", markup=False)
    report = fuzz([str(p) for p in extension], histories, seed, length,
                  on_history=lambda n, r: err.print(f"  {n}/{histories} agree", style="dim", markup=False)
                  if err.is_terminal else None)
    if report.failure is not None:
        number, its_seed, size, mismatch = report.failure
        out.print(f"history {number} (seed {its_seed}, {size} utterances): {mismatch}", markup=False)
        out.print(f"redraw it: grounded fuzz {' '.join(f'-x {p}' for p in extension)} --histories 1 "
                  f"--length {length} --seed {its_seed}", markup=False)
        exit_with(1)
    out.print(f"all agree (Python, Prolog and ASP): {report.histories} histories ({report.in_world} with a world "
              f"model), {report.utterances} utterances ({report.accepted} accepted)", markup=False)
    _coverage(list(report.coverage.values()), report.problems)


def _coverage(coverage: list, problems: list[str]) -> None:
    """The coverage report, then what it missed; exit 1 if it missed anything."""
    out.print("coverage:", markup=False)
    for c in coverage:
        for line in c.lines():
            out.print(f"  {line}", markup=False)
    for problem in problems:
        out.print(f"MISSED {problem}", markup=False)
    exit_with(1 if problems else 0)


@app.command("cover")
def cover_command(
    file: Annotated[Path, typer.Argument(help="An extension rule file (.pl).")],
    histories: Annotated[int, typer.Option("--histories", min=1, max=10_000, help="At most this many.")] = 400,
    length: Annotated[int, typer.Option("--length", min=1, max=200, help="Moves per history.")] = 30,
    seed: Annotated[int, typer.Option("--seed", min=0, help="First seed.")] = 0,
    seconds: Annotated[float, typer.Option("--seconds", min=1, help="Stop drawing after this long.")] = 60.0,
) -> None:
    """Draw aimed histories until every transition each operation of FILE declares has fired, each standing
    change checked against the declaration (no three-way check: see fuzz); exit 1 naming what never fired."""
    if not file.is_file():
        raise InputError("no such rule file", path=str(file))
    from grounded.engine import Engine

    with Engine(extensions=[file]) as engine:
        ops = sorted(n for n in engine.registry.specs if n not in engine.registry.builtins)
    if not ops:
        raise InputError("declares no operation", path=str(file))
    tally = cover(ops, [str(file)], seed=seed, histories=histories, length=length, seconds=seconds)
    coverage = list(tally.of.values())
    out.print(f"cover: {file}, {coverage[0].utterances if coverage else 0} utterances", markup=False)
    _coverage(coverage, [p for c in coverage for p in c.problems()])
