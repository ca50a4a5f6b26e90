"""The page by keyboard alone, in a real headless Chromium: nodes, rows, claims and literals take the focus and
answer Enter (Verify; the key a on a node: Affected*), the view keys work after the slider, Escape lets the focus
go (and then closes the queries), and an arrow on an exercise's radio button steps the turn without touching the
student's answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from .browser import write_pages

pytestmark = pytest.mark.browser  # headless Chromium: left out of `make check`


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    return write_pages(tmp_path_factory.mktemp("keys"), ["phase3", "pendulum"])


@pytest.fixture(scope="module")
def b(browser):
    return browser


def active(b) -> str:
    return b.execute_script("const e = document.activeElement; return e.id || e.tagName.toLowerCase()")


def press(b, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(b).send_keys(key).perform()


def test_nodes_and_rows_take_the_focus_and_answer_enter(pages, b):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    b.get("about:blank")
    b.get(pages["phase3"].as_uri() + "#t=20&present")
    # Tab reaches the picture's nodes (after the controls): the first node focused by Tab alone
    for _ in range(40):  # bounded: the controls, then the nodes
        press(b, Keys.TAB)
        if b.execute_script("return document.activeElement.matches('#picture g.node')"):
            break
    else:
        pytest.fail("Tab never reached a node of the picture")
    node = b.execute_script("return document.activeElement.id")
    claim = b.execute_script("return JSON.parse(document.getElementById('book-data').textContent).args[arguments[0]]",
                             node[3:])
    press(b, Keys.ENTER)
    verify = b.find_element(By.ID, "verify")
    assert verify.is_displayed() and verify.get_attribute("data-claim") == claim
    assert f"claim={claim}" in b.execute_script("return location.hash")
    press(b, "a")  # the same node: Affected* of its claim
    assert b.find_element(By.ID, "affected").get_attribute("data-literal") == claim
    press(b, Keys.ESCAPE)  # the focus let go, the queries kept
    assert active(b) == "body" and b.find_element(By.ID, "verify").is_displayed()
    press(b, Keys.ESCAPE)  # nothing focused: the queries closed
    assert not b.find_element(By.ID, "verify").is_displayed()
    assert "claim=" not in b.execute_script("return location.hash")
    # out of presentation mode a row of the table: focused, Enter asks Verify of its claim
    press(b, "p")
    row = b.find_element(By.CSS_SELECTOR, '#standings tr[data-claim="alpha18"]')
    b.execute_script("arguments[0].focus()", row)
    press(b, Keys.ENTER)
    assert b.find_element(By.ID, "verify").get_attribute("data-claim") == "alpha18"
    assert b.find_element(By.ID, "verify").get_attribute("data-status") != "grounded"


def test_view_keys_work_after_the_slider_and_escape_lets_it_go(pages, b):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    b.get("about:blank")
    b.get(pages["phase3"].as_uri() + "#t=5")
    slider = b.find_element(By.ID, "slider")
    slider.click()
    assert active(b) == "slider"
    press(b, "p")
    assert "present" in b.find_element(By.TAG_NAME, "body").get_attribute("class").split()
    press(b, "k")
    assert "&legend" in b.execute_script("return location.hash")
    turn = b.find_element(By.ID, "turn").text
    press(b, Keys.ARROW_RIGHT)  # the slider's own step, once
    after = b.find_element(By.ID, "turn").text
    assert int(after[1:]) == int(turn[1:]) + 1
    press(b, Keys.ESCAPE)
    assert active(b) == "body"
    press(b, Keys.ARROW_RIGHT)  # now the page's: one step, not two
    assert int(b.find_element(By.ID, "turn").text[1:]) == int(after[1:]) + 1


def test_arrows_never_change_an_exercise_answer(pages, b):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    b.get("about:blank")
    b.get(pages["pendulum"].as_uri() + "#t=8")
    b.execute_script("window.radioChanges = 0; document.addEventListener('change', (e) => {"
                     " if (e.target.type === 'radio') window.radioChanges += 1; });")
    yes = b.find_element(By.CSS_SELECTOR, '#questions input[type=radio][value="yes"]')
    yes.click()
    assert b.execute_script("return window.radioChanges") == 1
    for key, turn in ((Keys.ARROW_RIGHT, "T9"), (Keys.ARROW_LEFT, "T8")):
        if key == Keys.ARROW_LEFT:
            b.find_element(By.CSS_SELECTOR, '#questions input[type=radio][value="yes"]').click()
            b.execute_script("window.radioChanges = 1")
        press(b, key)
        assert b.find_element(By.ID, "turn").text == turn
        assert b.execute_script("return window.radioChanges") == 1  # the answer was not changed by the arrow
