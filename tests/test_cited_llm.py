"""A model's cited continuation, end to end: the real openai client against the scripted local server."""

from __future__ import annotations

import jsonschema
import pytest

from grounded.interpreter.anchor import AnchorIndex
from grounded.interpreter.calllog import CallLog, read_call_log
from grounded.interpreter.cited_llm import CitedWriter, ask_cited, cited_claims, response_format
from grounded.interpreter.llm import LLMConfig
from grounded.interpreter.verdict import ABSTAIN, ACCEPT, REJECT

from .openai_server import reply, status

REQUEST = "Explain to the on-call engineer what caused the outage."
ANSWER = {"text": "The retry storm from the token bug is exhausting the Redis connection pool.", "asserts": ["h4"],
          "denies": []}


@pytest.fixture(scope="module")
def reader(p2):
    return AnchorIndex(p2, 13, "tfidf")


@pytest.fixture
def config(server):
    return LLMConfig(model="scripted", base_url=server.url, timeout=30.0, backoff=0.01, max_retries=2)


@pytest.fixture
def writer(config, tmp_path):
    w = CitedWriter(config, CallLog(tmp_path / "calls.jsonl"), sleep=lambda s: None)
    yield w
    w.close()


def test_the_request_carries_the_schema_and_a_well_formed_answer_is_verified(p2, reader, writer, server, tmp_path):
    server.push(reply(ANSWER))
    v = writer.ask(p2, REQUEST, 13, reader)
    assert v.verdict == ACCEPT and v.text == ANSWER["text"] and [f.literal for f in v.findings] == ["h4"]
    assert v.method == "cited (scripted); text read by coverage (WordNet 3.0)"
    (request,) = server.requests
    fmt = request["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["required"] == ["text", "asserts", "denies"] and schema["additionalProperties"] is False
    shown = [r["id"] for r in cited_claims(p2, 13)]
    assert schema["properties"]["asserts"]["items"]["enum"] == shown and "h2" in shown and "h4" in shown
    jsonschema.validate(ANSWER, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**ANSWER, "asserts": ["x9"]}, schema)
    system, user = request["messages"][0]["content"], request["messages"][1]["content"]
    assert "cite the claims your continuation rests on" in system
    assert user.index("Claims in standing") < user.index("h4 [hypothesis, resolved]") < user.index(
        "Claims out of standing") < user.index("h2 [hypothesis, abandoned]") < user.index(REQUEST)
    (line,) = read_call_log(tmp_path / "calls.jsonl")
    assert (line["task"], line["prompt_version"], line["outcome"], line["answer"], line["verdict"]) == (
        "cited", "cited_v1", "accepted", ANSWER, "accept")


def test_an_answer_citing_a_stale_claim_is_rejected(p2, reader, writer, server):
    server.push(reply({"text": "Redis failure caused the auth failures.", "asserts": ["h2"], "denies": []}))
    v = writer.ask(p2, REQUEST, 13, reader)
    assert v.verdict == REJECT and "asserts h2, which is not grounded: h2 abandoned at T9" in v.reason


def test_a_malformed_answer_is_re_asked_saying_what_is_wrong(p2, reader, writer, server, tmp_path):
    server.push(reply("The token bug did it."), reply("```json\n" + str(ANSWER).replace("'", '"') + "\n```"))
    v = writer.ask(p2, REQUEST, 13, reader)
    assert v.verdict == ACCEPT
    second = server.requests[1]["messages"]
    assert second[2] == {"role": "assistant", "content": "The token bug did it."}
    assert "cannot be used: the answer holds no JSON object" in second[3]["content"]
    assert [r["outcome"] for r in read_call_log(tmp_path / "calls.jsonl")] == ["malformed", "accepted"]


@pytest.mark.parametrize("first,second,error", [
    ({"text": "x", "asserts": ["h9"], "denies": []}, {"text": "x", "asserts": ["h9"], "denies": []},
     "unknown ids h9"),
    ({"asserts": ["h4"], "denies": []}, {"text": "x", "asserts": ["h4"], "denies": [], "why": "x"},
     "why: Extra inputs are not permitted"),
    ({"text": "x", "asserts": ["h4"], "denies": ["h4"]}, "{not json}", "not valid JSON"),
])
def test_two_bad_answers_are_reported_never_verified(p2, reader, writer, server, first, second, error):
    server.push(reply(first), reply(second))
    v = writer.ask(p2, REQUEST, 13, reader)
    assert v.verdict == ABSTAIN and v.error is not None and error in v.error and v.text is None
    assert v.findings == () and v.exit_code == 1 and len(server.requests) == 2
    assert v.to_json()["error"] == v.error


def test_server_errors_are_retried_then_no_answer_is_reported(p2, reader, writer, server, tmp_path):
    server.push(status(429, retry_after="0"), status(503), status(500))
    v = writer.ask(p2, REQUEST, 13, reader)
    assert v.verdict == ABSTAIN and v.error == "no answer from the endpoint (see the call log)"
    assert [r["outcome"] for r in read_call_log(tmp_path / "calls.jsonl")] == [
        "rate_limited", "server_error", "server_error"]


def test_ask_cited_in_one_call(p2, config, server):
    server.push(reply(ANSWER))
    v = ask_cited(p2, REQUEST, config, 13)
    assert v.verdict == ACCEPT and server.requests[0]["model"] == "scripted"


def test_no_claim_to_cite_allows_empty_lists_only():
    fmt = response_format([])
    assert fmt["json_schema"]["schema"]["properties"]["asserts"]["maxItems"] == 0
