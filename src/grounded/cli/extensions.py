"""`grounded extensions`: the extensions of the argumentation framework of a log, scenario or ICCMA file."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from grounded.cli.app import (
    DEFAULT_READING,
    AsJson,
    At,
    LogReading,
    app,
    log_json,
    out,
    reads_log,
    say_partial,
)
from grounded.cli.retraction import print_retraction_extensions, retracted_framework
from grounded.core.errors import InputError
from grounded.dung import SEMANTICS, Framework, iccma
from grounded.dung import extensions as dung_extensions

FrameworkFile = Annotated[Path, typer.Argument(
    help="Event log (.jsonl), scenario (.yaml), or an ICCMA framework (.apx, .tgf).")]


@app.command("extensions")
@reads_log()
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
    reading: LogReading = DEFAULT_READING,
    to: Annotated[str | None, typer.Option(
        "--to", help="Print the framework (AF|X with --retract) as apx or tgf (ICCMA formats) instead of its "
                     "extensions; a conversation's claims travel as comments (apx) or node labels (tgf).")] = None,
    credulous: Annotated[str | None, typer.Option(
        "--credulous", metavar="A", help="ICCMA task DC: is argument A in some extension? YES or NO, and a "
                                         "witness extension (A: a<id> or a claim for a conversation).")] = None,
    sceptical: Annotated[str | None, typer.Option(
        "--sceptical", metavar="A", help="ICCMA task DS: is argument A in every extension? YES or NO, and a "
                                         "counterexample extension.")] = None,
) -> None:
    """Dung extensions of an argumentation framework: a conversation's AF_t (every argument, every
    attack; arguments named a<id> in --to output), or an ICCMA .apx/.tgf file.

    --json prints a list of extensions; with --partial, an object {"extensions": [...], "complete": ...}.
    """
    if semantics not in SEMANTICS:
        raise InputError(f"--semantics {semantics}: expected one of {', '.join(SEMANTICS)}")
    if to is not None and to not in iccma.FORMATS:
        raise InputError(f"--to {to}: expected one of {', '.join(iccma.FORMATS)}")
    tasks = [(o, v) for o, v in (("--to", to), ("--credulous", credulous), ("--sceptical", sceptical)) if v]
    if len(tasks) > 1:
        raise InputError(f"{tasks[0][0]} and {tasks[1][0]}: give one of them")
    if file.suffix.lower() in iccma.SUFFIXES:
        for given, option in ((at, "--at"), (reading.extension, "--extension"), (reading.partial, "--partial"),
                              (retract, "--retract")):
            if given:
                raise InputError(f"{option} applies to a conversation, not to the framework file {file}")
        named = iccma.read(file)
        view = Named(named.af, named.name, None, lambda a: [i for i, n in enumerate(named.names, 1) if n == a])
        if not _task(view, semantics, to, credulous, sceptical, as_json):
            _framework_file(named, semantics, limit, as_json)
        return
    engine = reading.load(file)
    dm = engine.state
    if retract is not None:
        if not tasks:
            return print_retraction_extensions(engine, retract, at, not one_step, semantics, limit, as_json)
        af, _ = retracted_framework(engine, retract, at, not one_step)
    else:
        af = Framework.from_engine(engine, at)

    def by_claim(text: str) -> list[int]:
        if text[:1] == "a" and text[1:].isdigit() and int(text[1:]) in af.arguments:
            return [int(text[1:])]
        return sorted(a for a in dm.claimants.get(text, ()) if a in af.arguments)

    view = Named(af, lambda a: f"a{a}", lambda a: dm.arg(a).claim, by_claim)
    if _task(view, semantics, to, credulous, sceptical, as_json):
        return
    found = dung_extensions(af, semantics, limit=limit)
    if as_json:
        listed = [[dm.arg(a).claim for a in sorted(ext)] for ext in found]
        print(json.dumps({"extensions": listed, **log_json(engine)} if reading.partial else listed))
        return
    out.print(_headline(af, semantics, found), markup=False)
    for i, ext in enumerate(found, 1):
        members = [f"{dm.arg(a).claim}" + ("" if dm.in_standing(a, at) else f" ({dm.arg(a).standing_at(at)})")
                   for a in sorted(ext)]
        out.print(f"{i}. " + (", ".join(members) or "(empty)"), markup=False)
    say_partial(engine)


@dataclass(frozen=True)
class Named:
    """A framework with how its arguments are named: the ICCMA token, the claim (a conversation's), and
    the arguments a name given on the command line stands for."""

    af: Framework
    name: Callable[[int], str]
    claim: Callable[[int], str] | None
    lookup: Callable[[str], list[int]]


def _task(view: Named, semantics: str, to: str | None, credulous: str | None, sceptical: str | None,
          as_json: bool) -> bool:
    """Run --to, --credulous or --sceptical if one was asked for (True), else leave the listing to the caller."""
    if to is not None:
        print(iccma.write(view.af, to, name=view.name, label=view.claim), end="")
        return True
    asked = credulous if credulous is not None else sceptical
    if asked is None:
        return False
    wanted = view.lookup(asked)
    if not wanted:
        raise InputError(f"{'--credulous' if credulous is not None else '--sceptical'} {asked}: no such argument "
                         "in the framework" + ("" if view.claim is None else " (give a<id> or a claim)"))
    found = dung_extensions(view.af, semantics)
    holds = [e for e in found if e & set(wanted)]
    if credulous is not None:
        task, yes = "DC", bool(holds)
        shown = holds[0] if holds else None  # a witness
    else:
        missing = [e for e in found if not e & set(wanted)]
        task, yes = "DS", not missing
        shown = missing[0] if missing else None  # a counterexample
    members = sorted(shown) if shown is not None else None
    if as_json:
        print(json.dumps({"task": f"{task}-{semantics}", "argument": asked, "answer": "YES" if yes else "NO",
                          "extensions": len(found),
                          ("witness" if credulous is not None else "counterexample"):
                              None if members is None else [view.name(a) for a in members],
                          **({} if view.claim is None or members is None
                             else {"claims": [view.claim(a) for a in members]})}))
        return True
    print("YES" if yes else "NO")
    if members is not None:
        print("w " + " ".join(view.name(a) for a in members))
        if view.claim is not None:
            kind = "witness" if credulous is not None else "counterexample"
            print(f"% {kind}: " + (", ".join(f"{view.claim(a)} #{a}" for a in members) or "(empty)"))
    return True


def _framework_file(named: iccma.NamedFramework, semantics: str, limit: int, as_json: bool) -> None:
    """Extensions of a framework read from an ICCMA file, its arguments named as the file names them."""
    af = named.af
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
