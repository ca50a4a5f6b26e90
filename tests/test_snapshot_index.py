"""The snapshot's index (grounded.io.snapshot_index, grounded.engine.indexed): one claim's question reads only
the rows it walks, and answers as a full replay does.

Random logs are loaded (which writes the snapshot and its index), then Verify
and Affected* (and one-step Affected) of every literal, as of every turn, are
asked of the index and of an engine that replayed the whole log: the answers
are equal.  A question reads the rows of what it walks (counted: a leaf's
Verify in a log of hundreds of arguments reads one argument).  An index that
no longer fits its log, or whose rows do not authenticate (flipped, taken out,
written under another key), is never answered from: the command answers from
the engine as before, says so when the index was damaged, and writes it again.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine
from grounded.engine.indexed import IndexedAnswers, indexed_answers
from grounded.io.snapshot import CACHE_VARIABLE, snapshot_path
from grounded.io.snapshot_index import bucket_of, index_path

from .inprocess import run_cli
from .test_properties import ALL, budget
from .test_snapshot import cache, conversation, write_log  # noqa: F401 - cache: snapshots under a key of their own


def no_fallback(note: str | None) -> Engine:
    raise AssertionError(f"the index fell back to the engine: {note}")


def from_index(path: Path) -> IndexedAnswers:
    answers, note = indexed_answers(path, (), False, no_fallback)
    assert answers is not None and note is None
    return answers


@budget(25)
@given(data=st.data())
def test_verify_and_affected_from_the_index_are_a_full_replays(data, tmp_path_factory):
    path = tmp_path_factory.mktemp("log") / "talk.jsonl"
    write_log(path, data)
    Engine.load(path, snapshot=True).close()  # writes the snapshot and its index
    assert index_path(path).is_file()
    full = Engine.load(path, snapshot=False, effects=False)  # every line judged by the rules
    literals = ALL + ["-" + p for p in ALL if not p.startswith("-")] + [a.claim for a in full.arguments()]
    last = full.turn or 0
    turns = [None, *sorted({0, last // 2, last, last + 3})]
    for literal in dict.fromkeys(literals):
        for at in turns:
            answers = from_index(path)  # each question on a fresh reading: nothing read by another
            for query, params in (("verify", {}), ("affected", {}), ("affected", {"closure": False})):
                asked = {"claim": literal, **params}
                assert answers.ask(query, at, **asked) == full.ask(query, at, **asked), (query, literal, at)


def test_a_question_reads_the_rows_it_walks_not_the_state(tmp_path):
    path = tmp_path / "talk.jsonl"
    conversation(path, [f"o{i}" for i in range(300)])
    with Engine.load(path, append=True, fsync="never") as e:
        e.apply({"speaker": "a", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["o7", "o8"]}]})
        e.apply({"speaker": "a", "ops": [{"op": "hypothesize", "claim": "h2", "deps": ["h1"]}]})
    Engine.load(path, snapshot=True).close()
    answers = from_index(path)
    assert answers.ask("verify", claim="o5")["grounded"]
    dm = answers.state
    assert len(dm.args._made) == 1 and len(dm.claimants._names._rows) == 1  # type: ignore[attr-defined]
    answers = from_index(path)
    found = answers.ask("verify", claim="h2")
    assert found["chain"] == ["h2", "h1", "o7", "o8"]
    assert len(answers.state.args._made) == 4  # type: ignore[attr-defined]  # of 302 arguments
    assert len(answers._index._blocks) == 2  # type: ignore[attr-defined]  # of 5 rows of 64 arguments
    assert len(answers._index._names) <= 4  # type: ignore[attr-defined]  # of the buckets of 600 names
    answers = from_index(path)
    assert answers.ask("affected", claim="o7")["claims"] == ["h1", "h2"]
    assert len(answers.state.args._made) == 2  # type: ignore[attr-defined]
    answers = from_index(path)
    assert answers.ask("affected", claim="o404") == Engine.load(path).ask("affected", claim="o404")
    assert len(answers.state.args._made) == 0  # type: ignore[attr-defined]


def cli_answers(path: Path, *args: object) -> tuple[int, str, str]:
    return run_cli(*args[:1], path, *args[1:])


def test_the_query_commands_answer_from_the_index_as_from_the_engine(tmp_path):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1", "o2"])
    with Engine.load(path, append=True, fsync="never") as e:
        e.apply({"speaker": "a", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["o1"]}]})
        e.apply({"speaker": "a", "ops": [{"op": "revise", "target": "o1"}]})
    code, _, _ = run_cli("verify", path, "o2")  # writes the snapshot and the index
    assert code == 0 and index_path(path).is_file()
    for args in (("verify", "h1"), ("verify", "o2"), ("verify", "nobody"), ("affected", "o1"),
                 ("affected", "o1", "--one-step"), ("verify", "h1", "--at", "5"), ("affected", "o1", "--at", "3"),
                 ("query", "verify", "h1"), ("query", "affected", "o1", "-p", "closure=false"),
                 ("verify", "h1", "--json"), ("affected", "o2", "--json"), ("verify", "o2", "--partial", "--json")):
        indexed = cli_answers(path, *args)
        replayed = cli_answers(path, *args, "--no-cache")
        assert indexed == replayed, args
        assert indexed[2] == ""


@pytest.mark.parametrize("damage", ["flipped row", "row taken out", "literal taken out", "header", "garbage",
                                    "another key"])
def test_a_damaged_index_is_said_answered_from_the_engine_and_written_again(tmp_path, damage, monkeypatch):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1", "o2"])
    with Engine.load(path, append=True, fsync="never") as e:
        e.apply({"speaker": "a", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["o1", "o2"]}]})
    expected = run_cli("verify", path, "h1", "--no-cache")
    run_cli("verify", path, "h1")
    idx = index_path(path)
    if damage == "garbage":
        idx.write_bytes(b"SQLite format 3\x00" + b"\x07" * 500)
    elif damage == "another key":
        monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "elsewhere"))
        Engine.load(path, snapshot=True).close()  # a snapshot and an index under another user's key
        foreign = idx.read_bytes()
        monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "here"))
        Engine.load(path, snapshot=True).close()  # this user's snapshot and index, and the other's put back
        idx.write_bytes(foreign)
    else:
        with sqlite3.connect(idx) as db:
            if damage == "flipped row":
                body, = db.execute("SELECT body FROM args WHERE block = 0").fetchone()
                db.execute("UPDATE args SET body = ? WHERE block = 0", (body.replace(b"o1", b"o9"),))
            elif damage == "row taken out":
                db.execute("DELETE FROM args WHERE block = 0")
            elif damage == "literal taken out":  # o2's claimant gone: "no argument claims o2" would be wrong
                buckets, = db.execute("SELECT buckets FROM head").fetchone()
                db.execute("DELETE FROM names WHERE bucket = ?", (bucket_of("o2", buckets),))
            else:
                db.execute("UPDATE head SET last_turn = last_turn + 1")
        db.close()
    code, out, err = run_cli("verify", path, "h1")
    assert (code, out) == expected[:2] and "h1: GROUNDED" in out
    assert "snapshot index ignored" in err and ("MAC" in err or damage != "another key")
    assert idx.is_file()  # written again by the reading that answered
    assert run_cli("verify", path, "h1") == (code, out, "")
    assert from_index(path).ask("verify", claim="h1")["grounded"]


def test_an_index_that_no_longer_fits_its_log_is_not_used(tmp_path):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1", "o2"])
    run_cli("verify", path, "o1")
    stale = index_path(path).read_bytes()
    with Engine.load(path, append=True, fsync="never") as e:  # a line appended after the index
        e.apply({"speaker": "a", "ops": [{"op": "revise", "target": "o1"}]})
    answers, note = indexed_answers(path, (), False, no_fallback)
    assert answers is None and note is None  # stale: silently not used
    code, out, err = run_cli("verify", path, "o1")
    assert code == 1 and "UNGROUNDED" in out and err == ""
    assert index_path(path).read_bytes() != stale and from_index(path).ask("verify", claim="o1")["grounded"] is False
    path.write_text(path.read_text().replace('"o2"', '"o3"'))  # rewritten under it: same size, other bytes
    assert indexed_answers(path, (), False, no_fallback) == (None, None)
    assert run_cli("verify", path, "o3")[0] == 0


def test_a_partial_or_torn_log_is_answered_as_before(tmp_path):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1", "o2"])
    run_cli("verify", path, "o2")
    with open(path, "a") as f:
        f.write(json.dumps({"turn": 5, "speaker": "a", "ops": [{"op": "support", "target": "h404", "by": "o1"}]})
                + "\n")
    for args in (("verify", "o2"), ("verify", "o2", "--partial"), ("affected", "o1", "--partial", "--json")):
        assert cli_answers(path, *args) == cli_answers(path, *args, "--no-cache"), args
    assert cli_answers(path, "verify", "o2")[0] == 2
    path.write_text("\n".join(path.read_text().splitlines()[:-1]) + "\n" + '{"turn": 5, "speaker": "a", "op')
    for args in (("verify", "o2"), ("affected", "o1", "--json")):
        found = cli_answers(path, *args)
        assert found == cli_answers(path, *args, "--no-cache") and "torn final line" in found[2], args


def test_a_snapshot_without_its_index_gets_one_and_no_cache_writes_none(tmp_path):
    path = tmp_path / "talk.jsonl"
    conversation(path, ["o1"])
    run_cli("verify", path, "o1", "--no-cache")
    assert not index_path(path).exists() and not snapshot_path(path).exists()
    Engine.load(path, snapshot=True).close()
    index_path(path).unlink()  # as a snapshot written before indexes were
    assert run_cli("verify", path, "o1")[0] == 0
    assert index_path(path).is_file()
    assert from_index(path).ask("verify", claim="o1")["grounded"]
