"""`grounded world`: the world model M at a turn, drawn as a Kripke model or summarised when large."""

from __future__ import annotations

import json
import sys
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
    check_at_within,
    out,
    reads_log,
)
from grounded.core.errors import InputError
from grounded.present.picture import format_of, render
from grounded.present.worldgraph import DRAW_LIMIT, summary_lines, to_dot, world_graph

MAX_LIMIT = 64
"""--limit may raise the drawing threshold this far (a drawing of n worlds has up to n(n-1)/2 edges)."""


@app.command()
@reads_log("no_cache")
def world(
    file: File,
    at: At = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Draw the model here: .svg, .png, .pdf "
                                                                      "or .dot.")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=MAX_LIMIT,
                                       help="Draw models of at most this many worlds; larger ones are "
                                            "summarised.")] = DRAW_LIMIT,
    as_json: AsJson = False,
    reading: LogReading = DEFAULT_READING,
) -> None:
    """The world model as of --at (default: the last turn): worlds, each agent's indistinguishability and
    plausibility order.  Prints a summary (cells by size, worlds by the atoms that differ); with -o draws
    the worlds as nodes, edges labelled by the agents who cannot tell them apart, arrows to the more
    plausible world.  A model of more than --limit worlds is summarised only (-o: exit 2)."""
    if output is not None:
        format_of(output, "--output")
    engine = reading.load(file)
    if engine.world is None:
        raise InputError(f"{file}: the conversation declares no world model (a `world:` section of its header)")
    check_at_within(engine, at)
    graph = world_graph(engine.model_at(at), limit)
    when = "at the end" if at is None else f"as of T{at}"
    if as_json:
        print(json.dumps({"at": at, **graph}))
    else:
        out.print(f"M {when}:", markup=False)
        for line in summary_lines(graph):
            out.print(f"  {line}", markup=False)
    if output is None:
        return
    if not graph["drawn"]:
        raise InputError(f"--output: M {when} has {graph['size']} worlds, more than --limit {limit} draws; "
                         "the summary above says what it holds")
    output.write_bytes(render([to_dot(graph, f"M {when}: |W| = {graph['size']}")], format_of(output))[0])
    print(f"wrote {output}: {graph['size']} worlds, {len(graph['edges'])} edges", file=sys.stderr)
