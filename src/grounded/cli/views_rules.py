"""`grounded rules`: the precondition catalogue, read from the rules as loaded."""

from __future__ import annotations

import json

from grounded.cli.app import AsJson, Extensions, Timeout, app
from grounded.present.catalogue import catalogue, markdown


@app.command("rules")
def rules_command(as_json: AsJson = False, extension: Extensions = None, timeout: Timeout = None) -> None:
    """Every operation (extensions too) with its fields, preconditions (stable codes, message templates) and
    the transitions it can emit, from the loaded rules.  docs/preconditions.md is this output."""
    cat = catalogue(extension)
    if as_json:
        print(json.dumps(cat.to_json(), indent=1))
    else:
        print(markdown(cat), end="")
