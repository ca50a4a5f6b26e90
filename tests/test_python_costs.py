"""The Python work per utterance on the live and bulk paths, counted in frames (issue 23, item 3):
what each step costs does not grow with a well-formed utterance's values beyond one call per value."""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal

import pytest

from grounded import Engine
from grounded.core.bounds import MAX_ID_LENGTH
from grounded.core.literals import check_atom, check_literal
from tests.synthetic import HEADER

from .frames import python_calls

UTTERANCE = {"turn": 1, "speaker": "alice", "text": "",
             "ops": [{"op": "observe", "claim": "o1"},
                     {"op": "hypothesize", "claim": "h1", "deps": ["o1", "-o2", "o3"], "explains": ["q1"]}]}


@pytest.fixture(scope="module")
def engine():
    e = Engine(HEADER)
    e.registry.utterance(UTTERANCE)  # the model built before counting
    yield e
    e.close()


def test_a_well_formed_utterance_is_validated_in_one_frame_per_value(engine):
    """Each literal and id is told valid by one call of its checker, none below it (the checks that word
    an error run only for a value that fails)."""
    model = engine.registry.utterance_model
    calls = Counter(python_calls(lambda: model.model_validate(UTTERANCE)))
    assert calls == {"model_validate": 1, "_bounded_ops": 1, "check": 1,  # the ops' bound, the turn a JSON int
                     "check_atom": 1, "check_text": 1,  # the speaker, the text
                     "check_literal": 6}  # o1; h1, o1, -o2, o3, q1


@pytest.mark.parametrize(("check", "value", "error"), [
    (check_literal, "x" * 201, "an id of 201 characters is too long"),
    (check_literal, "-" + "x" * 201, "an id of 202 characters is too long"),
    (check_literal, "a b", "'a b' is not a literal"),
    (check_literal, "--a", "'--a' is not a literal"),
    (check_atom, "-a", "'-a' is not a proposition id"),
    (check_atom, "x" * 201, "an id of 201 characters is too long"),
])
def test_a_bad_value_is_named_as_before(check, value, error):
    with pytest.raises(ValueError, match=error):
        check(value)
    longest = "-" + "x" * MAX_ID_LENGTH if check is check_literal else "x" * MAX_ID_LENGTH
    assert check(longest) == longest  # the longest that passes, the - not counted


def test_a_batch_is_spelled_flat_with_a_call_only_per_negated_literal(engine):
    """The flat text of a batch tests each turn, name and positive literal in line; only a negated
    literal (term data ``-(p)``) goes through its checker.  The text is the one the checkers spell."""
    from grounded.solvers.flat import SEPARATOR, flat_utterances

    u = engine.registry.utterance(UTTERANCE)
    batch = [engine.registry.encode(turn, u) for turn in range(1, 101)]
    assert python_calls(lambda: flat_utterances(batch)) == ["flat_utterances"] + ["_literal"] * 100
    text, count = flat_utterances(batch)
    assert count == 1 + 100 * 23 and text.count(SEPARATOR) == count
    assert text.startswith(SEPARATOR.join(["100", "1", "alice", "2", "observe", "1", "claim", "=", "o1",
                                           "hypothesize", "3", "claim", "=", "h1", "deps", "#", "3", "o1", "-o2", "o3",
                                           "explains", "#", "1", "q1", "2"]))


def test_a_live_apply_enters_no_json_encoder_and_no_import_machinery(engine):
    """What the history keeps of an utterance is its model's JSON (one C call, no ``json.dumps`` frames),
    and no lazy import runs per utterance; the history gives each back the same, one given with values
    pydantic accepts but would spell otherwise (a ``Decimal`` turn, a ``bytes`` text) too."""
    e = Engine(HEADER)
    try:
        first = {"turn": 1, "speaker": "alice", "text": "", "ops": [{"op": "observe", "claim": "o1"}]}
        e.apply(first)
        later = {"turn": 2, "speaker": "bob", "text": "é \u2028 \"quoted\" \\",
                 "ops": [{"op": "observe", "claim": "o4"}]}
        calls = Counter(python_calls(lambda: e.apply(later)))
        assert calls["_rule_base"] == 2  # the registry to validate; the rules, registry and state to decide
        assert not set(calls) & {"dumps", "iterencode", "_handle_fromlist", "__getattr__", "_find_and_load"}
        odd = {"turn": Decimal(3), "speaker": "carol", "text": b"bytes", "ops": []}  # accepted, spelled otherwise
        e.apply(odd)
        assert [u.model_dump() for _, u in e.history()] == [e.registry.utterance(d).model_dump()
                                                             for d in (first, later, odd)]
    finally:
        e.close()


def test_a_reply_is_read_with_a_call_per_effect_and_none_per_utterance(engine):
    """``read_flat`` makes each utterance's ``Accepted`` without entering its ``__init__`` (one frame an
    utterance on a load's hundreds of thousands), equal to the one ``__init__`` makes."""
    from grounded.dmap.effects import SHAPES
    from grounded.solvers.flat import SEPARATOR, Accepted, accepted_text, read_flat

    e = Engine(HEADER)
    try:
        update = e.apply({"turn": 1, "speaker": "alice", "text": "", "ops": [{"op": "observe", "claim": "o1"}]})
        one = Accepted(list(update.effects), ["o1", "h2"])
        text = accepted_text(one) * 50
        calls = Counter(python_calls(lambda: read_flat(text, text.count(SEPARATOR))))
        assert calls == {"read_flat": 1, **Counter(f"make{len(SHAPES[x.name])}" for x in one.effects * 50)}
        assert read_flat(text, text.count(SEPARATOR)) == [one] * 50
    finally:
        e.close()


def test_a_foreign_log_s_lines_are_loaded_without_an_update_or_a_turn_assigned(tmp_path):
    """``Engine.load`` with no ``on_update`` mirrors each line the rules judged without making the
    ``Update`` no one reads (nor asking what rests on a claim it took out), and takes each line's
    written turn as it is; the state is the one a live apply of the same lines gives."""
    from grounded.io.eventlog import header_json
    from tests.synthetic import realistic

    stream = realistic(300, 0).history
    path = tmp_path / "foreign.jsonl"
    e = Engine(HEADER)
    path.write_text("".join(json.dumps(line) + "\n" for line in (header_json(e.header, e.origin()), *stream)))
    for u in stream:
        e.apply(u)
    loaded: list[Engine] = []
    calls = Counter(python_calls(lambda: loaded.append(Engine.load(path))))
    try:
        assert calls["commit"] == -(-len(stream) // 256)  # one decision a batch, committed with its lines in one call
        assert calls["each"] == calls["_flagged"] == calls["turn_of"] == 0
        assert calls["_add_commitment"] > 0  # the lines were mirrored
        assert loaded[0].log_status.utterances == len(stream)
        assert loaded[0].snapshot() == e.snapshot()
    finally:
        e.close()
        for x in loaded:
            x.close()


def test_a_live_utterance_crosses_as_one_string_each_way():
    """A live apply puts its request as one string and reads an accepted reply as one (py_apply/2): no
    term is built or read node by node (``put``, ``read_compound``: a frame and a foreign call or more
    per node); a rejected one is still read by its shape and named as before."""
    from grounded.core.errors import PreconditionError

    e = Engine(HEADER)
    try:
        e.apply({"turn": 1, "speaker": "alice", "text": "", "ops": [{"op": "observe", "claim": "o1"}]})
        second = {"turn": 2, "speaker": "bob", "text": "", "ops": [{"op": "observe", "claim": "o2"}]}
        calls = Counter(python_calls(lambda: e.apply(second)))
        assert calls["call_text"] == 1 and calls["read_flat"] == 1
        assert not set(calls) & {"call", "put", "read", "read_compound", "read_text", "read_int"}
        assert e.state.last_turn == 2 and "o2" in e.state.props
        with pytest.raises(PreconditionError, match="observe_redundant"):
            e.apply({"turn": 3, "speaker": "alice", "text": "", "ops": [{"op": "observe", "claim": "o1"}]})
        assert e.state.last_turn == 2
    finally:
        e.close()
