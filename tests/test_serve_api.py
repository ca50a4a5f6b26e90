"""`grounded serve` over HTTP, on SQLite and on PostgreSQL: the same answers as the library.

A real server process (uvicorn) on 127.0.0.1 and a real database; httpx as the
client.  The paper's scenarios are appended through the API turn by turn; every
acceptance, rejection (422 with the rules' codes and messages, exactly as
``PreconditionError`` reports them) and every answer (Verify by claim and by
text, Affected*, one-step Affected, state, open problems, commitments, at
earlier turns too) is held equal to a library Engine fed the same utterances.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from pathlib import Path

import pytest

from grounded import Engine, PreconditionError
from grounded.core.bounds import MAX_ID_LENGTH, MAX_TURN
from grounded.core.cited import CitedContinuation
from grounded.interpreter.anchor import verify_text
from grounded.interpreter.cited import verify_cited
from grounded.io.eventlog import header_json
from grounded.scenario import Scenario
from grounded.service.conversations import rejection_json, state_json, update_json
from tests.serve_helpers import ServerProcess, client, make_key

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def served(request, tmp_path_factory):
    """(server, key of tenant t1, key of tenant t2) on each backend."""
    root = tmp_path_factory.mktemp(f"serve-{request.param}")
    db = str(root / "grounded.db") if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    if request.param == "postgresql":  # one cluster per session: a database per module would be cleaner,
        db = _fresh_database(db, "api")  # a fresh database is what keeps the backends' tests independent
    k1, k2 = make_key(db, "t1"), make_key(db, "t2")
    with ServerProcess(db, root / "server.log") as server:
        yield server, k1, k2


def _fresh_database(url: str, name: str) -> str:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return url.rsplit("/", 1)[0] + "/" + name


def _verify_json(engine: Engine, claim: str, at: int | None) -> dict:
    return engine.ask("verify", at, claim=claim)


def _affected_json(engine: Engine, claim: str, closure: bool, at: int | None) -> dict:
    return engine.ask("affected", at, claim=claim, closure=closure)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["phase1.yaml", "phase2.yaml", "phase3.yaml"])
def test_the_scenarios_through_the_api_answer_as_the_library(served, name):
    server, key, _ = served
    scenario = Scenario.load(SCENARIOS / name)
    cid = name.replace(".yaml", "")
    lib = Engine(scenario.header)
    rejected = 0
    with client(server, key) as c:
        r = c.post("/conversations", json={"id": cid, "header": header_json(scenario.header)})
        assert r.status_code == 201, r.text
        for turn in scenario.turns:
            u = turn.utterance()
            r = c.post(f"/conversations/{cid}/utterances", json=u)
            try:
                update = lib.apply(u)
            except PreconditionError as exc:
                rejected += 1
                assert r.status_code == 422, r.text
                assert r.json() == rejection_json(exc)
                continue
            assert r.status_code == 201, r.text
            body = r.json()
            assert {k: body[k] for k in ("turn", "speaker", "ops", "transitions", "flagged")} == update_json(update)
        turns = [None, *range(1, (lib.turn or 0) + 1)]
        claims = sorted(set(lib.state.claimants) | set(lib.state.rev)) + ["never_said"]
        for at in turns:
            got = c.get(f"/conversations/{cid}/state", params={} if at is None else {"at": at}).json()
            assert {k: v for k, v in got.items() if k not in ("id", "length")} == state_json(lib, at)
            params = {} if at is None else {"at": at}
            assert c.get(f"/conversations/{cid}/open-problems", params=params).json()["open_problems"] == \
                lib.open_problems(at)
            assert c.get(f"/conversations/{cid}/commitments", params=params).json()["commitments"] == \
                lib.commitments(at)
        for at in (None, turns[len(turns) // 2]):
            params = {} if at is None else {"at": at}
            for claim in claims:
                got = c.get(f"/conversations/{cid}/verify", params={"claim": claim, **params})
                assert got.status_code == 200 and got.json() == _verify_json(lib, claim, at), claim
                for closure in (True, False):
                    got = c.get(f"/conversations/{cid}/affected",
                                params={"claim": claim, "closure": str(closure).lower(), **params})
                    assert got.json() == _affected_json(lib, claim, closure, at), claim
        # a few texts: each runs the sentence encoder on both sides, and the anchoring
        # itself is tested in test_coverage.py; here, only that the API answers as the library
        for prop in [p for p in lib.state.props_at(None) if p.text][:3]:
            got = c.post(f"/conversations/{cid}/verify", json={"text": prop.text}).json()
            want = {k: v for k, v in verify_text(lib, prop.text).to_json().items() if v is not None}
            assert got == want
        # utterances the rules refuse, answered with the library's codes and messages
        speaker = next(iter(scenario.header.agents), "ann")
        for ops in ([{"op": "hypothesize", "claim": "h_new", "deps": ["nowhere"]}],
                    [{"op": "support", "target": "nowhere", "by": "nothing"}, {"op": "revise", "target": "gone"}]):
            u = {"speaker": speaker, "ops": ops}
            with pytest.raises(PreconditionError) as exc:
                lib.apply(u)
            r = c.post(f"/conversations/{cid}/utterances", json=u)
            assert r.status_code == 422 and r.json() == rejection_json(exc.value)
            rejected += 1
        exported = c.get(f"/conversations/{cid}/export")
        assert exported.headers["content-type"].startswith("application/x-ndjson")
    lines = exported.text.splitlines()
    assert len(lines) == 1 + len(scenario.turns) + 2 - rejected
    assert json.loads(lines[0]) == header_json(scenario.header)
    lib.close()


@pytest.mark.slow
def test_a_cited_continuation_through_the_api_answers_as_the_library(served):
    server, key, _ = served
    scenario = Scenario.load(SCENARIOS / "phase2.yaml")
    lib = Engine(scenario.header)
    with client(server, key) as c:
        assert c.post("/conversations", json={"id": "cited", "header": header_json(scenario.header)}).status_code == 201
        for turn in scenario.turns:
            try:
                lib.apply(turn.utterance())
            except PreconditionError:
                continue
            assert c.post("/conversations/cited/utterances", json=turn.utterance()).status_code == 201
        for cited, at in (({"text": "The retry storm from the token bug is what exhausts Redis.", "asserts": ["h4"]},
                           13),
                          ({"text": "Redis failure caused the auth failures.", "asserts": ["h2"], "denies": ["o9"]},
                           None)):
            got = c.post("/conversations/cited/verify", json={"cited": cited, "at": at})
            want = verify_cited(lib, CitedContinuation(**cited), at).to_json()
            assert got.status_code == 200 and got.json() == {k: v for k, v in want.items() if v is not None}
        assert got.json()["verdict"] == "reject"
        bad = c.post("/conversations/cited/verify", json={"cited": {"text": "x", "asserts": ["h4", "a b"]}})
        assert bad.status_code == 422 and bad.json()["message"].startswith(
            "body.cited.asserts[1]: Value error, 'a b' is not a literal")
        both = c.post("/conversations/cited/verify", json={"claim": "h4", "cited": {"text": "x"}})
        assert both.status_code == 422 and both.json()["message"] == "give one of claim, text or cited"
    lib.close()


def test_an_exported_conversation_loads_as_an_event_log(served, tmp_path):
    server, key, _ = served
    with client(server, key) as c:
        header = {"agents": {"ann": {"authority": True}, "ben": {}}}
        cid = c.post("/conversations", json={"header": header}).json()["id"]
        for u in ({"speaker": "ben", "text": "Redis times out.", "ops": [{"op": "observe", "claim": "o1"},
                                                                         {"op": "question", "claim": "q1"}]},
                  {"speaker": "ann", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["o1"],
                                              "explains": ["q1"]}]},
                  {"speaker": "ben", "turn": 9, "ops": [{"op": "revise", "target": "o1"}]}):
            assert c.post(f"/conversations/{cid}/utterances", json=u).status_code == 201
        log = tmp_path / "talk.jsonl"
        log.write_text(c.get(f"/conversations/{cid}/export").text)
        state = c.get(f"/conversations/{cid}/state").json()
    loaded = Engine.load(log)
    assert loaded.turn == 9
    assert state_json(loaded) == {k: v for k, v in state.items() if k not in ("id", "length")}
    assert not loaded.verify("h1").grounded


def test_optimistic_concurrency_refuses_a_stale_append(served):
    server, key, _ = served
    with client(server, key) as c:
        cid = c.post("/conversations", json={}).json()["id"]
        first = {"speaker": "ann", "ops": [{"op": "observe", "claim": "o1"}], "expect_turn": None}
        assert c.post(f"/conversations/{cid}/utterances", json=first).status_code == 201
        again = c.post(f"/conversations/{cid}/utterances", json=first)  # still expects an empty conversation
        assert again.status_code == 409
        assert again.json() == {"error": "conflict", "message": f"conversation {cid} is at turn 1, not None",
                                "conversation": cid, "expected": None, "turn": 1}
        ok = {"speaker": "ann", "ops": [{"op": "observe", "claim": "o2"}], "expect_turn": 1}
        assert c.post(f"/conversations/{cid}/utterances", json=ok).json()["turn"] == 2
        assert c.post(f"/conversations/{cid}/utterances", json=ok).status_code == 409
        unconditional = {"speaker": "ann", "ops": [{"op": "observe", "claim": "o3"}]}
        assert c.post(f"/conversations/{cid}/utterances", json=unconditional).json()["turn"] == 3
        assert c.get(f"/conversations/{cid}").json()["length"] == 3


def test_tenants_see_only_their_own_conversations(served):
    """Ids are per tenant: another tenant's conversation answers 404 with the very body of a missing one
    (nothing says the id is taken), and another tenant may create a conversation by the same id."""
    server, k1, k2 = served
    with client(server, k1) as c1, client(server, k2) as c2, client(server, None) as anon, \
            client(server, k1[:-4] + "AAAA") as wrong:
        routes = [("GET", "/conversations/{}", None), ("GET", "/conversations/{}/state", None),
                  ("GET", "/conversations/{}/verify?claim=o1", None),
                  ("POST", "/conversations/{}/verify", {"claim": "o1"}),
                  ("GET", "/conversations/{}/affected?claim=o1", None),
                  ("GET", "/conversations/{}/open-problems", None),
                  ("GET", "/conversations/{}/commitments", None), ("GET", "/conversations/{}/export", None),
                  ("POST", "/conversations/{}/utterances", {"speaker": "b", "ops": [{"op": "observe",
                                                                                    "claim": "o9"}]})]
        cid = "private-1"
        missing = [c2.request(method, path.format(cid), json=body) for method, path, body in routes]
        assert c1.post("/conversations", json={"id": cid}).status_code == 201
        c1.post(f"/conversations/{cid}/utterances", json={"speaker": "a", "ops": [{"op": "observe", "claim": "o1"}]})
        for (method, path, body), before in zip(routes, missing, strict=True):
            path = path.format(cid)
            foreign = c2.request(method, path, json=body)
            assert (foreign.status_code, foreign.json()) == (before.status_code, before.json()) == \
                (404, {"error": "not_found", "message": f"no conversation {cid}", "conversation": cid}), path
            assert anon.request(method, path, json=body).status_code == 401, path
            assert wrong.request(method, path, json=body).status_code == 401, path
            assert c1.request(method, path, json=body).status_code in (200, 201), path
        assert cid not in [x["id"] for x in c2.get("/conversations").json()]
        assert cid in [x["id"] for x in c1.get("/conversations").json()]
        # tenant 2's own "private-1": a conversation of its own, beside tenant 1's
        assert c2.post("/conversations", json={"id": cid}).json() == {"id": cid, "tenant": "t2", "turn": None,
                                                                      "length": 0}
        assert c2.post("/conversations", json={"id": cid}).status_code == 409  # taken, in its own tenant
        assert c2.post(f"/conversations/{cid}/utterances", json=routes[-1][2]).json()["seq"] == 1
        assert c2.get(f"/conversations/{cid}/verify", params={"claim": "o9"}).json()["grounded"] is True
        assert c2.get(f"/conversations/{cid}/verify", params={"claim": "o1"}).json()["grounded"] is False
        assert anon.get("/conversations").json()["error"] == "unauthorized"
    # only tenant 1's own append (in the loop above) landed in its conversation
    with client(server, k1) as c1:
        assert c1.get(f"/conversations/{cid}").json()["length"] == 2
        assert c1.get(f"/conversations/{cid}/verify", params={"claim": "o9"}).json()["grounded"] is True


def test_bad_input_is_refused_naming_the_field(served):
    server, key, _ = served
    with client(server, key) as c:
        r = c.post("/conversations", json={"id": "bad id!"})
        assert r.status_code == 422 and "conversation id 'bad id!'" in r.json()["message"]
        assert c.post("/conversations", json={"id": "x" * 201}).status_code == 422
        r = c.post("/conversations", json={"header": {"agents": {"ann": {"authority": "maybe"}}}})
        assert r.status_code == 422 and "authority" in r.json()["message"]
        cid = c.post("/conversations", json={}).json()["id"]
        r = c.post(f"/conversations/{cid}/utterances", json={"speaker": "ann", "ops": [{"op": "observe"}]})
        assert r.status_code == 422 and r.json() == {"error": "invalid", "message": "ops[0].claim: Field required"}
        r = c.post(f"/conversations/{cid}/utterances", json={"speaker": "ann", "ops": [{"op": "teleport"}]})
        assert r.status_code == 422 and "teleport" in r.json()["message"]
        r = c.post(f"/conversations/{cid}/utterances", json={"speaker": "-ann", "ops": []})
        assert r.status_code == 422 and "speaker" in r.json()["message"]
        r = c.get(f"/conversations/{cid}/verify", params={"claim": "not a literal"})
        assert r.status_code == 422 and "not a literal" in r.json()["message"]
        r = c.get(f"/conversations/{cid}/verify", params={"claim": "o1", "at": -1})
        assert r.status_code == 422 and r.json()["message"] == "query.at: Input should be greater than or equal to 0"
        assert c.get(f"/conversations/{cid}/verify").status_code == 422
        r = c.post(f"/conversations/{cid}/utterances", content=b"{" + b" " * (5 * 1024 * 1024) + b"}",
                   headers={"content-type": "application/json"})
        assert r.status_code == 413 and r.json()["error"] == "too_large"
        # the same body sent in chunks (no Content-Length): refused as it arrives, with the same 413
        chunked = c.post(f"/conversations/{cid}/utterances", content=(b" " * 65536 for _ in range(80)),
                         headers={"content-type": "application/json"})
        assert "content-length" not in chunked.request.headers
        assert chunked.status_code == 413 and chunked.json() == r.json()
        assert c.get(f"/conversations/{cid}").json()["length"] == 0  # nothing refused was stored


def test_queries_and_bodies_are_held_to_the_librarys_bounds(served):
    """A 201-character id, a turn past the bound, a threshold that is nan or out of [0, 1], a turn or
    expect_turn written as text or bool: each was answered (or appended) before, now 422 naming it."""
    server, key, _ = served
    with client(server, key) as c:
        cid = c.post("/conversations", json={}).json()["id"]
        c.post(f"/conversations/{cid}/utterances", json={"speaker": "ann", "ops": [{"op": "observe", "claim": "o1"}]})
        base = f"/conversations/{cid}"
        too_long = "o" * (MAX_ID_LENGTH + 1)
        for r in (c.get(f"{base}/verify", params={"claim": too_long}),
                  c.post(f"{base}/verify", json={"claim": too_long}),
                  c.get(f"{base}/affected", params={"claim": too_long})):
            assert r.status_code == 422 and f"at most {MAX_ID_LENGTH} characters" in r.json()["message"]
        huge = "1" + "0" * 30
        for path, claim in [("state", {}), ("open-problems", {}), ("commitments", {}), ("verify", {"claim": "o1"}),
                            ("affected", {"claim": "o1"})]:
            r = c.get(f"{base}/{path}", params={"at": huge, **claim})
            assert r.status_code == 422 and r.json()["message"].startswith("query.at: Input should be less than"), path
        assert c.get(f"{base}/state", params={"at": MAX_TURN}).status_code == 200
        for threshold in ("nan", "inf", "-0.5", "1.5"):
            r = c.get(f"{base}/verify", params={"text": "the first observation", "threshold": threshold})
            assert r.status_code == 422 and r.json()["message"].startswith("query.threshold: "), threshold
        r = c.post(f"{base}/verify", json={"text": "the first observation", "threshold": 2})
        assert r.status_code == 422 and r.json()["message"].startswith("body.threshold: ")
        for field, value in [("expect_turn", "1"), ("expect_turn", True), ("turn", "2"), ("turn", True)]:
            body = {"speaker": "ann", "ops": [{"op": "observe", "claim": "o2"}], field: value}
            r = c.post(f"{base}/utterances", json=body)
            assert r.status_code == 422 and r.json()["message"].startswith(f"body.{field}: Input should be a valid "
                                                                            "integer"), (field, value, r.json())
        assert c.get(base).json()["length"] == 1  # nothing refused was stored


def test_a_header_whose_definitions_double_is_refused_without_stalling_the_server(served):
    """d_i: d_{i-1} & d_{i-1} at 30 levels: one such POST held the engine host 6.7 s (at 22 levels) while
    another tenant's Verify waited; now 422 naming the formula, and the other tenant is answered at once."""
    server, k1, k2 = served
    formulas = {"d1": "a & b", **{f"d{i}": f"d{i - 1} & d{i - 1}" for i in range(2, 31)}}
    header = {"agents": {"a": {}}, "world": {"atoms": ["a", "b"], "actual": ["a", "b"], "formulas": formulas,
                                             "background": ["d30"]}}
    with client(server, k1) as c1, client(server, k2) as c2:
        cid = c2.post("/conversations", json={}).json()["id"]
        c2.post(f"/conversations/{cid}/utterances", json={"speaker": "b", "ops": [{"op": "observe", "claim": "o1"}]})
        started = time.monotonic()
        r = c1.post("/conversations", json={"header": header})
        assert r.status_code == 422 and "formulas: d19: 1048575 nodes with the definitions it uses expanded" in \
            r.json()["message"]
        assert c2.get(f"/conversations/{cid}/verify", params={"claim": "o1"}).json()["grounded"] is True
        assert time.monotonic() - started < 60  # does not stall: minutes at 30 levels before the bound


@pytest.mark.slow
def test_text_through_the_rule_interpreter_is_what_the_library_records(served):
    from grounded.interpreter import RuleInterpreter, interpret_turn
    from grounded.interpreter.transcript import Said

    server, key, _ = served
    header = {"agents": {"ann": {"authority": True}, "ben": {}}}
    texts = [("ben", "Payments fail with Redis connection timeouts."), ("ann", "Why are payments failing?"),
             ("ben", "Maybe Redis exhaustion bypasses the rate limiter, because of the timeouts.")]
    lib = Engine(header)
    interp = RuleInterpreter()
    with client(server, key) as c:
        cid = c.post("/conversations", json={"header": header}).json()["id"]
        for i, (speaker, text) in enumerate(texts, 1):
            r = c.post(f"/conversations/{cid}/utterances", json={"speaker": speaker, "text": text,
                                                                 "interpreter": "rules"})
            assert r.status_code == 201, r.text
            result = interpret_turn(lib, interp, Said(i, speaker, text))
            assert r.json()["ops"] == update_json(result.update)["ops"]
        got = c.get(f"/conversations/{cid}/state").json()
    assert {k: v for k, v in got.items() if k not in ("id", "length")} == state_json(lib)


def _request_lines(server: ServerProcess, after: int, wanted: int, match) -> tuple[int, list[dict]]:
    """The request-log lines past the first ``after`` lines that ``match``, once ``wanted`` of them are in (bounded:
    10 s), and the log's length then: a line is written once its response is sent, so it may trail the answer."""
    deadline = time.monotonic() + 10
    while True:
        lines = server.log.read_text().splitlines()
        found = [x for x in (json.loads(y) for y in lines[after:] if y.startswith("{")) if match(x)]
        if len(found) >= wanted or time.monotonic() > deadline:
            return len(lines), found
        time.sleep(0.02)


def test_one_structured_log_line_per_request(served):
    server, key, _ = served
    # a barrier first: the server writes its lines in order on one event loop, so once the barrier's line is in,
    # every earlier test's line is too, and the lines after it are this test's (matched by method and path as well)
    barrier = f"/conversations/barrier-{uuid.uuid4().hex}/state"
    with client(server, key) as c:
        assert c.get(barrier).status_code == 404
    before, found = _request_lines(server, 0, 1, lambda x: x["path"] == "/v1" + barrier)
    assert len(found) == 1, "the barrier's line was not written"
    with client(server, key) as c:
        c.get("/conversations/log-probe/state")
        c.get("/conversations")
    with client(server, None) as anon:
        anon.get("/conversations")
    ours = {("GET", "/v1/conversations/log-probe/state"), ("GET", "/v1/conversations")}
    _, lines = _request_lines(server, before, 3, lambda x: (x["method"], x["path"]) in ours)
    assert [(x["method"], x["path"], x["tenant"], x["status"]) for x in lines] == [
        ("GET", "/v1/conversations/log-probe/state", "t1", 404), ("GET", "/v1/conversations", "t1", 200),
        ("GET", "/v1/conversations", None, 401)]
    assert all(isinstance(x["ms"], float) and x["ms"] >= 0 for x in lines)


def test_a_request_line_is_the_json_of_its_fields():
    """The request line reads back as the object of its fields, whatever the path holds (quotes, backslashes,
    non-ASCII, line separators), and is one line."""
    from grounded.service.middleware import LOG, log_line

    cases = [("POST", "/v1/conversations/c-1/utterances", "acme", 201, 1.234),
             ("GET", '/v1/conversations/a"b\\c/é€😀\u2028\n/state', None, 404, 0.0),
             ("GET", "/v1/health", "t", 500, 12345.678), ("GET", "/", "t", 200, 1e-05)]
    seen: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = seen.append  # type: ignore[method-assign]
    LOG.addHandler(handler)
    level, LOG.level = LOG.level, logging.INFO
    try:
        for case in cases:
            log_line(*case)
    finally:
        LOG.removeHandler(handler)
        LOG.setLevel(level)
    objects = [dict(zip(("method", "path", "tenant", "status", "ms"), case, strict=True)) for case in cases]
    lines = [r.getMessage() for r in seen]
    assert lines == [json.dumps(o) for o in objects]
    assert [json.loads(x) for x in lines] == objects
    assert not any("\n" in x or "\u2028" in x for x in lines)


def test_answers_do_not_name_the_server_software(served):
    """No `server: uvicorn` header (uvicorn's default, turned off with its proxy-header rewriting, which nothing
    here reads): on a route of the framework, on the fast path and on a refusal alike."""
    server, key, _ = served
    with client(server, key) as c:
        answers = [c.get("/health"), c.get("/conversations"), c.get("/conversations/none/verify?claim=a"),
                   c.post("/conversations/none/utterances", json={"speaker": "ann"})]
    assert [r.status_code for r in answers] == [200, 200, 404, 404]
    assert [r.headers.get("server") for r in answers] == [None] * 4
    assert all(r.headers.get("date") for r in answers)  # the Date header HTTP asks of an origin server stays


def test_the_published_openapi_document_is_the_apis():
    from grounded.service.api import openapi_document

    published = json.loads((Path(__file__).resolve().parents[1] / "docs" / "openapi.json").read_text())
    assert published == json.loads(json.dumps(openapi_document())), \
        "docs/openapi.json is stale: regenerate it with `grounded openapi -o docs/openapi.json`"
