"""`grounded try`: the step-through page with a what-if form, served on this machine."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from grounded.cli.app import Extensions, File, app, report_reading
from grounded.cli.serve import _require_serve
from grounded.present.book import book

TRY_PORT = 8765


@app.command("try")
def try_(
    file: File,
    host: Annotated[str, typer.Option(help="Interface to listen on (this machine only by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free one, named on the start-up line).",
                                      min=0, max=65535)] = TRY_PORT,
    extension: Extensions = None,
) -> None:
    """Serve the step-through page (as `grounded book` writes it) with a what-if form: pick a turn, propose
    an utterance, and see what the rules do with it (transitions and flags, or each violation's code and
    message); nothing is recorded.  POST /whatif answers the form (docs/serve.md)."""
    _require_serve()
    from grounded.service.listen import serve_bound
    from grounded.service.tryit import MAX_BODY, create_try_app  # fastapi: only with grounded[serve]

    print(f"grounded try: replaying {file} and drawing its page", file=sys.stderr, flush=True)
    page, conv = book(file, extension, tryit="whatif")
    report_reading(conv.engine)

    served = create_try_app(page, conv.engine, MAX_BODY)

    def announce(bound: int) -> None:  # the port bound: --port 0 takes any free one
        served.serving(host, bound)  # from now on, requests naming this address are answered
        print(f"grounded try: {file} at http://{host}:{bound}/ (Ctrl-C stops)", file=sys.stderr, flush=True)

    try:
        serve_bound(served, host, port, announce, log_level="warning", access_log=False)
    finally:
        conv.engine.close()
