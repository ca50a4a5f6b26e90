"""``grounded fuzz -x FILE``: random histories mixing the built-ins with the author's
operations, each checked three ways; the seed is printed so that a failure can be redrawn."""

from __future__ import annotations

import secrets
from typing import Annotated

import typer

from grounded.authoring import fuzz
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
    used = ", ".join(f"{op} {n}" for op, n in sorted(report.used.items())) or "none"
    if report.failure is not None:
        number, its_seed, size, mismatch = report.failure
        out.print(f"history {number} (seed {its_seed}, {size} utterances): {mismatch}", markup=False)
        out.print(f"redraw it: grounded fuzz {' '.join(f'-x {p}' for p in extension)} --histories 1 "
                  f"--length {length} --seed {its_seed}", markup=False)
        exit_with(1)
    out.print(f"all agree (Python, Prolog and ASP): {report.histories} histories, {report.utterances} utterances "
              f"({report.accepted} accepted; accepted uses of the extension: {used})", markup=False)
