"""The LLM Interpreter through the real openai client, over HTTP, against a scripted local server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

from grounded import Engine
from grounded.core.errors import InputError
from grounded.interpreter.calllog import CallLog, read_call_log
from grounded.interpreter.llm import LLMConfig, LLMInterpreter
from grounded.interpreter.prompts import PROMPTS
from grounded.interpreter.runner import interpret_file
from grounded.interpreter.session import interpret, interpret_turn
from grounded.interpreter.transcript import Said

from .openai_server import reply, slow, status

HEADER = {"agents": {"carol": {}, "bob": {}, "alice": {"authority": True}},
          "props": [{"id": "mis_monitor", "aware": False, "text": "Monitoring conflates Redis with the database."}]}


def ops(*items: dict) -> dict:
    return {"operations": list(items)}


OBSERVE_AND_ASK = ops({"op": "observe", "claim": "#1", "text": "Auth failures are up."},
                      {"op": "question", "claim": "#2", "text": "What causes the failures?"})


@pytest.fixture
def setup(server, tmp_path):
    """An engine with an event log, and an LLM interpreter with a call log, pointed at the server."""
    made = []

    def make(condition: str = "definitions", **config):
        # a generous deadline: a reply that should succeed is never cut by a loaded machine (timeout cases set theirs)
        config = {"timeout": 30.0, "backoff": 0.01, "max_retries": 2, "max_attempts": 3, **config}
        interp = LLMInterpreter(LLMConfig(model="scripted", base_url=server.url, condition=condition, **config),
                                CallLog(tmp_path / "calls.jsonl"))
        engine = Engine(HEADER, log=tmp_path / f"log{len(made) or ''}.jsonl")
        made.append((interp, engine))
        return interp, engine

    yield make
    for interp, engine in made:
        interp.close()
        engine.close()


def calls(tmp_path) -> list[dict]:
    return read_call_log(tmp_path / "calls.jsonl")


def log_lines(tmp_path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()[1:]]


def last_user_message(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] == "user"][-1]["content"]


def test_valid_operations_are_applied_with_ids_the_interpreter_assigns(server, setup, tmp_path):
    server.push(reply(OBSERVE_AND_ASK))
    interp, engine = setup()
    result = interpret_turn(engine, interp, Said(1, "carol", "Auth failures are up. Why?"))
    assert result.labels == ["observe", "question"] and not result.rejections
    assert [(op.op, op.claim) for op in result.update.utterance.ops] == [("observe", "o1"), ("question", "q1")]
    assert log_lines(tmp_path) == [{"turn": 1, "speaker": "carol", "text": "Auth failures are up. Why?",
                                    "ops": [{"op": "observe", "claim": "o1", "text": "Auth failures are up."},
                                            {"op": "question", "claim": "q1", "text": "What causes the failures?"}],
                                    "labels": ["observe", "question"]}]
    [record] = calls(tmp_path)
    assert record["outcome"] == "accepted" and record["turn"] == 1 and record["attempt"] == 1
    assert record["usage"]["prompt_tokens"] > 0 and record["latency_ms"] >= 0
    assert record["messages"][0]["role"] == "system"
    assert "Auth failures are up. Why?" in record["messages"][1]["content"]
    assert json.loads(record["response"]) == OBSERVE_AND_ASK and record["prompt_version"] == "definitions_v1"
    assert server.requests[0]["model"] == "scripted"
    assert server.requests[0]["response_format"] == {"type": "json_object"}


def test_malformed_json_is_re_asked_saying_what_is_wrong(server, setup, tmp_path):
    server.push(reply("Sure! Here are the operations: observe"), reply('{"operations": [{"op": "observe"}]}'),
                reply(OBSERVE_AND_ASK))
    interp, engine = setup()
    result = interpret_turn(engine, interp, Said(1, "carol", "Auth failures are up. Why?"))
    assert result.labels == ["observe", "question"]
    assert "not valid JSON" in last_user_message(server.requests[1])
    assert "operations[0].claim: Field required" in last_user_message(server.requests[2])
    assert [c["outcome"] for c in calls(tmp_path)] == ["malformed", "malformed", "accepted"]


@pytest.mark.parametrize("failure,outcome", [(status(429, retry_after="0"), "rate_limited"),
                                             (status(500), "server_error"), (status(503), "server_error"),
                                             (slow(60, OBSERVE_AND_ASK), "timeout")])
def test_429_5xx_and_timeouts_are_retried_with_backoff(server, setup, tmp_path, failure, outcome):
    server.push(failure, failure, reply(OBSERVE_AND_ASK))
    interp, engine = setup(**({"timeout": 0.5} if outcome == "timeout" else {}))  # a 60 s reply cut at 0.5 s
    result = interpret_turn(engine, interp, Said(1, "carol", "Auth failures are up. Why?"))
    assert result.labels == ["observe", "question"]
    records = calls(tmp_path)
    assert [c["outcome"] for c in records] == [outcome, outcome, "accepted"]
    assert [c["request"] for c in records] == [1, 2, 3]
    assert records[0]["retry_in_s"] == pytest.approx(0.01) and records[1]["retry_in_s"] == pytest.approx(0.02)
    if outcome == "timeout":
        assert records[0]["latency_ms"] >= 500
    else:
        assert records[0]["status"] == int(outcome == "rate_limited" and 429 or records[0]["status"])


def test_a_retry_after_header_lengthens_the_backoff(server, setup, tmp_path):
    server.push(status(429, retry_after="0.2"), reply(OBSERVE_AND_ASK))
    interp, engine = setup()
    interpret_turn(engine, interp, Said(1, "carol", "x"))
    assert calls(tmp_path)[0]["retry_in_s"] == pytest.approx(0.2)


def test_when_retries_run_out_the_utterance_is_recorded_unclassified_and_the_talk_goes_on(server, setup, tmp_path):
    server.push(status(429), status(429), status(429), reply(OBSERVE_AND_ASK))
    interp, engine = setup()
    first, second = interpret(engine, interp, [Said(1, "carol", "Lost to rate limits."),
                                               Said(2, "carol", "Auth failures are up. Why?")])
    assert first.unclassified and first.labels == []
    assert not second.unclassified and engine.verify("o1").grounded
    lines = log_lines(tmp_path)
    assert lines[0] == {"turn": 1, "speaker": "carol", "text": "Lost to rate limits.", "ops": []}
    records = calls(tmp_path)
    assert [c["outcome"] for c in records] == ["rate_limited"] * 3 + ["unclassified", "accepted"]
    assert records[3]["text"] == "Lost to rate limits." and "retry_in_s" not in records[2]


def test_other_http_errors_are_not_retried(server, setup, tmp_path):
    server.push(status(400), reply(OBSERVE_AND_ASK))
    interp, engine = setup()
    result = interpret_turn(engine, interp, Said(1, "carol", "x"))
    assert result.unclassified
    assert [c["outcome"] for c in calls(tmp_path)] == ["http_error", "unclassified"]


def test_rejected_operations_are_re_prompted_naming_each_failing_condition(server, setup, tmp_path):
    server.push(reply(ops({"op": "observe", "claim": "mis_monitor", "text": "The alert is really Redis."},
                          {"op": "support", "target": "h9", "by": "mis_monitor"})),
                reply(ops({"op": "expand_awareness", "claim": "mis_monitor", "text": "The alert is really Redis."})))
    interp, engine = setup()
    result = interpret_turn(engine, interp, Said(1, "carol", "The database alert is really about Redis."))
    assert result.labels == ["expand_awareness"] and len(result.rejections) == 1
    prompt = last_user_message(server.requests[1])
    assert "mis_monitor is outside every agent's awareness: use Expand-Awareness, not Observe" in prompt
    assert "[support_target_unknown] no argument claims h9" in prompt
    records = calls(tmp_path)
    assert records[0]["outcome"] == "rejected"
    assert {v["code"] for v in records[0]["violations"]} == {"observe_unaware", "support_target_unknown",
                                                          "support_by_unknown"}
    assert records[1]["outcome"] == "accepted"
    assert engine.verify("mis_monitor").grounded


def test_new_ids_are_never_taken_from_the_model(server, setup, tmp_path):
    server.push(reply(OBSERVE_AND_ASK),
                reply(ops({"op": "hypothesize", "claim": "o1", "deps": ["o1"], "explains": ["o1"]})),
                reply(ops({"op": "hypothesize", "claim": "h7", "deps": ["o1"], "explains": ["#9"]})),
                reply(ops({"op": "hypothesize", "claim": "h7", "deps": ["o1"], "explains": ["o1"],
                           "text": "Sessions expire."},
                          {"op": "support", "target": "h7", "evidence": "Expiry errors match the timing."})))
    interp, engine = setup()
    interpret_turn(engine, interp, Said(1, "carol", "Auth failures are up. Why?"))
    result = interpret_turn(engine, interp, Said(2, "bob", "Could be session expiry; the timing matches."))
    # o1 exists: hypothesizing it is refused by the rules and re-prompted; an unintroduced #9 is re-asked;
    # the invented h7 becomes h1, and the evidence a new observation o2 (auxiliary: not a label)
    assert "o1 cannot explain itself" in last_user_message(server.requests[2])
    assert "no operation introduces #9" in last_user_message(server.requests[3])
    assert [(op.op, getattr(op, "claim", None) or op.target) for op in result.update.utterance.ops] == [
        ("hypothesize", "h1"), ("observe", "o2"), ("support", "h1")]
    assert result.labels == ["hypothesize", "support"]
    assert engine.dep("h1") == ["o1", "o2"]


def test_attempts_are_bounded_then_unclassified(server, setup, tmp_path):
    bad = reply(ops({"op": "support", "target": "h9", "by": "h8"}))
    server.push(bad, bad)
    interp, engine = setup(max_attempts=2)
    result = interpret_turn(engine, interp, Said(1, "carol", "Surely h9."))
    assert result.unclassified and len(result.rejections) == 2 and len(server.requests) == 2
    assert [c["outcome"] for c in calls(tmp_path)] == ["rejected", "rejected", "unclassified"]
    assert "support_target_unknown" in calls(tmp_path)[2]["reason"]


def test_prompt_conditions(server, setup):
    answer = reply(OBSERVE_AND_ASK)
    second = reply(ops({"op": "hypothesize", "claim": "#1", "deps": ["o1"], "explains": ["q1"]}))
    systems, users = {}, {}
    for condition in ("minimal", "definitions", "state"):
        server.requests.clear()
        server.push(answer, second)
        interp, engine = setup(condition)
        interpret_turn(engine, interp, Said(1, "carol", "Auth failures are up. Why?"))
        interpret_turn(engine, interp, Said(2, "bob", "Maybe sessions expire."))
        systems[condition] = server.requests[1]["messages"][0]["content"]
        users[condition] = server.requests[1]["messages"][1]["content"]
    assert "Example:" not in systems["minimal"] and "Example:" in systems["definitions"]
    assert "Undermine vs Revise" in systems["definitions"] and systems["state"].startswith(systems["definitions"])
    for name in ("observe", "expand_awareness", "resolve"):
        assert f"- {name}:" in systems["minimal"]
    # Minimal and Definitions list the ids to link to; State-augmented shows the rendered map instead
    assert "- o1: Auth failures are up." in users["definitions"] and "Dependency map" not in users["definitions"]
    assert "Dependency map after T1" in users["state"] and "**active, grounded**" in users["state"]
    assert "mis_monitor" in users["state"] and "Not yet in anyone's awareness" in users["state"]
    assert "T1 carol: Auth failures are up. Why?" in users["state"]  # the recent utterances
    assert {p.version for p in PROMPTS.values()} == {"minimal_v1", "definitions_v1", "state_augmented_v1"}


def test_config_from_the_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("GROUNDED_MODEL", "qwen")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = LLMConfig.from_env(condition="state", timeout=None)
    assert (config.base_url, config.model, config.condition, config.timeout) == ("http://127.0.0.1:9/v1", "qwen",
                                                                                  "state", 60.0)
    assert LLMConfig.from_env(model="other").model == "other"
    monkeypatch.delenv("GROUNDED_MODEL")
    with pytest.raises(Exception, match="no model: set GROUNDED_MODEL"):
        LLMConfig.from_env()
    for make in (lambda: LLMConfig(model="m", condition="verbose"),
                 lambda: LLMConfig.from_env(model="m", condition="verbose")):
        with pytest.raises(InputError, match="unknown condition 'verbose' \\(one of minimal, definitions, state\\)"):
            make()


def interpret_cli(server, tmp_path, *extra: str, url: str | None = None) -> subprocess.CompletedProcess:
    """``grounded interpret`` of a two-line transcript into talk.jsonl through the server (or ``url``)."""
    transcript = tmp_path / "talk.txt"
    transcript.write_text("Carol: Auth failures are up. Why?\n\n# a comment\nBob: Maybe sessions expire.\n")
    return subprocess.run([sys.executable, "-m", "grounded", "interpret", transcript, "-i", "llm", "--model", "m",
                           "--base-url", url or server.url, "--condition", "state", "-o", tmp_path / "talk.jsonl",
                           *extra],
                          capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")})


TWO_ANSWERS = (reply(OBSERVE_AND_ASK), reply(ops({"op": "hypothesize", "claim": "#1", "deps": ["o1"],
                                                  "explains": ["q1"]})))


@pytest.mark.slow
def test_the_cli_interprets_a_transcript_through_the_server(server, tmp_path):
    server.push(*TWO_ANSWERS)
    log = tmp_path / "talk.jsonl"
    result = interpret_cli(server, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "T1 carol: observe, question" in result.stdout and "T2 bob: hypothesize" in result.stdout
    assert "0 unclassified" in result.stdout
    assert [c["outcome"] for c in read_call_log(tmp_path / "talk.calls.jsonl")] == ["accepted", "accepted"]
    assert Engine.load(log).verify("h1").grounded


@pytest.mark.slow
def test_the_call_log_is_kept_refused_or_replaced_with_its_event_log(server, tmp_path):
    calls_path = tmp_path / "talk.calls.jsonl"
    server.push(*TWO_ANSWERS)
    assert interpret_cli(server, tmp_path).returncode == 0
    first = calls_path.read_text()
    assert len(read_call_log(calls_path)) == 2
    refused = interpret_cli(server, tmp_path)
    assert refused.returncode == 2 and "exists; pass --force" in refused.stderr
    assert calls_path.read_text() == first  # a refused run touches neither log
    server.push(*TWO_ANSWERS)
    assert interpret_cli(server, tmp_path, "--force").returncode == 0
    assert [c["outcome"] for c in read_call_log(calls_path)] == ["accepted", "accepted"]  # the old calls are gone
    assert len(server.requests) == 4
    calls_path.unlink()
    assert interpret_cli(server, tmp_path).returncode == 2
    assert not calls_path.exists()  # refused before the call log was opened


def unused_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then closed): a connection to it is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_a_run_whose_endpoint_never_answers_fails_naming_the_cause(server, tmp_path):
    result = interpret_cli(server, tmp_path, "--max-retries", "0", url=f"http://127.0.0.1:{unused_port()}/v1")
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("error: 2 of 2 utterances unclassified because every request to the endpoint "
                                    "failed (the last: APIConnectionError: Connection error.)")
    assert "nothing was classified" in result.stderr
    lines = (tmp_path / "talk.jsonl").read_text().splitlines()[1:]  # the words are kept, without operations
    assert [json.loads(line)["ops"] for line in lines] == [[], []]


@pytest.mark.slow
def test_a_run_with_some_endpoint_failures_says_how_many(server, tmp_path):
    server.push(status(400), TWO_ANSWERS[0])
    result = interpret_cli(server, tmp_path, "--max-retries", "0")
    assert result.returncode == 0, result.stderr
    assert "T1 carol: UNCLASSIFIED" in result.stdout and "T2 bob: observe, question" in result.stdout
    assert ("warning: 1 of 2 utterances unclassified because every request to the endpoint failed (the last: "
            "BadRequestError: Error code: 400") in result.stderr


def test_a_run_that_cannot_read_its_transcript_still_closes_the_interpreter(server, tmp_path):
    interp = LLMInterpreter(LLMConfig(model="scripted", base_url=server.url), CallLog(tmp_path / "calls.jsonl"))
    with pytest.raises(InputError, match="cannot read the transcript"):
        interpret_file(tmp_path / "missing.txt", interp, tmp_path / "out.jsonl")
    assert interp.client.is_closed() and interp.call_log._file.closed
    assert not (tmp_path / "out.jsonl").exists()
