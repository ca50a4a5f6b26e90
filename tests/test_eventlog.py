"""The event log: durable appends, faithful reload, and errors that name file:line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grounded import Engine, InputError, LogError, PreconditionError
from grounded.dmap.model import Header
from grounded.io.eventlog import header_json
from grounded.scenario import Scenario

from .conftest import TEAM, hyp, obs

STORY = [
    {"speaker": "carol", "text": "three alerts", "ops": [obs("o1"), obs("o2"), {"op": "question", "claim": "q1"}]},
    {"speaker": "bob", "ops": [hyp("h1", ["o1"], ["o2"], text="redis")]},
    {"speaker": "alice", "ops": [obs("o3"), {"op": "undermine", "target": "h1", "by": "o3"}]},
    {"speaker": "alice", "ops": [{"op": "revise", "target": "h1", "by": "o3"}]},
]


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "log.jsonl"
    with Engine(TEAM, log=path) as engine:
        for u in STORY:
            engine.apply(u)
    return path


def lines(path):
    return path.read_text().splitlines()


def test_the_log_is_a_header_then_one_line_per_accepted_utterance(log):
    header, *rest = [json.loads(line) for line in lines(log)]
    assert header["grounded"] == 1 and set(header["agents"]) == {"alice", "bob", "carol"}
    assert [u["turn"] for u in rest] == [1, 2, 3, 4]
    assert rest[1]["ops"] == [{"op": "hypothesize", "claim": "h1", "text": "redis", "deps": ["o1"],
                               "explains": ["o2"]}]


def test_each_utterance_is_on_disk_when_apply_returns(tmp_path):
    path = tmp_path / "live.jsonl"
    engine = Engine(TEAM, log=path)
    engine.apply(STORY[0])
    assert len(lines(path)) == 2  # read through another handle, before close
    with pytest.raises(PreconditionError):
        engine.apply({"speaker": "bob", "ops": [{"op": "support", "target": "zz", "by": "o1"}]})
    assert len(lines(path)) == 2  # rejected utterances are not logged
    engine.close()


def test_reload_gives_the_same_state(log):
    live = Engine(TEAM)
    for u in STORY:
        live.apply(u)
    loaded = Engine.load(log)
    assert loaded.snapshot() == live.snapshot()
    assert loaded.verify("h1").reason == "h1 abandoned at T4 by o3"


def test_an_existing_log_is_never_overwritten(log):
    before = log.read_bytes()
    with pytest.raises(InputError, match="already exists"):
        Engine(TEAM, log=log)
    assert log.read_bytes() == before


def test_append_continues_the_same_log(log):
    with Engine.load(log, append=True) as engine:
        engine.apply({"speaker": "bob", "ops": [obs("o4")]})
    assert Engine.load(log).turn == 5 and len(lines(log)) == 6


def corrupt(path, lineno, text):
    content = lines(path)
    content[lineno - 1] = text
    path.write_text("\n".join(content) + "\n")


@pytest.mark.parametrize("lineno,text,message", [
    (3, '{"turn": 2, "speaker": "bob", "ops": [', "log.jsonl:3: invalid JSON at column"),
    (3, '{"turn": 2, "speaker": "bob", "ops": [{"op": "support", "by": "o1"}]}',
     "log.jsonl:3: ops[0].target: Field required"),
    (3, '{"turn": 2, "speaker": "bob", "ops": [{"op": "observe", "claim": "two words"}]}',
     "log.jsonl:3: ops[0].claim: Value error, 'two words' is not a literal"),
    (3, '{"turn": 2, "speaker": "bob", "ops": [{"op": "support", "target": "zz", "by": "o1"}]}',
     "log.jsonl:3: rejected by the rules: T2 bob: rejected: op 0 (support): [support_target_unknown]"),
    (3, '{"turn": 1, "speaker": "bob", "ops": []}', "log.jsonl:3: rejected by the rules: T1 bob: rejected: "
                                                     "utterance: [turn_order] turn 1 does not come after turn 1"),
    (3, '[1, 2]', "log.jsonl:3: Input should be a valid dictionary"),
])
def test_a_corrupt_line_names_file_and_line_and_the_lines_before_stay_usable(log, lineno, text, message):
    corrupt(log, lineno, text)
    with pytest.raises(LogError) as info:
        Engine.load(log)
    assert message in str(info.value)
    assert info.value.line == lineno
    prefix = info.value.engine
    assert prefix.turn == 1 and prefix.verify("o1").grounded
    tolerant = Engine.load(log, strict=False)
    assert tolerant.load_error is not None and tolerant.snapshot() == prefix.snapshot()


def test_a_line_cut_short_by_a_crash_is_reported_and_ignored(log):
    data = log.read_bytes()
    log.write_bytes(data[: len(data) - 25])  # the last write was interrupted: never acknowledged
    engine = Engine.load(log)  # strict, yet a torn final line is not an error
    assert engine.turn == 3 and engine.standing("h1") == "weakened"
    assert engine.log_status.complete and engine.log_status.torn_line == 5
    assert "log.jsonl:5: torn final line ignored" in engine.log_status.torn_note()
    assert log.read_bytes() == data[: len(data) - 25]  # reading changes nothing
    with Engine.load(log, append=True) as engine:  # continuing drops the torn bytes first
        engine.apply({"speaker": "alice", "ops": [{"op": "revise", "target": "h1", "by": "o3"}]})
    assert log.read_bytes() == data  # the same line, written whole this time
    assert Engine.load(log).log_status.torn_line is None


@pytest.mark.parametrize("content,message", [
    ("", "log.jsonl: empty file"),
    ('{"turn": 1, "speaker": "a", "ops": []}\n', "log.jsonl:1: line 1 must be the header"),
    ('{"grounded": 1, "agents": {"alice": {"authority": "maybe"}}}\n',
     "log.jsonl:1: header: agents.alice.authority: Input should be a valid boolean"),
    ('{"grounded": 2}\n', "log.jsonl:1: header: grounded: Input should be 1"),
    (b'{"grounded": 1}\n{"speaker": "a\xff"}\n', "log.jsonl:2: not valid UTF-8"),
])
def test_bad_headers_and_encodings(tmp_path, content, message):
    path = tmp_path / "log.jsonl"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(InputError) as info:
        Engine.load(path)
    assert message in str(info.value)


def test_a_missing_log(tmp_path):
    with pytest.raises(InputError, match="cannot read the event log"):
        Engine.load(tmp_path / "nope.jsonl")


def test_the_header_line_names_a_world_only_when_there_is_one():
    plain = header_json(Header.model_validate({"agents": {"a": {}}, "props": [{"id": "p", "text": "P."}]}))
    assert list(plain)[0] == "grounded" and "world" not in plain
    assert Header.model_validate(plain) == Header.model_validate({"agents": {"a": {}}, "props": [{"id": "p",
                                                                                                  "text": "P."}]})
    with_world = Scenario.load(Path(__file__).resolve().parent.parent / "scenarios" / "phase2.yaml").header
    line = header_json(with_world)
    assert "world" in line and Header.model_validate(line) == with_world
