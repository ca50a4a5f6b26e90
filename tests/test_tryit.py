"""The try-it page (issue 22 item 7): `grounded try` serves the step-through page and POST /whatif, the
real rules deciding; in a real headless browser a class picks a turn, proposes an utterance and sees the
transitions, or the rules' code and message.  The page written to a file says how to start the server.

The server is the command itself, in a process of its own on 127.0.0.1 (tests/tryit_server.py), stopped
after the module; every wait on it is bounded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from grounded.cli.app import load_engine
from grounded.present.book import book
from grounded.present.summary import whatif_json

from .browser import close, driver
from .tryit_server import propose, try_server

pytestmark = pytest.mark.browser  # headless Chromium and a served page: left out of `make check`

ROOT = Path(__file__).resolve().parents[1]
PHASE1 = ROOT / "scenarios" / "phase1.yaml"

ACCEPTED = {"speaker": "alice", "ops": [{"op": "observe", "claim": "know_alice"}]}
REJECTED = {"speaker": "bob", "ops": [{"op": "revise", "target": "zzz"}]}


@pytest.fixture(scope="module")
def server():
    with try_server("scenarios/phase1.yaml") as url:
        yield url


def post(url: str, body: bytes, kind: str = "application/json") -> tuple[int, dict]:
    req = urllib.request.Request(url + "whatif", data=body, headers={"Content-Type": kind}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def test_whatif_answers_as_the_engine_does(server):
    engine = load_engine(PHASE1, None)
    try:
        for utterance in (ACCEPTED, REJECTED):
            status, answer = post(server, json.dumps({"at": 2, "utterance": utterance}).encode())
            assert status == 200
            pictures = {k: answer.pop(k) for k in ("svg", "worlds_svg")}  # the answer drawn, beside the words
            assert answer == json.loads(json.dumps(whatif_json(engine.whatif(utterance, at=2))))
            assert pictures["svg"].startswith("<svg") and 'id="try-arg1"' in pictures["svg"]
            assert pictures["worlds_svg"].count('class="node"') == (2 if utterance is ACCEPTED else 4)
    finally:
        engine.close()
    status, answer = post(server, json.dumps({"at": 2, "utterance": ACCEPTED}).encode())
    assert answer["accepted"] and answer["turn"] == 3
    assert ["announce", "know_alice"] == answer["transitions"][3][1:]
    assert "M: |W| 4 -> 2  (!know_alice)" in answer["changes"]


@pytest.mark.parametrize(("body", "status", "words"), [
    (b'{"at": 2}', 422, "body.utterance: Field required"),
    (b'{"at": 2, "utterance": {"speaker": "bob", "ops": []}, "why": 1}', 422, "body.why: Extra inputs"),
    (b'{"at": 99, "utterance": {"speaker": "bob", "ops": []}}', 422, "at: 99 is past the conversation's last turn, 5"),
    (b'{"at": -3, "utterance": {"speaker": "bob", "ops": []}}', 422, "body.at"),
    (b'{"utterance": {"speaker": "bob", "ops": [{"op": "observe"}]}}', 422,
     "utterance: ops[0].claim: Field required"),
    (b'{"utterance": {"speaker": "bob", "ops": [{"op": "shout", "claim": "x"}]}}', 422, "utterance: ops[0]"),
    (b"not json", 422, "JSON"),
    (b'{"utterance": {"speaker": "bob", "text": "' + b"x" * 70_000 + b'"}}', 413, ""),
])
def test_bad_requests_are_4xx_naming_what_is_wrong(server, body, status, words):
    got, answer = post(server, body)
    assert got == status, answer
    if words:
        assert words in answer["message"]


def test_a_class_tries_an_accepted_and_a_rejected_utterance(server):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    b = driver(1280, 720)
    try:
        b.get(server + "#t=1")
        b.find_element(By.ID, "next").click()  # pick T2: after the three "I don't know"
        assert b.find_element(By.ID, "try-box").get_attribute("data-at") == "2"
        assert not b.find_element(By.ID, "try-offline").is_displayed()
        ops = [o.get_attribute("value") for o in Select(b.find_element(By.ID, "try-op")).options]
        assert ops == ["observe", "hypothesize", "support", "undermine", "revise", "expand_awareness", "resolve",
                       "question"]
        assert propose(b, "alice", "observe", {"claim": "know_alice"}) == "accepted"
        names = [e.get_attribute("data-name") for e in b.find_elements(By.CSS_SELECTOR, "#try-transitions li")]
        assert names == ["turn", "new_arg", "commit", "announce", "problem"]
        assert "announce(know_alice)" in b.find_element(By.ID, "try-transitions").text
        assert "M: |W| 4 -> 2" in b.find_element(By.ID, "try-changes").text
        assert b.find_element(By.ID, "turn").text == "T2"  # the page's own turn did not move: nothing recorded
        # a utterance the rules reject: their code and message
        assert propose(b, "bob", "revise", {"target": "zzz"}) == "rejected"
        row = b.find_element(By.CSS_SELECTOR, "#try-violations tr.violation")
        assert row.get_attribute("data-code") == "revise_target_unknown"
        assert "no argument claims zzz, so there is nothing to revise" in row.text
        assert not b.find_element(By.ID, "try-transitions-box").is_displayed()
    finally:
        close(b)


def test_presentation_mode_tries_with_literals_from_the_state_and_draws_the_hypothetical_map(server):
    """Presentation mode with the form (key y): a literal of the state is put in a field by a click (typing
    still works), the answer's map takes the picture's place with a banner saying nothing is recorded, the
    world model shows the worlds the utterance would leave, in type of 18 px or more, and stepping the turn
    brings the turn's own map back."""
    from selenium.webdriver.common.by import By

    from .test_book_present import viewport
    from .test_page_fits import FITS

    b = driver(1280, 720)
    try:
        viewport(b, 1280, 720)
        b.get(server + "#t=1&present")
        b.find_element(By.TAG_NAME, "body").send_keys("y")
        assert b.find_element(By.ID, "try-box").is_displayed() and "&try" in b.execute_script("return location.hash")
        chips = [c.get_attribute("data-literal") for c in b.find_elements(By.CSS_SELECTOR, "#try-literals button")]
        assert chips == ["some_muddy"]  # the literals of the state after T1
        b.find_element(By.CSS_SELECTOR, '#try-literals button[data-literal="some_muddy"]').click()
        assert b.find_element(By.CSS_SELECTOR, '#try-fields input[name="claim"]').get_attribute("value") == "some_muddy"
        b.find_element(By.CSS_SELECTOR, '#try-fields input[name="claim"]').clear()
        keep = (("observe", {"claim": "dk_alice"}), ("observe", {"claim": "dk_bob"}))
        assert propose(b, "children", "observe", {"claim": "dk_carol"}, keep=keep) == "accepted"
        assert b.find_element(By.ID, "try-banner").is_displayed()
        drawn = {g.get_attribute("id") for g in b.find_elements(By.CSS_SELECTOR, "#picture g.node")}
        assert len(drawn) == 4 and all(i.startswith("try-") for i in drawn)  # some_muddy and the three answers
        # the worlds it would leave: four live, the three it eliminates leaving, {} gone before
        assert len(b.find_elements(By.CSS_SELECTOR, "#kripke svg g.node:not(.ghost)")) == 4
        assert len(b.find_elements(By.CSS_SELECTOR, "#kripke svg g.node.ghost.leaving")) == 3
        m = b.execute_script(FITS, 18)
        assert m["small"] == [] and m["svg"] >= 18, m
        b.find_element(By.TAG_NAME, "body").send_keys("\ue014")  # the right arrow: the next turn's own map
        assert not b.find_element(By.ID, "try-banner").is_displayed()
        assert b.find_elements(By.CSS_SELECTOR, "#picture g#arg1")
    finally:
        close(b)


def test_one_utterance_of_three_operations_is_read_at_once(server):
    """Phase 1's round one proposed from the page after T1: the three "I don't know" in one utterance."""
    from selenium.webdriver.common.by import By

    b = driver()
    try:
        b.get(server + "#t=1")
        keep = (("observe", {"claim": "dk_alice"}), ("observe", {"claim": "dk_bob"}))
        assert propose(b, "children", "observe", {"claim": "dk_carol"}, keep=keep) == "accepted"
        assert len(b.find_elements(By.CSS_SELECTOR, "#try-pending li")) == 2
        outcome = b.find_element(By.ID, "try-outcome").text
        assert "T2 children observe dk_alice; observe dk_bob; observe dk_carol" in outcome
        assert "M: |W| 7 -> 4" in b.find_element(By.ID, "try-changes").text  # read in one model, as the scenario's T2
    finally:
        close(b)


def test_a_bad_file_is_the_commands_error_before_anything_listens(tmp_path):
    bad = tmp_path / "talk.jsonl"
    bad.write_text("not a log\n")
    r = subprocess.run([sys.executable, "-m", "grounded", "try", str(bad), "--port", "1"], capture_output=True,
                       text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 2 and f"{bad}:1: invalid JSON" in r.stderr


def test_the_page_as_a_file_says_how_to_start_the_server(tmp_path):
    from selenium.webdriver.common.by import By

    page = tmp_path / "phase1.html"
    page.write_text(book(PHASE1)[0], encoding="utf-8")
    b = driver()
    try:
        b.get(page.as_uri() + "#t=2")
        note = b.find_element(By.ID, "try-offline")
        assert note.is_displayed()
        assert f"grounded try {PHASE1}" in note.text
        b.find_element(By.CSS_SELECTOR, '#try-fields input[name="claim"]').send_keys("know_alice")
        b.find_element(By.ID, "try-submit").click()
        assert "Nothing was tried" in note.text
        assert not b.find_element(By.ID, "try-result").is_displayed()
        # every operation's inputs are its model's fields (the registry's JSON Schema), the required ones marked
        from selenium.webdriver.support.select import Select

        from grounded import Engine

        with Engine() as engine:
            schema = engine.registry.utterance_model.model_json_schema()
        for ref in schema["properties"]["ops"]["items"]["oneOf"]:
            model = schema["$defs"][ref["$ref"].rsplit("/", 1)[-1]]
            Select(b.find_element(By.ID, "try-op")).select_by_value(model["properties"]["op"]["const"])
            inputs = b.find_elements(By.CSS_SELECTOR, "#try-fields input")
            assert [i.get_attribute("name") for i in inputs] == [f for f in model["properties"] if f != "op"]
            assert {i.get_attribute("name") for i in inputs if i.get_attribute("required")} == set(model["required"])
    finally:
        close(b)


def test_screenshots_are_1280x720():
    """docs/tryit-phase1-t2.png and docs/world-phase1-t1.png, as `python -m tests.screenshots` makes them."""
    from PIL import Image

    from .screenshots import SIZE, TRYIT, WORLD

    for path in (TRYIT, WORLD):
        image = Image.open(path).convert("RGB")
        assert image.size == SIZE == (1280, 720), path
        colours = image.getcolors(maxcolors=1 << 20)
        assert colours is not None and len(colours) > 50, path
        assert max(colours)[0] / (image.width * image.height) < 0.9, f"{path} is mostly one colour"


def test_keys_in_the_form_do_not_step_the_page(tmp_path):
    """Arrow keys on the operation picker and Space on the button are the form's, not the clicker's."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = tmp_path / "phase1.html"
    page.write_text(book(PHASE1)[0], encoding="utf-8")
    b = driver()
    try:
        b.get(page.as_uri() + "#t=2")
        b.find_element(By.ID, "try-op").send_keys(Keys.ARROW_RIGHT)
        b.find_element(By.ID, "try-submit").send_keys(Keys.SPACE)
        assert b.find_element(By.ID, "turn").text == "T2"
        b.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)  # outside the form the keys still step
        assert b.find_element(By.ID, "turn").text == "T3"
    finally:
        close(b)
