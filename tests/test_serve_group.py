"""A group of appends decided by the rules in one request (service/host.py, Conversations.decide,
engine/group.py): the same answers, rows and engines as the appends one by one, with one rules request
for the group; a decision taken ahead is dropped when the store moved under it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from grounded.core.errors import PreconditionError
from grounded.service.conversations import Conversations, state_json, update_json
from grounded.service.errors import StoreUnavailable
from grounded.service.host import EngineHost
from grounded.service.store import open_store
from tests.frames import rules_requests
from tests.serving import HEADER, store_host, utterance


def _conversations(host: EngineHost, n: int, length: int) -> list[str]:
    """``n`` conversations of the benchmark's header, each ``length`` utterances long (their engines cached)."""
    ids = [host.run(lambda c: c.create("t", HEADER), write=True)["id"] for _ in range(n)]
    for i in range(1, length + 1):
        for cid in ids:
            host.run(lambda c, cid=cid, i=i: c.append("t", cid, utterance(i)), write=True)
    return ids


def _group(host: EngineHost, appends: list[tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], int]]) -> list[Any]:
    """The appends queued together, as the HTTP route queues them: (id, utterance) a plain append, (id, utterance,
    turn) one expecting that turn (not plain: it runs as its own write); one flush takes them all."""
    def queued(cid: str, u: dict[str, Any], *expect: int) -> Any:
        if expect:
            return host.call(lambda c: c.append("t", cid, u, expect_turn=expect[0], check_expected=True), True,
                             ("t", cid))
        return host.call(lambda c: c.append("t", cid, u), True, ("t", cid), ("t", cid, u))

    async def together() -> list:
        return await asyncio.gather(*(queued(*a) for a in appends), return_exceptions=True)

    return asyncio.run(together())


def _rows(host: EngineHost, cid: str) -> list[tuple[int, dict]]:
    return list(host.conversations.store.lines("t", cid))


def _as_one_by_one(host: EngineHost, answers: list, cids: list[str], alone: EngineHost, theirs: list,
                   their_cids: list[str]) -> list[dict]:
    """Hold ``host``'s answers (but their ids), and the rows and engine state of its conversations ``cids``, to
    those of ``alone``, which took the same writes one by one (``theirs``, on ``their_cids``); the answers
    without their ids."""
    strip = [{k: v for k, v in a.items() if k != "id"} for a in answers]
    assert strip == [{k: v for k, v in a.items() if k != "id"} for a in theirs]
    for mine, other in zip(cids, their_cids, strict=True):
        assert [line for _, line in _rows(host, mine)] == [line for _, line in _rows(alone, other)]
        assert state_json(host.conversations._entry("t", mine).engine) == \
            state_json(alone.conversations._entry("t", other).engine)
    return strip


def test_a_group_of_appends_is_decided_in_one_rules_request_with_the_answers_of_one_by_one(tmp_path, monkeypatch):
    grouped, alone = store_host(tmp_path / "g.db"), store_host(tmp_path / "a.db")
    ids = {name: _conversations(host, 5, 2) for name, host in (("grouped", grouped), ("alone", alone))}
    requests = rules_requests(monkeypatch)
    answers = _group(grouped, [(cid, utterance(3)) for cid in ids["grouped"]])
    assert requests == ["apply_group"]  # one request for the five (before: one apply each)
    requests.clear()
    one_by_one = [alone.run(lambda c, cid=cid: c.append("t", cid, utterance(3)), write=True) for cid in ids["alone"]]
    assert requests == ["apply"] * 5
    strip = _as_one_by_one(grouped, answers, ids["grouped"], alone, one_by_one, ids["alone"])
    assert [a["seq"] for a in strip] == [3] * 5 and len(strip[0]["transitions"]) > 3, strip[0]
    rebuilt = Conversations(open_store(tmp_path / "g.db"))  # the engine is the store's: rebuilt from the rows
    for mine in ids["grouped"]:
        assert state_json(rebuilt._entry("t", mine).engine) == \
            state_json(grouped.conversations._entry("t", mine).engine)
    rebuilt.close()
    grouped.close()
    alone.close()


def test_a_refusal_in_a_group_leaves_the_others_and_its_engine_as_it_was(tmp_path, monkeypatch):
    host = store_host(tmp_path / "r.db")
    one, two, three = _conversations(host, 3, 1)
    before = state_json(host.conversations._entry("t", two).engine)
    requests = rules_requests(monkeypatch)
    bad = {"speaker": "ann", "ops": [{"op": "hypothesize", "claim": "h9", "deps": ["o77"]}]}
    answers = _group(host, [(one, utterance(2)), (two, bad), (three, utterance(2))])
    assert requests == ["apply_group"]
    assert isinstance(answers[1], PreconditionError) and "hypothesize_dep_unknown" in str(answers[1]), answers
    assert answers[0]["seq"] == answers[2]["seq"] == 2
    assert [s for s, _ in _rows(host, two)] == [1] and [s for s, _ in _rows(host, one)] == [1, 2]
    assert state_json(host.conversations._entry("t", two).engine) == before
    assert host.run(lambda c: c.append("t", two, utterance(2)), write=True)["seq"] == 2
    host.close()


def test_a_decision_taken_ahead_is_dropped_when_another_process_appended_meanwhile(tmp_path):
    """The group decides utterance 3 on this process's engine of ``one`` (at length 1, where it is refused:
    its hypothesis rests on o2); another process has appended utterance 2 meanwhile, so under the lock the
    store is at 2: the decision is dropped and the append runs on the engine caught up, accepted at 3."""
    host = store_host(tmp_path / "p.db")
    one, two = _conversations(host, 2, 1)
    other = Conversations(open_store(tmp_path / "p.db"))
    with other.batch():
        other.append("t", one, utterance(2))
    other.close()
    answers = _group(host, [(one, utterance(3)), (two, utterance(2))])
    assert answers[0]["seq"] == 3 and answers[0]["turn"] == 3, answers
    assert answers[1]["seq"] == 2
    assert [s for s, _ in _rows(host, one)] == [1, 2, 3]
    host.close()


def test_two_appends_to_one_conversation_in_a_group_go_in_order(tmp_path):
    host = store_host(tmp_path / "o.db")
    one, two = _conversations(host, 2, 1)
    answers = _group(host, [(one, utterance(2)), (two, utterance(2)), (one, utterance(3))])
    assert [a["seq"] for a in answers] == [2, 2, 3], answers
    assert [line["ops"][0]["claim"] for _, line in _rows(host, one)] == ["o1", "o2", "o3"]
    host.close()


def test_an_append_of_a_group_failing_after_the_rules_accepted_leaves_store_and_engine_as_they_were(tmp_path):
    """SQLite refuses the length update of one decided append (a trigger, after its row went in): that append is
    undone and its engine, moved on by the decision, dropped; the group's other append commits."""
    host = store_host(tmp_path / "u.db")
    one, two = _conversations(host, 2, 1)
    c = host.conversations
    before = state_json(c._entry("t", one).engine)
    c.store._execute(f"CREATE TRIGGER refuse BEFORE UPDATE ON conversations WHEN NEW.id = '{one}' "
                     "AND NEW.length = 2 BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
    answers = _group(host, [(one, utterance(2)), (two, utterance(2))])
    assert isinstance(answers[0], StoreUnavailable) and "refused by the test" in str(answers[0]), answers
    assert answers[1]["seq"] == 2
    assert ("t", one) not in c._cache
    assert state_json(c._entry("t", one).engine) == before and [s for s, _ in _rows(host, one)] == [1]
    host.close()


def test_a_group_whose_commit_fails_drops_the_engines_it_moved(tmp_path):
    """The group's COMMIT is refused (a write of the same flush leaves a deferred foreign-key violation, which
    SQLite checks at COMMIT): nothing is acknowledged, and the engines the decisions moved on are dropped."""
    host = store_host(tmp_path / "f.db")
    one, two = _conversations(host, 2, 1)
    c = host.conversations
    before = {cid: state_json(c._entry("t", cid).engine) for cid in (one, two)}

    def poison(c: Conversations) -> None:
        c.store._execute("PRAGMA defer_foreign_keys=ON")
        c.store._execute("INSERT INTO utterances (tenant, conversation, seq, turn, line, created) "
                         "VALUES ('t', 'ghost', 1, 1, '{}', 'now')")

    async def group_and_poison() -> list:
        return await asyncio.gather(*(host.call(lambda c, cid=cid: c.append("t", cid, utterance(2)), True,
                                                ("t", cid), ("t", cid, utterance(2))) for cid in (one, two)),
                                    host.call(poison, True, ("t", "zz")), return_exceptions=True)

    answers = asyncio.run(group_and_poison())
    assert all(isinstance(a, StoreUnavailable) and "commit failed" in str(a) for a in answers), answers
    for cid in (one, two):
        assert ("t", cid) not in c._cache
        assert state_json(c._entry("t", cid).engine) == before[cid] and c.store.head("t", cid) == 1
    host.close()


def test_a_group_all_accepted_comes_back_as_one_flat_text_and_one_refused_as_each_reply():
    """apply_group's reply (prolog/grounded.pl): every utterance accepted, their flat texts joined, read with one
    foreign call (what ``read_flat`` reads of a batch); one refused, each utterance's own reply."""
    from grounded import Engine

    engines = [Engine(HEADER) for _ in range(3)]
    prolog = engines[0]._prolog

    def texts(turn: int, utterances: list[dict]) -> list:
        out = []
        for engine, u in zip(engines, utterances, strict=True):
            model = engine.registry.utterance(u)
            out.append(engine.rules.live_text(engine.registry.encode(turn, model)))
        return out

    whole = prolog.request(("apply_group", texts(1, [utterance(1)] * 3)))
    assert whole[0] == "flat" and isinstance(whole[1], str), whole
    bad = {"speaker": "ann", "ops": [{"op": "observe", "claim": "o1"}]}  # o1 already observed by ann
    each = prolog.request(("apply_group", texts(2, [utterance(2), bad, utterance(2)])))
    assert each[0] == "each" and [r[1][0] for r in each[1]] == ["flat", "rejected", "flat"], each


def test_a_grouped_utterance_is_decided_then_committed_and_comes_to_what_it_would_alone(monkeypatch):
    """``apply_group`` decides every utterance (in the group's one request, or by its engine alone when the
    request cannot carry it: an utterance without operations), then commits each accepted decision through
    ``Engine.commit``, the step ``Engine.apply`` takes; each outcome is what ``Engine.apply`` gives an engine in
    the same state: accepted, rejected, and one decided alone."""
    from grounded import Engine
    from grounded.engine.group import apply_group

    steps: list[tuple[str, int]] = []
    for name in ("decide", "commit"):
        original = getattr(Engine, name)

        def counted(self: Engine, *args: Any, _original: Any = original, _name: str = name, **kwargs: Any) -> Any:
            steps.append((_name, id(self)))
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Engine, name, counted)
    bad = {"speaker": "ann", "ops": [{"op": "hypothesize", "claim": "h9", "deps": ["o77"]}]}
    quiet = {"speaker": "ben", "text": "nothing to add", "ops": []}
    given = [utterance(2), bad, quiet, utterance(2)]
    grouped, alone = ([Engine(HEADER) for _ in given] for _ in range(2))
    for engine in grouped + alone:
        engine.apply(utterance(1))
    steps.clear()
    outcomes = apply_group(list(zip(grouped, given, strict=True)))
    assert sorted(steps) == sorted([("decide", id(grouped[2]))]
                                   + [("commit", id(e)) for e in (grouped[0], grouped[2], grouped[3])]), steps
    assert isinstance(outcomes[1], PreconditionError) and "hypothesize_dep_unknown" in str(outcomes[1])
    for engine, twin, u, outcome in zip(grouped, alone, given, outcomes, strict=True):
        if isinstance(outcome, PreconditionError):
            with pytest.raises(PreconditionError) as raised:
                twin.apply(u)
            assert str(raised.value) == str(outcome)
        else:
            assert update_json(outcome) == update_json(twin.apply(u))
        assert state_json(engine) == state_json(twin)


@pytest.fixture
def builds(monkeypatch) -> list[str]:
    """The conversations whose engine was built (from the store's rows) from now on."""
    built: list[str] = []
    build = Conversations._build

    def counted(self: Conversations, tenant: str, cid: str) -> Any:
        built.append(cid)
        return build(self, tenant, cid)

    monkeypatch.setattr(Conversations, "_build", counted)
    return built


@pytest.mark.parametrize("plain_first", [False, True])
def test_a_conversation_whose_first_write_in_a_group_is_not_a_plain_append_keeps_its_engine(tmp_path, monkeypatch,
                                                                                             builds, plain_first):
    """A flush holding, for ``one``, an append expecting a turn and a plain append: the plain append is grouped
    only if it is ``one``'s first write in the flush.  After the other write, a decision taken ahead would not
    hold: the engine it moved was dropped and rebuilt from the store, every flush under mixed traffic.  Either
    way the other conversations' plain appends are grouped, ``one``'s engine is the one cached before, and each
    answer, row and state is the one the writes give one by one."""
    host, alone = store_host(tmp_path / "m.db"), store_host(tmp_path / "a.db")
    one, two, three = _conversations(host, 3, 2)
    cids = _conversations(alone, 3, 2)
    engine = host.conversations._cache[("t", one)].engine
    expecting = (0, utterance(4), 3) if plain_first else (0, utterance(3), 2)
    plain = (0, utterance(3)) if plain_first else (0, utterance(4))
    writes: list[tuple] = [plain, expecting] if plain_first else [expecting, plain]
    writes += [(1, utterance(3)), (2, utterance(3))]
    requests = rules_requests(monkeypatch)
    builds.clear()
    answers = _group(host, [(cid, *w[1:]) for w, cid in zip(writes, (one, one, two, three), strict=True)])
    assert requests.count("apply_group") == 1, requests
    assert builds == [] and host.conversations._cache[("t", one)].engine is engine
    assert [a["seq"] for a in answers] == [3, 4, 3, 3], answers
    theirs = [alone.run(lambda c, w=w: c.append("t", cids[w[0]], w[1], expect_turn=w[2] if len(w) > 2 else None,
                                                 check_expected=len(w) > 2), write=True) for w in writes]
    _as_one_by_one(host, answers, [one, two, three], alone, theirs, cids)
    host.close()
    alone.close()
