"""The try-it page (issue 22 item 7): `grounded try` serves the step-through page and POST /whatif, the
real rules deciding; in a real headless browser a class picks a turn, proposes an utterance and sees the
transitions, or the rules' code and message.  The page written to a file says how to start the server.

The server is the command itself, in a process of its own on 127.0.0.1 (a free port), stopped after the
module; every wait on it is bounded.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from grounded.cli.app import load_engine
from grounded.present.book import book
from grounded.present.summary import whatif_json

from .browser import close, driver

ROOT = Path(__file__).resolve().parents[1]
PHASE1 = ROOT / "scenarios" / "phase1.yaml"
START_SECONDS = 120

ACCEPTED = {"speaker": "alice", "ops": [{"op": "observe", "claim": "know_alice"}]}
REJECTED = {"speaker": "bob", "ops": [{"op": "revise", "target": "zzz"}]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "grounded", "try", "scenarios/phase1.yaml", "--port", str(port)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, f"grounded try did not answer within {START_SECONDS} s"
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


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
            assert answer == json.loads(json.dumps(whatif_json(engine.whatif(utterance, at=2))))
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
    from selenium.webdriver.support.wait import WebDriverWait

    b = driver(1280, 720)
    try:
        b.get(server + "#t=1")
        b.find_element(By.ID, "next").click()  # pick T2: after the three "I don't know"
        assert b.find_element(By.ID, "try-box").get_attribute("data-at") == "2"
        assert not b.find_element(By.ID, "try-offline").is_displayed()
        ops = [o.get_attribute("value") for o in Select(b.find_element(By.ID, "try-op")).options]
        assert ops == ["observe", "hypothesize", "support", "undermine", "revise", "expand_awareness", "resolve",
                       "question"]
        Select(b.find_element(By.ID, "try-speaker")).select_by_value("alice")
        Select(b.find_element(By.ID, "try-op")).select_by_value("observe")
        b.find_element(By.CSS_SELECTOR, '#try-fields input[name="claim"]').send_keys("know_alice")
        b.find_element(By.ID, "try-submit").click()
        result = b.find_element(By.ID, "try-result")
        WebDriverWait(b, 60).until(lambda _: result.get_attribute("data-state") == "accepted")
        names = [e.get_attribute("data-name") for e in b.find_elements(By.CSS_SELECTOR, "#try-transitions li")]
        assert names == ["turn", "new_arg", "commit", "announce", "problem"]
        assert "announce(know_alice)" in b.find_element(By.ID, "try-transitions").text
        assert "M: |W| 4 -> 2" in b.find_element(By.ID, "try-changes").text
        assert b.find_element(By.ID, "turn").text == "T2"  # the page's own turn did not move: nothing recorded
        # a utterance the rules reject: their code and message
        Select(b.find_element(By.ID, "try-speaker")).select_by_value("bob")
        Select(b.find_element(By.ID, "try-op")).select_by_value("revise")
        b.find_element(By.CSS_SELECTOR, '#try-fields input[name="target"]').send_keys("zzz")
        b.find_element(By.ID, "try-submit").click()
        WebDriverWait(b, 60).until(lambda _: result.get_attribute("data-state") == "rejected")
        row = b.find_element(By.CSS_SELECTOR, "#try-violations tr.violation")
        assert row.get_attribute("data-code") == "revise_target_unknown"
        assert "no argument claims zzz, so there is nothing to revise" in row.text
        assert not b.find_element(By.ID, "try-transitions-box").is_displayed()
    finally:
        close(b)


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
    finally:
        close(b)
