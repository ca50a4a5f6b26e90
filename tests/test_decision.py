"""Decide, then commit (engine/decision.py, Engine.decide and Engine.commit): the one public path from
utterances to an engine's state.  The rules' decision is a value: nothing of the Python state moves
until it is committed, a rejected utterance stops it and leaves the rules as they were, it is committed
once, and a decision recorded beside a log commits to the state the rules would have given."""

from __future__ import annotations

import pytest

from grounded import Engine, PreconditionError
from grounded.engine.decision import Decision
from grounded.io.eventlog import LogReader
from tests.frames import rules_requests

HEADER = {"agents": {"ann": {"authority": True}, "ben": {}}}
SAID = [
    {"speaker": "ann", "ops": [{"op": "observe", "claim": "o1"}]},
    {"speaker": "ben", "ops": [{"op": "question", "claim": "q1"},
                               {"op": "hypothesize", "claim": "h1", "deps": ["o1"], "explains": ["q1"]}]},
    {"speaker": "ben", "text": "nothing to add", "ops": []},
]
BAD = {"speaker": "ann", "ops": [{"op": "hypothesize", "claim": "h9", "deps": ["o77"]}]}


def _one_by_one(said: list[dict]) -> Engine:
    engine = Engine(HEADER)
    for u in said:
        engine.apply(u)
    return engine


def test_a_decision_moves_nothing_in_python_until_committed_and_then_is_what_apply_gives():
    engine = Engine(HEADER)
    decision = engine.decide(SAID)
    assert len(decision) == 3 and decision.rejected is None and decision.turns == [1, 2, 3]
    assert engine.turn is None and engine.snapshot() == Engine(HEADER).snapshot()  # the rules hold it; Python not yet
    updates = engine.commit(decision)
    assert [u.turn for u in updates] == [1, 2, 3]
    twin = _one_by_one(SAID)
    assert engine.snapshot() == twin.snapshot() and engine.prolog_state() == twin.prolog_state()
    assert [turn for turn, _ in engine.history()] == [1, 2, 3]


def test_a_rejected_utterance_stops_the_decision_and_leaves_the_rules_as_they_were():
    engine = _one_by_one(SAID[:1])
    before = engine.prolog_state()
    decision = engine.decide([SAID[1], BAD, SAID[2]])
    assert len(decision) == 1 and decision.rejected is not None  # the one after the rejected is not decided
    turn, u, rejected = decision.rejected
    assert turn == 3 and u.speaker == "ann" and [v.code for v in rejected.violations] == ["hypothesize_dep_unknown"]
    with pytest.raises(PreconditionError, match="hypothesize_dep_unknown"):
        decision.check()
    engine.commit(decision)
    assert engine.snapshot() == _one_by_one(SAID[:2]).snapshot() and engine.prolog_state() != before
    alone = _one_by_one(SAID[:1])
    assert alone.decide([BAD]).rejected is not None and alone.prolog_state() == before  # nothing of it kept


def test_a_decision_is_committed_once_before_the_engine_decides_again():
    engine = Engine(HEADER)
    decision = engine.decide(SAID[:1])
    with pytest.raises(ValueError, match="not committed"):
        engine.decide(SAID[1:2])
    engine.commit(decision)
    with pytest.raises(ValueError, match="committed once"):
        engine.commit(decision)
    other = Engine(HEADER)
    with pytest.raises(ValueError, match="committed once"):
        other.commit(Engine(HEADER).decide(SAID[:1]))  # not this engine's decision


def test_a_decision_recorded_beside_a_log_commits_without_the_rules_to_the_state_they_gave(tmp_path, monkeypatch):
    path = tmp_path / "log.jsonl"
    with Engine(HEADER, log=path) as writer:
        for u in SAID:
            writer.apply(u)
    requests = rules_requests(monkeypatch)
    loaded = Engine.load(path)
    assert loaded.log_status.bulk == len(SAID) and requests == []  # every line committed from its record
    from grounded.engine.snapshots import extension_refs
    from grounded.io.effectlog import EffectsReader
    from grounded.solvers.ruleset import rules_version

    with LogReader(path) as reader:
        lines = list(reader.raw_lines())
        record = EffectsReader(path, reader.header_line, rules_version(), extension_refs(()))
        texts = record.take(lines)
        record.stop()
    models = [loaded.registry.utterance_model.model_validate_json(body) for _, body in lines]
    decision = Decision.from_record([u.turn for u in models], models, texts, [body for _, body in lines])
    fresh = Engine(HEADER)
    requests.clear()  # the models above asked the rules for the operations they know
    fresh.commit(decision, updates=False)
    assert requests == []
    assert fresh.snapshot() == loaded.snapshot() == _one_by_one(SAID).snapshot()


def test_a_logging_engine_decides_several_each_written_inside_the_rules_transaction(tmp_path):
    """An engine with an event log decides several utterances one request each (the rules call back to write
    each line): the accepted ones are in the log and in the record beside it, the rejected one in neither."""
    path = tmp_path / "log.jsonl"
    with Engine(HEADER, log=path) as engine:
        decision = engine.decide([SAID[0], SAID[1], BAD])
        assert len(decision) == 2 and decision.rejected is not None
        engine.commit(decision)
        assert engine.snapshot() == _one_by_one(SAID[:2]).snapshot()
    assert len(path.read_text().splitlines()) == 3  # the header and the two accepted lines
    loaded = Engine.load(path)
    assert loaded.log_status.bulk == 2 and loaded.snapshot() == _one_by_one(SAID[:2]).snapshot()
