"""`grounded state`: the table of arguments, with open problems, commitments and dissent."""

from __future__ import annotations

import json

from grounded.cli.app import (
    AllowRulesChange,
    AsJson,
    At,
    Extensions,
    File,
    NoCache,
    Partial,
    Timeout,
    app,
    load_engine,
    log_json,
    out,
    say_partial,
)
from grounded.present import render


@app.command()
def state(file: File, at: At = None, extension: Extensions = None, timeout: Timeout = None, partial: Partial = False,
          allow_rules_change: AllowRulesChange = False, no_cache: NoCache = False, as_json: AsJson = False) -> None:
    """Every argument with its standing, groundedness and Dep; open problems, commitments, dissent.

    --json prints them as one object (with --partial, how the reading of the log ended too)."""
    engine = load_engine(file, extension, partial, allow_rules_change, no_cache)
    if as_json:
        print(json.dumps({**render.state_json(engine, at), **(log_json(engine) if partial else {})}))
        return
    render.render_state(out, engine, at, full=True)
    say_partial(engine)
