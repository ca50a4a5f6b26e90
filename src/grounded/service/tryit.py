"""`grounded try`: the step-through page served with a what-if endpoint, so a class can propose an
utterance at any turn and see what the rules do with it.

The page is the one ``grounded book`` writes, with one more piece of data: where
to post.  ``POST /whatif`` takes ``{"at": turn, "utterance": {...}}`` and answers
with ``Engine.whatif`` at that turn (``summary.whatif_json``: transitions,
changes, flags, or every violation's code and message; ``tryanswer.whatif_pictures``:
the hypothetical map and its worlds drawn), the real rules run by
SWI-Prolog; nothing is recorded.  A rejection is an answer (200), not an error:
the page shows it.  Bad input is a 4xx naming what is wrong: a body over
``MAX_BODY`` bytes (413, by the service's ``RequestGuard``), an unknown field or
a turn out of range (422), an utterance the operation models refuse (422, the
engine's own words).

SWI-Prolog may be called only from the thread that started it, so the engine is
built on the thread that then runs the event loop (``grounded try`` builds it,
then calls ``uvicorn.run``), and the handlers are ``async``: they run there, one
at a time (a teaching server, not a service).  Building first also means a bad
file is the command's error (exit 2 naming ``file:line``) before anything listens.
Offline instead (SWI-Prolog compiled to WebAssembly, npm ``swipl-wasm``) would
need the Python around the rules (the operation models, the world model, the
effects' bookkeeping) in the browser too; docs/views.md says so.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from grounded.core.errors import InputError
from grounded.core.fields import Turn
from grounded.present.summary import whatif_json
from grounded.present.tryanswer import whatif_pictures
from grounded.service.api import install_error_handlers
from grounded.service.middleware import RequestGuard

MAX_BODY = 64 * 1024
"""The largest what-if request, in bytes (one utterance; 413 past it)."""


class WhatIfRequest(BaseModel):
    """What the page posts: the turn the state is taken after, and the utterance."""

    model_config = ConfigDict(extra="forbid")
    at: Turn | None = Field(None, description="After this turn (none: after the last); an integer, not \"1\" or "
                                              "true.")
    utterance: dict[str, Any] = Field(description='{"speaker": ..., "ops": [{"op": ..., ...}]}, as in a log line.')


def create_try_app(page: str, engine: Any, max_body: int = MAX_BODY) -> HostGuard:
    """``page`` at ``/`` and ``POST /whatif`` on ``engine`` (built by ``book(..., tryit="whatif")``), answering
    only once told the address it is served at (``HostGuard.serving``).

    Build both on the thread that will run the event loop (``uvicorn.run`` runs it on the calling
    thread): SWI-Prolog answers only the thread that started it.
    """
    app = FastAPI(title="grounded try", docs_url=None, redoc_url=None, openapi_url=None)
    install_error_handlers(app)

    @app.get("/", response_class=HTMLResponse)
    async def home() -> HTMLResponse:
        return HTMLResponse(page)

    @app.post("/whatif")
    async def whatif(body: WhatIfRequest) -> dict[str, Any]:
        if body.at is not None and engine.turn is not None and body.at > engine.turn:
            raise InputError(f"at: {body.at} is past the conversation's last turn, {engine.turn}")
        try:
            answer = engine.whatif(body.utterance, at=body.at)
        except InputError as exc:  # the operation models refused it: say it was the utterance
            raise InputError(f"utterance: {exc.detail}") from exc
        return {**whatif_json(answer), **whatif_pictures(answer)}

    return HostGuard(RequestGuard(app, max_body))


LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})


class HostGuard:
    """Answers only requests whose ``Host`` header names the address the server bound, else 400.

    A page elsewhere can make the browser resolve its own name to 127.0.0.1 (DNS rebinding) and then post to
    the what-if endpoint as if it were that page's own server: the browser sends that name as the Host, which
    this refuses.  On a loopback address each loopback name is the server's."""

    def __init__(self, app: Any):
        self.app = app
        self.allowed: frozenset[bytes] = frozenset()

    def serving(self, host: str, port: int) -> None:
        """The address bound (``--port 0``: the port the kernel picked): the Host values answered from now on."""
        names = LOOPBACK if host in LOOPBACK else {host}
        self.allowed = frozenset(f"{f'[{n}]' if ':' in n else n}:{port}".encode() for n in names)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            host = next((value for name, value in scope.get("headers", ()) if name == b"host"), b"")
            if host.lower() not in self.allowed:
                body = json.dumps({"error": "invalid_host", "message": f"Host: {host.decode('latin-1')[:100]!r} "
                                   "is not this server's address"}).encode()
                await send({"type": "http.response.start", "status": 400, "headers": [
                    (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
