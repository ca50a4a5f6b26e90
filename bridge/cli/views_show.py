"""`grounded show`: the picture of the dependency map, drawn by the view program and laid out by Graphviz."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from grounded.cli.app import At, Extensions, File, NoCache, app, check_at_within, load_engine
from grounded.present.picture import WRAP, format_of, picture

View = Annotated[Path | None, typer.Option("--view", help="Your own view program (.lp) instead of "
                                                          "asp/views/picture.lp.")]
Labels = Annotated[str, typer.Option("--labels", help="What a node says: id (the claim only), short (the claim "
                                                      "over two lines of its text) or full (over all of it).")]
Wrap = Annotated[int, typer.Option("--wrap", help="Characters per line of a node's text.")]


@app.command()
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
    extension: Extensions = None,
    no_cache: NoCache = False,
) -> None:
    """The picture: arguments (shape by kind, colour by standing, ✓ when grounded, ✗ and washed out when in
    standing but not grounded), their texts, Dep, attacks, explains, decisions and dissent."""
    fmt = "svg" if output is None else format_of(output, "--output")
    engine = load_engine(file, extension, no_cache=no_cache)
    check_at_within(engine, at)
    pic = picture(engine, at, focus=focus, affected=affected, view=view, labels=labels, wrap=wrap)
    data = pic.render(fmt)
    if output is None:
        sys.stdout.write(data.decode("utf-8"))
    else:
        output.write_bytes(data)
        print(f"wrote {output}", file=sys.stderr)
