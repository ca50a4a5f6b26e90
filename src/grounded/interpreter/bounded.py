"""An HTTP client for the model's endpoint whose answers are bounded in size once decoded.

A chat completion is a few kilobytes; an endpoint may send anything.  A
200 KB body sent with ``Content-Encoding: gzip`` can inflate to 200 MB, and
the client would inflate all of it, then parse it.  Here every response body
is counted as it is decoded, a piece at a time (httpx2's decoders inflate at
most 1 MiB per step), and the reading stops with ``ResponseTooLarge`` once
``MAX_RESPONSE_BYTES`` are exceeded: memory stays within the bound plus one
piece, whatever the compression ratio.  The caller treats it as a bad
response (retried, then the utterance lands unclassified).

The bound is put on the client openai documents for such customisation
(``DefaultAsyncHttpx2Client``, with openai's own defaults), as a response
event hook: hooks run for every response, whichever transport or proxy
carried it, before its body is read.  The hook hands the body to the client
already decoded (the response's ``Content-Encoding`` is consumed), through a
stream that counts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from grounded.core.extras import require

if TYPE_CHECKING:
    import httpx2
else:
    httpx2 = require("interpreter", "httpx2")  # openai's HTTP client

MAX_RESPONSE_BYTES = 4 << 20
"""Bytes of an answer's body, decoded (4 MiB; a chat completion here is a few KiB)."""

_ENCODED = ("content-encoding", "content-length")
"""Headers describing the body as sent, no longer true of the decoded body the client reads."""


class ResponseTooLarge(Exception):
    """A response body larger than the bound once decoded: a bad response."""


class _Counted(httpx2.AsyncByteStream):
    """The decoded body of ``decoding``, stopping with ResponseTooLarge past ``limit`` bytes."""

    def __init__(self, decoding: httpx2.Response, limit: int):
        self.decoding = decoding
        self.limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0
        async for piece in self.decoding.aiter_bytes():
            size += len(piece)
            if size > self.limit:
                raise ResponseTooLarge(f"the answer exceeds {self.limit} bytes once decoded")
            yield piece

    async def aclose(self) -> None:
        await self.decoding.aclose()


def bound_hook(limit: int = MAX_RESPONSE_BYTES):
    """A response event hook reading every body decoded and counted (see the module docstring)."""

    async def bound(response: httpx2.Response) -> None:
        # a response of its own over the raw stream decodes it as the headers say; ours then reads that
        decoding = httpx2.Response(response.status_code, headers=response.headers, stream=response.stream,
                                   request=response.request)
        response.stream = _Counted(decoding, limit)
        for name in _ENCODED:
            response.headers.pop(name, None)

    return bound


def bounded_async_client(limit: int = MAX_RESPONSE_BYTES) -> httpx2.AsyncClient:
    """openai's default asyncio HTTP client, its response bodies bounded by ``limit`` decoded bytes."""
    return require("interpreter", "openai").DefaultAsyncHttpx2Client(event_hooks={"response": [bound_hook(limit)]})
