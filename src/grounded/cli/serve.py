"""`grounded serve`, `grounded keys`, `grounded export`, `grounded mcp`, `grounded openapi`: the service."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from grounded.cli.app import app, out
from grounded.core.errors import InputError
from grounded.core.extras import require
from grounded.service.settings import Settings

Db = Annotated[str | None, typer.Option(
    "--db", envvar="GROUNDED_DB",
    help="Store: a SQLite file (default grounded.db), sqlite:///path, or postgresql://user@host/db.")]
ServeExtensions = Annotated[list[Path] | None, typer.Option(
    "--extension", "-x", help="Extension rule file conversations may name (repeatable).")]

SHUTDOWN_GRACE = 1
"""Seconds a stopping server waits for the requests in flight (uvicorn's graceful shutdown) before cancelling them."""

keys_app = typer.Typer(no_args_is_help=True, help="API keys: one tenant per key; stored hashed.")
app.add_typer(keys_app, name="keys")


def _require_serve() -> None:
    for module in ("fastapi", "uvicorn"):
        require("serve", module)


@app.command()
def serve(
    db: Db = None,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free one, named on the start-up line).",
                                      min=0, max=65535)] = 8080,
    workers: Annotated[int, typer.Option(help="Worker processes (each owns its engines; share the store).")] = 1,
    extension: ServeExtensions = None,
    cache: Annotated[int, typer.Option(help="Conversations kept in memory per worker.")] = 1000,
    cache_per_tenant: Annotated[int, typer.Option(help="Of them, one tenant's at most.", min=1)]
    = Settings.cache_per_tenant,
    cache_mb_per_tenant: Annotated[int, typer.Option(help="Megabytes of world models one tenant's may hold.",
                                                     min=1)] = Settings.cache_mb_per_tenant,
    cold_rows: Annotated[int, typer.Option(help="A conversation not in memory with at least this many utterances "
                                           "is built off the event loop.", min=1)] = Settings.cold_rows,
    cold_wait: Annotated[float, typer.Option(help="Seconds a request waits for such a build (then 503 with "
                                              "Retry-After).", min=0)] = Settings.cold_wait,
    max_body: Annotated[int, typer.Option(help="Largest request body, in bytes.")] = Settings.max_body,
    quiet: Annotated[bool, typer.Option("--quiet", help="No request log lines.")] = False,
    max_text: Annotated[int, typer.Option(help="Longest text to verify, in characters (413 past it).")]
    = Settings.max_text,
    read_workers: Annotated[int, typer.Option(help="Processes that read texts to verify, per worker.", min=1)]
    = Settings.read_workers,
    reads_per_tenant: Annotated[int, typer.Option(help="Text readings a tenant may have in flight (429 past it).",
                                                  min=1)] = Settings.reads_per_tenant,
    reads_per_minute: Annotated[int, typer.Option(help="Text readings a tenant may start per minute (429 past it; "
                                                       "0: no bound).", min=0)] = Settings.reads_per_minute,
    read_deadline: Annotated[float, typer.Option(help="Seconds a text reading may take (504 past it).")]
    = Settings.read_deadline,
    header_timeout: Annotated[float, typer.Option(help="Seconds for a request's header to arrive (then closed).")]
    = Settings.header_timeout,
    body_timeout: Annotated[float, typer.Option(help="Seconds for a request's body to arrive (then closed).")]
    = Settings.body_timeout,
    keep_alive: Annotated[float, typer.Option(help="Seconds an idle connection is kept between requests.")]
    = Settings.keep_alive,
    max_connections: Annotated[int, typer.Option(help="Open connections per worker (503 past it).", min=1)]
    = Settings.max_connections,
    max_head: Annotated[int, typer.Option(help="Bytes of a request line and header (431 past it).")]
    = Settings.max_head,
) -> None:
    """Serve the HTTP API (docs/serve.md); durable in SQLite by default, PostgreSQL with --db postgresql://..."""
    _require_serve()
    from grounded.service.api import SETTINGS_ENV, create_app
    from grounded.service.connections import protocol
    from grounded.service.keys import new_key
    from grounded.service.listen import serve_bound
    from grounded.service.middleware import configure_request_log
    from grounded.service.store import open_store

    settings = Settings(db=db, extensions=[str(p) for p in extension or ()], cache=cache, max_body=max_body,
                        cache_per_tenant=cache_per_tenant, cache_mb_per_tenant=cache_mb_per_tenant, quiet=quiet,
                        cold_rows=cold_rows, cold_wait=cold_wait,
                        max_text=max_text, read_workers=read_workers, reads_per_tenant=reads_per_tenant,
                        reads_per_minute=reads_per_minute,
                        read_deadline=read_deadline, header_timeout=header_timeout, body_timeout=body_timeout,
                        keep_alive=keep_alive, max_connections=max_connections, max_head=max_head)
    # No proxy-header rewriting (nothing reads the client's address: a key names the caller) and no
    # `server: uvicorn` header: two steps less on every request, and the software is not advertised.
    # Stopping (Ctrl-C, SIGTERM) waits at most SHUTDOWN_GRACE for the requests in flight, then cancels them: a
    # text reading may run to its deadline, and the readers are ended with the server (TextReaders.close).
    guarded = {"http": protocol(settings.connection_limits()), "timeout_keep_alive": settings.keep_alive,
               "proxy_headers": False, "server_header": False, "timeout_graceful_shutdown": SHUTDOWN_GRACE}
    store = open_store(db)  # creates the tables; a bad URL fails here, before the server starts
    store.close()
    configure_request_log(quiet)

    def announce(bound: int) -> None:  # the port bound, not the one asked for: --port 0 takes any free one
        # The first key is made only now that the port is held: a server that cannot bind shows no key, and the
        # next start (which finds no key either) makes and shows one.
        keyed = open_store(db)
        try:
            if not keyed.keys():
                key_id, key, digest = new_key()
                keyed.add_key(key_id, "default", digest)
                print(f"grounded: no API key yet; created one for tenant 'default' (shown once, store it):\n{key}",
                      file=sys.stderr, flush=True)
        finally:
            keyed.close()
        print(f"grounded: serving {store.url} on http://{host}:{bound} (OpenAPI at /docs)", file=sys.stderr,
              flush=True)

    if workers > 1:
        os.environ[SETTINGS_ENV] = json.dumps(settings.__dict__)
        serve_bound("grounded.service.api:app_from_env", host, port, announce, factory=True, workers=workers,
                    log_level="warning", access_log=False, **guarded)
    else:
        serve_bound(create_app(settings), host, port, announce, log_level="warning", access_log=False, **guarded)


@keys_app.command("create")
def keys_create(tenant: Annotated[str, typer.Argument(help="The tenant the key acts for (created if new).")],
                db: Db = None) -> None:
    """Create an API key for TENANT; the key is printed once (only its hash is stored)."""
    from grounded.service.keys import check_name
    from grounded.service.store import create_key

    check_name("tenant", tenant)
    print(create_key(db, tenant))


@keys_app.command("revoke")
def keys_revoke(key_id: Annotated[str, typer.Argument(help="The key's id (the hex after gk_), or the whole key.")],
                db: Db = None) -> None:
    """Revoke a key: requests with it get 401 from then on."""
    from grounded.service.keys import parse
    from grounded.service.store import open_store

    parsed = parse(key_id)
    ident = parsed[0] if parsed else key_id
    store = open_store(db)
    try:
        if not store.revoke_key(ident):
            raise InputError(f"no live API key with id {ident}")
    finally:
        store.close()
    out.print(f"revoked {ident}", markup=False)


@keys_app.command("list")
def keys_list(db: Db = None) -> None:
    """Every key: id, tenant, created, revoked."""
    from grounded.service.store import open_store

    store = open_store(db)
    try:
        for k in store.keys():
            out.print(f"{k.id}  {k.tenant}  created {k.created}" + (f"  revoked {k.revoked}" if k.revoked else ""),
                      markup=False)
    finally:
        store.close()


@app.command()
def export(
    conversation: Annotated[str, typer.Argument(help="The conversation's id.")],
    db: Db = None,
    tenant: Annotated[str | None, typer.Option(
        "--tenant", help="The tenant whose conversation it is (needed when several tenants have that id).")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")] = None,
) -> None:
    """Write a stored conversation as the event log (JSON Lines) that Engine.load reads."""
    from grounded.io.format import encode_line
    from grounded.service.conversations import event_log_lines
    from grounded.service.keys import check_name
    from grounded.service.store import open_store

    check_name("conversation", conversation)
    if tenant is not None:
        check_name("tenant", tenant)
    store = open_store(db)
    try:
        owners = [tenant] if tenant is not None else store.tenants_of(conversation)
        if len(owners) > 1:
            raise InputError(f"conversation {conversation}: tenants {', '.join(owners)} each have one; "
                             "name one with --tenant")
        lines = event_log_lines(store, owners[0], conversation) if owners else None
        if lines is None:
            where = f" of tenant {tenant}" if tenant is not None else ""
            raise InputError(f"no conversation {conversation}{where} in {store.url}")
    finally:
        store.close()
    data = b"".join(map(encode_line, lines))
    if output is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        output.write_bytes(data)


@app.command()
def mcp(
    db: Db = None,
    key: Annotated[str | None, typer.Option("--key", envvar="GROUNDED_API_KEY",
                                            help="API key: the tools act for its tenant.")] = None,
    extension: ServeExtensions = None,
) -> None:
    """Serve verify, verify_text, affected, state and append as MCP tools over stdio."""
    require("serve", "mcp.server.mcpserver")  # before the modules that import it: a missing SDK is named
    require("serve", "mcp_types")
    from grounded.service.mcp_server import serve_stdio

    if not key:
        raise InputError("grounded mcp needs an API key: --key or GROUNDED_API_KEY (grounded keys create TENANT)")
    serve_stdio(db, key, [str(p) for p in extension or ()])


@app.command()
def openapi(output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")]
            = None) -> None:
    """Print the HTTP API's OpenAPI document (the contract; docs/openapi.json)."""
    _require_serve()
    from grounded.service.api import openapi_document

    text = json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
