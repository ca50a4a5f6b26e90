"""Exercise mode on the page, and the pendulum course scenario through run, book and show.

The page shows a turn's questions and takes the student's answer; the engine's
answer is not in the visible DOM until the student checks, and what the rules
did (picture, table, outcome) stays hidden until every question of the turn is
checked, unless the lecturer unticks exercise mode.  Keys still step turns.
The course scenario was written from docs/scenarios.md alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grounded.present.book import book
from grounded.scenario import Scenario

from .browser import close, driver
from .inprocess import grounded

pytestmark = pytest.mark.browser  # headless Chromium: left out of `make check`

ROOT = Path(__file__).resolve().parents[1]
PENDULUM = ROOT / "scenarios" / "pendulum.yaml"


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("exercise") / "pendulum.html"
    result = grounded("book", PENDULUM, "-o", out)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def browser():
    d = driver()
    yield d
    close(d)


def _questions(b):
    from selenium.webdriver.common.by import By

    return b.find_elements(By.CSS_SELECTOR, "#questions li.question")


def test_the_answer_is_revealed_only_when_checked_and_sets_compare_ignoring_order(page, browser):
    from selenium.webdriver.common.by import By

    b = browser
    b.get(page.as_uri() + "#t=5")
    first, second = _questions(b)
    assert second.find_element(By.CLASS_NAME, "ask").text == "And what rests on it at all (Affected*)?"
    exercise = b.find_element(By.ID, "exercise")
    # before: the question, a field, no answer anywhere visible; what the rules did is hidden too
    assert exercise.is_displayed() and not b.find_elements(By.CSS_SELECTOR, ".engine-answer")
    assert "h_length" not in exercise.text and "h_method" not in exercise.text
    visible = b.find_element(By.TAG_NAME, "body").text
    assert "hop 3" not in visible and "the engine:" not in visible and "accepted" not in visible
    assert b.find_element(By.TAG_NAME, "body").get_attribute("data-exercise") == "pending"
    assert not b.find_element(By.ID, "picture-box").is_displayed()
    assert not b.find_element(By.ID, "state-box").is_displayed()
    assert b.find_element(By.ID, "exercise-wait").is_displayed()

    second.find_element(By.CSS_SELECTOR, "input[type=text]").send_keys("h_method, h_stretch h_length")
    second.find_element(By.CSS_SELECTOR, "button.check").click()
    assert second.get_attribute("data-result") == "right"
    assert second.find_element(By.CLASS_NAME, "engine-answer").text.startswith(
        "right the engine: h_stretch, h_length, h_method")
    assert not b.find_element(By.ID, "picture-box").is_displayed()  # one question still open

    box = first.find_element(By.CSS_SELECTOR, "input[type=text]")
    box.send_keys("h_stretch, h_length")
    box.send_keys("\n")  # Enter checks
    assert first.get_attribute("data-result") == "wrong"
    assert "not quite the engine: h_stretch" in first.find_element(By.CLASS_NAME, "engine-answer").text
    assert b.find_element(By.ID, "picture-box").is_displayed() and b.find_element(By.ID, "state-box").is_displayed()
    assert not b.find_element(By.ID, "exercise-wait").is_displayed()


def test_keys_step_turns_and_a_checked_answer_stays_checked(page, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    b = browser
    b.get(page.as_uri() + "#t=6")
    body = b.find_element(By.TAG_NAME, "body")
    assert b.find_element(By.ID, "turn").text == "T6"
    verify, standing = _questions(b)
    assert "weakened" not in b.find_element(By.ID, "exercise").text.replace(
        standing.find_element(By.CLASS_NAME, "student").text, "")  # only as a choice, not as the answer
    verify.find_element(By.CSS_SELECTOR, "input[value=no]").click()
    verify.find_element(By.CSS_SELECTOR, "button.check").click()
    assert verify.get_attribute("data-result") == "right"
    assert "h_count weakened at T6 by o_video" in verify.text
    standing.find_element(By.CSS_SELECTOR, "button.check").click()  # revealed without an answer: not marked
    assert standing.get_attribute("data-result") == "unanswered" and "the engine: weakened" in standing.text

    body.send_keys(Keys.ARROW_RIGHT)
    assert b.find_element(By.ID, "turn").text == "T7" and body.get_attribute("data-exercise") == "pending"
    body.send_keys(Keys.ARROW_LEFT)
    assert b.find_element(By.ID, "turn").text == "T6" and body.get_attribute("data-exercise") == "done"
    assert _questions(b)[0].get_attribute("data-result") == "right"
    # typing in an answer field does not step the turn
    b.get(page.as_uri() + "#t=10")
    field = _questions(b)[1].find_element(By.CSS_SELECTOR, "input[type=text]")
    field.send_keys("h_length", Keys.ARROW_LEFT, " ")
    assert b.find_element(By.ID, "turn").text == "T10"


def test_unticking_exercise_mode_shows_what_the_rules_did_but_not_the_answers(page, browser):
    from selenium.webdriver.common.by import By

    b = browser
    b.get(page.as_uri() + "#t=8")
    assert not b.find_element(By.ID, "picture-box").is_displayed()
    b.find_element(By.ID, "exercise-mode").click()
    assert b.find_element(By.ID, "picture-box").is_displayed()
    assert not b.find_elements(By.CSS_SELECTOR, ".engine-answer")
    b.find_element(By.ID, "exercise-mode").click()
    b.get(page.as_uri() + "#t=0")  # a turn without questions shows no exercise and hides nothing
    assert not b.find_element(By.ID, "exercise").is_displayed()
    assert b.find_element(By.ID, "picture-box").is_displayed()


def test_the_course_scenario_has_a_note_and_questions_on_every_turn_and_runs_clean():
    scenario = Scenario.load(PENDULUM)
    assert 8 <= len(scenario.turns) <= 12
    assert all(t.note and t.questions for t in scenario.turns)
    assert {q.kind for t in scenario.turns for q in t.questions} == {"verify", "standing", "affected*", "affected",
                                                                       "dep"}
    result = grounded("run", PENDULUM)
    assert result.returncode == 0, result.stdout
    assert ", 0 failed" in result.stdout and result.stdout.count("question: ") == sum(
        len(t.questions) for t in scenario.turns)
    html, conv = book(PENDULUM)
    assert len(conv.frames) == len(scenario.turns) + 1 and all(f.status == "accepted" for f in conv.frames[1:])


def test_the_course_scenario_draws_at_every_turn(tmp_path):
    """`grounded show --all-turns` writes one picture per turn of the course scenario."""
    out = tmp_path / "slides"
    result = grounded("show", PENDULUM, "--all-turns", "-o", out, "--no-cache")
    assert result.returncode == 0, result.stderr
    slides = sorted(out.glob("*.svg"))
    assert len(slides) == len(Scenario.load(PENDULUM).turns), [p.name for p in slides]
    for slide in slides:
        assert slide.read_text(encoding="utf-8").lstrip().startswith(("<?xml", "<svg"))
