"""The two hot routes, append and Verify by claim, answered without the framework's routing.

Profiling appends in the server (docs/serve.md, Measured) put FastAPI's
routing, dependency injection and request wrapping at about a third of the
server's CPU per append, more than the rules themselves.  This ASGI layer sits
between the request guard (body bound, log line) and FastAPI and answers the
ordinary shape of those two requests itself: ``POST .../utterances`` with a
JSON body the request model accepts (validated once, from the bytes, by
pydantic-core) and a Bearer key; ``GET .../verify?claim=...`` and nothing
else in the query.  The answer is the same function's as the FastAPI route's
(``api.py`` passes both), and a refusal is rendered by the same handlers.

Anything else (another route, another header or query, a body the model
refuses) goes on to FastAPI unchanged, its body replayed: so every error is
worded, and every route documented (OpenAPI), by the framework as before.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

from pydantic import ValidationError

from grounded.service.schemas import AppendUtterance

Scope = dict[str, Any]
Append = Callable[[Scope, str, str, AppendUtterance], Awaitable[Any]]
"""(scope, API key, conversation id, body) -> the response (an ASGI app)."""
Verify = Callable[[Scope, str, str, str], Awaitable[Any]]
"""(scope, API key, conversation id, claim) -> the response (an ASGI app)."""
Refusal = Callable[[Exception], Any | None]
"""The response the framework's exception handlers give for an exception, None if it has none."""

_APPEND = re.compile(r"/v1/conversations/([^/]+)/utterances")
_VERIFY = re.compile(r"/v1/conversations/([^/]+)/verify")


class FastRoutes:
    """Append and Verify by claim answered directly; every other request passed to ``app`` as it came."""

    def __init__(self, app: Any, append: Append, verify: Verify, refusal: Refusal):
        self.app, self._append, self._verify, self._refusal = app, append, verify, refusal

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            method, path = scope["method"], scope["path"]
            if method == "POST" and (m := _APPEND.fullmatch(path)):
                await self._post_append(m.group(1), scope, receive, send)
                return
            if method == "GET" and (m := _VERIFY.fullmatch(path)):
                query = parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True)
                key = _bearer(scope)
                if key is not None and len(query) == 1 and query[0][0] == "claim":
                    await self._answer(self._verify(scope, key, m.group(1), query[0][1]), scope, receive, send)
                    return
        await self.app(scope, receive, send)

    async def _post_append(self, cid: str, scope: Scope, receive: Any, send: Any) -> None:
        key = _bearer(scope)
        chunks, complete = await _read_body(receive)
        if key is not None and complete and _header(scope, b"content-type") == b"application/json":
            try:
                body = AppendUtterance.model_validate_json(b"".join(chunks))
            except ValidationError:
                pass  # the framework words the error
            else:
                await self._answer(self._append(scope, key, cid, body), scope, receive, send)
                return
        await self.app(scope, _replay(chunks, complete, receive), send)

    async def _answer(self, answer: Awaitable[Any], scope: Scope, receive: Any, send: Any) -> None:
        try:
            response = await answer
        except Exception as exc:
            response = self._refusal(exc)
            if response is None:
                raise
        await response(scope, receive, send)


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


def _bearer(scope: Scope) -> str | None:
    """The key of an ``Authorization: Bearer KEY`` header; None for anything else (left to the framework)."""
    value = _header(scope, b"authorization")
    if value is None:
        return None
    scheme, _, key = value.decode("latin-1").partition(" ")
    return key if scheme.lower() == "bearer" and key and key == key.strip() else None


async def _read_body(receive: Any) -> tuple[list[bytes], bool]:
    """The request body's chunks, and whether it arrived whole (False: the client went away first)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return chunks, False
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return chunks, True


def _replay(chunks: list[bytes], complete: bool, receive: Any) -> Any:
    """A ``receive`` that gives the body already read again, then what the connection sends next."""
    pending = [{"type": "http.request", "body": b"".join(chunks), "more_body": not complete}]

    async def replayed() -> dict:
        return pending.pop() if pending else await receive()

    return replayed
