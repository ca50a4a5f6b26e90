"""`grounded mcp`: the tools over stdio, driven by the official SDK's client, answer as the library does."""

from __future__ import annotations

import json
import os
import sys

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client

from grounded import Engine, PreconditionError
from grounded.core.cited import CitedContinuation
from grounded.interpreter.anchor import verify_text
from grounded.interpreter.cited import verify_cited
from grounded.queries.registry import QUERIES
from grounded.service.conversations import rejection_json, state_json
from grounded.service.settings import Settings
from grounded.service.store import open_store
from tests.serve_helpers import make_key

HEADER = {"agents": {"ann": {"authority": True}, "ben": {}}}
TALK = [
    {"speaker": "ben", "ops": [{"op": "observe", "claim": "o1", "text": "Redis connection timeouts"},
                               {"op": "question", "claim": "q1", "text": "Why are payments failing?"}]},
    {"speaker": "ann", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["o1"], "explains": ["q1"],
                                "text": "Redis exhaustion bypasses rate limiting"}]},
    {"speaker": "ben", "ops": [{"op": "revise", "target": "o1"}]},
]
CITED = {"text": "Redis exhaustion bypasses rate limiting", "asserts": ["h1"]}


def _mcp(db: str, key: str) -> StdioServerParameters:
    """`grounded mcp` for the SDK's client, which hands the server a minimal environment: PYTHONPATH too, so that
    it runs the code under test."""
    return StdioServerParameters(command=sys.executable, args=["-m", "grounded", "mcp", "--db", db, "--key", key],
                                 env={**get_default_environment(), **{k: v for k, v in os.environ.items()
                                                                     if k == "PYTHONPATH"}})


async def _session_calls(db: str, key: str) -> dict:
    params = _mcp(db, key)
    got: dict = {}
    with anyio.fail_after(120):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            got["tools"] = sorted(t.name for t in (await session.list_tools()).tools)

            async def call(name: str, **args: object) -> tuple[bool, dict]:
                result = await session.call_tool(name, args)
                text = result.content[0].text  # type: ignore[union-attr]
                # a tool error reads "Error executing tool append: {...the API's error JSON...}"
                return result.is_error, json.loads(text[text.index("{"):])

            got["create"] = await call("create_conversation", header=HEADER, id="mcp-talk")
            got["appends"] = [await call("append", conversation="mcp-talk", **u) for u in TALK[:2]]
            got["verify_before"] = await call("verify", conversation="mcp-talk", claim="h1")
            got["stale"] = await call("append", conversation="mcp-talk", expect_turn=1, **TALK[2])
            got["rejected"] = await call("append", conversation="mcp-talk", speaker="ann",
                                         ops=[{"op": "hypothesize", "claim": "h2", "deps": ["nowhere"]}])
            got["revise"] = await call("append", conversation="mcp-talk", expect_turn=2, **TALK[2])
            got["verify"] = await call("verify", conversation="mcp-talk", claim="h1")
            got["verify_at"] = await call("verify", conversation="mcp-talk", claim="h1", at=2)
            got["verify_text"] = await call("verify_text", conversation="mcp-talk",
                                            text="Redis exhaustion bypasses rate limiting")
            got["verify_cited"] = await call("verify_cited", conversation="mcp-talk", text=CITED["text"],
                                             asserts=CITED["asserts"])
            got["verify_cited_bad"] = await call("verify_cited", conversation="mcp-talk", text="x", asserts=["a b"])
            got["too_long"] = await call("verify_text", conversation="mcp-talk", text="a" * (Settings.max_text + 1))
            got["too_long_append"] = await call("append", conversation="mcp-talk", speaker="ben",
                                                text="a" * (Settings.max_text + 1), interpreter="rules")
            got["affected"] = await call("affected", conversation="mcp-talk", claim="o1")
            got["state"] = await call("state", conversation="mcp-talk")
            got["foreign"] = await call("state", conversation="theirs")
            got["missing"] = await call("state", conversation="nowhere")
            loose = [("verify", {"claim": "h1", "at": "1"}), ("verify", {"claim": "h1", "at": True}),
                     ("state", {"at": 10 ** 30}), ("verify_text", {"text": "Redis", "threshold": 1.5}),
                     ("append", {"speaker": "ann", "ops": [], "expect_turn": "3"}),
                     ("append", {"speaker": "ann", "ops": [], "turn": True})]
            got["loose"] = []
            for name, args in loose:  # refused by the tool's own argument schema, before anything runs
                result = await session.call_tool(name, {"conversation": "mcp-talk", **args})
                got["loose"].append((result.is_error, result.content[0].text))  # type: ignore[union-attr]
            got["after_loose"] = await call("state", conversation="mcp-talk")
    return got


@pytest.mark.slow
def test_the_mcp_tools_answer_as_the_library(tmp_path):
    db = str(tmp_path / "mcp.db")
    key = make_key(db, "agents")
    store = open_store(db)
    for cid in ("mcp-talk", "theirs"):  # another tenant's, by the ids the agent will use
        store.create_conversation("someone-else", cid, {"grounded": 1}, [])
    store.close()
    got = anyio.run(_session_calls, db, key)
    lib = Engine(HEADER)
    lib.apply(TALK[0])
    lib.apply(TALK[1])
    assert got["tools"] == sorted(["append", "create_conversation", "state", "verify_cited", "verify_text",
                                   *QUERIES])  # one tool per registered query
    assert got["create"] == (False, {"id": "mcp-talk", "tenant": "agents", "turn": None, "length": 0})
    assert [(err, body["turn"]) for err, body in got["appends"]] == [(False, 1), (False, 2)]
    assert got["verify_before"][1]["grounded"] is True
    assert got["stale"][0] is True and got["stale"][1]["error"] == "conflict"
    with pytest.raises(PreconditionError) as exc:
        lib.apply({"speaker": "ann", "ops": [{"op": "hypothesize", "claim": "h2", "deps": ["nowhere"]}]})
    assert got["rejected"] == (True, rejection_json(exc.value))
    lib.apply(TALK[2])
    assert got["verify"] == (False, lib.ask("verify", claim="h1"))
    assert got["verify"][1]["grounded"] is False and "o1" in got["verify"][1]["reason"]
    assert got["verify_at"][1]["grounded"] is True
    assert got["verify_text"] == (False, verify_text(lib, "Redis exhaustion bypasses rate limiting").to_json())
    assert got["verify_cited"] == (False, verify_cited(lib, CitedContinuation(**CITED)).to_json())
    assert got["verify_cited"][1]["verdict"] == "reject"  # h1 lost o1
    assert got["verify_cited_bad"][0] is True and got["verify_cited_bad"][1]["error"] == "invalid"
    assert got["verify_cited_bad"][1]["message"].startswith("cited: asserts[0]: Value error, 'a b' is not a literal")
    for refused in (got["too_long"], got["too_long_append"]):  # the text bound of grounded serve
        assert refused[0] and refused[1]["error"] == "too_large" and refused[1]["bound"] == Settings.max_text
    assert got["affected"][1]["lose_support"] == lib.affected("o1").lose_support
    assert {k: v for k, v in got["state"][1].items() if k not in ("id", "length")} == state_json(lib)
    assert got["foreign"] == (True, {"error": "not_found", "message": "no conversation theirs",
                                     "conversation": "theirs"})
    assert got["missing"] == (True, {**got["foreign"][1], "message": "no conversation nowhere",
                                     "conversation": "nowhere"})
    # "1" and true were taken as turn 1 (and an append went through); the schema the tools publish says integer
    assert [err for err, _ in got["loose"]] == [True] * 6, got["loose"]
    assert all(("valid integer" in text or "less than or equal" in text) for _, text in got["loose"][:3] +
               got["loose"][4:]), got["loose"]
    assert "less than or equal to 1" in got["loose"][3][1]
    assert got["after_loose"][1]["length"] == 3  # nothing was appended


@pytest.mark.slow
def test_mcp_refuses_a_bad_key(tmp_path):
    import subprocess

    db = str(tmp_path / "mcp.db")
    make_key(db, "agents")
    done = subprocess.run([sys.executable, "-m", "grounded", "mcp", "--db", db, "--key", "gk_nope"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "invalid or revoked API key" in done.stderr


@pytest.mark.slow
def test_text_through_the_llm_interpreter_over_http(tmp_path):
    """An append with ``interpreter: llm`` goes through the server's configured endpoint (a scripted
    OpenAI-compatible server on loopback), with the library's re-prompt loop and id policy."""
    from tests.openai_server import ScriptedServer, reply
    from tests.serve_helpers import ServerProcess, client

    llm = ScriptedServer()
    llm.push(reply({"operations": [{"op": "observe", "claim": "#1", "text": "Auth failures are up."},
                                   {"op": "question", "claim": "#2", "text": "What causes the failures?"}]}))
    db = str(tmp_path / "llm.db")
    key = make_key(db, "t")
    env = {"OPENAI_BASE_URL": llm.url, "GROUNDED_MODEL": "scripted", "OPENAI_API_KEY": "test"}
    try:
        with ServerProcess(db, tmp_path / "server.log", env=env) as server, client(server, key) as c:
            cid = c.post("/conversations", json={"header": HEADER}).json()["id"]
            r = c.post(f"/conversations/{cid}/utterances",
                       json={"speaker": "ben", "text": "Auth failures are up. Why?", "interpreter": "llm"})
            assert r.status_code == 201, r.text
            assert [(op["op"], op["claim"]) for op in r.json()["ops"]] == [("observe", "o1"), ("question", "q1")]
            assert c.get(f"/conversations/{cid}/verify", params={"claim": "o1"}).json()["grounded"] is True
    finally:
        llm.close()
    assert len(llm.requests) == 1


def _raw_replies(tmp_path, lines: list[str], expected: int) -> list:
    """`grounded mcp` sent ``lines`` as they are: its first ``expected`` replies (None for one that never came)."""
    import subprocess
    import threading

    db = str(tmp_path / "mcp.db")
    key = make_key(db, "agents")
    proc = subprocess.Popen([sys.executable, "-m", "grounded", "mcp", "--db", db, "--key", key],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    watchdog = threading.Timer(60, proc.kill)  # a reply that never comes ends the test, not the run
    watchdog.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(line + "\n" for line in lines))
        proc.stdin.flush()  # stdin stays open until the replies are read: EOF ends the session
        return [json.loads(proc.stdout.readline() or "null") for _ in range(expected)]
    finally:
        watchdog.cancel()
        proc.stdin.close()  # type: ignore[union-attr]
        proc.wait(timeout=30)


@pytest.mark.slow
def test_malformed_json_rpc_gets_an_error_reply(tmp_path):
    """JSON-RPC 2.0: a line that is not JSON is answered -32700 (id null); JSON that is no JSON-RPC message
    -32600, with the request's id when it has one; a blank line is skipped; the session goes on (the ping
    after them is answered)."""

    lines = ['{"jsonrpc": "2.0", "id": 1, "method": "ping"', "[1, 2]",
             '{"jsonrpc": "2.0", "id": 7, "method": 5}', '{"jsonrpc": "2.0", "id": 8, "method": "ping"}']
    replies = _raw_replies(tmp_path, ["", *lines], len(lines))
    assert [(r.get("id"), r.get("error", {}).get("code")) for r in replies] == [
        (None, -32700), (None, -32600), (7, -32600), (8, None)], replies
    assert replies[-1]["result"] == {}
    assert all(r["jsonrpc"] == "2.0" and "message" in r.get("error", {"message": ""}) for r in replies)


@pytest.mark.slow
@pytest.mark.parametrize("ident", ["true", "false", "1.5", "null", "[1]", '{"a": 1}'])
def test_a_request_whose_id_no_reply_can_carry_is_refused_not_left_unanswered(tmp_path, ident):
    """JSON-RPC 2.0: an id is a string or an integer; a request with another (which the SDK took for a
    notification, and never answered) is answered -32600, id null; the session goes on."""
    lines = [f'{{"jsonrpc": "2.0", "id": {ident}, "method": "ping"}}', '{"jsonrpc": "2.0", "id": 8, "method": "ping"}']
    replies = _raw_replies(tmp_path, lines, len(lines))
    assert replies[0] is not None and replies[0]["id"] is None and replies[0]["error"]["code"] == -32600, replies
    assert "neither a string nor an integer" in replies[0]["error"]["message"]
    assert replies[1] == {"jsonrpc": "2.0", "id": 8, "result": {}}


async def _strictness(db: str, key: str) -> dict:
    params = _mcp(db, key)
    got: dict = {}
    with anyio.fail_after(120):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            got["schema"] = tools["append"].input_schema.get("additionalProperties")

            async def call(name: str, **args: object) -> tuple[bool, str]:
                result = await session.call_tool(name, args)
                return result.is_error, result.content[0].text  # type: ignore[union-attr]

            got["create"] = await call("create_conversation", header=HEADER, id="strict")
            got["first"] = await call("append", conversation="strict", **TALK[0])
            got["typo"] = await call("append", conversation="strict", expected_turn=0, **TALK[1])
            got["length"] = await call("state", conversation="strict")
            store = open_store(db)
            try:
                [live] = [k for k in store.keys() if not k.revoked]
                store.revoke_key(live.id)
            finally:
                store.close()
            got["revoked"] = await call("append", conversation="strict", **TALK[1])
            got["revoked_read"] = await call("verify", conversation="strict", claim="o1")
    return got


def test_mcp_refuses_unknown_arguments_and_a_key_revoked_while_it_runs(tmp_path):
    db = str(tmp_path / "mcp.db")
    key = make_key(db, "agents")
    got = anyio.run(_strictness, db, key)
    assert got["schema"] is False
    assert got["create"][0] is False and got["first"][0] is False
    error, text = got["typo"]
    assert error and "expected_turn" in text and "Extra inputs are not permitted" in text, text
    assert json.loads(got["length"][1])["length"] == 1  # the misspelt append was not made
    for name in ("revoked", "revoked_read"):
        error, text = got[name]
        assert error and "invalid or revoked API key" in text, (name, text)


def test_mcp_without_the_serve_extra_names_it(tmp_path):
    """Without the MCP SDK (a package of the serve extra): one line naming the extra, exit 2 (it was an internal
    error: ModuleNotFoundError). The SDK is hidden by a package of its name that is not there to import."""
    import subprocess

    hidden = tmp_path / "hidden"
    for name in ("mcp", "mcp_types"):
        (hidden / name).mkdir(parents=True)
        (hidden / name / "__init__.py").write_text(f"raise ModuleNotFoundError({'No module named ' + name!r}, "
                                                   f"name={name!r})\n")
    db = str(tmp_path / "mcp.db")
    key = make_key(db, "agents")
    path = os.pathsep.join([str(hidden), *filter(None, [os.environ.get("PYTHONPATH")])])
    done = subprocess.run([sys.executable, "-m", "grounded", "mcp", "--db", db, "--key", key],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONPATH": path})
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == ("error: grounded mcp needs the 'serve' extra: pip install 'grounded[serve]' "
                                   "(mcp is not installed)")
