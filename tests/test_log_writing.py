"""Writing a log: one writer at a time, whole lines only, a failed append leaves nothing behind.

Issue 10's cases: two processes appending to one log both reported success
and interleaved their turns; `Engine.load(path, append=True)` on a log whose
last line had no newline glued the next utterance onto it; an append that
failed (file-size limit, disk full) left its bytes buffered, written with the
next utterance.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap

import pytest

from grounded import Engine, InputError
from grounded.core.bounds import MAX_LINE_BYTES
from grounded.core.errors import LogLockedError, LogWriteError
from grounded.io.eventlog import EventLogWriter

from .conftest import TEAM, hyp, obs


def lines(path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_a_second_writer_in_the_same_process_is_refused(tmp_path):
    path = tmp_path / "log.jsonl"
    with Engine(TEAM, log=path) as engine:
        engine.apply({"speaker": "bob", "ops": [obs("o1")]})
        before = path.read_bytes()
        with pytest.raises(LogLockedError, match="log.jsonl: the log is being written by another writer"):
            Engine.load(path, append=True)
        assert path.read_bytes() == before
        engine.apply({"speaker": "bob", "ops": [obs("o2")]})  # the first writer goes on
    with Engine.load(path, append=True) as engine:  # closed: the lock is free
        engine.apply({"speaker": "bob", "ops": [obs("o3")]})
    assert [u["turn"] for u in lines(path)[1:]] == [1, 2, 3]


def test_a_second_writer_in_another_process_is_refused(tmp_path):
    path = tmp_path / "log.jsonl"
    script = textwrap.dedent(f"""
        from grounded import Engine
        engine = Engine.load({str(path)!r}, append=True)
        engine.apply({{"speaker": "carol", "ops": [{{"op": "observe", "claim": "o9"}}]}})
        print("appended")
    """)
    with Engine(TEAM, log=path) as engine:
        engine.apply({"speaker": "bob", "ops": [obs("o1")]})
        other = subprocess.run([sys.executable, "-m", "grounded.__main__", "verify", str(path), "o1"],
                               capture_output=True, text=True, timeout=120)
        assert other.returncode == 0  # readers take no lock
        writer = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        assert writer.returncode != 0 and "appended" not in writer.stdout
        assert "the log is being written by another writer" in writer.stderr
        engine.apply({"speaker": "bob", "ops": [obs("o2")]})
    assert [u.get("turn") for u in lines(path)[1:]] == [1, 2]


def test_append_after_a_last_line_without_its_newline_starts_a_new_line(tmp_path):
    path = tmp_path / "log.jsonl"
    with Engine(TEAM, log=path) as engine:
        engine.apply({"speaker": "bob", "ops": [obs("o1")]})
        engine.apply({"speaker": "bob", "ops": [obs("o2")]})
    path.write_bytes(path.read_bytes().rstrip(b"\n"))  # an editor dropped the final newline
    with Engine.load(path, append=True) as engine:
        engine.apply({"speaker": "carol", "ops": [obs("o3")]})
        live = engine.snapshot()
    reloaded = Engine.load(path)
    assert reloaded.turn == 3 and reloaded.snapshot() == live
    assert path.read_bytes().endswith(b"\n") and len(lines(path)) == 4


def test_a_failed_append_leaves_the_log_and_the_engine_as_they_were(tmp_path):
    path = tmp_path / "log.jsonl"
    engine = Engine(TEAM, log=path)
    engine.apply({"speaker": "bob", "ops": [obs("o1"), {"op": "question", "claim": "q1"}]})
    before, snapshot = path.read_bytes(), engine.snapshot()
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 40, hard))  # the next line does not fit
    try:
        with pytest.raises(LogWriteError, match="cannot append to the event log: .*the utterance was not applied"):
            engine.apply({"speaker": "alice", "ops": [hyp("h1", ["o1"], ["q1"], text="x" * 200)]})
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert path.read_bytes() == before  # no partial line, nothing buffered to come later
    assert engine.snapshot() == snapshot and engine.standing("h1") is None
    # the rules forgot it too: the same turn goes through now, and the log reloads to the live state
    update = engine.apply({"speaker": "alice", "ops": [hyp("h1", ["o1"], ["q1"])]})
    assert update.turn == 2
    engine.apply({"speaker": "carol", "ops": [obs("o3")]})
    engine.close()
    assert [u["turn"] for u in lines(path)[1:]] == [1, 2, 3]
    assert Engine.load(path).snapshot() == engine.snapshot()


def test_a_line_longer_than_the_bound_is_refused_before_it_is_written(tmp_path):
    path = tmp_path / "log.jsonl"
    with Engine(TEAM, log=path) as engine:
        before = path.read_bytes()
        big = [obs(f"o{i}", text="y" * 90_000) for i in range(60)]  # valid fields, 5.4 MB of line
        with pytest.raises(InputError, match=f"an event-log line holds at most {MAX_LINE_BYTES}"):
            engine.apply({"speaker": "bob", "ops": big})
        assert path.read_bytes() == before and engine.turn is None
        engine.apply({"speaker": "bob", "ops": big[:40]})  # 3.6 MB: written, and read back
    assert Engine.load(path).turn == 1


@pytest.mark.parametrize("policy,after_three", [("always", 4), ("batch", 1), ("never", 0)])
def test_the_fsync_policy(tmp_path, monkeypatch, policy, after_three):
    """always: one fsync per line (and the header); batch: one per group; never: none."""
    calls = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd))[1])
    path = tmp_path / "log.jsonl"
    engine = Engine(TEAM, log=path, fsync=policy)
    engine._log.batch_lines, engine._log.batch_seconds = 3, 3600.0
    for i in range(3):
        engine.apply({"speaker": "bob", "ops": [obs(f"o{i}")]})
    fsyncs = len([c for c in calls if c == engine._log._file.fileno()])
    assert fsyncs == after_three
    engine.apply({"speaker": "bob", "ops": [obs("o9")]})
    engine.close()  # batch: the pending line is made durable on close
    assert len(calls) >= after_three + (policy != "never")
    assert Engine.load(path).turn == 4


def test_an_unknown_fsync_policy_is_refused(tmp_path):
    with pytest.raises(InputError, match="fsync='sometimes': expected one of always, batch, never"):
        Engine(TEAM, log=tmp_path / "log.jsonl", fsync="sometimes")


def test_a_writer_refuses_a_log_changed_behind_its_back(tmp_path):
    path = tmp_path / "log.jsonl"
    with Engine(TEAM, log=path) as engine:
        with open(path, "a") as rogue:  # a writer that ignores the lock
            rogue.write('{"turn": 7, "speaker": "bob", "ops": []}\n')
        with pytest.raises(LogWriteError, match="the log changed under its writer"):
            engine.apply({"speaker": "bob", "ops": [obs("o1")]})
        assert engine.turn is None


def test_a_new_log_refuses_a_file_that_has_content(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text("something\n")
    with pytest.raises(InputError, match="already exists"):
        EventLogWriter(path, {"grounded": 1})
    assert path.read_text() == "something\n"
