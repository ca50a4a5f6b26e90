"""`grounded extensions` and `grounded state`: the argumentation framework and the table of arguments."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from grounded.cli.app import (
    AllowRulesChange,
    AsJson,
    At,
    Extensions,
    File,
    NoCache,
    Partial,
    app,
    load_engine,
    log_json,
    out,
    say_partial,
)
from grounded.cli.retraction import print_retraction_extensions
from grounded.core.errors import InputError
from grounded.dung import SEMANTICS, Framework, iccma
from grounded.dung import extensions as dung_extensions
from grounded.present import render

FrameworkFile = Annotated[Path, typer.Argument(
    help="Event log (.jsonl), scenario (.yaml), or an ICCMA framework (.apx, .tgf).")]


@app.command("extensions")
def extensions_command(
    file: FrameworkFile,
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
    no_cache: NoCache = False,
    to: Annotated[str | None, typer.Option(
        "--to", help="Print the framework as apx or tgf (ICCMA formats) instead of its extensions.")] = None,
) -> None:
    """Dung extensions of an argumentation framework: a conversation's AF_t (every argument, every
    attack; arguments named a<id> in --to output), or an ICCMA .apx/.tgf file.

    --json prints a list of extensions; with --partial, an object {"extensions": [...], "complete": ...}.
    """
    if semantics not in SEMANTICS:
        raise InputError(f"--semantics {semantics}: expected one of {', '.join(SEMANTICS)}")
    if to is not None and to not in iccma.FORMATS:
        raise InputError(f"--to {to}: expected one of {', '.join(iccma.FORMATS)}")
    if file.suffix.lower() in iccma.SUFFIXES:
        for given, option in ((at, "--at"), (extension, "--extension"), (partial, "--partial"),
                              (retract, "--retract")):
            if given:
                raise InputError(f"{option} applies to a conversation, not to the framework file {file}")
        _framework_file(iccma.read(file), semantics, limit, as_json, to)
        return
    engine = load_engine(file, extension, partial, allow_rules_change, no_cache)
    if retract is not None:
        return print_retraction_extensions(engine, retract, at, not one_step, semantics, limit, as_json)
    af = Framework.from_engine(engine, at)
    if to is not None:
        print(iccma.write(af, to, name=lambda a: f"a{a}"), end="")
        return
    found = dung_extensions(af, semantics, limit=limit)
    dm = engine.state
    if as_json:
        listed = [[dm.arg(a).claim for a in sorted(ext)] for ext in found]
        print(json.dumps({"extensions": listed, **log_json(engine)} if partial else listed))
        return
    out.print(_headline(af, semantics, found), markup=False)
    for i, ext in enumerate(found, 1):
        members = [f"{dm.arg(a).claim}" + ("" if dm.in_standing(a, at) else f" ({dm.arg(a).standing_at(at)})")
                   for a in sorted(ext)]
        out.print(f"{i}. " + (", ".join(members) or "(empty)"), markup=False)
    say_partial(engine)


def _framework_file(named: iccma.NamedFramework, semantics: str, limit: int, as_json: bool,
                    to: str | None) -> None:
    """Extensions of a framework read from an ICCMA file, its arguments named as the file names them."""
    af = named.af
    if to is not None:
        print(iccma.write(af, to, name=named.name), end="")
        return
    found = dung_extensions(af, semantics, limit=limit)
    if as_json:
        print(json.dumps([[named.name(a) for a in sorted(ext)] for ext in found]))
        return
    out.print(_headline(af, semantics, found), markup=False)
    for i, ext in enumerate(found, 1):
        out.print(f"{i}. " + (", ".join(named.name(a) for a in sorted(ext)) or "(empty)"), markup=False)


def _headline(af: Framework, semantics: str, found: list) -> str:
    if af.is_acyclic():
        path = "acyclic: one extension, by the grounded labelling"
    else:
        path = "attack graph has cycles"
    return (f"{len(found)} {semantics} extension(s) of AF with {len(af)} arguments and "
            f"{len(af.attacks)} attacks ({path})")


@app.command()
def state(file: File, at: At = None, extension: Extensions = None, partial: Partial = False,
          allow_rules_change: AllowRulesChange = False, no_cache: NoCache = False) -> None:
    """Every argument with its standing, groundedness and Dep; open problems, commitments, dissent."""
    engine = load_engine(file, extension, partial, allow_rules_change, no_cache)
    render.render_state(out, engine, at, full=True)
    say_partial(engine)
