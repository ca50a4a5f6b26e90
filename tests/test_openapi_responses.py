"""Every answer a real server gives is one docs/openapi.json describes: for each route, each status it answers
is documented for that route, and the body validates against the schema documented for that status.

The requests below reach every route of the document (a test fails if a route is added without one) and, on
each, the statuses a client can cause: the answer, 401 without a key, 404 for a conversation the tenant does
not have, 422 for a malformed id or body, 409 where a route has one, 413 past the body bound, 504 past the
read deadline.  The request side is held the other way: a body the schema says is invalid is refused, and
one it says is valid is not refused as malformed (tests/test_schema_agreement.py draws many more).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from tests.serve_helpers import ServerProcess, make_key

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = json.loads((ROOT / "docs" / "openapi.json").read_text())
ERROR_KEYS = {"error", "message"}


def operation(method: str, path: str) -> tuple[str, dict[str, Any]]:
    """The documented operation a request goes to: its path template and its description."""
    asked = path.split("?")[0].strip("/").split("/")
    for template, methods in DOCUMENT["paths"].items():
        parts = template.strip("/").split("/")
        if len(parts) == len(asked) and all(p == a or p.startswith("{") for p, a in zip(parts, asked, strict=True)):
            if method.lower() in methods:
                return template, methods[method.lower()]
    raise AssertionError(f"{method} {path}: no route in docs/openapi.json")


def validator(schema: dict[str, Any]) -> Draft202012Validator:
    """A validator of ``schema``, its $refs resolved within the published document."""
    return Draft202012Validator({"components": DOCUMENT["components"], **schema})


def check_answer(method: str, path: str, response: httpx.Response) -> tuple[str, int]:
    """The response is documented: its status for its route, its body by that status's schema."""
    template, op = operation(method, path)
    status = response.status_code
    documented = op["responses"].get(str(status))
    assert documented is not None, f"{method} {template} answered {status}, which it does not document: {response.text}"
    content = documented.get("content", {})
    if response.headers.get("content-type", "").startswith("application/json"):
        body = response.json()
        schema = content.get("application/json", {}).get("schema")
        assert schema is not None, f"{method} {template} {status}: JSON sent, no JSON schema documented"
        errors = [e.message for e in validator(schema).iter_errors(body)]
        assert not errors, f"{method} {template} {status}: {errors[:3]} in {str(body)[:300]}"
        if status >= 400:
            assert ERROR_KEYS <= set(body) and isinstance(body["error"], str), body
    else:
        assert set(content) - {"application/json"}, f"{method} {template} {status}: not JSON, none other documented"
    return template, status


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[str, str]]:
    root = tmp_path_factory.mktemp("openapi-answers")
    db = str(root / "grounded.db")
    key = make_key(db, "t1")
    with ServerProcess(db, root / "server.log", "--max-body", "200000", "--read-deadline", "0.000001") as server:
        yield server.url, key


def requests(key: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, httpx keywords) in order: each on the state the ones before it left."""
    auth = {"headers": {"Authorization": f"Bearer {key}"}}
    obs = {"speaker": "ann", "ops": [{"op": "observe", "claim": "o1", "text": "The pump leaks."}]}
    hyp = {"speaker": "bob", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["o1"], "explains": ["o1"]}]}
    rev = {"speaker": "cy", "ops": [{"op": "revise", "target": "o1"}]}
    c = "/v1/conversations"
    made = [
        ("GET", "/v1/health", {}),
        ("POST", c, {**auth, "json": {"id": "talk"}}),
        ("POST", c, {**auth, "json": {"id": "talk"}}),  # 409 exists
        ("POST", c, {**auth, "json": {"id": "a b"}}),  # 422 id
        ("POST", c, {"json": {"id": "x"}}),  # 401
        ("POST", c, {**auth, "json": {"id": "big", "header": {"props": [{"id": "p", "text": "x" * 300_000}]}}}),
        ("GET", c, auth),
        ("GET", c, {}),
        ("POST", f"{c}/talk/utterances", {**auth, "json": obs}),
        ("POST", f"{c}/talk/utterances", {**auth, "json": hyp}),
        ("POST", f"{c}/talk/utterances", {**auth, "json": {**rev, "expect_turn": 1}}),  # 409
        ("POST", f"{c}/talk/utterances", {**auth, "json": rev}),  # flagged, transitions with a cause
        ("POST", f"{c}/talk/utterances", {**auth, "json": hyp}),  # 422 rejected (h1 exists)
        ("POST", f"{c}/talk/utterances", {**auth, "json": {"speaker": "a b"}}),  # 422 invalid
        ("POST", f"{c}/talk/utterances", {**auth, "content": b'{"speaker": "\xff"}',
                                          "headers": {**auth["headers"], "content-type": "application/json"}}),
        ("POST", f"{c}/none/utterances", {**auth, "json": obs}),  # 404
        ("POST", f"{c}/talk/utterances", {"json": obs}),  # 401
        ("GET", f"{c}/talk", auth),
        ("GET", f"{c}/none", auth),
        ("GET", f"{c}/a%20b", auth),
        ("GET", f"{c}/talk", {}),
        ("GET", f"{c}/talk/export", auth),
        ("GET", f"{c}/none/export", auth),
        ("GET", f"{c}/talk/state", auth),
        ("GET", f"{c}/talk/state", {**auth, "params": {"at": 1}}),
        ("GET", f"{c}/talk/state", {**auth, "params": {"at": "x"}}),
        ("GET", f"{c}/talk/verify", {**auth, "params": {"claim": "h1"}}),
        ("GET", f"{c}/talk/verify", {**auth, "params": {"claim": "h1", "at": 2}}),
        ("GET", f"{c}/talk/verify", auth),  # neither claim nor text
        ("GET", f"{c}/talk/verify", {**auth, "params": {"text": "The pump leaks."}}),  # 504: the deadline
        ("GET", f"{c}/none/verify", {**auth, "params": {"claim": "h1"}}),
        ("POST", f"{c}/talk/verify", {**auth, "json": {"claim": "h1"}}),
        ("POST", f"{c}/talk/verify", {**auth, "json": {}}),
        ("POST", f"{c}/talk/verify", {**auth, "json": {"claim": "h1", "text": "x"}}),
        ("POST", f"{c}/talk/verify", {**auth, "json": {"cited": {"text": "The pump leaks.", "asserts": ["o1"]}}}),
        ("POST", f"{c}/talk/verify", {"json": {"claim": "h1"}}),
    ]
    for template, methods in DOCUMENT["paths"].items():  # the generated query routes: each answered and refused
        if "{cid}" not in template or template.split("/")[-1] in ("verify", "state", "export", "utterances") \
                or template.endswith("{cid}"):
            continue
        params = {p["name"]: "o1" for p in methods["get"].get("parameters", [])
                  if p["in"] == "query" and p.get("required")}
        path = template.replace("{cid}", "talk")
        made += [("GET", path, {**auth, "params": params}), ("GET", path.replace("talk", "none"), {**auth,
                 "params": params}), ("GET", path, {"params": params}), ("GET", path, {**auth, "params": {
                 **params, "at": -1}})]
    return made


def test_every_answer_is_the_one_documented(served):
    url, key = served
    seen: set[tuple[str, str, int]] = set()
    with httpx.Client(base_url=url, timeout=60) as http:
        for method, path, kw in requests(key):
            response = http.request(method, path, **kw)
            template, status = check_answer(method, path, response)
            seen.add((method, template, status))
    routes = {(m.upper(), t) for t, ms in DOCUMENT["paths"].items() for m in ms}
    assert routes <= {(m, t) for m, t, _ in seen}, routes - {(m, t) for m, t, _ in seen}
    statuses = {s for _, _, s in seen}
    assert {200, 201, 401, 404, 409, 413, 422, 504} <= statuses, statuses


def test_a_body_that_is_not_utf8_is_refused_as_malformed_in_the_documented_shape(served):
    url, key = served
    response = httpx.post(f"{url}/v1/conversations", content=b'{"id": "\xff\xfe"}', timeout=30,
                          headers={"Authorization": f"Bearer {key}", "content-type": "application/json"})
    assert response.status_code == 422
    assert response.json() == {"error": "invalid", "message": "body: not a JSON text in UTF-8"}


@pytest.mark.parametrize("body", [{}, {"claim": "h1", "text": "x"}, {"text": "x", "cited": {"text": "x"}},
                                  {"claim": "a b"}, {"claim": "-"}])
def test_a_verify_body_the_schema_refuses_is_refused(served, body):
    url, key = served
    schema = DOCUMENT["components"]["schemas"]["VerifyRequest"]
    assert not validator(schema).is_valid(body)
    response = httpx.post(f"{url}/v1/conversations/talk/verify", json=body, timeout=30,
                          headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 422, response.text


@pytest.mark.parametrize("cid", ["a b", "-x", "x" * 201, "é"])
def test_a_conversation_id_the_schema_refuses_is_refused(served, cid):
    url, key = served
    schema = DOCUMENT["components"]["schemas"]["CreateConversation"]
    assert not validator(schema).is_valid({"id": cid})
    response = httpx.post(f"{url}/v1/conversations", json={"id": cid}, timeout=30,
                          headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 422, response.text


def test_a_store_failure_tells_the_client_nothing_of_the_store_and_the_server_log_everything(tmp_path, caplog):
    """A real store's refusal names its file (or a PostgreSQL URL's user, host and database) and the driver's
    error: the 503 body says only that nothing was changed; the whole message goes to the server's log."""
    import sqlite3

    from grounded.service.api import refusal
    from grounded.service.errors import StoreUnavailable
    from grounded.service.store import SQLiteStore

    path = tmp_path / "private-dir" / "tenants.db"
    SQLiteStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(StoreUnavailable) as refused:
        SQLiteStore(path)
    assert str(path) in str(refused.value)
    with caplog.at_level("ERROR", logger="grounded.serve"):
        response = refusal(refused.value)
    assert response is not None and response.status_code == 503
    body = json.loads(response.body)
    assert body["error"] == "store_unavailable" and set(body) == ERROR_KEYS
    assert "private-dir" not in response.body.decode() and "schema" not in body["message"]
    assert str(path) in caplog.text
    assert validator(DOCUMENT["components"]["schemas"]["ErrorOut"]).is_valid(body)
