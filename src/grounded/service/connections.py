"""Slow and idle clients: header and body read timeouts, a header size bound and a connection limit.

Uvicorn closes an idle keep-alive connection (``timeout_keep_alive``) but
has no timeout for a request still arriving: a client that opens a
connection and sends half a header, or a header and then a body one byte a
minute, holds its connection (and its buffers) as long as it likes, and a
few hundred such clients hold the server.  ``limit_concurrency`` answers
503 to requests past a count but keeps every connection open.

``GuardedHttp`` is uvicorn's httptools protocol with these added, each timer
armed on the connection's own callbacks (no task per connection):

* **header timeout**: from the connection (or the end of its last response)
  to the request's complete header; past it the connection is closed;
* **body timeout**: from the complete header to the body's end; past it the
  connection is closed (the handler sees a disconnect);
* **header size**: a request line and header still incomplete after
  ``max_head`` bytes is answered 431 and closed (httptools itself has no
  such bound; counted per read, so a header may overrun it by one read);
* **connection limit**: a connection past ``max_connections`` open ones is
  answered 503 at once and closed.

Uvicorn is given the class with its limits bound (``protocol(limits)``: a
picklable partial, so ``--workers N`` processes receive it too).
"""

from __future__ import annotations

import asyncio
import functools
import json
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    header_timeout: float
    body_timeout: float
    max_connections: int
    max_head: int


def _answer(status: str, code: str, message: str) -> bytes:
    body = json.dumps({"error": code, "message": message}).encode()
    return (f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            f"connection: close\r\n\r\n").encode() + body


class GuardedHttp(HttpToolsProtocol):
    """Uvicorn's HTTP/1.1 protocol with read timeouts, a header size bound and a connection limit."""

    def __init__(self, *args: Any, limits: ConnectionLimits, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.limits = limits
        self._timer: asyncio.TimerHandle | None = None
        self._head = 0
        """Bytes received of the request header still awaited (-1: not awaiting one)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            transport.write(_answer("503 Service Unavailable", "too_many_connections",
                                    f"the server has {self.limits.max_connections} connections open, the most "
                                    f"it keeps (max_connections); retry"))
            transport.close()
            return
        self._await_header()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        awaiting = self._head >= 0
        super().data_received(data)
        if awaiting and self._head >= 0 and not self.transport.is_closing():  # the header is still not complete
            self._head += len(data)
            if self._head > self.limits.max_head:
                self._disarm()
                self.transport.write(_answer("431 Request Header Fields Too Large", "too_large",
                                             f"request line and header over {self.limits.max_head} bytes "
                                             f"(max_head); send a long text in a POST body"))
                self.transport.close()

    def on_headers_complete(self) -> None:
        self._head = -1
        self._arm(self.limits.body_timeout)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()
        answered = self.cycle is not None and self.cycle.response_complete
        super().on_message_complete()
        if answered and not self.transport.is_closing() and not self.pipeline:
            self._await_header()  # answered before its body ended (a 413): the next request's header is awaited

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._head >= 0 or self._timer is None:  # the body is not still arriving (a 413 answered early)
            if not self.transport.is_closing() and not self.pipeline:
                self._await_header()

    def _await_header(self) -> None:
        self._head = 0
        self._arm(self.limits.header_timeout)

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self._expire)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expire(self) -> None:
        """A header or body did not arrive in time: the connection is closed (no answer: the client is gone
        or slow on purpose)."""
        self._timer = None
        if not self.transport.is_closing():
            self.transport.close()


def protocol(limits: ConnectionLimits) -> Any:
    """What uvicorn's ``http=`` takes: the protocol class with ``limits`` bound."""
    return functools.partial(GuardedHttp, limits=limits)


__all__ = ["ConnectionLimits", "GuardedHttp", "protocol"]
