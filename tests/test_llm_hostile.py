"""A hostile endpoint never aborts an interpreting run; an interrupted run resumes.

Issue 10's cases, each through the real openai client over HTTP against the
scripted local server: a 200 with an HTML body, truncated JSON, a wrong
envelope (``{"choices": "abc"}``), a lone surrogate, deeply nested brackets
each aborted the whole run; a server trickling a byte a second held it
forever; a rerun was refused with no way to resume.  Now the utterance lands
unclassified (ops: []), the run goes on, every request has a total deadline,
and ``--resume`` continues a run after the last turn of its log.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from grounded import Engine
from grounded.interpreter.bounded import MAX_RESPONSE_BYTES
from grounded.interpreter.calllog import CallLog, read_call_log
from grounded.interpreter.llm import LLMConfig, LLMInterpreter
from grounded.interpreter.session import interpret
from grounded.interpreter.transcript import Said

from .openai_server import gzip_bomb, gzipped, html, raw, reply, trickle

HEADER = {"agents": {"carol": {}, "bob": {}}}
GOOD = {"operations": [{"op": "observe", "claim": "#1", "text": "Auth failures are up."},
                       {"op": "question", "claim": "#2", "text": "What causes the failures?"}]}
DEEP = 100_000

HOSTILE = {
    "html body": html(),
    "truncated JSON": raw('{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "mess'),
    "wrong envelope": raw('{"choices": "abc"}'),
    "choices of strings": raw('{"choices": ["abc"], "usage": "lots"}'),
    "content not text": raw('{"choices": [{"message": {"role": "assistant", "content": {"x": 1}}}]}'),
    "nested envelope": raw('{"choices": ' + "[" * DEEP + "]" * DEEP + "}"),
    "invalid UTF-8": raw(b'{"choices": [{"message": {"content": "\xed\xa0\x80 \xff"}}]}'),
    "lone surrogate in the answer": reply("I think \ud800 observe"),
    "lone surrogate in an operation": reply({"operations": [{"op": "observe", "claim": "#1",
                                                             "text": "bad \ud800 text"}]}),
    "nested brackets in the answer": reply("[" * DEEP + "]" * DEEP),
    "nested object in the answer": reply('{"operations": ' + "[" * DEEP + "]" * DEEP + "}"),
}


def make(server, tmp_path, **config):
    config = {"timeout": 30.0, "backoff": 0.01, "max_retries": 2, "max_attempts": 3, **config}
    interp = LLMInterpreter(LLMConfig(model="scripted", base_url=server.url, **config),
                            CallLog(tmp_path / "calls.jsonl"))
    engine = Engine(HEADER, log=tmp_path / "log.jsonl")
    return interp, engine


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_answer_leaves_the_utterance_unclassified_and_the_run_goes_on(server, tmp_path, case):
    server.push(HOSTILE[case], HOSTILE[case], HOSTILE[case], reply(GOOD))
    interp, engine = make(server, tmp_path)
    try:
        first, second = interpret(engine, interp, [Said(1, "carol", "Something odd."),
                                                   Said(2, "carol", "Auth failures are up. Why?")])
    finally:
        interp.close()
        engine.close()
    assert first.unclassified and first.labels == []
    assert not second.unclassified and second.labels == ["observe", "question"]
    logged = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()[1:]]
    assert logged[0] == {"turn": 1, "speaker": "carol", "text": "Something odd.", "ops": []}
    assert [op["claim"] for op in logged[1]["ops"]] == ["o1", "q1"]
    records = read_call_log(tmp_path / "calls.jsonl")  # readable, whatever the server sent
    assert records[-2]["outcome"] == "unclassified" and records[-1]["outcome"] == "accepted"
    assert {r["outcome"] for r in records[:-2]} <= {"bad_response", "malformed", "rejected"}
    # nothing the server sent is sent back unscrubbed: every later request was encodable
    for request in server.requests:
        json.dumps(request, ensure_ascii=False).encode("utf-8")


def test_a_server_trickling_a_byte_a_second_is_cut_off_at_the_total_deadline(server, tmp_path):
    server.push(trickle(0.2, GOOD), trickle(0.2, GOOD), trickle(0.2, GOOD), reply(GOOD))
    interp, engine = make(server, tmp_path, timeout=0.6)
    started = time.monotonic()
    try:
        first, second = interpret(engine, interp, [Said(1, "carol", "Slowly."), Said(2, "carol", "Why?")])
    finally:
        interp.close()
        engine.close()
    elapsed = time.monotonic() - started
    assert first.unclassified and not second.unclassified
    records = read_call_log(tmp_path / "calls.jsonl")
    assert [r["outcome"] for r in records[:3]] == ["timeout"] * 3
    # every read succeeded; the deadline did not (a body takes about a minute without it: far above the bounds)
    assert all(600 <= r["latency_ms"] < 10_000 for r in records[:3])
    assert "no complete answer within 0.6 s" in records[0]["error"]
    assert elapsed < 30  # does not hang: each body would take about a minute at this pace


def interpret_cli(server, tmp_path, transcript, *extra, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "grounded", "interpret", transcript, "-i", "llm", "--model", "m",
                             "--base-url", server.url, "-o", tmp_path / "talk.jsonl", "--max-retries", "0", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}, **kw)


@pytest.mark.slow
def test_the_cli_run_survives_a_hostile_endpoint(server, tmp_path):
    transcript = tmp_path / "talk.txt"
    transcript.write_text("Carol: Something odd.\nCarol: Auth failures are up. Why?\n")
    server.push(HOSTILE["wrong envelope"], reply(GOOD))
    result = interpret_cli(server, tmp_path, transcript)
    out, err = result.communicate(timeout=120)
    assert result.returncode == 0, err
    assert "T1 carol: UNCLASSIFIED" in out and "T2 carol: observe, question" in out and "1 unclassified" in out
    assert Engine.load(tmp_path / "talk.jsonl").verify("o1").grounded


@pytest.mark.slow
def test_an_interrupted_run_resumes_after_the_last_logged_turn(server, tmp_path):
    transcript = tmp_path / "talk.txt"
    transcript.write_text("Carol: Auth failures are up. Why?\nBob: Maybe sessions expire.\nCarol: Possibly.\n")
    log, calls = tmp_path / "talk.jsonl", tmp_path / "talk.calls.jsonl"
    hypothesis = reply({"operations": [{"op": "hypothesize", "claim": "#1", "deps": ["o1"], "explains": ["q1"]}]})
    server.push(reply(GOOD), trickle(5.0, GOOD))  # the second answer hangs: the run is killed meanwhile
    run = interpret_cli(server, tmp_path, transcript, "--timeout", "300")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 2):
        time.sleep(0.05)
    while time.monotonic() < deadline and len(server.requests) < 2:
        time.sleep(0.05)
    run.send_signal(signal.SIGKILL)
    run.communicate(timeout=60)
    assert len(log.read_text().splitlines()) == 2  # header + turn 1
    refused = interpret_cli(server, tmp_path, transcript)
    _, err = refused.communicate(timeout=120)
    assert refused.returncode == 2 and "or --resume to continue an interrupted run" in err
    server.push(hypothesis, reply({"operations": []}))
    resumed = interpret_cli(server, tmp_path, transcript, "--resume")
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert "2 utterances (resumed after turn 1)" in out and "T1" not in out.replace("turn 1", "")
    engine = Engine.load(log)
    assert engine.turn == 3 and engine.verify("h1").grounded
    assert [c["turn"] for c in read_call_log(calls)] == [1, 2, 3]  # the call log goes on too
    # the resumed run showed the model the earlier utterance as recent history
    assert "Auth failures are up. Why?" in server.requests[-2]["messages"][1]["content"]


def test_resume_refuses_a_log_of_another_transcript(server, tmp_path):
    from grounded.core.errors import InputError
    from grounded.interpreter.runner import interpret_file

    transcript = tmp_path / "talk.txt"
    transcript.write_text("Carol: Auth failures are up. Why?\nBob: Maybe sessions expire.\n")
    log = tmp_path / "talk.jsonl"
    with Engine(HEADER, log=log) as engine:
        engine.apply({"turn": 1, "speaker": "carol", "text": "Something else entirely.", "ops": []})
    before = log.read_bytes()
    interp = LLMInterpreter(LLMConfig(model="scripted", base_url=server.url), None)
    with pytest.raises(InputError, match="turn 1 of the log is carol: 'Something else entirely.' but the "
                                         "transcript's is carol: 'Auth failures are up. Why\\?'"):
        interpret_file(transcript, interp, log, header=Engine.load(log).header, resume=True)
    assert log.read_bytes() == before and server.requests == []
    with pytest.raises(InputError, match="--resume continues the event log and --force replaces it"):
        interpret_file(transcript, LLMInterpreter(LLMConfig(model="scripted", base_url=server.url), None), log,
                       resume=True, overwrite=True)


# -- an answer that inflates (issue "Trust, round two", item 4) ----------------------------------

INFLATED = 200 << 20
"""A 200 KB gzip body inflating to 200 MB took `grounded interpret` to 1.4 GB."""


def bomb():
    return gzip_bomb(INFLATED)


def test_an_answer_larger_than_the_bound_once_decoded_is_a_bad_response(server, tmp_path):
    assert len(bomb().body) < 300_000 < MAX_RESPONSE_BYTES < INFLATED
    server.push(bomb(), bomb(), bomb(), gzipped(GOOD))  # a small compressed answer is read as ever
    interp, engine = make(server, tmp_path)
    try:
        first, second = interpret(engine, interp, [Said(1, "carol", "Something odd."),
                                                   Said(2, "carol", "Auth failures are up. Why?")])
    finally:
        interp.close()
        engine.close()
    assert first.unclassified and not second.unclassified
    records = read_call_log(tmp_path / "calls.jsonl")
    assert [r["outcome"] for r in records[:4]] == ["bad_response"] * 3 + ["unclassified"]
    assert all(f"exceeds {MAX_RESPONSE_BYTES} bytes once decoded" in r["error"] for r in records[:3])


def run_measured(command: list, env: dict, cwd) -> tuple[int, int, str, str]:
    """Run ``command``: its exit status, its own peak resident memory (bytes), stdout and stderr."""
    out, err = cwd / "stdout.txt", cwd / "stderr.txt"
    with open(out, "w") as o, open(err, "w") as e:
        child = subprocess.Popen(command, stdout=o, stderr=e, env=env)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
                return child.returncode, usage.ru_maxrss * 1024, out.read_text(), err.read_text()
            time.sleep(0.05)
        child.kill()
        child.wait()
        raise AssertionError(f"{command} did not finish in 180 s")


@pytest.mark.slow
def test_the_cli_reads_a_gzip_bomb_in_bounded_memory(server, tmp_path):
    """`grounded interpret` against an endpoint answering a 200 KB gzip body that inflates to 200 MB: the
    utterance lands unclassified and the process's peak memory stays near that of a run with plain answers."""
    transcript = tmp_path / "talk.txt"
    transcript.write_text("Carol: Something odd.\nCarol: Auth failures are up. Why?\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    peaks = {}
    for case, firsts in (("plain", [reply({"operations": []})]), ("bomb", [bomb(), bomb()])):  # one retry
        (tmp_path / case).mkdir()
        server.push(*firsts, reply(GOOD))
        code, peaks[case], out, err = run_measured(
            [sys.executable, "-m", "grounded", "interpret", transcript, "-i", "llm", "--model", "m", "--base-url",
             server.url, "-o", tmp_path / case / "talk.jsonl", "--max-retries", "1"], env, tmp_path / case)
        assert code == 0, err
        assert "T2 carol: observe, question" in out
    assert "T1 carol: UNCLASSIFIED" in out and "1 unclassified" in out
    records = read_call_log(tmp_path / "bomb" / "talk.calls.jsonl")
    assert [r["outcome"] for r in records[:3]] == ["bad_response", "bad_response", "unclassified"]
    print(f"peak resident memory: plain answers {peaks['plain'] / 2**20:.0f} MiB, "
          f"the gzip bomb {peaks['bomb'] / 2**20:.0f} MiB")
    assert peaks["bomb"] < peaks["plain"] + 48 * 2**20, peaks  # inflated whole, it would be 200 MB more at least
