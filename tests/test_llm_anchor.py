"""LLM anchoring (`--anchor llm`) through the real openai client against the scripted local server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grounded.interpreter.bounded import MAX_RESPONSE_BYTES
from grounded.interpreter.calllog import CallLog, read_call_log
from grounded.interpreter.llm import LLMConfig
from grounded.interpreter.llm_anchor import AnchorAnswerError, LLMAnchor, claims_shown, parse_answer
from grounded.interpreter.verdict import ABSTAIN, ACCEPT, REJECT

from .openai_server import gzip_bomb, reply, status

ROOT = Path(__file__).resolve().parent.parent
PHASE2 = ROOT / "scenarios" / "phase2.yaml"
TEXT = "The token bug is a downstream symptom of Redis unavailability"


@pytest.fixture
def anchor(server, tmp_path):
    config = LLMConfig(model="scripted", base_url=server.url, timeout=30.0, backoff=0.01, max_retries=2)
    reader = LLMAnchor(config, CallLog(tmp_path / "calls.jsonl"), sleep=lambda s: None)
    yield reader
    reader.close()


def test_one_call_shows_the_claims_with_standings_and_the_engine_verifies(p2, anchor, server, tmp_path):
    server.push(reply({"asserts": ["h2"], "denies": ["h4"]}))
    v = anchor.verify(p2, TEXT, 13)
    assert v.verdict == REJECT and "contradicts h4, which is grounded" in v.reason and "asserts h2" in v.reason
    assert v.method == "llm (scripted)" and [f.how for f in v.findings] == ["llm", "llm"]
    (request,) = server.requests
    user = request["messages"][1]["content"]
    assert "Claims in standing:" in user and "Claims out of standing:" in user and TEXT in user
    assert "h4 [hypothesis, resolved]: Token bug -> retry storm" in user
    assert "h2 [hypothesis, abandoned]: Redis failure -> Auth failures" in user
    assert user.index("h4 [") < user.index("Claims out of standing") < user.index("h2 [")
    assert "q1" not in user  # questions assert nothing
    (line,) = read_call_log(tmp_path / "calls.jsonl")
    assert (line["task"], line["outcome"], line["answer"], line["candidate"], line["turn"]) == (
        "anchor", "accepted", {"asserts": ["h2"], "denies": ["h4"]}, TEXT, 13)
    assert line["prompt_version"] == "anchor_v1"


def test_a_malformed_answer_is_re_asked_once_saying_what_is_wrong(p2, anchor, server, tmp_path):
    server.push(reply("I think it asserts h4."), reply("```json\n{\"asserts\": [\"h4\"], \"denies\": []}\n```"))
    v = anchor.verify(p2, "The retry storm is what exhausts Redis.", 13)
    assert v.verdict == ACCEPT and [f.literal for f in v.asserted] == ["h4"]
    second = server.requests[1]["messages"]
    assert second[2] == {"role": "assistant", "content": "I think it asserts h4."}
    assert "cannot be used: the answer holds no JSON object" in second[3]["content"]
    assert [r["outcome"] for r in read_call_log(tmp_path / "calls.jsonl")] == ["malformed", "accepted"]


@pytest.mark.parametrize("first,second,error", [
    ({"asserts": ["h9"], "denies": []}, {"asserts": ["h9"], "denies": []}, "unknown ids h9"),
    ({"asserts": "h4"}, {"asserts": ["h4"], "denies": [], "why": "x"}, "why: Extra inputs are not permitted"),
    ({"asserts": ["h4"], "denies": ["h4"]}, "{not json}", "not valid JSON"),
])
def test_two_bad_answers_give_abstain_with_the_error_never_a_guess(p2, anchor, server, first, second, error):
    server.push(reply(first), reply(second))
    v = anchor.verify(p2, TEXT, 13)
    assert v.verdict == ABSTAIN and v.error is not None and error in v.error and v.findings == ()
    assert len(server.requests) == 2
    assert "unknown ids h9" in server.requests[1]["messages"][3]["content"] if "h9" in error else True


def test_rate_limits_and_server_errors_are_retried_and_logged(p2, anchor, server, tmp_path):
    server.push(status(429, retry_after="0"), status(503), reply({"asserts": [], "denies": ["h2"]}))
    v = anchor.verify(p2, "It was not Redis that broke Auth.", 13)
    assert v.verdict == ACCEPT and v.reason == "denies h2 (not grounded)"
    assert [r["outcome"] for r in read_call_log(tmp_path / "calls.jsonl")] == [
        "rate_limited", "server_error", "accepted"]
    assert all(r["task"] == "anchor" for r in read_call_log(tmp_path / "calls.jsonl"))


def test_no_answer_at_all_abstains_naming_the_call_log(p2, anchor, server):
    server.push(status(500), status(500), status(500))
    v = anchor.verify(p2, TEXT, 13)
    assert v.verdict == ABSTAIN and "no answer from the endpoint" in v.error


def test_an_answer_inflating_past_the_bound_is_a_bad_response_retried(p2, anchor, server, tmp_path):
    """The anchor's requests go through the Interpreter's transport: a gzip bomb is cut off there too."""
    server.push(gzip_bomb(), reply({"asserts": [], "denies": ["h2"]}))
    v = anchor.verify(p2, "It was not Redis that broke Auth.", 13)
    assert v.verdict == ACCEPT
    records = read_call_log(tmp_path / "calls.jsonl")
    assert [r["outcome"] for r in records] == ["bad_response", "accepted"]
    assert f"exceeds {MAX_RESPONSE_BYTES} bytes once decoded" in records[0]["error"]


def test_parse_answer_and_the_claims_shown(p2):
    known = {r["id"] for r in claims_shown(p2, 13)}
    assert {"h1", "h2", "h3", "h4", "o9", "mis_monitor"} <= known and not {"q1", "q2"} & known
    assert parse_answer('prose {"asserts": ["o9"]} more', known).asserts == ["o9"]
    assert claims_shown(p2, 3)[-1]["id"] == "mis_monitor"  # declared, not yet claimed by anyone
    assert claims_shown(p2, 3)[-1]["standing"] == "not claimed by anyone"


@pytest.mark.slow
def test_cli_verify_text_with_the_llm(server, tmp_path):
    server.push(reply({"asserts": [], "denies": ["h4"]}))
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")},
           "OPENAI_BASE_URL": server.url, "GROUNDED_MODEL": "scripted"}
    log = tmp_path / "anchor.calls.jsonl"
    result = subprocess.run([sys.executable, "-m", "grounded", "verify", str(PHASE2), "--text", TEXT, "--anchor",
                             "llm", "--call-log", str(log), "--json"], capture_output=True, text=True, timeout=120,
                            env=env)
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["verdict"] == "reject" and data["method"] == "llm (scripted)" and data["denied"][0]["literal"] == "h4"
    assert [r["outcome"] for r in read_call_log(log)] == ["accepted"]


def test_an_answer_nested_past_the_parser_is_an_error_never_a_crash():
    deep = '{"asserts": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(AnchorAnswerError, match="nested too deeply"):
        parse_answer(deep, {"h4"})
