"""`grounded whatif`: what the rules would do with an utterance, without recording it."""

from __future__ import annotations

import json
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
from grounded.present.picture import format_of, picture
from grounded.present.summary import update_summary, whatif_json


@app.command()
@reads_log("no_cache")
def whatif(
    file: File,
    utterance: Annotated[str, typer.Option("--utterance", "-u", help='The utterance as JSON: {"speaker": "bob", '
                                                                    '"ops": [{"op": "revise", "target": "o5"}]}.')],
    at: At = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Also draw the hypothetical state "
                                                                      "(.svg, .png, .pdf, .dot).")] = None,
    as_json: AsJson = False,
    reading: LogReading = DEFAULT_READING,
) -> None:
    """Apply an utterance to the state as of turn --at (default: the last) without recording it; show the
    transitions and flagged claims, or the violations.  Exit 0 if the rules accept it, 1 if they reject it."""
    try:
        data = json.loads(utterance)
    except json.JSONDecodeError as exc:
        raise InputError(f"--utterance: invalid JSON at column {exc.colno}: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise InputError("--utterance: expected a JSON object with speaker and ops")
    if output is not None:
        format_of(output, "--output")
    engine = reading.load(file)
    check_at_within(engine, at)
    w = engine.whatif(data, at=at)
    when = "at the end" if at is None else f"after T{at}"
    summary = update_summary(w.engine, w.update) if w.accepted else None
    if as_json:
        print(json.dumps(whatif_json(w)))
    elif w.accepted:
        out.print(f"what if T{w.turn} {w.speaker} ({when}): accepted; nothing is recorded", markup=False)
        for line in summary["changes"]:  # type: ignore[index]
            out.print(f"  {line}", markup=False)
    else:
        out.print(f"what if T{w.turn} {w.speaker} ({when}): rejected; nothing is recorded", markup=False)
        for v in w.violations:
            out.print(f"  {v}", markup=False)
    if output is not None and w.accepted:
        picture(w.engine, changed=summary["changed"], new=summary["new"]).save(output)  # type: ignore[index]
    if not w.accepted:
        raise typer.Exit(1)
