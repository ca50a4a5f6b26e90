"""`grounded state`: the table of arguments, with open problems, commitments and dissent."""

from __future__ import annotations

import json

from grounded.cli.app import DEFAULT_READING, AsJson, At, File, LogReading, app, log_json, out, reads_log, say_partial
from grounded.present import render
from grounded.queries import registry


@app.command()
@reads_log()
def state(file: File, at: At = None, reading: LogReading = DEFAULT_READING, as_json: AsJson = False) -> None:
    """Every argument with its standing, groundedness and Dep; open problems, commitments, dissent.

    --json prints them as one object (with --partial, how the reading of the log ended too)."""
    engine = reading.load(file)
    if as_json:
        print(json.dumps({**registry.state(engine, at), **(log_json(engine) if reading.partial else {})}))
        return
    render.render_state(out, engine, at, full=True)
    say_partial(engine)
