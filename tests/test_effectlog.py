"""The effects an engine records beside its log (grounded.io.effectlog): its own log read back in bulk.

A log the engine wrote is applied from the recorded effects as far as they
authenticate, and must give exactly the state the rules give judging every
line; a record that was changed, torn, copied from another log or forged
without the key hands the rest of the log to the rules, and the reading says
from which line.  ``grounded check`` judges every line whatever the record says.
"""

from __future__ import annotations

import hmac
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine
from grounded.dmap.operations import UtteranceBase
from grounded.engine.applied_lines import applied_lines
from grounded.engine.loading import BATCH
from grounded.io.effectlog import MAX_ENTRY_BYTES, SUFFIX, EffectsWriter
from grounded.io.snapshot import user_secret
from grounded.solvers import prolog
from grounded.solvers.flat import SEPARATOR
from grounded.solvers.ruleset import rules_version

from .test_extension import concede  # noqa: F401 (a fixture)
from .test_properties import HEADER, budget, draw_stream


def _same(a: Engine, b: Engine) -> None:
    assert a.snapshot() == b.snapshot()
    assert a.prolog_state() == b.prolog_state()
    assert [(t, u.model_dump()) for t, u in a.history()] == [(t, u.model_dump()) for t, u in b.history()]


@pytest.mark.slow
@budget(40)
@given(data=st.data())
def test_own_log_in_bulk_gives_the_rules_state(data):
    """Any log the engine wrote: read from its record, the state (Python and the rules') equals the rules' own
    reading of every line, and so does the state after one more utterance applied to each."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.jsonl"
        live = Engine(HEADER, log=path)
        accepted = draw_stream(data, live)
        live.close()
        bulk, judged = Engine.load(path), Engine.load(path, effects=False)
        assert bulk.log_status is not None and judged.log_status is not None
        assert bulk.log_status.bulk == len(accepted) and bulk.log_status.effects_note is None
        assert judged.log_status.bulk == 0
        _same(bulk, live)
        _same(bulk, judged)
        nxt = {"speaker": "alice", "ops": [{"op": "observe", "claim": "z9"}]}
        bulk.apply(nxt)
        judged.apply(nxt)
        _same(bulk, judged)


def _talk(path: Path) -> Engine:
    engine = Engine(HEADER, log=path)
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "x0"}]})
    engine.apply({"speaker": "bob", "ops": [{"op": "hypothesize", "claim": "h0", "deps": ["x0"]}]})
    engine.apply({"speaker": "carol", "ops": [{"op": "observe", "claim": "x1"}]})
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "-x0", "supersedes": ["x0"]}]})
    engine.apply({"speaker": "bob"})
    engine.close()
    return engine


def _entries(path: Path) -> list[str]:
    return Path(str(path) + SUFFIX).read_text().splitlines()


def test_a_changed_effect_hands_the_line_and_the_rest_to_the_rules(tmp_path):
    path = tmp_path / "talk.jsonl"
    live = _talk(path)
    entries = _entries(path)
    assert len(entries) == 5
    mac, text = entries[1].split(" ", 1)
    assert "h0" in text
    entries[1] = mac + " " + text.replace("h0", "h1")  # the MAC kept, one value changed
    Path(str(path) + SUFFIX).write_text("".join(e + "\n" for e in entries))
    loaded = Engine.load(path)
    status = loaded.log_status
    assert status is not None and status.bulk == 1 and status.utterances == 5
    note = status.effects_note
    assert note is not None and "line 3 and those after it were judged by the rules" in note
    assert "do not authenticate" in note
    _same(loaded, live)


def test_a_changed_log_line_is_judged_by_the_rules(tmp_path):
    """The record is for the bytes written: a line edited afterwards is not applied from it."""
    path = tmp_path / "talk.jsonl"
    _talk(path)
    lines = path.read_text().splitlines()
    lines[3] = lines[3].replace('"x1"', '"x2"')
    path.write_text("".join(line + "\n" for line in lines))
    loaded = Engine.load(path)
    assert loaded.log_status is not None and loaded.log_status.bulk == 2
    assert loaded.log_status.effects_note is not None and "line 4 " in loaded.log_status.effects_note
    assert "x2" in loaded.state.claimants and "x1" not in loaded.state.claimants
    _same(loaded, Engine.load(path, effects=False))


def test_a_record_from_another_log_or_without_the_key_is_not_used(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _talk(a)
    other = Engine({**HEADER, "props": []}, log=b)  # another header: another chain
    for u in ({"speaker": "alice", "ops": [{"op": "observe", "claim": "x0"}]}, {"speaker": "bob"}):
        other.apply(u)
    other.close()
    Path(str(b) + SUFFIX).write_bytes(Path(str(a) + SUFFIX).read_bytes())
    loaded = Engine.load(b)
    assert loaded.log_status is not None and loaded.log_status.bulk == 0
    assert loaded.log_status.effects_note is not None and "line 2 " in loaded.log_status.effects_note
    _same(loaded, Engine.load(b, effects=False))


def test_a_log_without_a_record_is_judged_by_the_rules(tmp_path):
    path = tmp_path / "talk.jsonl"
    _talk(path)
    Path(str(path) + SUFFIX).unlink()
    loaded = Engine.load(path)
    assert loaded.log_status is not None and loaded.log_status.bulk == 0 and loaded.log_status.effects_note is None


def test_a_continued_log_keeps_its_record(tmp_path):
    path = tmp_path / "talk.jsonl"
    _talk(path)
    engine = Engine.load(path, append=True)
    engine.apply({"speaker": "carol", "ops": [{"op": "observe", "claim": "x2"}]})
    engine.close()
    loaded = Engine.load(path)
    assert loaded.log_status is not None and loaded.log_status.bulk == 6 == loaded.log_status.utterances
    _same(loaded, Engine.load(path, effects=False))


def _forge(path: Path, line_no: int, change: tuple[str, str]) -> None:
    """Rewrite the record with this user's key, one decision changed: authenticated, yet not the rules'."""
    assert user_secret() is not None
    lines = path.read_bytes().splitlines()
    texts = [e.split(" ", 1)[1] for e in _entries(path)]
    texts[line_no - 2] = texts[line_no - 2].replace(*change)
    writer = EffectsWriter.create(path, lines[0], *_reading())
    assert writer is not None
    for line, text in zip(lines[1:], texts, strict=True):
        writer.add(line, text)
    writer.close()


def _reading() -> tuple[str, tuple]:
    return rules_version(), ()


def test_grounded_check_judges_every_line_whatever_the_record_says(tmp_path):
    path = tmp_path / "talk.jsonl"
    _talk(path)
    # line 5 (alice observes -x0, superseding x0) changes x0's standing (argument 1); the forged
    # record, authenticated with this user's key, says it changed x1's (argument 3)
    text = _entries(path)[3].split(" ", 1)[1]
    assert f"set_standing{SEPARATOR}1{SEPARATOR}" in text
    _forge(path, 5, (f"set_standing{SEPARATOR}1{SEPARATOR}", f"set_standing{SEPARATOR}3{SEPARATOR}"))
    forged = Engine.load(path)
    judged = Engine.load(path, effects=False)
    assert forged.log_status is not None and forged.log_status.bulk == 5
    assert forged.snapshot() != judged.snapshot()  # the record was used: the forgery shows
    _, lines, status = applied_lines(path)  # what check reads the log with
    assert status.bulk == 0 and len(lines) == 5
    done = subprocess.run([sys.executable, "-m", "grounded", "check", str(path), "--json", "--probes", "0"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["utterances"] == 5 and not report["mismatches"]


def test_on_update_sees_validated_utterances_from_the_record(tmp_path):
    """Lines applied from the record reach ``on_update`` as validated utterances, with the rules' effects."""
    path = tmp_path / "talk.jsonl"
    _talk(path)
    seen: list = []
    loaded = Engine.load(path, on_update=lambda engine, update: seen.append(update))
    judged: list = []
    Engine.load(path, effects=False, on_update=lambda engine, update: judged.append(update))
    assert loaded.log_status is not None and loaded.log_status.bulk == 5
    assert all(isinstance(u.utterance, UtteranceBase) for u in seen)
    assert [(u.turn, u.utterance, u.effects, u.left, u.flagged) for u in seen] == \
        [(u.turn, u.utterance, u.effects, u.left, u.flagged) for u in judged]


def test_a_record_too_long_or_not_a_file_is_not_read(tmp_path):
    """An entry beyond MAX_ENTRY_BYTES is not read whole (it cannot authenticate); a FIFO or a link at the
    record's path is not opened for reading (no wait, nothing followed): the rules judge the log."""
    path = tmp_path / "talk.jsonl"
    live = _talk(path)
    record = Path(str(path) + SUFFIX)
    (tmp_path / "elsewhere").write_bytes(record.read_bytes())  # a valid record, for the link below
    record.write_bytes(b"0" * 64 + b" " + b"x" * (2 * MAX_ENTRY_BYTES) + b"\n")
    loaded = Engine.load(path)
    assert loaded.log_status is not None and loaded.log_status.bulk == 0
    assert loaded.log_status.effects_note is not None and "line 2 " in loaded.log_status.effects_note
    _same(loaded, live)
    record.unlink()
    os.mkfifo(record)
    assert Engine.load(path).log_status.bulk == 0  # type: ignore[union-attr]
    record.unlink()
    record.symlink_to(tmp_path / "elsewhere")  # followed, it would authenticate every line
    assert Engine.load(path).log_status.bulk == 0  # type: ignore[union-attr]


def test_a_log_continued_by_the_engine_gets_a_record_from_the_rules(tmp_path):
    """A log written elsewhere (no record), or whose record stops authenticating, and continued with
    ``append=True``: the rules judge it, and their decisions are recorded from where the record stopped, so
    the next reading takes every line from the record, with the rules' state."""
    for broken in (None, 3):
        path = tmp_path / f"talk{broken}.jsonl"
        _talk(path)
        record = Path(str(path) + SUFFIX)
        if broken is None:
            record.unlink()
        else:
            entries = _entries(path)
            entries[broken - 2] = entries[broken - 2].replace("h0", "h1")
            record.write_text("".join(e + "\n" for e in entries))
        engine = Engine.load(path, append=True)
        assert engine.log_status is not None and engine.log_status.bulk == (0 if broken is None else broken - 2)
        engine.apply({"speaker": "carol", "ops": [{"op": "observe", "claim": "x2"}]})
        engine.close()
        loaded = Engine.load(path)
        assert loaded.log_status is not None and loaded.log_status.bulk == 6 == loaded.log_status.utterances
        assert loaded.log_status.effects_note is None
        _same(loaded, Engine.load(path, effects=False))


def test_the_rules_state_restored_in_parts_is_the_whole(tmp_path, monkeypatch):
    """After a load from the record the rules' facts go in at their first request, in parts of RESTORE_PART
    facts (the whole state as one text held more memory than the state): the parts make the same state."""
    path = tmp_path / "talk.jsonl"
    _talk(path)
    judged = Engine.load(path, effects=False)
    monkeypatch.setattr(prolog, "RESTORE_PART", 7)
    assert len(judged.prolog_state()) > 3 * 7
    loaded = Engine.load(path)
    assert loaded.log_status is not None and loaded.log_status.bulk == 5
    _same(loaded, judged)
    nxt = {"speaker": "carol", "ops": [{"op": "hypothesize", "claim": "h2", "deps": ["-x0"]}]}
    assert loaded.apply(nxt).effects == judged.apply(nxt).effects
    _same(loaded, judged)


def test_a_record_macd_with_the_snapshot_key_itself_is_not_used(tmp_path):
    """The record's MACs are under a key of its own (derived from the snapshot key): a chain of HMACs under
    the snapshot key itself, as the first format of the record made them, authenticates nothing."""
    path = tmp_path / "talk.jsonl"
    _talk(path)
    secret = user_secret()
    assert secret is not None
    header, *lines = path.read_bytes().splitlines()
    reading = json.dumps([rules_version(), []], separators=(",", ":")).encode()
    chain = hmac.digest(secret, b"grounded-effects-1\n" + reading + b"\n" + header, "sha256")
    forged = []
    for line, entry in zip(lines, _entries(path), strict=True):
        body = entry.split(" ", 1)[1].encode()
        chain = hmac.digest(secret, chain + line + b"\n" + body, "sha256")
        forged.append(chain.hex().encode() + b" " + body + b"\n")
    Path(str(path) + SUFFIX).write_bytes(b"".join(forged))
    loaded = Engine.load(path)
    assert loaded.log_status is not None and loaded.log_status.bulk == 0 and loaded.log_status.utterances == 5
    assert "line 2 and those after it were judged by the rules" in (loaded.log_status.effects_note or "")
    _same(loaded, Engine.load(path, effects=False))


def test_a_record_that_stops_at_a_batch_boundary_hands_the_whole_state_to_started_rules(tmp_path, concede):  # noqa: F811
    """With an extension the rules start with the engine; a record that ends right after a whole batch of
    lines leaves the rules to judge the next line from the state the record gave, not from an empty one."""
    path = tmp_path / "talk.jsonl"
    lines = BATCH + 3
    with Engine(HEADER, log=path, extensions=[concede]) as live:
        for i in range(lines):
            live.apply({"speaker": ("alice", "bob", "carol")[i % 3],
                        "ops": [{"op": "observe", "claim": f"o{i}"}] if i % 2 else []})
    record = Path(str(path) + SUFFIX)
    record.write_text("".join(line + "\n" for line in _entries(path)[:BATCH]))
    loaded = Engine.load(path, extensions=[concede])
    assert loaded.log_status is not None and loaded.log_status.bulk == BATCH
    assert loaded.log_status.utterances == lines
    assert f"line {BATCH + 2} and those after it were judged by the rules" in (loaded.log_status.effects_note or "")
    judged = Engine.load(path, extensions=[concede], effects=False)
    _same(loaded, judged)
    nxt = {"speaker": "alice", "ops": [{"op": "observe", "claim": "-o1", "supersedes": ["o1"]}]}
    assert loaded.apply(nxt).effects == judged.apply(nxt).effects


def test_the_cli_says_from_which_line_the_rules_judged(tmp_path):
    """One changed byte in the record: the query's answer is the rules' own, and stderr names the line."""
    path = tmp_path / "talk.jsonl"
    _talk(path)
    entries = _entries(path)
    mac, text = entries[2].split(" ", 1)
    entries[2] = ("0" if mac[0] != "0" else "1") + mac[1:] + " " + text
    Path(str(path) + SUFFIX).write_text("".join(e + "\n" for e in entries))
    done = subprocess.run([sys.executable, "-m", "grounded", "verify", str(path), "x1", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "line 4 and those after it were judged by the rules" in done.stderr
    assert json.loads(done.stdout)["grounded"] is True


WRITE_BESIDE_A_FIFO = """
import sys
from grounded import Engine
from tests.test_properties import HEADER
with Engine(HEADER, log=sys.argv[1]) as engine:
    engine.apply({"speaker": "bob", "ops": [{"op": "observe", "claim": "rash"}]})
with Engine.load(sys.argv[1], append=True) as engine:
    engine.apply({"speaker": "bob", "ops": [{"op": "observe", "claim": "fever"}]})
print(engine.turn)
"""


def test_a_fifo_at_the_records_path_holds_no_writer(tmp_path):
    """A FIFO planted at <log>.effects: a new log and a continued one are written, without a record (a writer
    that opened it would wait for a reader forever); run apart, so that a wait fails the test, not the suite."""
    path = tmp_path / "talk.jsonl"
    os.mkfifo(str(path) + SUFFIX)
    done = subprocess.run([sys.executable, "-c", WRITE_BESIDE_A_FIFO, str(path)], cwd=Path(__file__).parent.parent,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2"]
    assert Engine.load(path).turn == 2
