"""Hostile input at the edges: every bound of PLAN.md holds, with a clear error beyond it.

Issue 10's cases: turn numbers beyond 32 bits crashed `check` with
OverflowError and no file:line; a lone surrogate in a text raised
UnicodeEncodeError; formulas nested 500 deep raised RecursionError;
`/dev/zero` as a log was read without bound; 4,000 operations in one
utterance reached Prolog.  Up to the bounds everything works.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from grounded import Engine, InputError, LogError
from grounded.core.bounds import (
    MAX_FORMULA_DEPTH,
    MAX_FORMULA_SIZE,
    MAX_ID_LENGTH,
    MAX_LINE_BYTES,
    MAX_TEXT_LENGTH,
    MAX_TURN,
)
from grounded.crosscheck.check import check
from grounded.epistemic import declaration, formula, semantics
from grounded.epistemic.formula import Formula
from grounded.epistemic.parse import parse
from tests.inprocess import grounded

from .inprocess import run_cli

HEADER = {"grounded": 1, "agents": {"alice": {}}}



def log_of(tmp_path: Path, *utterances: dict) -> Path:
    path = tmp_path / "talk.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in (HEADER, *utterances)) + "\n")
    return path


def observe(claim: str, **kw) -> dict:
    return {"op": "observe", "claim": claim, **kw}


# -- turns -----------------------------------------------------------------------------------

def test_a_turn_beyond_the_bound_names_file_line_and_field(tmp_path):
    log = log_of(tmp_path, {"turn": 1, "speaker": "alice", "ops": [observe("o1")]},
                 {"turn": 2 ** 40, "speaker": "alice", "ops": [observe("o2")]})
    with pytest.raises(LogError, match=rf"talk.jsonl:3: turn: Input should be less than or equal to {MAX_TURN}"):
        Engine.load(log)
    with pytest.raises(LogError, match="talk.jsonl:3: turn"):
        check(log)  # was: OverflowError from clingo, no file:line
    code, _, err = run_cli("check", log)
    assert code == 2 and "talk.jsonl:3: turn: Input should be less than or equal" in err
    assert "OverflowError" not in err


def test_turns_up_to_the_bound_work_and_none_is_assigned_past_it():
    engine = Engine({"agents": {"alice": {}}})
    engine.apply({"turn": MAX_TURN, "speaker": "alice", "ops": [observe("o1")]})
    assert engine.verify("o1").grounded and engine.turn == MAX_TURN
    with pytest.raises(InputError, match=f"turn: {MAX_TURN + 1} is beyond the last turn"):
        engine.apply({"speaker": "alice", "ops": [observe("o2")]})
    assert engine.turn == MAX_TURN


def test_check_answers_at_the_largest_turn(tmp_path):
    log = log_of(tmp_path, {"turn": MAX_TURN - 1, "speaker": "alice", "ops": [observe("o1")]},
                 {"turn": MAX_TURN, "speaker": "alice", "ops": [{"op": "question", "claim": "q1"}]})
    report = check(log)
    assert report.ok and report.accepted == 2, report.mismatches


# -- text ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("utterance,field", [
    ({"speaker": "alice", "text": "bad \ud800 text", "ops": []}, "text"),
    ({"speaker": "alice", "ops": [observe("o1", text="lone \udfff")]}, r"ops\[0\].text"),
    ({"speaker": "alice", "labels": ["observe\ud800"], "ops": []}, r"labels\[0\]"),
])
def test_a_lone_surrogate_is_an_input_error_naming_the_field(tmp_path, utterance, field):
    path = tmp_path / "talk.jsonl"
    with Engine({"agents": {"alice": {}}}, log=path) as engine:
        before = path.read_bytes()
        with pytest.raises(InputError, match=rf"{field}: Value error, a lone surrogate"):
            engine.apply(utterance)
        assert path.read_bytes() == before and engine.turn is None


def test_a_lone_surrogate_in_a_log_line_names_file_and_line(tmp_path):
    path = tmp_path / "talk.jsonl"
    path.write_text(json.dumps(HEADER) + "\n" + '{"turn": 1, "speaker": "alice", "text": "x\\ud800", "ops": []}\n')
    with pytest.raises(LogError, match="talk.jsonl:2: text: Value error, a lone surrogate"):
        Engine.load(path)


def test_texts_and_ids_up_to_their_bounds_work_and_beyond_are_named():
    engine = Engine({"agents": {"alice": {}}})
    longest_id = "o" * MAX_ID_LENGTH
    engine.apply({"speaker": "alice", "text": "t" * MAX_TEXT_LENGTH,
                  "ops": [observe(longest_id, text="u" * MAX_TEXT_LENGTH), observe("-" + "n" * MAX_ID_LENGTH)]})
    assert engine.verify(longest_id).grounded
    cases = [
        ({"speaker": "alice", "text": "t" * (MAX_TEXT_LENGTH + 1)}, "text: Value error, a text of 100001 characters"),
        ({"speaker": "alice", "ops": [observe("o" * (MAX_ID_LENGTH + 1))]}, r"ops\[0\].claim: .*an id of 201"),
        ({"speaker": "a" * (MAX_ID_LENGTH + 1)}, "speaker: Value error, an id of 201 characters is too long"),
        ({"speaker": "alice", "labels": ["l" * (MAX_ID_LENGTH + 1)]}, r"labels\[0\]: .*a name of 201"),
    ]
    for utterance, message in cases:
        with pytest.raises(InputError, match=message):
            engine.apply(utterance)
    with pytest.raises(InputError, match="is not a literal"):
        engine.verify("o" * 10_000)  # a query too; and the message does not echo 10,000 characters
    try:
        engine.verify("o" * 10_000)
    except InputError as exc:
        assert len(str(exc)) < 300


def test_a_header_text_beyond_the_bound_is_named():
    with pytest.raises(InputError, match=r"header: props\[0\].text: .*a text of 100001 characters"):
        Engine({"agents": {"alice": {}}, "props": [{"id": "p", "text": "x" * 100_001}]})


# -- operations per utterance ------------------------------------------------------------------

def test_more_operations_than_the_bound_are_refused_before_the_rules_see_them(tmp_path):
    path = tmp_path / "talk.jsonl"
    with Engine({"agents": {"alice": {}}}, log=path) as engine:
        started = time.monotonic()
        with pytest.raises(InputError, match="ops: 4000 operations in one utterance \\(at most 1000\\)"):
            engine.apply({"speaker": "alice", "ops": [observe(f"o{i}") for i in range(4000)]})
        assert time.monotonic() - started < 5  # refused up front, not after validating 4,000 operations
        assert engine.turn is None and len(path.read_text().splitlines()) == 1


# -- formulas ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["~" * 500 + "p", "(" * 500 + "p" + ")" * 500, " ^ ".join(["p"] * 500),
                                  " -> ".join(["p"] * 500), "K_a " * 500 + "p"])
def test_a_formula_nested_500_deep_is_an_input_error_not_a_recursion_error(text):
    with pytest.raises(InputError, match=f"nested .*{MAX_FORMULA_DEPTH}"):
        parse(text)


def test_deep_formulas_at_every_entry_point():
    from grounded.epistemic.formula import Atom, Not

    engine = Engine({"agents": {"a": {}}, "world": {"atoms": ["p"]}})
    assert engine.holds("~" * (MAX_FORMULA_DEPTH - 2) + "p") is False  # (no actual world: p is not everywhere)
    deep = Atom("p")
    for _ in range(5_000):
        deep = Not(deep)
    with pytest.raises(InputError, match="nested 5001 levels deep"):
        engine.holds(deep)  # a Formula built in Python, not parsed
    with pytest.raises(InputError, match="nested"):
        engine.knows("a", "~" * 500 + "p")
    chain = {f"d{i}": f"~d{i - 1}" if i else "p" for i in range(150)}  # definitions using definitions
    with pytest.raises(InputError, match="formulas: d10[0-9] is nested 10[1-9] levels deep with the definitions"):
        Engine({"agents": {"a": {}}, "world": {"atoms": ["p"], "formulas": chain}})


# -- lines ----------------------------------------------------------------------------------------

def test_dev_zero_is_not_read_without_bound():
    started = time.monotonic()
    with pytest.raises(InputError, match=f"/dev/zero:1: line longer than {MAX_LINE_BYTES} bytes"):
        Engine.load("/dev/zero")
    assert time.monotonic() - started < 10
    result = grounded("verify", "/dev/zero", "o1")
    assert result.returncode == 2 and "/dev/zero:1: line longer than" in result.stderr


def test_a_line_beyond_the_bound_names_its_line(tmp_path):
    path = log_of(tmp_path, {"turn": 1, "speaker": "alice", "ops": [observe("o1")]})
    with open(path, "a") as handle:
        handle.write(json.dumps({"turn": 2, "speaker": "alice", "text": "x" * (MAX_LINE_BYTES + 10)}) + "\n")
    with pytest.raises(LogError, match="talk.jsonl:3: line longer than"):
        Engine.load(path)
    assert Engine.load(path, strict=False).turn == 1


def test_json_nested_past_the_parser_is_an_error_naming_the_line(tmp_path):
    path = log_of(tmp_path)
    with open(path, "a") as handle:
        handle.write('{"turn": 1, "speaker": "alice", "ops": ' + "[" * 200_000 + "]" * 200_000 + "}\n")
    with pytest.raises(LogError, match="talk.jsonl:2: invalid JSON: nested too deeply"):
        Engine.load(path)


# -- definitions that double -----------------------------------------------------------------------

def doubling_world(levels: int, **extra) -> dict:
    """d1 = a & b, d_i = d_{i-1} & d_{i-1}: a 500-byte header whose d_levels has 2^(levels+1) - 1 nodes."""
    formulas = {"d1": "a & b", **{f"d{i}": f"d{i - 1} & d{i - 1}" for i in range(2, levels + 1)}}
    return {"atoms": ["a", "b"], "actual": ["a", "b"], "formulas": formulas, **extra}


def test_definitions_that_double_are_refused_by_expanded_size_naming_the_formula(tmp_path):
    levels = 30
    world = doubling_world(levels, background=[f"d{levels}"])
    started = time.monotonic()
    with pytest.raises(InputError, match=rf"formulas: d19: 1048575 nodes with the definitions it uses expanded "
                                         rf"\(at most {MAX_FORMULA_SIZE}\)"):
        Engine({"agents": {"a": {}}, "world": world})  # was: minutes (2^26 evaluations at 26 levels)
    log = tmp_path / "talk.jsonl"
    log.write_text(json.dumps({"grounded": 1, "agents": {"a": {}}, "world": world}) + "\n")
    code, _, err = run_cli("check", log)
    assert code == 2 and "talk.jsonl:1: header: world: Value error, formulas: d19: 1048575 nodes" in err
    assert time.monotonic() - started < 60  # does not hang: minutes before the bound (2^26 evaluations)


class _Reads(dict):
    """A definitions mapping that counts, by name, how often an evaluator reads a definition."""

    def __init__(self, defs: Mapping[str, Formula], counts: Counter[str]):
        super().__init__(defs)
        self.counts = counts

    def __getitem__(self, name: str) -> Formula:
        self.counts[name] += 1
        return super().__getitem__(name)


def test_definitions_up_to_the_size_bound_are_evaluated_once_each(monkeypatch):
    """Every evaluator of a header (the background's value, the propositional check, the model's truth) reads each
    definition a bounded number of times, whatever the level: expanding them in place read d1 2^17 times here."""
    reads: Counter[str] = Counter()

    def counted(fn: Callable, at: int) -> Callable:
        def reading(*args):
            if not isinstance(args[at], _Reads):
                args = (*args[:at], _Reads(args[at], reads), *args[at + 1:])
            return fn(*args)
        return reading

    monkeypatch.setattr(formula, "boolean_value", counted(formula.boolean_value, 2))
    monkeypatch.setattr(declaration, "_propositional", counted(declaration._propositional, 1))
    monkeypatch.setattr(semantics._Evaluator, "__init__", counted(semantics._Evaluator.__init__, 2))
    levels = 18  # d18: 524,287 nodes written out; each definition read once by each evaluator
    engine = Engine({"agents": {"a": {}}, "world": doubling_world(levels, background=[f"d{levels}"])})
    assert engine.holds(f"K_a d{levels}") and engine.holds(f"~d{levels}") is False  # the background holds: W = {ab}
    assert set(reads) == {f"d{i}" for i in range(1, levels + 1)}, reads  # every definition was read
    assert max(reads.values()) <= 8, reads.most_common(3)  # a few evaluators, each reading a definition once
    with pytest.raises(InputError, match=r"background\[0\]: 'd18 & d18': 1048575 nodes"):
        Engine({"agents": {"a": {}}, "world": doubling_world(levels, background=[f"d{levels} & d{levels}"])})
    with pytest.raises(InputError, match=r"the formula has 1048575 nodes"):
        engine.holds(f"d{levels} | d{levels}")  # a query too


# -- queries ----------------------------------------------------------------------------------------

def test_queries_hold_ids_turns_and_thresholds_to_the_bounds(tmp_path):
    log = log_of(tmp_path, {"turn": 1, "speaker": "alice", "ops": [observe("o1")]})
    engine = Engine.load(log)
    for claim in ("o" * (MAX_ID_LENGTH + 1), "-" + "o" * (MAX_ID_LENGTH + 1)):  # was: answered at 201
        for query in (engine.verify, engine.affected):
            with pytest.raises(InputError, match=f"at most {MAX_ID_LENGTH} characters"):
                query(claim)
        for command in ("verify", "affected"):
            code, _, err = run_cli(command, log, "--", claim)
            assert code == 2 and f"at most {MAX_ID_LENGTH} characters" in err, (command, err)
    assert engine.verify("-" + "o" * MAX_ID_LENGTH).status == "no_anchor"  # the bound itself is answered
    for at in (MAX_TURN + 1, 10 ** 30):  # was: answered, echoing the turn
        with pytest.raises(InputError, match=f"a turn is at most {MAX_TURN}"):
            engine.verify("o1", at=at)
        with pytest.raises(InputError, match=f"a turn is at most {MAX_TURN}"):
            engine.open_problems(at=at)
        code, _, err = run_cli("verify", log, "o1", "--at", at)
        assert code == 2 and f"a turn is at most {MAX_TURN}" in err
    with pytest.raises(InputError, match="a turn is an integer, not bool"):
        engine.verify("o1", at=True)
    assert engine.verify("o1", at=MAX_TURN).grounded
    from grounded.interpreter.anchor import verify_text

    for threshold in (float("nan"), -0.1, 1.5, float("inf")):
        with pytest.raises(InputError, match="a similarity threshold is a number from 0 to 1"):
            verify_text(engine, "the first observation", threshold=threshold, similarity="tfidf")
        code, _, err = run_cli("verify", log, "--text", "the first observation", "--anchor", "tfidf",
                               "--threshold", threshold)
        assert code == 2 and "a similarity threshold is a number from 0 to 1" in err, err
