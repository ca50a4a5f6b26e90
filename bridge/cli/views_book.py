"""`grounded book`: the step-through page, one self-contained HTML file."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from grounded.cli.app import Extensions, File, app
from grounded.cli.views_show import View
from grounded.present.book import book as make_book


@app.command()
def book(
    file: File,
    output: Annotated[Path, typer.Option("--output", "-o", help="The HTML file to write.")],
    view: View = None,
    extension: Extensions = None,
) -> None:
    """One HTML file that steps through the conversation (no server, no network): utterances, operations,
    what the rules did, the picture, Verify and Affected* on click, the world model.  talk.html#t=9 opens T9."""
    page, conv = make_book(file, extension, view)
    output.write_text(page, encoding="utf-8")
    if conv.note:
        print(f"warning: {conv.note}", file=sys.stderr)
    print(f"wrote {output}: {len(conv.frames) - 1} turns, {len(page) // 1024} KiB", file=sys.stderr)
