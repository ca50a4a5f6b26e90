"""`grounded book`: the step-through page, one self-contained HTML file."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from grounded.cli.app import DEFAULT_READING, File, LogReading, app, reads_log, report_reading
from grounded.cli.views_show import Labels, View, Wrap
from grounded.present.book import book as make_book
from grounded.present.picture import WRAP


@app.command()
@reads_log("partial")
def book(
    file: File,
    output: Annotated[Path, typer.Option("--output", "-o", help="The HTML file to write.")],
    view: View = None,
    labels: Labels = "short",
    wrap: Wrap = WRAP,
    reading: LogReading = DEFAULT_READING,
) -> None:
    """One HTML file that steps through the conversation (no server, no network): utterances, operations,
    what the rules did, the picture, Verify and Affected* on click, the world model, a scenario's questions
    (the engine's answer revealed on Check).  talk.html#t=9 opens T9.
    A log is read strictly (a bad line: exit 2 naming file:line); --partial pages the lines before it."""
    page, conv = make_book(file, reading.extension, view, partial=reading.partial, labels=labels, wrap=wrap)
    output.write_text(page, encoding="utf-8")
    report_reading(conv.engine)  # a torn final line; with --partial, where the page stops (the page says it too)
    print(f"wrote {output}: {len(conv.frames) - 1} turns, {len(page) // 1024} KiB", file=sys.stderr)
