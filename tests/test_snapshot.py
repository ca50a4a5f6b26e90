"""The snapshot beside a log (grounded.io.snapshot): a state read from it answers as a full replay.

Random logs are read twice, the second time from the snapshot the first wrote:
the Python state, the rules' facts, every query and the history are equal,
and both engines then decide further random utterances alike (accepted or
rejected, with the same violations).  A snapshot that no longer fits its log
(appended to, rewritten, cut), a torn or corrupt one, one written under
another key or other rules is never answered from; strict and partial
readings are unchanged.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine, PreconditionError
from grounded.core.errors import LogError
from grounded.io.effectlog import effects_path
from grounded.io.snapshot import CACHE_VARIABLE, KEY_FILE, MAX_FACTOR, MAX_SLACK, snapshot_path
from grounded.io.snapshot_index import index_path
from grounded.solvers.prolog import state_facts

from .frames import rules_requests
from .inprocess import grounded, run_cli
from .test_properties import ALL, HEADER, budget, draw_stream, ops_for

SPEAKERS = ["alice", "bob", "carol"]
PHASE2 = Path(__file__).resolve().parents[1] / "scenarios" / "phase2.yaml"


@pytest.fixture(autouse=True, scope="module")
def cache(tmp_path_factory):
    """Snapshots keyed by a key of this module's own."""
    before = os.environ.get(CACHE_VARIABLE)
    os.environ[CACHE_VARIABLE] = str(tmp_path_factory.mktemp("cache"))
    yield
    if before is None:
        del os.environ[CACHE_VARIABLE]
    else:
        os.environ[CACHE_VARIABLE] = before


def answers(engine: Engine) -> dict:
    out = {}
    for p in ALL + [a.claim for a in engine.arguments()]:
        v, a = engine.verify(p), engine.affected(p)
        out[p] = (v.grounded, v.status, list(v.arguments), list(a.arguments), list(a.hops))
    return {"queries": out, "open": engine.open_problems(), "commitments": engine.commitments(),
            "reinstatable": engine.reinstatable(), "turn": engine.turn}


def same(a: Engine, b: Engine) -> None:
    assert a.snapshot() == b.snapshot()
    assert answers(a) == answers(b)
    assert [(t, u.model_dump()) for t, u in a.history()] == [(t, u.model_dump()) for t, u in b.history()]
    assert a.prolog_state() == b.prolog_state()


def write_log(path: Path, data) -> Engine:
    live = Engine(HEADER, log=path, fsync="never")
    draw_stream(data, live, max_size=30)
    live.close()
    return live


@pytest.mark.slow
@budget(25)
@given(data=st.data())
def test_a_state_read_from_the_snapshot_answers_and_decides_as_a_full_replay(data, tmp_path_factory):
    path = tmp_path_factory.mktemp("log") / "talk.jsonl"
    write_log(path, data)
    replayed = Engine.load(path, snapshot=True)  # writes the snapshot
    assert replayed.log_status.restored == 0 and snapshot_path(path).exists()
    restored = Engine.load(path, snapshot=True)
    assert restored.log_status.restored == replayed.log_status.utterances
    assert restored.log_status.snapshot_note is None
    assert set(state_facts(restored.state)) == set(replayed.prolog_state())
    same(replayed, restored)
    # both go on alike: the rules restored lazily from the Python state decide as the replayed ones
    for _ in range(data.draw(st.integers(1, 8), label="more")):
        u = {"speaker": data.draw(st.sampled_from(SPEAKERS)),
             "ops": data.draw(st.lists(ops_for(replayed.state), min_size=0, max_size=2))}
        outcomes = []
        for engine in (replayed, restored):
            try:
                update = engine.apply(u)
                outcomes.append(("accepted", update.effects, update.left, update.flagged))
            except PreconditionError as exc:
                outcomes.append(("rejected", exc.violations))
        assert outcomes[0] == outcomes[1]
    same(replayed, restored)


@pytest.mark.slow
@budget(10)
@given(data=st.data())
def test_lines_appended_after_the_snapshot_are_replayed_over_it(data, tmp_path_factory):
    path = tmp_path_factory.mktemp("log") / "talk.jsonl"
    write_log(path, data)
    Engine.load(path, snapshot=True).close()
    more = Engine.load(path, append=True, fsync="never")
    draw_stream(data, more, max_size=10)
    more.close()
    restored = Engine.load(path, snapshot=True)
    full = Engine.load(path)
    assert restored.log_status.restored <= full.log_status.utterances == restored.log_status.utterances
    same(full, restored)
    again = Engine.load(path, snapshot=True)  # the snapshot now covers the whole log
    assert again.log_status.restored == full.log_status.utterances
    same(full, again)


def conversation(path: Path, claims: list[str]) -> None:
    with Engine({"agents": {"a": {"authority": True}}}, log=path, fsync="never") as e:
        for c in claims:
            e.apply({"speaker": "a", "ops": [{"op": "observe", "claim": c}]})
            e.apply({"speaker": "a", "text": "and so on"})


def test_a_log_rewritten_under_its_snapshot_is_read_again(tmp_path):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1", "o2", "o3"])
    assert Engine.load(path, snapshot=True).verify("o2").grounded
    path.write_text(path.read_text().replace('"o2"', '"o9"'))  # same length, other content
    e = Engine.load(path, snapshot=True)
    assert e.log_status.restored == 0 and not e.verify("o2").grounded and e.verify("o9").grounded
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]))  # cut: shorter than the snapshot's bytes
    e = Engine.load(path, snapshot=True)
    assert e.log_status.restored == 0 and e.turn == 2 and not e.verify("o3").grounded
    assert Engine.load(path, snapshot=True).log_status.restored == 2  # written again, for the cut log


def test_a_restored_state_enters_the_rules_in_parts_as_a_whole(tmp_path, monkeypatch):
    """A state restored from a snapshot goes into the rules in parts of RESTORE_PART facts (the whole state
    as one text held more memory than the state itself): the parts make the state a replay makes, and the
    next utterance is decided alike."""
    from grounded.solvers import prolog

    path = tmp_path / "talk.jsonl"
    conversation(path, [f"o{i}" for i in range(12)])
    replayed = Engine.load(path)
    assert Engine.load(path, snapshot=True).log_status.restored == 0  # writes the snapshot
    monkeypatch.setattr(prolog, "RESTORE_PART", 7)
    assert len(replayed.prolog_state()) > 3 * 7
    restored = Engine.load(path, snapshot=True)
    assert restored.log_status.restored == 24
    kinds = rules_requests(monkeypatch)
    same(restored, replayed)  # the restored engine's rules start here, taking its state in parts
    assert kinds.count("add_facts") >= 3
    nxt = {"speaker": "a", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["o3", "o5"]}]}
    assert restored.apply(nxt).effects == replayed.apply(nxt).effects
    same(restored, replayed)


@pytest.mark.parametrize("damage", ["flip", "torn", "empty", "garbage"])
def test_a_torn_or_corrupt_snapshot_is_ignored_with_a_note_and_written_again(tmp_path, damage):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1", "o2"])
    Engine.load(path, snapshot=True)
    snap = snapshot_path(path)
    raw = bytearray(snap.read_bytes())
    if damage == "flip":
        raw[-20] ^= 0x01
    elif damage == "torn":
        raw = raw[: len(raw) // 2]
    elif damage == "empty":
        raw = bytearray()
    else:
        raw = bytearray(b'{"grounded_snapshot": 1}\n\x00\x01')
    snap.write_bytes(bytes(raw))
    e = Engine.load(path, snapshot=True)
    assert e.log_status.restored == 0 and e.verify("o2").grounded
    assert e.log_status.snapshot_note is not None and "snapshot ignored" in e.log_status.snapshot_note
    assert Engine.load(path, snapshot=True).log_status.restored == 4


def test_a_snapshot_written_with_another_key_is_not_trusted(tmp_path, monkeypatch):
    """A log may come with a snapshot made elsewhere: it could say anything, so it is not read."""
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1"])
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "elsewhere"))
    Engine.load(path, snapshot=True)
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "here"))
    e = Engine.load(path, snapshot=True)
    assert e.log_status.restored == 0 and "MAC" in e.log_status.snapshot_note


def test_a_snapshot_made_with_other_extensions_is_stale(tmp_path):
    ext = tmp_path / "noop.pl"
    ext.write_text("operation(noop, \"Nothing.\", []).\n")
    path = tmp_path / "talk.jsonl"
    path.write_text(json.dumps({"grounded": 1, "agents": {"a": {}}}) + "\n"
                    + json.dumps({"turn": 1, "speaker": "a", "ops": [{"op": "observe", "claim": "o1"}]}) + "\n")
    Engine.load(path, snapshot=True, extensions=[ext])  # a hand-written header: any extensions replay it
    e = Engine.load(path, snapshot=True)
    assert e.log_status.restored == 0 and e.log_status.snapshot_note is None
    assert Engine.load(path, snapshot=True).log_status.restored == 1


def test_strict_and_partial_readings_are_the_same_from_a_snapshot(tmp_path):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1", "o2"])
    Engine.load(path, snapshot=True)
    with open(path, "a") as f:  # line 6: the rules reject it (no such target)
        f.write(json.dumps({"turn": 5, "speaker": "a", "ops": [{"op": "support", "target": "h404", "by": "o1"}]})
                + "\n")
        f.write(json.dumps({"turn": 6, "speaker": "a", "ops": [{"op": "observe", "claim": "o3"}]}) + "\n")
    with pytest.raises(LogError) as info:
        Engine.load(path, snapshot=True)
    assert info.value.line == 6 and "support_target_unknown" in str(info.value)
    for snapshot in (True, False):
        e = Engine.load(path, strict=False, snapshot=snapshot)
        assert not e.log_status.complete and e.log_status.stopped_at == 6 and e.log_status.utterances == 4
        assert e.verify("o2").grounded and not e.verify("o3").grounded
    code, _, err = run_cli("verify", path, "o2")
    assert code == 2 and ":6:" in err
    code, out, _ = run_cli("verify", path, "o2", "--partial", "--json")
    assert code == 0 and json.loads(out)["complete"] is False and json.loads(out)["stopped_at"] == 6


def test_a_torn_final_line_after_the_snapshot_is_reported_as_before(tmp_path):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1"])
    Engine.load(path, snapshot=True)
    with open(path, "a") as f:
        f.write('{"turn": 3, "speaker": "a", "ops": [{"op": "obs')
    for snapshot in (True, False):
        e = Engine.load(path, snapshot=snapshot)
        assert e.log_status.torn_line == 4 and e.log_status.complete and e.turn == 2


def test_the_history_of_a_restored_state_is_read_from_the_log_it_fits(tmp_path):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1", "o2"])
    Engine.load(path, snapshot=True)
    e = Engine.load(path, snapshot=True)
    assert e.log_status.restored == 4
    copy = tmp_path / "copy.jsonl"
    shutil.copy(path, copy)
    path.write_text(path.read_text().replace('"o1"', '"o7"'))  # the log changed after it was read
    with pytest.raises(Exception, match="changed since its state was read"):
        e.history()
    e2 = Engine.load(copy, snapshot=False)
    path.write_text(copy.read_text())
    assert [(t, u.model_dump()) for t, u in e.history()] == [(t, u.model_dump()) for t, u in e2.history()]
    assert e.whatif({"speaker": "a", "ops": [{"op": "observe", "claim": "o3"}]}, at=2).accepted


def test_no_snapshot_for_a_conversation_with_a_world_model(tmp_path):
    path = tmp_path / "talk.jsonl"
    header = {"agents": {"a": {"authority": True}}, "world": {"atoms": ["o1"]}}
    with Engine(header, log=path, fsync="never") as e:
        e.apply({"speaker": "a", "ops": [{"op": "observe", "claim": "o1"}]})
    Engine.load(path, snapshot=True)
    assert not snapshot_path(path).exists()


def test_query_commands_write_and_read_the_snapshot(tmp_path):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1", "o2"])
    code, _, _ = run_cli("verify", path, "o1")
    assert code == 0 and snapshot_path(path).exists()
    before = snapshot_path(path).stat().st_mtime_ns
    for args in (("verify", path, "o2"), ("affected", path, "o1"), ("state", path)):
        code, out, err = run_cli(*args)
        assert code == 0, err
    assert snapshot_path(path).stat().st_mtime_ns == before  # read, not written again
    snapshot_path(path).unlink()
    index_path(path).unlink()  # (else the question is answered from the snapshot's index, which fits)
    snapshot_path(path).mkdir()  # a snapshot that cannot be written: answered all the same, with a note
    code, out, err = run_cli("verify", path, "o2")
    assert code == 0 and "o2: GROUNDED" in out and "cannot write the snapshot" in err


# -- what may lie at the snapshot's path, and where it is written (issue "Trust, round two") --------

MEMORY = 1536 << 20
"""Address space of a query process run against a hostile snapshot: it answers in a third of it."""


def cli(*args: object, timeout: float = 120, memory: int | None = None,
        wrap: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """``grounded ARGS`` in a process of its own (``wrap`` before it), so that a hang is cut off at
    ``timeout`` and a reading that would take all memory meets ``memory`` instead."""
    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run([*wrap, sys.executable, "-m", "grounded", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, preexec_fn=limit)


def rebuilt(path: Path) -> None:
    """The snapshot beside ``path`` is a regular file again, and the next query reads it."""
    snap = snapshot_path(path)
    assert snap.is_file() and not snap.is_symlink()
    assert Engine.load(path, snapshot=True).log_status.restored == 4


def test_a_fifo_at_the_snapshot_path_is_not_waited_on(tmp_path):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1", "o2"])
    os.mkfifo(snapshot_path(path))  # opening it to read would wait for a writer forever
    result = cli("verify", path, "o2", timeout=60)
    assert result.returncode == 0 and "o2: GROUNDED" in result.stdout, result.stderr
    assert "snapshot ignored (not a regular file)" in result.stderr
    rebuilt(path)


@pytest.mark.parametrize("planted", ["link to /dev/zero", "sparse file of 3 GB", "twice the bound"])
def test_a_snapshot_too_large_to_read_is_not_read(tmp_path, planted):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1", "o2"])
    snap = snapshot_path(path)
    if planted == "link to /dev/zero":
        snap.symlink_to("/dev/zero")
        said = "snapshot ignored (a symbolic link)"
    else:
        size = 3 << 30 if planted.startswith("sparse") else 2 * (MAX_FACTOR * path.stat().st_size + MAX_SLACK)
        with open(snap, "wb") as f:
            f.truncate(size)
        said = f"snapshot ignored ({size} bytes, more than a log of {path.stat().st_size} bytes gives)"
    result = cli("verify", path, "o2", memory=MEMORY)
    assert result.returncode == 0 and "o2: GROUNDED" in result.stdout, result.stderr
    assert said in result.stderr
    rebuilt(path)
    assert Path("/dev/zero").is_char_device()


def test_a_link_planted_at_a_temporary_name_is_not_followed(tmp_path):
    """The temporary file used to be ``<log>.snapshot.<pid>.tmp``: a link planted there was written through."""
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1", "o2"])
    target = tmp_path / "precious.txt"
    target.write_text("not yours to overwrite\n")
    planted = [snapshot_path(path).with_name(f"{snapshot_path(path).name}.{os.getpid()}.tmp"),
               snapshot_path(path).with_name(f"{snapshot_path(path).name}.tmp")]
    for link in planted:
        link.symlink_to(target)
    code, out, err = run_cli("verify", path, "o2")  # in this process: the pid is this one
    assert code == 0 and "o2: GROUNDED" in out, err
    assert target.read_text() == "not yours to overwrite\n"
    assert all(link.is_symlink() for link in planted)
    rebuilt(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [path.name, snapshot_path(path).name, index_path(path).name, effects_path(path).name, target.name,
         *(link.name for link in planted)])  # no temporary left (the effects the engine recorded beside its log)


READ_ONLY = {
    # a read-only bind mount of the log's directory, in a mount namespace of the query's own (EROFS)
    "read-only mount": ("unshare", "--mount", "sh", "-c",
                        'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"', "sh"),
    # an immutable directory: no new file in it, even for root (EPERM)
    "immutable directory": (),
}


@pytest.mark.slow
@pytest.mark.parametrize("how", sorted(READ_ONLY))
def test_a_log_in_a_read_only_directory_is_answered_without_a_snapshot_silently(tmp_path, how):
    folder = tmp_path / "logs"
    folder.mkdir()
    path = folder / "talk.jsonl"
    conversation(path, ["o1", "o2"])
    wrap = READ_ONLY[how]
    if wrap:
        wrap = (*wrap, str(folder))
    else:
        subprocess.run(["chattr", "+i", folder], check=True)
    try:
        result = cli("verify", path, "o2", wrap=wrap)
        assert not snapshot_path(path).exists() and sorted(os.listdir(folder)) == [path.name, effects_path(path).name]
    finally:
        if not wrap:
            subprocess.run(["chattr", "-i", folder], check=True)
    assert result.returncode == 0 and "o2: GROUNDED" in result.stdout, result.stderr
    assert result.stderr == ""  # nothing to say: the user's directory is theirs to keep read-only
    assert (Path(os.environ[CACHE_VARIABLE]) / KEY_FILE).is_file()  # the key was there: only the directory refused
    result = cli("verify", path, "o2")
    assert result.returncode == 0 and snapshot_path(path).is_file()  # writable again: the snapshot is written


def test_no_cache_neither_reads_nor_writes_a_snapshot_nor_makes_a_key(tmp_path, monkeypatch):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1", "o2"])
    log = tmp_path / "p2.jsonl"
    assert grounded("interpret", PHASE2, "-o", log).returncode == 0
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "fresh-cache"))  # the logs' writers used the usual one
    commands = [("verify", path, "o2"), ("affected", path, "o1"), ("state", path), ("extensions", path),
                ("retractions", path, "-p", "o1"), ("show", path),
                ("whatif", path, "-u", '{"speaker": "a", "ops": []}'),
                ("score", log, "--gold", PHASE2)]
    for args in commands:
        code, _, err = run_cli(*args, "--no-cache")
        assert code == 0, (args, err)
    assert not snapshot_path(path).exists() and not snapshot_path(log).exists()
    assert not (tmp_path / "fresh-cache").exists()
    run_cli("verify", path, "o2")  # without it: the key and the snapshot
    assert snapshot_path(path).is_file() and (tmp_path / "fresh-cache" / KEY_FILE).is_file()
    snapshot_path(path).write_bytes(b"not read with --no-cache")
    code, out, err = run_cli("verify", path, "o2", "--no-cache")
    assert code == 0 and "o2: GROUNDED" in out and err == ""
    assert snapshot_path(path).read_bytes() == b"not read with --no-cache"
