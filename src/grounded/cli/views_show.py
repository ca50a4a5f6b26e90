"""`grounded show`: the picture of the dependency map, drawn by the view program and laid out by Graphviz."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from grounded.cli.app import (
    DEFAULT_READING,
    At,
    File,
    LogReading,
    app,
    check_at_within,
    reads_log,
)
from grounded.core.errors import InputError
from grounded.present.picture import FORMATS, WRAP, format_of, picture
from grounded.present.slides import SLIDE, write_slides, write_turns

View = Annotated[Path | None, typer.Option("--view", help="Your own view program (.lp) instead of "
                                                          "asp/views/picture.lp.")]
Labels = Annotated[str, typer.Option("--labels", help="What a node says: id (the claim only), short (the claim "
                                                      "over two lines of its text) or full (over all of it).")]
Wrap = Annotated[int, typer.Option("--wrap", help="Characters per line of a node's text.")]


@app.command()
@reads_log("no_cache")
def show(
    file: File,
    at: At = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here: .svg, .png, .pdf or .dot "
                                                                      "(default: SVG on stdout).")] = None,
    focus: Annotated[str | None, typer.Option("--focus", help="Highlight the Dep* chain of this claim "
                                                              "(and where Verify fails).")] = None,
    affected: Annotated[str | None, typer.Option("--affected", help="Highlight Affected* of this literal.")] = None,
    view: View = None,
    labels: Labels = "short",
    wrap: Wrap = WRAP,
    all_turns: Annotated[bool, typer.Option("--all-turns", help="One picture per turn into the folder -o DIR "
                                                               "(turn-01.svg, ...), every node where it is in "
                                                               "all of them.")] = False,
    fmt: Annotated[str, typer.Option("--format", help="With --all-turns: svg, png, pdf or dot.")] = "svg",
    slides: Annotated[bool, typer.Option("--slides", help="One 16:9 slide per turn into the folder -o DIR "
                                                          "(slide-01.png, ...): the utterance across the top, the "
                                                          "picture in large type with the ids, what the rules did "
                                                          "and the changed claims' texts beside it.")] = False,
    diff: Annotated[tuple[int, int] | None, typer.Option("--diff", metavar="T0 T1",
                                                         help="The picture at T1 marked with what appeared, "
                                                              "lost grounding or changed standing since T0.")] = None,
    reading: LogReading = DEFAULT_READING,
) -> None:
    """The picture: arguments (shape by kind, colour by standing, ✓ when grounded, ✗ and washed out when in
    standing but not grounded), their texts, Dep, attacks, explains, decisions and dissent."""
    if slides:
        _check_all_turns(output, "png", at, diff, focus, affected, "--slides")
        if all_turns:
            raise InputError("--slides and --all-turns: give one of them")
        assert output is not None
        made = write_slides(file, output, extensions=reading.extension, view=view)
        print(f"wrote {len(made)} slides of {SLIDE[0]}x{SLIDE[1]} px to {output}/ ({made[0].path.name} ... "
              f"{made[-1].path.name}); the picture's smallest type {min(s.smallest for s in made):.0f} px"
              if made else f"nothing to draw: {file} has no turns", file=sys.stderr)
        return
    if all_turns:
        _check_all_turns(output, fmt, at, diff, focus, affected)
        assert output is not None
        written = write_turns(file, output, fmt, extensions=reading.extension, view=view, labels=labels, wrap=wrap)
        print(f"wrote {len(written)} pictures to {output}/ ({written[0].name} ... {written[-1].name})"
              if written else f"nothing to draw: {file} has no turns", file=sys.stderr)
        return
    fmt = "svg" if output is None else format_of(output, "--output")
    engine = reading.load(file)
    since = None
    if diff is not None:
        since, at = _check_diff(diff, at)
        if engine.turn is not None and at > engine.turn:
            raise InputError(f"--diff {since} {at}: the conversation ends at turn {engine.turn}")
    check_at_within(engine, at)
    pic = picture(engine, at, focus=focus, affected=affected, view=view, labels=labels, wrap=wrap, since=since)
    data = pic.render(fmt)
    if output is None:
        sys.stdout.write(data.decode("utf-8"))
    else:
        output.write_bytes(data)
        print(f"wrote {output}", file=sys.stderr)


def _check_all_turns(output: Path | None, fmt: str, at: int | None, diff: tuple[int, int] | None,
                     focus: str | None, affected: str | None, option: str = "--all-turns") -> None:
    if output is None:
        raise InputError(f"{option}: give the folder to write into with -o DIR")
    if output.exists() and not output.is_dir():
        raise InputError(f"{option} -o {output}: a file, not a folder")
    if fmt not in FORMATS:
        raise InputError(f"--format {fmt}: expected one of {', '.join(FORMATS)}")
    given = [name for name, value in (("--at", at), ("--diff", diff), ("--focus", focus), ("--affected", affected))
             if value is not None]
    if given:
        raise InputError(f"{option} draws every turn as it was; it does not take {', '.join(given)}")


def _check_diff(diff: tuple[int, int], at: int | None) -> tuple[int, int]:
    since, until = diff
    if at is not None:
        raise InputError("--diff T0 T1 draws T1: leave out --at")
    if not 0 <= since < until:
        raise InputError(f"--diff {since} {until}: the first turn must come before the second")
    return since, until
