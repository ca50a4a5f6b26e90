"""`grounded extensions` and `grounded state`: the argumentation framework and the table of arguments."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from grounded.cli.app import (
    AllowRulesChange,
    AsJson,
    At,
    Extensions,
    File,
    Partial,
    app,
    load_engine,
    log_json,
    out,
    say_partial,
)
from grounded.cli.retraction import print_retraction_extensions
from grounded.core.errors import InputError
from grounded.dung import SEMANTICS, Framework
from grounded.dung import extensions as dung_extensions
from grounded.present import render


@app.command("extensions")
def extensions_command(
    file: File,
    semantics: Annotated[str, typer.Option(
        "--semantics", "-s", help="grounded, complete, preferred, stable or admissible.")] = "preferred",
    at: At = None,
    limit: Annotated[int, typer.Option("--limit", help="At most this many extensions (0: all).")] = 0,
    retract: Annotated[str | None, typer.Option(
        "--retract", help="The extensions of AF|X instead, X = Affected*(P): what retracting P leaves.")] = None,
    one_step: Annotated[bool, typer.Option("--one-step", help="With --retract: X = Affected(P).")] = False,
    as_json: AsJson = False,
    extension: Extensions = None,
    partial: Partial = False,
    allow_rules_change: AllowRulesChange = False,
) -> None:
    """Dung extensions of the conversation's argumentation framework AF_t (every argument, every attack).

    --json prints a list of extensions; with --partial, an object {"extensions": [...], "complete": ...}.
    """
    if semantics not in SEMANTICS:
        raise InputError(f"--semantics {semantics}: expected one of {', '.join(SEMANTICS)}")
    engine = load_engine(file, extension, partial, allow_rules_change)
    if retract is not None:
        return print_retraction_extensions(engine, retract, at, not one_step, semantics, limit, as_json)
    af = Framework.from_engine(engine, at)
    found = dung_extensions(af, semantics, limit=limit)
    dm = engine.state
    if as_json:
        listed = [[dm.arg(a).claim for a in sorted(ext)] for ext in found]
        print(json.dumps({"extensions": listed, **log_json(engine)} if partial else listed))
        return
    path = "acyclic: one extension, by topological processing" if af.is_acyclic() else "attack graph has cycles"
    out.print(f"{len(found)} {semantics} extension(s) of AF with {len(af)} arguments and "
              f"{len(af.attacks)} attacks ({path})")
    for i, ext in enumerate(found, 1):
        members = [f"{dm.arg(a).claim}" + ("" if dm.in_standing(a, at) else f" ({dm.arg(a).standing_at(at)})")
                   for a in sorted(ext)]
        out.print(f"{i}. " + (", ".join(members) or "(empty)"), markup=False)
    say_partial(engine)


@app.command()
def state(file: File, at: At = None, extension: Extensions = None, partial: Partial = False,
          allow_rules_change: AllowRulesChange = False) -> None:
    """Every argument with its standing, groundedness and Dep; open problems, commitments, dissent."""
    engine = load_engine(file, extension, partial, allow_rules_change)
    render.render_state(out, engine, at, full=True)
    say_partial(engine)
