"""``grounded mcp``'s stdio transport: the SDK's, with an answer to every line it cannot read.

The SDK's stdio transport hands a line that is not a JSON-RPC message to the
server as an exception, which the server only logs: a client that sent it
waits for a reply that never comes.  JSON-RPC 2.0 says what to answer: -32700
(parse error) to a line that is not JSON, -32600 (invalid request) to JSON
that is not a message, each with the request's id when it can be read, else
null.  ``AnsweringReader`` sits between the transport and the server, answers
those lines on the transport's write stream, and passes everything else on.
A blank line is no message and is skipped.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError


class AnsweringReader:
    """The transport's read stream, less the lines that are no JSON-RPC message (answered on ``write``)."""

    def __init__(self, read: Any, write: Any):
        self._read, self._write = read, write

    @property
    def last_context(self) -> Any:  # the sender's context, which the SDK's dispatcher restores
        return getattr(self._read, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._read.receive()
            if not isinstance(item, Exception):
                return item
            reply = error_reply(item)
            if reply is not None:
                await self._write.send(SessionMessage(reply))

    async def aclose(self) -> None:
        await self._read.aclose()

    def __aiter__(self) -> AnsweringReader:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnsweringReader:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def error_reply(exc: Exception) -> types.JSONRPCError | None:
    """The JSON-RPC error answering a line the transport could not read (None: a blank line, no answer)."""
    if not isinstance(exc, ValidationError):
        return types.JSONRPCError(jsonrpc="2.0", id=None,
                                  error=types.ErrorData(code=types.INTERNAL_ERROR, message=f"unreadable line: {exc}"))
    errors = exc.errors()
    if errors and errors[0]["type"] == "json_invalid":
        if not str(errors[0].get("input", "x")).strip():
            return None
        detail = errors[0].get("ctx", {}).get("error", "not JSON")
        return types.JSONRPCError(jsonrpc="2.0", id=None,
                                  error=types.ErrorData(code=types.PARSE_ERROR, message=f"Parse error: {detail}"))
    message = next((e["input"] for e in errors if isinstance(e.get("input"), dict)), None)
    ident = message.get("id") if message is not None else None
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        ident = None
    return types.JSONRPCError(jsonrpc="2.0", id=ident, error=types.ErrorData(
        code=types.INVALID_REQUEST, message="Invalid Request: not a JSON-RPC 2.0 request, notification or response"))


async def run_stdio(server: Any) -> None:
    """Serve ``server`` (an MCPServer) over stdin and stdout, as ``MCPServer.run("stdio")`` does."""
    lowlevel = server._lowlevel_server  # the SDK's own stdio runner takes no reader of ours
    async with stdio_server() as (read, write):
        await lowlevel.run(AnsweringReader(read, write), write, lowlevel.create_initialization_options())
