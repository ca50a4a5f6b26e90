"""`grounded retractions`, and `grounded extensions --retract`: the retraction check with its work shown.

``retractions`` decides Proposition 2.5 and Corollary 2.6 the way
``grounded check --retraction`` does (crosscheck/retraction.py), without the
three-way comparison, and prints every retraction: the literal, the turn, X,
S' = S_t \\ X and the preferred extensions of AF|X that contain S'.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from grounded.cli.app import (
    DEFAULT_READING,
    AsJson,
    File,
    LogReading,
    app,
    out,
    reads_log,
)
from grounded.core.bounds import check_turn
from grounded.core.errors import InputError
from grounded.crosscheck.retraction import EVERY_TURN_LIMIT, Retraction, check_retraction, check_retractions
from grounded.dung import SEMANTICS, Framework
from grounded.dung import extensions as dung_extensions
from grounded.engine import Engine

EveryTurn = Annotated[bool | None, typer.Option(
    "--every-turn/--sample", show_default=False,
    help=f"Retractions: decide every literal at every turn, or a seeded sample (default: every one up to "
         f"{EVERY_TURN_LIMIT:,} (turn, literal) pairs, a sample above).")]
Seed = Annotated[int | None, typer.Option("--seed", help="Retractions: the sample's seed (printed with the answer).")]


@app.command()
@reads_log("no_cache")
def retractions(
    file: File,
    literal: Annotated[list[str] | None, typer.Option(
        "--literal", "-p", help="Retract only this literal (repeatable; default: every literal of the state).")] = None,
    at: Annotated[int | None, typer.Option("--at", help="Decide at this turn only (default: every turn).")] = None,
    every_turn: EveryTurn = None,
    seed: Seed = None,
    as_json: AsJson = False,
    reading: LogReading = DEFAULT_READING,
) -> None:
    """Proposition 2.5 and Corollary 2.6 per retraction: X, S' and the extensions of AF|X; exit 1 if one fails."""
    check_turn(at)
    engine = reading.load(file)
    for p in literal or ():
        engine.affected(p)  # a clear error for a malformed literal
    report = check_retractions(engine.state, at=at, turns=None if at is None else [at], literals=literal,
                               every_turn=every_turn, seed=seed)
    if as_json:
        print(json.dumps(report.to_json()))
    else:
        for r in report.results:
            for line in report.describe(r):
                out.print(line, markup=False, style=None if r.holds else "red")
        for line in report.mismatches:
            out.print(line, style="red", markup=False)
        out.print(f"{file}: {report.summary()}", style="bold green" if report.ok else "bold red", markup=False)
    engine.close()
    if not report.ok:
        raise typer.Exit(1)


def retracted_framework(engine: Engine, literal: str, at: int | None, closure: bool) -> tuple[Framework, Retraction]:
    """AF|X at turn ``at``, X = Affected*(literal) (or Affected): what retracting ``literal`` leaves;
    and the retraction decided there."""
    engine.affected(literal, closure=closure, at=at)  # a clear error for a malformed literal or turn
    r = check_retraction(engine, literal, closure, at)
    return Framework.from_engine(engine, r.turn).restrict(r.removed), r


def print_retraction_extensions(engine: Engine, literal: str, at: int | None, closure: bool, semantics: str,
                                limit: int, as_json: bool) -> None:
    """The extensions of AF|X, X = Affected*(literal) (or Affected), marked by whether they contain S'."""
    if semantics not in SEMANTICS:
        raise InputError(f"--semantics {semantics}: expected one of {', '.join(SEMANTICS)}")
    af, r = retracted_framework(engine, literal, at, closure)
    found = dung_extensions(af, semantics, limit=limit)
    dm = engine.state

    def claims(ids) -> list[str]:
        return [dm.arg(a).claim for a in sorted(ids)]

    if as_json:
        print(json.dumps({"literal": literal, "at": r.turn, "closure": closure, "semantics": semantics,
                          "affected": claims(r.removed), "kept": claims(r.kept),
                          "extensions": [claims(e) for e in found],
                          "contain_kept": [r.kept <= e for e in found]}))
        return

    def names(ids) -> str:
        return "{" + ", ".join(f"{dm.arg(a).claim} #{a}" for a in sorted(ids)) + "}"

    out.print(f"X = {r.name} at turn {r.turn} = {names(r.removed)}", markup=False)
    out.print(f"S' = S_t \\ X = {names(r.kept)}", markup=False)
    out.print(f"{len(found)} {semantics} extension(s) of AF|X with {len(af)} arguments and {len(af.attacks)} "
              f"attacks ({'acyclic' if af.is_acyclic() else 'attack graph has cycles'})", markup=False)
    for i, ext in enumerate(found, 1):
        mark = "contains S'" if r.kept <= ext else f"misses {names(r.kept - ext)} of S'"
        out.print(f"{i}. {names(ext)}: {mark}", markup=False)
