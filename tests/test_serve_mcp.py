"""`grounded mcp`: the tools over stdio, driven by the official SDK's client, answer as the library does."""

from __future__ import annotations

import json
import os
import sys

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from grounded import Engine, PreconditionError
from grounded.interpreter.anchor import verify_text
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


async def _session_calls(db: str, key: str) -> dict:
    # the test's environment (PYTHONPATH included): the SDK passes only a few variables by default, and the
    # server must run the code under test
    params = StdioServerParameters(command=sys.executable, args=["-m", "grounded", "mcp", "--db", db, "--key", key],
                                   env=dict(os.environ))
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
            got["too_long"] = await call("verify_text", conversation="mcp-talk", text="a" * (Settings.max_text + 1))
            got["too_long_append"] = await call("append", conversation="mcp-talk", speaker="ben",
                                                text="a" * (Settings.max_text + 1), interpreter="rules")
            got["affected"] = await call("affected", conversation="mcp-talk", claim="o1")
            got["state"] = await call("state", conversation="mcp-talk")
            got["foreign"] = await call("state", conversation="other-tenant")
    return got


def test_the_mcp_tools_answer_as_the_library(tmp_path):
    db = str(tmp_path / "mcp.db")
    key = make_key(db, "agents")
    store = open_store(db)
    store.create_conversation("other-tenant", "someone-else", {"grounded": 1}, [])
    store.close()
    got = anyio.run(_session_calls, db, key)
    lib = Engine(HEADER)
    lib.apply(TALK[0])
    lib.apply(TALK[1])
    assert got["tools"] == ["affected", "append", "create_conversation", "state", "verify", "verify_text"]
    assert got["create"] == (False, {"id": "mcp-talk", "tenant": "agents", "turn": None, "length": 0})
    assert [(err, body["turn"]) for err, body in got["appends"]] == [(False, 1), (False, 2)]
    assert got["verify_before"][1]["grounded"] is True
    assert got["stale"][0] is True and got["stale"][1]["error"] == "conflict"
    with pytest.raises(PreconditionError) as exc:
        lib.apply({"speaker": "ann", "ops": [{"op": "hypothesize", "claim": "h2", "deps": ["nowhere"]}]})
    assert got["rejected"] == (True, rejection_json(exc.value))
    lib.apply(TALK[2])
    v = lib.verify("h1")
    assert got["verify"] == (False, {**v.to_json(), "arguments": [], "failing": v.failing})
    assert got["verify"][1]["grounded"] is False and "o1" in got["verify"][1]["reason"]
    assert got["verify_at"][1]["grounded"] is True
    assert got["verify_text"] == (False, verify_text(lib, "Redis exhaustion bypasses rate limiting").to_json())
    for refused in (got["too_long"], got["too_long_append"]):  # the text bound of grounded serve
        assert refused[0] and refused[1]["error"] == "too_large" and refused[1]["bound"] == Settings.max_text
    assert got["affected"][1]["lose_support"] == lib.affected("o1").lose_support
    assert {k: v for k, v in got["state"][1].items() if k not in ("id", "length")} == state_json(lib)
    assert got["foreign"][0] is True and got["foreign"][1]["error"] == "forbidden"


def test_mcp_refuses_a_bad_key(tmp_path):
    import subprocess

    db = str(tmp_path / "mcp.db")
    make_key(db, "agents")
    done = subprocess.run([sys.executable, "-m", "grounded", "mcp", "--db", db, "--key", "gk_nope"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert "invalid or revoked API key" in done.stderr


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
