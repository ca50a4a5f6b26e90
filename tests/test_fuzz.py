"""Fuzzing: streams of valid and invalid utterances through the API and the CLI.

After every rejected utterance (refused by the schema, a bound, the encoding
or the rules) the state, the answers and the bytes of the log are exactly as
they were; after every accepted one the log grew by one line; and the log
always reloads into the live state.  Through the CLI, a log whose line n is
such an utterance is refused with exit 2 naming line n, and ``--partial``
answers exactly what the API answers on the lines before it, saying so.

Bounded in examples (``GROUNDED_PROPERTY_SCALE`` multiplies them) and in
time (no deadline per example, but short streams).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounded import Engine, InputError, PreconditionError

from .inprocess import run_cli
from .test_properties import HEADER, SCALE, SPEAKERS, ops_for

TRIED = {"api": 0, "api rejected": 0, "cli": 0}

CORRUPTIONS = {
    "a literal with a space": lambda u: _set_first(u, ("claim", "target"), "two words"),
    "an id too long": lambda u: _set_first(u, ("claim", "target"), "o" * 201),
    "a lone surrogate": lambda u: {**u, "text": "said \ud800"},
    "a text too long": lambda u: {**u, "ops": [{**u["ops"][0], "text": "t" * 100_001}, *u["ops"][1:]]},
    "an unknown operation": lambda u: {**u, "ops": [{**u["ops"][0], "op": "teleport"}]},
    "a missing field": lambda u: {**u, "ops": [{k: v for k, v in u["ops"][0].items() if k not in ("claim", "target")}]},
    "a turn beyond 32 bits": lambda u: {**u, "turn": 2 ** 40},
    "a turn already past": lambda u: {**u, "turn": 0},
    "too many operations": lambda u: {**u, "ops": u["ops"] * 1001},
    "an unknown field": lambda u: {**u, "mood": "cheerful"},
    "a speaker that is not an id": lambda u: {**u, "speaker": "dr. who"},
    "ops that are not a list": lambda u: {**u, "ops": {"op": "observe"}},
}


def _set_first(u: dict, keys: tuple[str, ...], value: str) -> dict:
    op = dict(u["ops"][0])
    key = next((k for k in keys if k in op), keys[0])
    op[key] = value
    return {**u, "ops": [op, *u["ops"][1:]]}


def answers(engine: Engine) -> dict:
    """Every query a user could ask, over every literal the state knows."""
    dm = engine.state
    literals = sorted(set(dm.claimants) | set(dm.rev) | {"x0", "-x0", "h0", "q0"})
    out: dict = {"open": engine.open_problems(), "commitments": engine.commitments(),
                 "reinstatable": engine.reinstatable(), "dissent": engine.dissent()}
    for lit in literals:
        v = engine.verify(lit)
        a = engine.affected(lit)
        out[lit] = (v.grounded, tuple(v.chain), v.reason, tuple(a.arguments), tuple(a.hops))
    return out


def draw_utterance(data, engine: Engine) -> tuple[dict, str | None]:
    """A state-aware utterance (often rejected by the rules anyway), corrupted one time in three."""
    who = data.draw(st.sampled_from(SPEAKERS), label="speaker")
    size = data.draw(st.sampled_from([1, 1, 2, 3]), label="ops per utterance")
    ops = data.draw(st.lists(ops_for(engine.state), min_size=size, max_size=size), label="ops")
    u = {"speaker": who, "ops": ops}
    kind = data.draw(st.none() | st.none() | st.sampled_from(sorted(CORRUPTIONS)), label="corruption")
    return (u if kind is None else CORRUPTIONS[kind](u)), kind


@pytest.fixture(scope="module", autouse=True)
def report_figures():
    yield
    print(f"\nfuzz: {TRIED['api']} utterances through the API ({TRIED['api rejected']} rejected, each leaving "
          f"state, answers and log unchanged); {TRIED['cli']} logs with a rejected line through the CLI",
          file=sys.__stdout__)


FUZZ = settings(max_examples=int(12 * SCALE), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.slow
@FUZZ
@given(st.data())
def test_api_a_rejected_utterance_changes_nothing(data):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.jsonl"
        engine = Engine(HEADER, log=path)
        for _ in range(data.draw(st.integers(5, 25), label="length")):
            u, kind = draw_utterance(data, engine)
            before = (engine.snapshot(), answers(engine), path.read_bytes(), engine.prolog_state())
            last_turn = engine.turn
            TRIED["api"] += 1
            try:
                engine.apply(u)
            except (InputError, PreconditionError):
                TRIED["api rejected"] += 1
                after = (engine.snapshot(), answers(engine), path.read_bytes(), engine.prolog_state())
                assert after == before, f"a rejected utterance ({kind or 'by the rules'}) changed something"
                continue
            # every corruption is refused (turn 0 is "past" only once a turn was taken)
            assert kind is None or (kind == "a turn already past" and last_turn is None), f"{kind} was accepted"
            assert path.read_bytes().startswith(before[2])
            assert path.read_bytes().count(b"\n") == before[2].count(b"\n") + 1
        engine.close()
        assert Engine.load(path).snapshot() == engine.snapshot()


@settings(max_examples=int(8 * SCALE), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_cli_a_log_with_a_rejected_line_is_refused_or_answered_partially(data):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        live = Engine(HEADER)
        lines: list[str] = []
        bad: dict | None = None
        for _ in range(data.draw(st.integers(1, 20), label="length")):
            u, _ = draw_utterance(data, live)
            try:
                update = live.apply(u)
            except (InputError, PreconditionError):
                bad = u
                break
            lines.append(json.dumps({**u, "turn": update.turn}))
        if bad is None:
            bad = {"speaker": "alice", "ops": [{"op": "support", "target": "nobody_claims_this", "by": "x0"}]}
        path = Path(tmp) / "fuzz.jsonl"
        bad_line = len(lines) + 2
        path.write_text("\n".join([json.dumps({"grounded": 1, **HEADER}), *lines, json.dumps(bad),
                                   *lines[:1]]) + "\n")
        content = path.read_bytes()
        literal = data.draw(st.sampled_from(sorted(live.state.claimants) or ["x0"]), label="claim")
        TRIED["cli"] += 1
        code, out, err = run_cli("verify", str(path), "--json", "--", literal)
        assert code == 2 and out == "" and f"{path}:{bad_line}:" in err, (code, out, err)
        code, out, err = run_cli("verify", str(path), "--json", "--partial", "--", literal)
        answer = json.loads(out)
        expected = live.verify(literal)
        assert (answer["grounded"], answer["chain"], answer["reason"]) == (expected.grounded, list(expected.chain),
                                                                          expected.reason)
        assert code == (0 if expected.grounded else 1)
        assert answer["complete"] is False and answer["stopped_at"] == bad_line
        code, out, _ = run_cli("affected", str(path), "--json", "--partial", "--", literal)
        assert json.loads(out)["claims"] == live.affected(literal).claims
        assert path.read_bytes() == content  # reading never writes
        live.close()
