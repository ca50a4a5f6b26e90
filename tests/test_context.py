"""The Context Renderer: update summaries, the state within a token budget, the user-facing flag."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine
from grounded.present import context
from grounded.present.tokens import count_tokens
from grounded.scenario import Scenario

from .test_properties import budget

ROOT = Path(__file__).resolve().parent.parent


def replay(name: str, upto: int | None = None) -> tuple[Engine, dict]:
    scenario = Scenario.load(ROOT / "scenarios" / name)
    engine = Engine(scenario.header)
    updates = {}
    for turn in scenario.turns:
        if upto is not None and turn.turn > upto:
            break
        updates[turn.turn] = engine.apply(turn.utterance())
    return engine, updates


@pytest.fixture(scope="module")
def phase2():
    engine, updates = replay("phase2.yaml")
    yield engine, updates
    engine.close()


@pytest.fixture(scope="module")
def phase3():
    engine, updates = replay("phase3.yaml")
    yield engine, updates
    engine.close()


def test_summaries_say_what_changed(phase2):
    engine, updates = phase2
    t7 = context.summarize(engine, updates[7]).splitlines()
    assert t7 == ["alice observed o9 (observation): Auth errors are 401 'token expired', not 503 'session lookup "
                  "failed'.", "o9 attacks h2.", "h2 is now weakened by o9.", "Open problem: o9."]
    assert "h2 was abandoned by o9." in context.summarize(engine, updates[9])
    t12 = context.summarize(engine, updates[12])
    assert t12.startswith("carol hypothesized h4 (hypothesis): Token bug -> retry storm -> Redis connection pool "
                          "exhaustion (Auth -> Redis). It rests on h3, o6 and o9 and explains o8, o1 and q1.")
    assert "h1 now also rests on h4." in context.summarize(engine, updates[13])
    md = context.summarize(engine, updates[9], "markdown")
    assert md.startswith("- `h2` was abandoned by `o9`.")


def test_the_flag_of_the_paper(phase3):
    engine, updates = phase3
    flag = ("decision alpha18 no longer grounded; affected by retraction of a3 (abandoned at T20 by -a3); "
            "depends on a1, a2, a3")
    assert context.flag(engine, "alpha18") == flag
    assert flag in context.summarize(engine, updates[20])  # flagged the moment a3 is retracted
    assert context.flag(engine, "alpha18", at=19) is None  # grounded before
    assert context.flag(engine, "alpha16") == ("hypothesis alpha16 no longer grounded; weakened at T17 by alpha17; "
                                               "depends on a1, a2, a3")
    assert context.flag(engine, "nothing") is None
    for claim, at in (("alpha18", None), ("alpha18", 19), ("alpha16", None), ("nothing", None)):
        v = engine.verify(claim, at)  # a caller's own Verification gives the same flag
        assert context.flag(engine, claim, at, v) == context.flag(engine, claim, at)


def test_state_rendering_shows_standing_groundedness_and_awareness():
    engine, _ = replay("phase2.yaml", upto=3)
    text = context.render_state(engine)
    assert text.startswith("Dependency map after T3\n")
    assert "- o8 (observation) [active, grounded]: Redis connection timeouts from Payment Service; bob, T3" in text
    assert "Not yet in anyone's awareness" in text and "- mis_monitor: The monitoring rule conflates" in text
    md = context.render_state(engine, fmt="markdown")
    assert md.startswith("## Dependency map after T3\n") and "- `o8` (observation) **active, grounded**" in md
    engine.close()


def test_state_at_an_earlier_turn(phase2):
    engine, _ = phase2
    assert "- h2 (hypothesis) [active, grounded]" in context.render_state(engine, at=6)
    now = context.render_state(engine)
    assert "- h2 (hypothesis) [abandoned at T9 by o9]" in now and "Out of standing" in now


def test_a_budget_keeps_flags_and_standing_claims_first(phase3):
    engine, _ = phase3
    full = context.render_state(engine)
    short = context.render_state(engine, budget=120)
    assert count_tokens(short) <= 120 < count_tokens(full)
    assert "decision alpha18 no longer grounded" in short and "more lines left out to fit 120 tokens" in short
    assert "Commitments" not in short
    assert context.render_state(engine, budget=3) == ""


@budget(40)
@given(st.integers(0, 1500), st.sampled_from(["text", "markdown"]))
def test_the_budget_is_never_exceeded(phase3, limit, fmt):
    engine, _ = phase3
    text = context.render_state(engine, budget=limit, fmt=fmt)
    full = context.render_state(engine, fmt=fmt)
    assert count_tokens(text) <= limit
    if count_tokens(full) <= limit:
        assert text == full
    else:  # every line kept is a line of the full rendering, and the cut is said
        assert text == "" or ("left out to fit" in text and set(text.splitlines()[:-1]) <= set(full.splitlines()))


@given(st.lists(st.text(max_size=30), max_size=6))
def test_the_token_estimate_is_subadditive_over_lines(lines):
    """What lets the renderer fit a budget line by line."""
    lines = [line.replace("\n", " ") for line in lines]
    assert count_tokens("\n".join(lines)) <= sum(map(count_tokens, lines)) + max(len(lines) - 1, 0)


def test_token_estimate_rules():
    assert count_tokens("") == 0
    assert count_tokens("Redis connection timeouts.") == 1 + 2 + 2 + 1  # words over 7 letters: a token per 7
    assert count_tokens("2026") == 2 and count_tokens("a\nb") == 2  # 202|6; a, "\nb"
