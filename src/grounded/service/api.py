"""The HTTP API (FastAPI): every route is a job for the process's engines (``host.py``).

Routes live under ``/v1``.  A request carries its API key as
``Authorization: Bearer gk_...``; the key decides the tenant, and a tenant
sees only its own conversations: ids are per tenant, and another tenant's
conversation is answered as a missing one (404, the same body); 401 for no
or a bad key.  Refusals keep the library's words: a rejected utterance is 422 with
every violation's code and message as ``PreconditionError`` reports them, a
malformed field is 422 naming it.  The OpenAPI document (``/openapi.json``,
published as docs/openapi.json) is the contract.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
import os
from collections.abc import Callable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from importlib.metadata import version as _version
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException

from grounded.core.bounds import MAX_THRESHOLD, MAX_TURN, MIN_THRESHOLD
from grounded.core.errors import GroundedError, InputError, PreconditionError
from grounded.engine.engine import world_model
from grounded.io.format import describe_errors, encode_line
from grounded.queries import registry
from grounded.queries.models import VerifyAnswer
from grounded.service import schemas as s
from grounded.service.conversations import Conversations, ExtensionFile, input_error_json, rejection_json
from grounded.service.errors import ServiceError
from grounded.service.fastpath import FastRoutes
from grounded.service.host import EngineHost
from grounded.service.lifeline import end_with_parent
from grounded.service.middleware import LOG, RequestGuard, configure_request_log
from grounded.service.queries import HAND_WRITTEN, KW, route_parameters, served, with_signature
from grounded.service.reading import Reading, TextReaders
from grounded.service.settings import Settings
from grounded.service.store import open_store

VERSION = _version("grounded")


_bearer = HTTPBearer(auto_error=False, description="An API key from `grounded keys create`.")
Key = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
At = Annotated[int | None, Query(ge=0, le=MAX_TURN, description="Answer as of this earlier turn.")]
Similarity = Annotated[float | None, Query(ge=MIN_THRESHOLD, le=MAX_THRESHOLD, allow_inf_nan=False,
                                           description="Least similarity for `text` to anchor, from 0 to 1.")]


def create_app(settings: Settings | None = None) -> FastAPI:
    """The application; its engines' host (and the store connection) start with the server, on its loop's thread."""
    settings = settings or Settings()
    extensions = tuple(ExtensionFile.read(p) for p in settings.extensions)
    holder: dict[str, EngineHost] = {}
    readers = TextReaders(settings.reading_limits(), settings.tenant_counts)
    models = ThreadPoolExecutor(1, thread_name_prefix="grounded-world")
    """Where a new conversation's world model is built: numpy, no rules, so not on the engines' thread."""

    def make() -> Conversations:
        return Conversations(open_store(settings.db), extensions, settings.cache,
                             cache_per_tenant=settings.cache_per_tenant,
                             cache_bytes_per_tenant=settings.cache_mb_per_tenant * 2**20,
                             cold_rows=settings.cold_rows)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        holder["host"] = EngineHost(make, settings.cold_wait)
        # What start-up built (modules, the rules' bridge, the app) lives as long as the process: out of the
        # collector's reach, a full collection scans only what requests allocate (tens of milliseconds less,
        # on the loop, for every request waiting behind one).
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            readers.close()
            models.shutdown(wait=True)
            holder.pop("host").close()

    app = FastAPI(title="grounded", version=VERSION, lifespan=lifespan,
                  description="Verify, turn by turn, whether a continuation still rests on what a conversation "
                              "has established. See docs/serve.md.",
                  responses={401: {"model": s.ErrorOut}, 404: {"model": s.ErrorOut},
                             413: {"model": s.ErrorOut}, 422: {"model": s.ErrorOut},
                             500: {"model": s.ErrorOut, "description": "The server failed (its log says why)."},
                             503: {"model": s.ErrorOut, "description": "The store or a reader process did not "
                                                                       "answer: nothing was changed; retry."}})
    verify_refusals: dict[int | str, dict[str, Any]] = {
        429: {"model": s.ErrorOut, "description": "By text: the tenant has `reads_per_tenant` readings in flight, "
                                                  "or has started `reads_per_minute` this minute, counted across the "
                                                  "servers on the store (Retry-After says when to try again)."},
        504: {"model": s.ErrorOut, "description": "By text: the reading went past `read_deadline`."}}
    install_error_handlers(app)

    async def ask(scope: MutableMapping[str, Any], token: str | None, fn: Callable[[Conversations, str], Any],
                  write: str | None = None, reads: str | None = None, utterance: dict[str, Any] | None = None) -> Any:
        """Authenticate ``token`` (the API key) and run ``fn(conversations, tenant)`` on the process's engines.

        ``write`` names the conversation a write changes: the key is checked first
        (inline, as a read), then the job is queued under (tenant, ``write``) and
        answered only once its batch has committed (see host.py).  ``reads`` names
        the conversation a read is about: the key check fetches its head in the same query. ``utterance``:
        the write is a plain append of it, which the rules may decide with its group's others (host.py).
        """
        host = holder["host"]
        state = scope.setdefault("state", {})

        def read(c: Conversations) -> Any:
            try:
                state["tenant"] = c.authenticate(token, reads)
                return fn(c, state["tenant"])
            finally:
                c.forget_prefetched()

        if write is None:
            return await host.call(read)
        tenant = state["tenant"] = await host.call(lambda c: c.authenticate(token))
        return await host.call(lambda c: fn(c, tenant), True, (tenant, write),
                               None if utterance is None else (tenant, write, utterance))

    @app.get("/v1/health", tags=["service"])
    async def health() -> dict[str, str]:
        """Liveness (no key needed)."""
        return {"status": "ok", "version": VERSION}

    @app.post("/v1/conversations", status_code=201, response_model=s.ConversationSummary, tags=["conversations"],
              responses={409: {"model": s.ErrorOut, "description": "A conversation with this id exists."}})
    async def create_conversation(request: Request, body: s.CreateConversation, key: Key) -> Any:
        """Create a conversation from an event-log header."""
        world = None
        if body.header.world is not None:  # the key first, then the model (seconds at 22 atoms) off the loop
            await ask(request.scope, _token(key), lambda c, t: None)
            world = await asyncio.get_running_loop().run_in_executor(models, world_model, body.header)
        return await ask(request.scope, _token(key),
                         lambda c, t: c.create(t, body.header, body.id, body.extensions, world), write=body.id or "")

    @app.get("/v1/conversations", response_model=list[s.ConversationListItem], tags=["conversations"])
    async def list_conversations(request: Request, key: Key) -> Any:
        """The caller's tenant's conversations."""
        return await ask(request.scope, _token(key), lambda c, t: c.listing(t))

    @app.get("/v1/conversations/{cid}", response_model=s.ConversationInfo, tags=["conversations"])
    async def get_conversation(request: Request, cid: s.Cid, key: Key) -> Any:
        return await ask(request.scope, _token(key), lambda c, t: c.describe(t, cid), reads=cid)

    @app.post("/v1/conversations/{cid}/utterances", status_code=201, response_class=JSONResponse,
              tags=["conversations"],
              responses={201: {"model": s.Appended},
                         409: {"model": s.ErrorOut, "description": "`expect_turn` is not the conversation's "
                                                                  "last turn (optimistic concurrency)."},
                         422: {"model": s.RejectionOut | s.ErrorOut,
                               "description": "Rejected by the rules (`rejected`, with every violation's code "
                                              "and message), or a malformed field (`invalid`)."},
                         503: {"model": s.ErrorOut, "description": "The store did not commit: not appended."}})
    async def append(request: Request, cid: s.Cid, body: s.AppendUtterance, key: Key) -> Any:
        """Append one utterance: operations, or text through an interpreter. Acknowledged once committed."""
        return await append_answer(request.scope, _token(key), cid, body)

    async def append_answer(scope: MutableMapping[str, Any], token: str | None, cid: str,
                            body: s.AppendUtterance) -> Any:
        """The append route's answer (``fastpath.py`` calls it too, on the body it validated itself)."""
        expect = "expect_turn" in body.model_fields_set
        utterance = body.utterance()
        if body.interpreter is not None:  # text an interpreter reads, on the loop (inside the write): bounded alike
            readers.check(body.text)
        return _json(await ask(scope, token, lambda c, t: c.append(
            t, cid, utterance, expect_turn=body.expect_turn, check_expected=expect, interpreter=body.interpreter),
            write=cid, utterance=None if expect or body.interpreter is not None else utterance), 201)

    @app.get("/v1/conversations/{cid}/verify", response_class=JSONResponse, tags=["queries"],
             responses={200: {"model": VerifyAnswer | s.TextVerificationOut}, **verify_refusals})
    async def verify(request: Request, cid: s.Cid, key: Key, at: At = None,
                     claim: Annotated[str | None, Query(description="The literal the continuation asserts.")] = None,
                     text: Annotated[str | None, Query(description="Or the continuation's text.")] = None,
                     threshold: Similarity = None) -> Any:
        """Verify(c) by claim (the registry's `verify`), or by text (anchored by similarity; abstains below the
        threshold)."""
        return await answer_verify(request.scope, _token(key), cid, claim, text, at, threshold)

    async def verify_claim(scope: MutableMapping[str, Any], token: str | None, cid: str, claim: str) -> Any:
        """Verify by claim alone (what ``fastpath.py`` answers without the framework)."""
        return await answer_verify(scope, token, cid, claim, None, None, None)

    @app.post("/v1/conversations/{cid}/verify", response_class=JSONResponse, tags=["queries"],
              responses={200: {"model": VerifyAnswer | s.TextVerificationOut | s.CitedVerificationOut},
                         **verify_refusals})
    async def verify_post(request: Request, cid: s.Cid, body: s.VerifyRequest, key: Key) -> Any:
        """Verify(c), the claim or text in the body (for long texts), or a continuation citing its claims."""
        if body.cited is None:
            return await answer_verify(request.scope, _token(key), cid, body.claim, body.text, body.at,
                                       body.threshold)
        reading = await ask(request.scope, _token(key), _verify_cited(cid, body, readers.check), reads=cid)
        return _json(await readers.verify_cited(reading, body.cited, body.at, body.threshold), drop_none=True)

    async def answer_verify(scope: MutableMapping[str, Any], token: str | None, cid: str, claim: str | None,
                            text: str | None, at: int | None, threshold: float | None) -> Any:
        """By claim: a walk, on the loop, answered in the registry's shape.  By text: the state taken on the
        loop, read by ``readers`` (the text verdict, its fields that do not apply left out)."""
        answer = await ask(scope, token, _verify(cid, claim, text, at, readers.check), reads=cid)
        if isinstance(answer, Reading):
            assert text is not None
            return _json(await readers.verify(answer, text, at, threshold), drop_none=True)
        return _json(answer)

    for q in served():
        if q.name not in HAND_WRITTEN:
            app.add_api_route(f"/v1/conversations/{{cid}}/{q.path}", _query_route(q, ask), methods=["GET"],
                              response_class=JSONResponse, tags=["queries"], name=q.name,
                              responses={200: {"model": q.answer}}, description=q.help)

    @app.get("/v1/conversations/{cid}/state", response_model=s.StateOut, tags=["queries"])
    async def state(request: Request, cid: s.Cid, key: Key, at: At = None) -> Any:
        """Every argument (standing, Dep, provenance), open problems, commitments, dissent, reinstatable."""
        return await ask(request.scope, _token(key), lambda c, t: c.state(t, cid, at), reads=cid)

    @app.get("/v1/conversations/{cid}/export", tags=["conversations"],
             responses={200: {"content": {"application/x-ndjson": {}},
                              "description": "The event log (JSON Lines) that `Engine.load` reads."}})
    async def export(request: Request, cid: s.Cid, key: Key) -> Response:
        """The conversation as an event log: the header line, then one line per utterance."""
        lines = await ask(request.scope, _token(key), lambda c, t: c.export(t, cid), reads=cid)
        return Response(b"".join(map(encode_line, lines)), media_type="application/x-ndjson")

    link_conversation_routes(app)
    fast = FastRoutes(app, append_answer, verify_claim, refusal)
    return RequestGuard(fast, settings.max_body)  # type: ignore[return-value]  # an ASGI app wrapping FastAPI


def _token(key: HTTPAuthorizationCredentials | None) -> str | None:
    return key.credentials if key is not None else None


def _json(body: dict[str, Any], status: int = 200, drop_none: bool = False) -> JSONResponse:
    """An answer built by the library's own ``to_json``: sent as it is (no second validation on the hot path).

    ``drop_none``: leave out the fields that do not apply (a Verify answer's ``at``, ``reason``, ``anchor``...).
    """
    return JSONResponse({k: v for k, v in body.items() if v is not None} if drop_none else body, status)


def _query_route(q: registry.Query, ask: Callable[..., Any]) -> Callable[..., Any]:
    """The GET route of a registered query: its parameters from the entry (``service/queries.py``)."""
    async def route(request: Request, cid: str, key: HTTPAuthorizationCredentials | None, at: int | None = None,
                    **params: Any) -> Any:
        return _json(await ask(request.scope, _token(key), lambda c, t: c.query(t, cid, q.name, at, **params),
                               reads=cid))

    head = [inspect.Parameter("request", KW, annotation=Request), inspect.Parameter("cid", KW, annotation=s.Cid),
            inspect.Parameter("key", KW, annotation=Key)]
    return with_signature(route, head + route_parameters(q), q.name, q.help)


def _verify(cid: str, claim: str | None, text: str | None, at: int | None,
            check_text: Callable[[str], None]) -> Callable[[Conversations, str], Any]:
    """Verify by claim (the answer), or what a reading of the text needs (a ``Reading``)."""
    def fn(c: Conversations, tenant: str) -> Any:
        if (claim is None) == (text is None):
            raise InputError("give either claim or text, not both" if claim is not None else "give claim or text")
        if claim is not None:
            return c.verify(tenant, cid, claim, at)
        assert text is not None
        check_text(text)
        return Reading(tenant, *c.reading(tenant, cid))

    return fn


def _verify_cited(cid: str, body: s.VerifyRequest,
                  check_text: Callable[[str], None]) -> Callable[[Conversations, str], Any]:
    """What reading a cited continuation needs (a ``Reading``): its text is read as verify by text is."""
    def fn(c: Conversations, tenant: str) -> Any:
        if body.claim is not None or body.text is not None:
            raise InputError("give one of claim, text or cited")
        assert body.cited is not None
        check_text(body.cited.text)
        return Reading(tenant, *c.reading(tenant, cid))

    return fn


def app_from_env() -> Any:
    """The application for ``uvicorn --factory`` (several workers): settings from GROUNDED_SERVE_SETTINGS."""
    end_with_parent()  # a worker of `grounded serve --workers N`: it stops serving the port when its supervisor dies
    settings = Settings(**json.loads(os.environ.get(SETTINGS_ENV, "{}")))
    configure_request_log(settings.quiet)
    return create_app(settings)


SETTINGS_ENV = "GROUNDED_SERVE_SETTINGS"


def refusal(exc: Exception) -> JSONResponse | None:
    """The answer to a library or service error raised by a route (None for any other exception)."""
    if isinstance(exc, ServiceError):
        if exc.public is not None:  # the client gets the public words, the server's log the whole message
            LOG.error("%s: %s", exc.code, exc.message)
        return JSONResponse(exc.to_json(), status_code=exc.status, headers=exc.headers)
    if isinstance(exc, PreconditionError):
        return JSONResponse(rejection_json(exc), status_code=422)
    if isinstance(exc, InputError):
        return JSONResponse(input_error_json(exc), status_code=422)
    if isinstance(exc, GroundedError):  # the server's own failure: its words (paths, rule files) to its log
        LOG.error("internal: %s", exc)
        return JSONResponse({"error": "internal", "message": "the server failed to answer (its log says why)"},
                            status_code=500)
    return None


def install_error_handlers(app: FastAPI) -> None:
    """The service's answers to library errors and malformed requests, on ``app`` (the API and `grounded try`)."""
    @app.exception_handler(GroundedError)
    async def refused(request: Request, exc: GroundedError) -> JSONResponse:
        response = refusal(exc)
        assert response is not None  # every GroundedError has its answer
        return response

    @app.exception_handler(RequestValidationError)
    async def malformed(request: Request, exc: RequestValidationError) -> JSONResponse:
        message = describe_request_errors(exc.errors())
        kind = request.headers.get("content-type", "")
        if message.startswith("body: ") and "json" not in kind:
            message = f"body: expected a JSON object sent as Content-Type: application/json (got {kind or 'none'})"
        return JSONResponse({"error": "invalid", "message": message}, status_code=422)

    @app.exception_handler(HTTPException)
    async def framework(request: Request, exc: HTTPException) -> JSONResponse:
        """The framework's own refusals in the service's shape: a body it could not read (not UTF-8), a path
        no route has, a method a route does not take."""
        if exc.status_code == 400:  # FastAPI's "error parsing the body": a malformed body, as any other
            return JSONResponse({"error": "invalid", "message": "body: not a JSON text in UTF-8"}, status_code=422)
        code = _FRAMEWORK_CODES.get(exc.status_code, "invalid" if exc.status_code < 500 else "internal")
        headers = exc.headers
        if exc.status_code == 405:  # every method the path takes: FastAPI names only its first route's
            allowed = sorted({m for r in app.routes if isinstance(r, APIRoute) and r.path_regex.match(request.url.path)
                              for m in r.methods or ()})
            headers = {**(headers or {}), "Allow": ", ".join(allowed)}
        return JSONResponse({"error": code, "message": str(exc.detail)}, status_code=exc.status_code,
                            headers=headers)


def link_conversation_routes(app: FastAPI) -> None:
    """The OpenAPI links from a created conversation to every route about one: its ``id`` is their ``{cid}``
    (what a client, or a stateful API tester, follows from one answer to the next request)."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = generate()
            created = document["paths"]["/v1/conversations"]["post"]["responses"]["201"]
            created["links"] = {
                op["operationId"]: {"operationId": op["operationId"], "parameters": {"cid": "$response.body#/id"}}
                for path, methods in document["paths"].items() if "{cid}" in path for op in methods.values()}
        return app.openapi_schema  # type: ignore[return-value]  # set by generate()

    app.openapi = openapi  # type: ignore[method-assign]


_FRAMEWORK_CODES = {401: "unauthorized", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}


def describe_request_errors(errors: Any) -> str:
    """FastAPI's validation errors as the library words them: 'body.ops[0].claim: Field required'."""
    return describe_errors(errors, lambda seg: seg.startswith("function-after") or seg in _UNION_TAGS)


_UNION_TAGS = frozenset({"observe", "hypothesize", "support", "undermine", "revise", "expand_awareness", "resolve",
                         "question", "dict[str,any]"})


def openapi_document(settings: Settings | None = None) -> dict[str, Any]:
    """The OpenAPI document of the API (what docs/openapi.json holds)."""
    app = create_app(settings)
    inner: FastAPI = app.app.app  # type: ignore[attr-defined]  # RequestGuard wraps FastRoutes wraps FastAPI
    return inner.openapi()
