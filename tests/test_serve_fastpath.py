"""The hot routes' fast path (service/fastpath.py): taken for the ordinary shape, the framework's for the rest,
and the same answers either way (a real server)."""

from __future__ import annotations

import asyncio
import json

import pytest

from grounded.core.errors import PreconditionError, Violation
from grounded.service.api import refusal
from grounded.service.fastpath import FastRoutes
from tests.serve_helpers import ServerProcess, client, make_key

BODY = json.dumps({"speaker": "ann", "ops": [{"op": "observe", "claim": "a"}]}).encode()


def _call(path: str, body: bytes = b"", method: str = "POST", query: bytes = b"",
          headers: tuple[tuple[bytes, bytes], ...] = ((b"content-type", b"application/json"),
                                                       (b"authorization", b"Bearer k1")),
          chunks: int = 1, raises: Exception | None = None) -> dict:
    """Run one request through FastRoutes over a recording downstream app; what each side saw."""
    seen: dict = {"app": None, "append": None, "verify": None, "sent": []}

    async def app(scope, receive, send):
        got = b""
        while True:
            m = await receive()
            got += m.get("body", b"")
            if not m.get("more_body"):
                break
        seen["app"] = got
        await send({"type": "http.response.start", "status": 299, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    class Answer:
        async def __call__(self, scope, receive, send):
            await send({"type": "http.response.start", "status": 200, "headers": []})

    async def append(scope, key, cid, body):
        if raises is not None:
            raise raises
        seen["append"] = (key, cid, body.speaker, body.ops)
        return Answer()

    async def verify(scope, key, cid, claim):
        seen["verify"] = (key, cid, claim)
        return Answer()

    step = max(1, len(body) // chunks)
    parts = [body[i:i + step] for i in range(0, len(body), step)] or [b""]
    messages = [{"type": "http.request", "body": p, "more_body": i < len(parts) - 1} for i, p in enumerate(parts)]

    async def receive():
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message):
        seen["sent"].append(message)

    scope = {"type": "http", "method": method, "path": path, "query_string": query, "headers": list(headers)}
    asyncio.run(FastRoutes(app, append, verify, refusal)(scope, receive, send))
    return seen


def test_an_ordinary_append_is_answered_without_the_framework():
    seen = _call("/v1/conversations/c1/utterances", BODY, chunks=3)
    assert seen["app"] is None
    assert seen["append"] == ("k1", "c1", "ann", [{"op": "observe", "claim": "a"}])


@pytest.mark.parametrize("headers", [
    ((b"content-type", b"application/json; charset=utf-8"), (b"authorization", b"Bearer k1")),
    ((b"content-type", b"application/json"),),
    ((b"content-type", b"application/json"), (b"authorization", b"Basic k1")),
    ((b"authorization", b"Bearer k1"),)])
def test_another_header_goes_to_the_framework_with_the_body_whole(headers):
    seen = _call("/v1/conversations/c1/utterances", BODY, headers=headers, chunks=2)
    assert seen["append"] is None and seen["app"] == BODY


@pytest.mark.parametrize("body", [b'{"ops": []}', b'{"speaker": "ann", "extra": 1}', b"{not json", b""])
def test_a_body_the_model_refuses_goes_to_the_framework_to_be_worded(body):
    seen = _call("/v1/conversations/c1/utterances", body)
    assert seen["append"] is None and seen["app"] == body


def test_verify_by_claim_alone_is_answered_without_the_framework():
    seen = _call("/v1/conversations/c1/verify", method="GET", query=b"claim=-a%201")
    assert seen["verify"] == ("k1", "c1", "-a 1") and seen["app"] is None
    for query in (b"claim=a&at=1", b"text=a", b"claim=a&claim=b", b""):
        seen = _call("/v1/conversations/c1/verify", method="GET", query=query)
        assert seen["verify"] is None and seen["app"] == b""
    for path, method in (("/v1/conversations/c1/state", "GET"), ("/v1/conversations/c1/utterances", "GET"),
                         ("/v1/conversations/a/b/utterances", "POST")):
        seen = _call(path, BODY, method=method)
        assert seen["append"] is None and seen["app"] == BODY


def test_a_refusal_on_the_fast_path_is_the_framework_handlers_answer():
    exc = PreconditionError(1, "ann", [Violation(0, "observe", "dup", "a is already claimed")])
    seen = _call("/v1/conversations/c1/utterances", BODY, raises=exc)
    start, body = seen["sent"]
    expected = refusal(exc)
    assert expected is not None and start["status"] == 422 == expected.status_code
    assert body["body"] == expected.body
    with pytest.raises(ZeroDivisionError):  # anything not the library's is not answered here
        _call("/v1/conversations/c1/utterances", BODY, raises=ZeroDivisionError())


def test_the_fast_path_and_the_framework_answer_alike(tmp_path):
    """Each request twice, once in the fast path's shape and once (charset, POST verify) in the framework's."""
    db = str(tmp_path / "fast.db")
    key = make_key(db, "t")
    with ServerProcess(db, tmp_path / "log") as server, client(server, key) as c:
        for cid in ("fast", "slow"):
            c.post("/conversations", json={"id": cid, "header": {"agents": {"ann": {}}}}).raise_for_status()

        def both(path: str, body: dict) -> list:
            out = []
            for cid, kind in (("fast", "application/json"), ("slow", "application/json; charset=utf-8")):
                r = c.post(f"/conversations/{cid}/utterances" + path, content=json.dumps(body),
                           headers={"content-type": kind})
                out.append((r.status_code, {k: v for k, v in r.json().items() if k != "id"}))
            return out

        ok = both("", {"speaker": "ann", "ops": [{"op": "observe", "claim": "a", "text": "é"}]})
        assert ok[0] == ok[1] and ok[0][0] == 201 and ok[0][1]["seq"] == 1
        rejected = both("", {"speaker": "ann", "ops": [{"op": "hypothesize", "claim": "h", "deps": ["zz"]}]})
        assert rejected[0] == rejected[1] and rejected[0][0] == 422
        stale = both("", {"speaker": "ann", "expect_turn": 7, "ops": [{"op": "observe", "claim": "b"}]})
        assert stale[0][0] == 409 == stale[1][0]
        for claim in ("a", "zz", "-a"):
            fast = c.get("/conversations/fast/verify", params={"claim": claim})
            slow = c.post("/conversations/slow/verify", json={"claim": claim})
            assert fast.status_code == slow.status_code == 200 and fast.json() == slow.json()
        missing = c.get("/conversations/nope/verify", params={"claim": "a"})
        assert missing.status_code == 404 and missing.json()["error"] == "not_found"
        bad = client(server, "gk_0123456789abcdef_" + "x" * 43)
        assert bad.post("/conversations/fast/utterances", json={"speaker": "ann"}).status_code == 401
        assert bad.get("/conversations/fast/verify", params={"claim": "a"}).status_code == 401
        bad.close()
        log = [json.loads(line) for line in (tmp_path / "log").read_text().splitlines() if line.startswith("{")]
        fast_lines = [r for r in log if r["path"] == "/v1/conversations/fast/utterances"]
        assert [r["status"] for r in fast_lines] == [201, 422, 409, 401] and fast_lines[0]["tenant"] == "t"
