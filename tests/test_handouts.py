"""Handouts from the page, in a real headless Chromium: the worksheet (questions, no answers), the answer key
apart, every turn's handout in type of 8 pt or more, and the answers out of the page's source until Check."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from grounded.present.book import book
from grounded.present.sealed import seal, unseal
from grounded.scenario import Scenario

from .browser import close, driver
from .test_book import embedded_data
from .test_book_present import _pdf_pages

ROOT = Path(__file__).resolve().parents[1]
PENDULUM = ROOT / "scenarios" / "pendulum.yaml"
A4_LANDSCAPE = (1032, 703)
"""A4 landscape less the page's 12 mm margins, in CSS px: the print emulated at the printed page's width."""

PRINTED = """
const out = {pt: [], svg: [], answers: document.querySelectorAll('#print-turns .print-answer').length,
  pages: document.querySelectorAll('#print-turns .print-turn').length,
  questions: document.querySelectorAll('#print-turns .print-question').length};
const walker = document.createTreeWalker(document.getElementById('print-turns'), NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  if (!n.textContent.trim()) continue;
  const t = n.parentElement.closest('svg text');
  if (t) out.svg.push(parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a * 0.75);
  else if (!n.parentElement.closest('svg')) out.pt.push(parseFloat(getComputedStyle(n.parentElement).fontSize) * 0.75);
}
return {...out, pt: Math.min(...out.pt), svg: out.svg.length ? Math.min(...out.svg) : null};
"""


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("handouts") / "pendulum.html"
    out.write_text(book(PENDULUM)[0], encoding="utf-8")
    return out


def test_sealing_round_trips_and_hides_the_answer():
    answer = {"value": ["o_cord"], "shown": ["o_cord"], "detail": "weakened by o_label"}
    sealed = seal(answer, "8:0:dep h_length")
    assert unseal(sealed, "8:0:dep h_length") == answer
    assert "o_cord" not in sealed and "weakened" not in sealed
    assert unseal(seal(answer, "8:1:dep h_length"), "8:1:dep h_length") == answer
    assert seal(answer, "8:1:dep h_length") != sealed  # the key is the question's


def test_the_answers_are_not_in_the_pages_source(page):
    """No question carries its answer as such: only sealed, and the sealed text holds none of it."""
    data = embedded_data(page.read_text(encoding="utf-8"))
    questions = [q for f in data["frames"] for q in f["questions"]]
    assert len(questions) == sum(len(t.questions) for t in Scenario.load(PENDULUM).turns) > 10
    for q in questions:
        assert "answer" not in q and set(q) >= {"sealed", "key"}
        answer = unseal(q["sealed"], q["key"])
        assert set(answer) >= {"value", "shown"}
        for word in answer["shown"]:
            assert word not in q["sealed"]


@pytest.mark.browser
def test_worksheet_and_answer_key_print_apart_in_type_of_8_pt_or_more(page, tmp_path):
    from selenium.webdriver.common.print_page_options import PrintOptions

    asked = {t.turn: [q.ask for q in t.questions] for t in Scenario.load(PENDULUM).turns if t.questions}
    b = driver()
    try:
        options = PrintOptions()
        options.orientation = "landscape"
        found = {}
        for sheet in ("worksheet", "key", "2-4"):
            b.get("about:blank")
            b.get(page.as_uri() + f"#t=1&print={sheet}")
            pages = _pdf_pages(base64.b64decode(b.print_page(options)))
            b.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": A4_LANDSCAPE[0], "height": A4_LANDSCAPE[1], "deviceScaleFactor": 1, "mobile": False})
            b.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
            m = b.execute_script(PRINTED)
            b.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
            found[sheet] = (pages, m)
            assert m["pt"] >= 8 and (m["svg"] is None or m["svg"] >= 8), (sheet, m)
            texts = b.execute_script("return document.getElementById('print-turns').textContent")
            for turn, asks in asked.items():
                if sheet != "2-4":
                    assert all(a in texts for a in asks), (sheet, turn)
        questions = sum(len(a) for a in asked.values())
        # the worksheet: a page per turn with questions, every question, no answer, nothing the rules did
        assert found["worksheet"][0] == len(asked) and found["worksheet"][1]["questions"] == questions
        assert found["worksheet"][1]["answers"] == 0
        assert found["key"][0] == len(asked) and found["key"][1]["answers"] == questions
        assert found["2-4"][0] == 3 and found["2-4"][1]["svg"] is not None
        b.get("about:blank")
        b.get(page.as_uri() + "#t=8&print=worksheet")
        sheet = b.execute_script("return document.getElementById('print-turns').textContent")
        assert "weakened by" not in sheet and "the engine:" not in sheet
        b.get("about:blank")
        b.get(page.as_uri() + "#t=8&print=key")
        key = b.execute_script("return document.getElementById('print-turns').textContent")
        data = embedded_data(page.read_text(encoding="utf-8"))
        for q in (q for f in data["frames"] for q in f["questions"]):
            assert "the engine: " + (", ".join(unseal(q["sealed"], q["key"])["shown"]) or "nothing") in key
    finally:
        close(b)
