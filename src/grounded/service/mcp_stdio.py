"""``grounded mcp``'s stdio transport: the SDK's, with an answer to every line it cannot read.

The SDK's stdio transport hands a line that is not a JSON-RPC message to the
server as an exception, which the server only logs: a client that sent it
waits for a reply that never comes.  JSON-RPC 2.0 says what to answer: -32700
(parse error) to a line that is not JSON, -32600 (invalid request) to JSON
that is not a message, each with the request's id when it can be read, else
null.  ``AnsweringReader`` sits between the transport and the server, answers
those lines on the transport's write stream, and passes everything else on.
A blank line is no message and is skipped.

A request whose ``id`` is not a string or an integer (true, 1.5, null, a list,
an object) reads to the SDK as a notification, which it never answers: the
client waits forever.  ``IdCheckedLines`` reads stdin ahead of the transport
and turns such a line into one no message model takes, keeping its id, so
that it too is answered: -32600, id null (JSON-RPC 2.0: an id that cannot be
used is answered as null).
"""

from __future__ import annotations

import json
import sys
from io import TextIOWrapper
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


BAD_ID = "grounded_unusable_id"
"""The key ``IdCheckedLines`` puts in place of the message of a line whose id no reply can carry."""


class IdCheckedLines:
    """stdin's lines, as the SDK's transport reads them, each request with an unusable id made unreadable."""

    def __init__(self, lines: Any):
        self._lines = lines.__aiter__()

    def __aiter__(self) -> IdCheckedLines:
        return self

    async def __anext__(self) -> str:
        line = await self._lines.__anext__()
        return checked_id(line) if '"id"' in line else line


def checked_id(line: str) -> str:
    """``line``, or, for a JSON-RPC message whose id is neither a string nor an integer, a JSON object that is no
    message (``error_reply`` answers it -32600)."""
    try:
        message = json.loads(line)
    except ValueError:
        return line  # the transport answers it: a parse error
    if not isinstance(message, dict) or "id" not in message:
        return line
    ident = message["id"]
    if isinstance(ident, str) or (isinstance(ident, int) and not isinstance(ident, bool)):
        return line
    return json.dumps({BAD_ID: json.dumps(ident)[:100]}) + "\n"


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
    if message is not None and BAD_ID in message:
        return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(
            code=types.INVALID_REQUEST, message=f"Invalid Request: the id {message[BAD_ID]} is neither a string "
                                                "nor an integer"))
    ident = message.get("id") if message is not None else None
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        ident = None
    return types.JSONRPCError(jsonrpc="2.0", id=ident, error=types.ErrorData(
        code=types.INVALID_REQUEST, message="Invalid Request: not a JSON-RPC 2.0 request, notification or response"))


async def run_stdio(server: Any) -> None:
    """Serve ``server`` (an MCPServer) over stdin and stdout, as ``MCPServer.run("stdio")`` does."""
    import anyio

    lowlevel = server._lowlevel_server  # the SDK's own stdio runner takes no reader of ours
    # stdin as the SDK wraps it (UTF-8, undecodable bytes replaced), read through the id check
    stdin = IdCheckedLines(anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")))
    async with stdio_server(stdin=stdin) as (read, write):  # type: ignore[arg-type]  # lines, as it reads them
        await lowlevel.run(AnsweringReader(read, write), write, lowlevel.create_initialization_options())
