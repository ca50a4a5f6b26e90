"""Reading a log into an engine (grounded.engine.loading) and the snapshot beside it
(grounded.engine.snapshots): the garbage-collector pause is a policy of the reading
alone, and a snapshot of a shape this version does not read is replayed over."""

from __future__ import annotations

import gc
import json
import os
import weakref
from pathlib import Path

import pytest

from grounded import Engine
from grounded.core.errors import LogError
from grounded.engine.loading import BATCH, paused_gc
from grounded.io.snapshot import CACHE_VARIABLE, read_snapshot, snapshot_path, write_snapshot
from grounded.solvers.ruleset import rules_version

HEADER = {"agents": {"alice": {}, "bob": {}}}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))


def write_log(path: Path, lines: int = 6, rejected: bool = False) -> None:
    with Engine(HEADER, log=path, fsync="never") as engine:
        for i in range(lines):
            engine.apply({"speaker": "alice" if i % 2 else "bob", "ops": [{"op": "observe", "claim": f"o{i}"}]})
    if rejected:  # then an utterance the rules reject: a speaker the header does not name
        with path.open("a") as f:
            f.write(json.dumps({"turn": 100, "speaker": "mallory", "ops": [{"op": "observe", "claim": "o0"}]}) + "\n")


@pytest.mark.parametrize("enabled", [True, False])
def test_the_pause_restores_the_collector_as_it_was_even_when_the_reading_fails(enabled):
    (gc.enable if enabled else gc.disable)()
    try:
        with pytest.raises(RuntimeError), paused_gc():
            assert not gc.isenabled()
            raise RuntimeError("a line went wrong")
        assert gc.isenabled() is enabled
    finally:
        gc.enable()


def test_a_load_pauses_the_collector_while_it_replays_and_restores_it_after(tmp_path):
    log = tmp_path / "c.jsonl"
    write_log(log, rejected=True)
    seen: list[bool] = []
    assert gc.isenabled()
    with pytest.raises(LogError) as err:
        Engine.load(log, on_update=lambda engine, update: seen.append(gc.isenabled()))
    assert err.value.line == 8 and "unknown_speaker" in str(err.value)
    assert seen == [False] * 6 and gc.isenabled()
    partial = Engine.load(log, strict=False)
    assert partial.log_status is not None and not partial.log_status.complete and gc.isenabled()
    assert partial.turn == 6  # turns count from 1


class _Node:
    """An object in a reference cycle, for the collector to find."""

    def __init__(self) -> None:
        self.me = self


def test_what_a_load_kept_goes_to_the_oldest_generation_unscanned_and_cycles_are_still_collected(tmp_path):
    log = tmp_path / "c.jsonl"
    write_log(log, lines=300)
    cycles: list[weakref.ref] = []
    gc.collect()
    engine = Engine.load(log, on_update=lambda engine, update: cycles.append(weakref.ref(_Node())))
    kept = engine.state.args[-1]
    assert gc.is_tracked(kept) and any(o is kept for o in gc.get_objects(generation=2))
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    assert len(cycles) == 300 and all(ref() is not None for ref in cycles)
    gc.collect()
    assert all(ref() is None for ref in cycles)


def test_a_load_leaves_what_the_caller_froze_frozen(tmp_path):
    log = tmp_path / "c.jsonl"
    write_log(log)
    gc.collect()
    held = _Node()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        engine = Engine.load(log)
        assert gc.get_freeze_count() == frozen and engine.log_status is not None and gc.isenabled()
        assert not any(o is held for o in gc.get_objects())
    finally:
        gc.unfreeze()


def test_a_snapshot_of_a_shape_this_version_does_not_read_is_replayed_over(tmp_path, cache):
    log = tmp_path / "c.jsonl"
    write_log(log)
    full = Engine.load(log, snapshot=True)  # writes the snapshot
    assert snapshot_path(log).exists()
    found = read_snapshot(log, rules_version(), ())
    assert found.snapshot is not None
    assert write_snapshot(log, found.snapshot.key, {"not": "a state"}) is None  # authenticated, yet of another shape
    again = Engine.load(log, snapshot=True)
    status = again.log_status
    assert status is not None and status.restored == 0 and status.utterances == 6
    assert "snapshot ignored (not a state this version reads)" in (status.snapshot_note or "")
    assert again.snapshot() == full.snapshot() and again.history() == full.history()
    fresh = read_snapshot(log, rules_version(), ())  # and written again, of the state read
    assert fresh.snapshot is not None and fresh.snapshot.state == full.state.to_data()
    assert os.path.getsize(log) == fresh.snapshot.key.log_size


def _foreign_log(path: Path, good: int, bad_ops: list[dict] | None) -> None:
    """A log written elsewhere (no effects record: every line judged by the rules) of ``good`` Observes,
    then, with ``bad_ops``, one utterance of those operations and one more Observe after it."""
    from grounded.engine.loading import origin
    from grounded.io.eventlog import header_json

    lines = [{"turn": i + 1, "speaker": "alice", "ops": [{"op": "observe", "claim": f"o{i}"}]} for i in range(good)]
    if bad_ops is not None:
        lines += [{"turn": good + 1, "speaker": "bob", "ops": bad_ops},
                  {"turn": good + 2, "speaker": "alice", "ops": [{"op": "observe", "claim": "after"}]}]
    header = header_json(Engine(HEADER).header, origin(()))
    path.write_text("".join(json.dumps(x) + "\n" for x in [header, *lines]))


@pytest.mark.parametrize("good", [BATCH - 1, BATCH, BATCH + 40])
def test_a_rejected_utterance_in_a_batch_leaves_the_rules_as_the_lines_before_it(tmp_path, good):
    """The rules judge a foreign log BATCH (256) lines per request, each utterance atomically: one whose first
    operation applied its effects before its second was refused (a Support of a claim no one made) leaves
    the rules' facts exactly those of the lines before it, whether it is the last line of a request, the
    first of the next, or in the middle of one."""
    bad = [{"op": "observe", "claim": "half"}, {"op": "support", "target": "nowhere", "by": "half"}]
    _foreign_log(tmp_path / "bad.jsonl", good, bad)
    _foreign_log(tmp_path / "prefix.jsonl", good, None)
    with pytest.raises(LogError, match=f":{good + 2}: .*nowhere") as raised:  # the rules' refusal; the header is line 1
        Engine.load(tmp_path / "bad.jsonl", effects=False)
    partial, prefix = raised.value.engine, Engine.load(tmp_path / "prefix.jsonl", effects=False)
    assert partial is not None and partial.turn == good and prefix.log_status is not None
    assert prefix.log_status.utterances == good and prefix.log_status.bulk == 0
    facts = partial.rules.facts()
    assert facts == prefix.rules.facts()
    assert not [f for f in facts if "half" in str(f)] and ("last_turn", good) in [tuple(f) for f in facts]

