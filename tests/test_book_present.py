"""The page on a projector and on paper, in a real headless Chromium (issue 22, items 4 and 5).

Presentation mode is measured, not looked at: at 1280x720 and 1024x768 (the
viewport set through the DevTools protocol, as a projector's would be) every
turn of Phase 3 is stepped through with the keys, and for each the picture must
lie inside the window with nothing to scroll, the picture block must not move,
and every node's text must be drawn at least 18 px (14 px) high: the SVG font
size times the scale the browser draws the SVG at (getScreenCTM).  Printing is
Chrome's own print to PDF, whose pages are counted.  The legend is read back
from a restyled view program.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from grounded.present.book import book
from grounded.present.picture import default_view

from .browser import close, driver
from .test_book import embedded_data

pytestmark = pytest.mark.browser  # headless Chromium: left out of `make check`

ROOT = Path(__file__).resolve().parents[1]

MEASURE = """
const svg = document.querySelector('#picture svg');
const r = svg.getBoundingClientRect();
const sizes = [...svg.querySelectorAll('g.node text')].map(
  (t) => parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a);
return {turn: document.getElementById('turn').textContent, top: document.getElementById('picture-box')
  .getBoundingClientRect().top, box: [r.left, r.top, r.right, r.bottom], window: [innerWidth, innerHeight],
  scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight], smallest: Math.min(...sizes),
  texts: sizes.length, first: (() => { const b = document.querySelector('#picture g#arg1 text')
    .getBBox(); return [b.x, b.y]; })()};
"""


def viewport(d, width: int, height: int) -> None:
    """The page's viewport exactly this size (a window's size includes the browser's own bars)."""
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("present")
    pages = {}
    for name in ("phase2", "phase3"):
        pages[name] = out / f"{name}.html"
        pages[name].write_text(book(ROOT / "scenarios" / f"{name}.yaml")[0], encoding="utf-8")
    return pages


@pytest.fixture(scope="module")
def browser():
    d = driver()
    yield d
    close(d)


@pytest.mark.parametrize(("width", "height", "least"), [(1280, 720, 18), (1024, 768, 14)])
def test_presentation_fits_every_turn_of_phase3_in_large_type_on_one_layout(pages, browser, width, height,
                                                                                 least):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    b = browser
    viewport(b, width, height)
    b.get(pages["phase3"].as_uri() + "#t=1")
    body = b.find_element(By.TAG_NAME, "body")
    body.send_keys("p")  # the key turns presentation mode on, and the URL says so
    assert "present" in body.get_attribute("class").split()
    assert b.execute_script("return location.hash") == "#t=1&present"
    turns, first = [], set()
    for _ in range(25):  # bounded: Phase 3 has 20 turns
        m = b.execute_script(MEASURE)
        turns.append(m["turn"])
        left, top, right, bottom = m["box"]
        assert 0 <= left and 0 <= top and right <= width and bottom <= height, m
        assert m["scroll"] == [width, height], m  # nothing to scroll to
        assert m["texts"] > 0 and m["smallest"] >= least, m
        # the query column is collapsed while it is empty: the picture takes the width
        assert not b.find_element(By.ID, "query-box").is_displayed()
        assert right - left > 0.9 * width
        first.add(tuple(round(v) for v in m["first"]))  # the first argument, drawn from T1 on (font hinting: 1 unit)
        if m["turn"] == "T20":
            break
        body.send_keys(Keys.ARROW_RIGHT)
    assert turns == [f"T{t}" for t in range(1, 21)]
    # the panel above the picture is as tall as the turn's utterance and changes, so the picture block moves
    # with it (the picture shrinks, never the lesson: test_page_fits); the layout is the conversation's, so
    # the first argument keeps its place in the drawing's own coordinates
    assert len(first) == 1, first
    # a click on a node opens the query column beside the picture, and the picture still fits
    b.find_element(By.CSS_SELECTOR, "#picture g.node.argument").click()
    assert b.find_element(By.ID, "query-box").is_displayed()
    m = b.execute_script(MEASURE)
    assert m["box"][2] <= width and m["box"][3] <= height and m["scroll"] == [width, height]
    body.send_keys(Keys.ARROW_LEFT)
    assert b.find_element(By.ID, "turn").text == "T19"
    body.send_keys("p")
    assert "present" not in body.get_attribute("class").split()


def test_presentation_mode_from_the_url_and_the_button(pages, browser):
    from selenium.webdriver.common.by import By

    b = browser
    viewport(b, 1280, 720)
    b.get(pages["phase2"].as_uri() + "#t=9&present")
    assert "present" in b.find_element(By.TAG_NAME, "body").get_attribute("class").split()
    # presentation draws the ids alone, on a layout of its own, large
    texts = [t.text for t in b.find_elements(By.CSS_SELECTOR, "#picture g#arg12 text")]
    assert texts == ["h2"], texts
    b.find_element(By.ID, "present-btn").click()
    assert "present" not in b.find_element(By.TAG_NAME, "body").get_attribute("class").split()
    assert b.execute_script("return location.hash") == "#t=9"
    assert len(b.find_elements(By.CSS_SELECTOR, "#picture g#arg12 text")) > 1  # the texts are back


def test_the_full_screen_button_asks_for_full_screen_in_presentation_mode(pages, browser):
    from selenium.webdriver.common.by import By

    b = browser
    b.get(pages["phase2"].as_uri() + "#t=3")
    b.execute_script("window.asked = 0; document.documentElement.requestFullscreen = function () {"
                     " window.asked += 1; return Promise.resolve(); };")
    b.find_element(By.ID, "fullscreen-btn").click()
    assert b.execute_script("return window.asked") == 1
    assert "present" in b.find_element(By.TAG_NAME, "body").get_attribute("class").split()


def test_light_and_dark_follow_the_system_and_the_toggle(pages, browser):
    from selenium.webdriver.common.by import By

    b = browser
    colour = "return [getComputedStyle(document.body).backgroundColor, " \
             "getComputedStyle(document.getElementById('said')).backgroundColor]"
    try:
        for scheme in ("light", "dark"):
            b.execute_cdp_cmd("Emulation.setEmulatedMedia",
                              {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
            b.get("about:blank")  # a new document: the same file with another #hash would not be loaded again
            b.get(pages["phase2"].as_uri() + "#t=9")
            seen = b.execute_script(colour)
            if scheme == "light":
                light = seen
                assert "dark" not in b.find_element(By.TAG_NAME, "body").get_attribute("class").split()
            else:
                dark = seen
        assert dark[0] != light[0] and dark[1] != light[1]
        assert sum(map(int, re.findall(r"\d+", dark[0])[:3])) < sum(map(int, re.findall(r"\d+", light[0])[:3]))
        b.find_element(By.ID, "theme-btn").click()  # the toggle overrides the system's choice
        assert b.execute_script(colour) == light
    finally:
        b.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def _pdf_pages(pdf: bytes) -> int:
    """Pages of a PDF: its page objects (``/Type /Page``, not ``/Pages``)."""
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))


def test_printing_gives_one_turn_a_page_or_the_range_asked_for(pages, browser):
    from selenium.webdriver.common.print_page_options import PrintOptions

    b = browser
    b.get("about:blank")
    options = PrintOptions()
    options.orientation = "landscape"
    b.get(pages["phase3"].as_uri() + "#t=4")
    assert _pdf_pages(base64.b64decode(b.print_page(options))) == 20
    b.get(pages["phase3"].as_uri() + "#t=4&print=9-13")
    assert _pdf_pages(base64.b64decode(b.print_page(options))) == 5
    b.get(pages["phase3"].as_uri() + "#t=4&present&print=9-13")  # presentation mode prints the same handout
    assert _pdf_pages(base64.b64decode(b.print_page(options))) == 5
    turns = b.execute_script("return [...document.querySelectorAll('#print-turns .print-turn')]"
                             ".map((s) => s.dataset.turn)")
    assert turns == ["9", "10", "11", "12", "13"]
    # the printed copies do not take the ids of the page's own picture
    assert b.execute_script("return document.querySelectorAll('[id=\"arg1\"]').length") == 1


def _legend(page: str) -> dict[str, dict[str, str]]:
    """The legend's entries by meaning, with the attributes each shows (data-*)."""
    out = {}
    for m in re.finditer(r'<span class="lg-entry[^"]*"([^>]*)>', page):
        attrs = dict(re.findall(r'data-([a-z]+)="([^"]*)"', m.group(1)))
        out[attrs["meaning"]] = attrs
    return out


def test_the_legend_is_what_the_view_program_drew_and_follows_a_restyle(tmp_path):
    phase3 = ROOT / "scenarios" / "phase3.yaml"
    legend = _legend(book(phase3)[0])
    # every shape Phase 3 draws is in it, the decision as the hexagon it is drawn as
    shapes = {m: a.get("shape") for m, a in legend.items()}
    assert {shapes[k] for k in ("decision", "position", "assumption", "constraint", "question")} == {
        "hexagon", "house", "parallelogram", "box3d", "note"}
    assert shapes["literal no argument claims"] == "plaintext"
    for meaning in ("active", "abandoned", "grounded \u2713", "not grounded \u2717", "where grounding fails",
                    "changed this turn", "lost its grounding this turn", "open problem", "attack", "explains",
                    "an agent dissents from a decision", "the Dep step where grounding fails"):
        assert meaning in legend, meaning
    assert legend["abandoned"]["fillcolor"] == "#f6d0cc" and "dashed" in legend["abandoned"]["style"]
    # a lecturer's restyle: hypotheses as octagons, active arguments blue, attacks green
    restyled = tmp_path / "mine.lp"
    text = default_view().read_text()
    for old, new in (('shape(hypothesis, "ellipse")', 'shape(hypothesis, "octagon")'),
                     ('fill(active, "#dff3df")', 'fill(active, "#cfe3ff")'),
                     ('attr(edge, (B, A, attack), color, "#c0392b")', 'attr(edge, (B, A, attack), color, "#118811")')):
        assert old in text, old
        text = text.replace(old, new)
    restyled.write_text(text)
    mine = _legend(book(phase3, view=restyled)[0])
    assert mine["hypothesis"]["shape"] == "octagon" and legend["hypothesis"]["shape"] == "ellipse"
    assert mine["active"]["fillcolor"] == "#cfe3ff"
    assert mine["attack"]["color"] == "#118811"
    # and the samples are drawn that way: an octagon is a polygon of eight corners
    page = book(phase3, view=restyled)[0]
    sample = re.search(r'data-meaning="hypothesis".*?<polygon[^>]*points="([^"]*)"', page, re.S).group(1)
    assert len(sample.split()) == 9  # eight corners, the first repeated


def test_compare_two_turns_on_the_page(pages, browser):
    """Key d compares the shown turn with the one before; #diff=9 at T13 marks what appeared since T9,
    what changed standing and what lost grounding, as the engine has it."""
    from selenium.webdriver.common.by import By

    from grounded.cli.app import load_engine

    engine = load_engine(ROOT / "scenarios" / "phase2.yaml", None)
    try:
        dm = engine.state
        before = {a.id: a for a in engine.arguments(at=9)}
        after = engine.arguments(at=13)
        appeared = {a.claim for a in after if a.id not in before}
        restood = {a.claim for a in after if a.id in before and before[a.id].standing != a.standing}
        from grounded.queries.verify import grounded_arguments
        g9, g13 = grounded_arguments(dm, 9), grounded_arguments(dm, 13)
        lost = {a.claim for a in after if a.id in g9 and a.id not in g13 and a.standing in ("active", "resolved")}
    finally:
        engine.close()
    assert appeared and restood  # the comparison has something to show
    b = browser
    b.get("about:blank")
    b.get(pages["phase2"].as_uri() + "#t=13&diff=9")

    def marked(kind: str) -> set[str]:
        p = b.find_element(By.CSS_SELECTOR, f'#diff p[data-mark="{kind}"]')
        return set(filter(None, p.get_attribute("data-claims").split(",")))

    assert marked("appeared") == appeared and marked("standing") == restood and marked("lost") == lost
    drawn = {e.get_attribute("id") for e in b.find_elements(By.CSS_SELECTOR, "#picture g.node.diff-appeared")}
    assert drawn == {f"arg{a.id}" for a in after if a.id not in before}
    # key d: off, then on against the turn before the one shown
    body = b.find_element(By.TAG_NAME, "body")
    body.send_keys("d")
    assert not b.find_element(By.ID, "diff").is_displayed() and "diff=" not in b.execute_script("return location.hash")
    body.send_keys("d")
    assert b.execute_script("return location.hash").endswith("&diff=12")


def test_the_screenshots_in_docs_are_what_the_page_shows(tmp_path):
    """docs/texts-*.png (the claims' texts in the nodes, through the labels toggle) and docs/present-*.png
    (presentation mode as it starts) are the page at 1280x720 as it draws them now: taken again by the same
    script (tests/screenshots.py), they match the committed ones but for anti-aliasing, and the
    documentation shows them."""
    from PIL import Image, ImageChops

    from .screenshots import PRESENT, SHOTS, SIZE, take
    from .test_page_fits import FITS

    measured: dict = {}
    taken = take(tmp_path, FITS, measured)
    assert [p.name for p in taken] == [s[3] for s in SHOTS]
    # presentation mode as a class sees it: nothing clipped, every text (the pictures' too) 18 px or more
    assert sorted(measured) == sorted(PRESENT) and len(PRESENT) == 4
    for name, m in measured.items():
        assert m["overflow"] == [] and m["small"] == [] and m["scroll"] == list(SIZE), (name, m)
        assert m["svg"] is None if name == "present-pendulum-t8.png" else m["svg"] >= 18, (name, m["svg"])
    assert measured["present-pendulum-t8.png"]["questions"] == {"inside": True, "items": 2}
    docs = (ROOT / "README.md").read_text() + (ROOT / "docs" / "views.md").read_text()
    for path in taken:
        committed = ROOT / "docs" / path.name
        assert committed.name in docs, committed.name
        new, old = Image.open(path).convert("RGB"), Image.open(committed).convert("RGB")
        assert new.size == old.size == SIZE
        differ = ImageChops.difference(new, old).convert("L").point(lambda v: 255 if v > 48 else 0)
        share = differ.histogram()[255] / (SIZE[0] * SIZE[1])
        assert share < 0.02, f"{committed.name}: {share:.1%} of the pixels differ; run `make screenshots`"
        assert len(new.getcolors(maxcolors=1 << 20) or []) > 50  # not blank


SMALL = """\
grounded: 1
title: "Two claims"
agents: {alice: {}, bob: {}}
turns:
  - turn: 1
    speaker: alice
    text: Redis times out on every write since noon.
    ops: [{op: observe, claim: o1, text: "Redis times out on every write."}]
  - turn: 2
    speaker: bob
    text: The connection pool is exhausted by retries.
    ops: [{op: hypothesize, claim: h1, deps: [o1], text: "The pool is exhausted by retries."}]
"""

FITTED = """
const svg = document.querySelector('#picture svg');
const r = svg.getBoundingClientRect();
const sizes = [...svg.querySelectorAll('g.node text')].map(
  (t) => parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a);
return {inside: r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight,
  scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
  smallest: Math.min(...sizes), lines: document.querySelectorAll('#picture g#arg1 text').length,
  hash: location.hash, button: document.getElementById('labels-btn').textContent,
  room: [document.getElementById('picture').clientWidth, document.getElementById('picture').clientHeight]};
"""


def test_the_labels_toggle_switches_presentation_between_ids_and_texts(pages, browser):
    """Key l (and the button) switch presentation mode's picture to the claims' texts and back; the URL
    says which, and either way the whole picture lies inside the window."""
    from selenium.webdriver.common.by import By

    b = browser
    viewport(b, 1280, 720)
    b.get("about:blank")
    b.get(pages["phase2"].as_uri() + "#t=9&present")
    body = b.find_element(By.TAG_NAME, "body")
    seen = []
    for step in ("start", "l", "button", "l"):
        if step == "l":
            body.send_keys("l")
        elif step == "button":
            b.find_element(By.ID, "labels-btn").click()
        m = b.execute_script(FITTED)
        assert m["inside"] and m["scroll"] == [1280, 720], m
        seen.append((m["lines"] > 1, m["hash"], m["button"]))  # the id alone is one line
    assert seen == [(False, "#t=9&present", "texts"), (True, "#t=9&present&labels=short", "ids"),
                    (False, "#t=9&present&labels=id", "texts"), (True, "#t=9&present&labels=short", "ids")]
    # the texts are the claim's own: o1's, under its id
    assert b.find_elements(By.CSS_SELECTOR, "#picture g#arg1 text")[1].text.startswith("Auth failure")
    b.find_element(By.ID, "present-btn").click()  # out of presentation mode the key does nothing
    assert not b.find_element(By.ID, "labels-btn").is_displayed()
    before = b.execute_script("return location.hash")
    body.send_keys("l")
    assert b.execute_script("return location.hash") == before


def test_the_labels_rule_is_what_chromium_draws(browser, tmp_path):
    """Presentation mode starts with texts when its rule (``book.type_size`` of the conversation's canvas
    fitted into PRESENT_AREA) finds them at least PRESENT_LEAST px, else with ids; measured in Chromium
    at 1280x720, ``type_size`` of the room the page leaves the picture is what the browser draws, the room
    of a short turn is at least PRESENT_AREA (the rule errs towards ids), and a conversation of two claims
    gets texts of 18 px or more while Phase 2 (18 nodes) gets ids."""
    from grounded.present.book import PRESENT_AREA, PRESENT_LEAST, type_size

    small = tmp_path / "small.yaml"
    small.write_text(SMALL)
    b = browser
    viewport(b, 1280, 720)
    found = {}
    for name, source in (("small", small), ("phase2", ROOT / "scenarios" / "phase2.yaml")):
        page = book(source)[0]
        data = embedded_data(page)
        rule = type_size(data["frames"][-1]["svg"], PRESENT_AREA)
        path = tmp_path / f"{name}.html"
        path.write_text(page, encoding="utf-8")
        b.get("about:blank")
        b.get(path.as_uri() + f"#t={data['frames'][-1]['turn']}&present&labels=short")
        drawn = b.execute_script(FITTED)
        assert drawn["inside"], drawn
        size = type_size(data["frames"][-1]["svg"], tuple(drawn["room"]))
        assert abs(drawn["smallest"] - size) < 0.02 * size + 0.3, (name, size, drawn)
        if name == "small":  # two short turns: the panel above the picture is short
            assert drawn["room"][0] >= PRESENT_AREA[0] and drawn["room"][1] >= PRESENT_AREA[1], drawn
        b.get("about:blank")
        b.get(path.as_uri() + f"#t={data['frames'][-1]['turn']}&present")
        found[name] = (data["present_labels"], b.execute_script(FITTED)["lines"] > 1, rule >= PRESENT_LEAST)
    assert found == {"small": ("short", True, True), "phase2": ("id", False, False)}


def test_a_page_written_with_ids_alone_starts_presentation_with_ids(tmp_path):
    """``--labels id`` leaves no texts to show: presentation mode starts with its ids even where texts
    would fit, and the same conversation written with texts starts with them."""
    small = tmp_path / "small.yaml"
    small.write_text(SMALL)

    def starts(labels: str) -> str:
        return embedded_data(book(small, labels=labels)[0])["present_labels"]

    assert (starts("id"), starts("short"), starts("full")) == ("id", "short", "short")
