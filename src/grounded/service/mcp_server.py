"""``grounded mcp``: the verifier's queries and append as MCP tools over stdio (the official ``mcp`` SDK).

An agent framework starts this process and asks, before it answers, "does
this still rest on the conversation?".  The process opens the same store as
``grounded serve`` (a SQLite file may be shared with a running server: the
store orders appends and each process catches up before it answers) and acts
as the tenant of the API key it is given.  A refusal is a tool error whose
text is the same JSON the HTTP API answers with (the rules' codes and messages).

As strict as the HTTP API: a tool refuses an argument it does not take (a
misspelt ``expect_turn`` would otherwise be dropped and the append made
unconditionally), and the key is checked again on every call (a key revoked
while the process runs stops it at the next call, as it stops HTTP requests).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import ValidationError

from grounded.core.cited import CitedContinuation
from grounded.core.errors import InputError, PreconditionError
from grounded.core.extras import require
from grounded.core.fields import JsonInt, Threshold, Turn
from grounded.io.format import describe_errors
from grounded.queries.registry import Query
from grounded.service.conversations import Conversations, ExtensionFile, input_error_json, rejection_json
from grounded.service.errors import ServiceError
from grounded.service.host import EngineHost
from grounded.service.queries import served, tool_parameters, with_signature
from grounded.service.reading import Reading, TextReaders
from grounded.service.settings import Settings
from grounded.service.store import open_store

INSTRUCTIONS = (
    "grounded keeps the dependency map of a conversation. Before you assert a claim, call `verify` (by claim id) "
    "or `verify_text` (by the sentence you are about to say). For `verify`, `grounded: false` means the claim no "
    "longer rests on what the conversation established, and `reason` says why; `verify_text` answers a `verdict` "
    "(accept, reject naming the literal it contradicts or that lost its standing, or abstain when nothing "
    "anchors) with the literals the text asserts and denies. `affected` says what loses support if a claim is "
    "retracted; `state` shows every argument; `append` records an utterance (operations, or text through an "
    "interpreter)."
)


def build_server(db: str | None, key: str, extensions: list[str] | None = None,
                 settings: Settings | None = None) -> tuple[Any, EngineHost, TextReaders]:
    """The MCP server, its engines' host and its text readers, the key checked (an error names what is wrong).

    ``settings``: the text bound, readers, per-tenant limit and deadline (``grounded serve``'s defaults).
    """
    MCPServer = require("serve", "mcp.server.mcpserver").MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    exts = tuple(ExtensionFile.read(p) for p in extensions or ())
    host = EngineHost(lambda: Conversations(open_store(db), exts))
    try:
        host.run(lambda c: c.authenticate(key))  # a bad key fails the start, before any tool is offered
    except BaseException:
        host.close()
        raise
    server = MCPServer("grounded", instructions=INSTRUCTIONS)
    chosen = dataclasses.replace(settings or Settings(), db=db)  # the tenants' readings counted in this store
    readers = TextReaders(chosen.reading_limits(), chosen.tenant_counts)

    async def answered(answer: Any) -> Any:
        """The awaited answer, or a tool error holding the JSON the HTTP API answers with."""
        try:
            return await answer
        except PreconditionError as exc:
            raise ToolError(json.dumps(rejection_json(exc))) from exc
        except InputError as exc:
            raise ToolError(json.dumps(input_error_json(exc))) from exc
        except ServiceError as exc:
            if exc.public is not None:  # the whole message to stderr, this server's log
                print(f"grounded mcp: {exc.code}: {exc.message}", file=sys.stderr, flush=True)
            raise ToolError(json.dumps(exc.to_json())) from exc

    async def ask(fn: Any, write: str | None = None) -> Any:
        """``fn(conversations, tenant)`` for the key's tenant, the key checked now (it may have been revoked)."""
        tenant = await answered(host.call(lambda c: c.authenticate(key)))
        return await answered(host.call(lambda c: fn(c, tenant), write is not None, (tenant, write or "")))

    for q in served():  # verify, affected, reinstatable, ...: one tool per registered query
        server.add_tool(_query_tool(q, ask), name=q.name, description=q.help)

    @server.tool()
    async def verify_text(conversation: str, text: str, at: Turn | None = None,
                          threshold: Threshold | None = None) -> dict[str, Any]:
        """Verify a continuation given as text: anchored to the most similar proposition (abstains below the
        threshold), then Verify(anchor)."""
        def take(c: Conversations, t: str) -> Reading:
            readers.check(text)
            return Reading(t, *c.reading(t, conversation))

        reading = await ask(take)  # the state, on the engines' thread; the reading, in a reader process
        return dict(await answered(readers.verify(reading, text, at, threshold)))

    @server.tool()
    async def verify_cited(conversation: str, text: str, asserts: list[str] | None = None,
                           denies: list[str] | None = None, at: Turn | None = None) -> dict[str, Any]:
        """Verify a continuation that cites the claim ids it asserts and denies: each id by Verify (a stale id
        asserted, or a grounded one denied, rejects), then the text read against the citation (saying the
        opposite of what it cites rejects, saying more than it cites abstains)."""
        try:
            cited = CitedContinuation.model_validate({"text": text, "asserts": asserts or [], "denies": denies or []})
        except ValidationError as exc:
            raise ToolError(json.dumps(input_error_json(InputError(
                "cited: " + describe_errors(exc.errors(), lambda seg: False))))) from None

        def take(c: Conversations, t: str) -> Reading:
            readers.check(cited.text)
            return Reading(t, *c.reading(t, conversation))

        reading = await ask(take)  # as verify_text: the state on the engines' thread, the text in a reader
        return dict(await answered(readers.verify_cited(reading, cited, at, None)))

    @server.tool()
    async def state(conversation: str, at: Turn | None = None) -> dict[str, Any]:
        """Every argument with its standing and Dep, open problems, commitments, dissent, reinstatable."""
        return dict(await ask(lambda c, t: c.state(t, conversation, at)))

    @server.tool()
    async def append(conversation: str, speaker: str, text: str = "", ops: list[dict[str, Any]] | None = None,
                     interpreter: str | None = None, turn: Turn | None = None,
                     expect_turn: Annotated[int, JsonInt] | None = None) -> dict[str, Any]:
        """Record an utterance: its operations, or its text through an interpreter ("rules" or "llm").
        `expect_turn` (optional) is the last turn you saw (-1: none yet); if the conversation moved on, the
        append is refused."""
        utterance: dict[str, Any] = {"speaker": speaker, "text": text, "ops": ops or []}
        if turn is not None:
            utterance["turn"] = turn
        expected = None if expect_turn is None or expect_turn < 0 else expect_turn

        def write(c: Conversations, t: str) -> dict[str, Any]:
            if interpreter is not None:  # text an interpreter reads (on the loop): bounded as a text to verify
                readers.check(text)
            return c.append(t, conversation, utterance, expect_turn=expected, check_expected=expect_turn is not None,
                            interpreter=interpreter)

        return dict(await ask(write, write=conversation))

    @server.tool()
    async def create_conversation(header: dict[str, Any] | None = None, id: str | None = None) -> dict[str, Any]:
        """Create a conversation from an event-log header (agents, props); returns its id."""
        return dict(await ask(lambda c, t: c.create(t, header, id), write=id or ""))

    for tool in server._tool_manager.list_tools():  # the SDK has no option for it
        refuse_unknown_arguments(tool)
    return server, host, readers


def refuse_unknown_arguments(tool: Any) -> None:
    """``tool`` (an SDK tool) refuses arguments it does not take, and its input schema says so."""
    model = tool.fn_metadata.arg_model
    tool.fn_metadata.arg_model = type(model.__name__, (model,), {
        "__module__": model.__module__, "model_config": {**model.model_config, "extra": "forbid"}})
    tool.parameters = {**tool.parameters, "additionalProperties": False}


def _query_tool(q: Query, ask: Callable[..., Any]) -> Callable[..., Any]:
    """The tool of a registered query: its arguments from the entry (``service/queries.py``)."""
    async def tool(conversation: str, at: int | None = None, **params: Any) -> dict[str, Any]:
        return dict(await ask(lambda c, t: c.query(t, conversation, q.name, at, **params)))

    return with_signature(tool, tool_parameters(q), q.name, q.help, dict[str, Any])


def serve_stdio(db: str | None, key: str, extensions: list[str] | None = None) -> None:
    import anyio

    from grounded.service.mcp_stdio import run_stdio

    server, host, readers = build_server(db, key, extensions)
    try:
        anyio.run(run_stdio, server)
    finally:
        readers.close()
        host.close()
