"""Two things every request goes through: a bound on its body, and one structured log line.

Written as plain ASGI (not Starlette's BaseHTTPMiddleware) so that neither
adds a task or a copy of the body per request.  The handler puts the tenant
its key belongs to in ``scope["state"]["tenant"]``; the log line is JSON:
``{"method", "path", "tenant", "status", "ms"}`` on the ``grounded.serve``
logger (stderr by default).
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from grounded.service.errors import TooLarge

LOG = logging.getLogger("grounded.serve")

Scope = dict[str, Any]


class RequestGuard:
    """Refuses bodies over ``max_body`` bytes with 413 and logs every request."""

    def __init__(self, app: Any, max_body: int):
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = [500]
        state = scope.setdefault("state", {})
        started, refused = [False], [False]

        async def sending(message: dict) -> None:
            if refused[0]:  # the 413 is sent: what the application answers after it is dropped
                return
            if message["type"] == "http.response.start":
                status[0], started[0] = message["status"], True
            await send(message)

        try:
            length = _content_length(scope)
            if length is not None and length > self.max_body:
                await _refuse(sending, self.max_body)
                return
            seen = [0]
            limit = self.max_body

            async def receiving() -> dict:
                message = await receive()
                if message["type"] == "http.request":
                    seen[0] += len(message.get("body", b""))
                    if seen[0] > limit:
                        # Answered here, as it arrives: the framework turns an exception raised
                        # while it reads the body into its own 400, which ``sending`` then drops.
                        if not started[0]:
                            await _refuse(sending, limit)
                            refused[0] = True
                        raise _BodyTooLarge
                return dict(message)

            try:
                await self.app(scope, receiving, sending)
            except _BodyTooLarge:
                if not started[0]:
                    await _refuse(sending, self.max_body)
        finally:
            if LOG.isEnabledFor(logging.INFO):
                log_line(scope["method"], scope["path"], state.get("tenant"), status[0],
                         round((time.perf_counter() - start) * 1000, 3))


def log_line(method: str, path: str, tenant: str | None, status: int, ms: float) -> None:
    """One request's line on ``LOG``: the JSON object of its fields."""
    LOG.info(json.dumps({"method": method, "path": path, "tenant": tenant, "status": status, "ms": ms}))


class _BodyTooLarge(Exception):
    pass


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(send: Any, limit: int) -> None:
    body = json.dumps(TooLarge(f"request body over {limit} bytes").to_json()).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def configure_request_log(quiet: bool = False) -> None:
    """Request lines to stderr, one JSON object each (none with ``quiet``); idempotent."""
    import sys

    LOG.setLevel(logging.WARNING if quiet else logging.INFO)
    if not LOG.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        LOG.addHandler(handler)
        LOG.propagate = False
