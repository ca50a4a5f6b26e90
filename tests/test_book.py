"""The step-through page in a real headless browser (Debian's chromium, offline).

talk.html#t=9 of Phase 2 is loaded and its DOM dumped: the turn, the standings
and the highlighted nodes are those of the engine at T9.  A selenium session
clicks through it (Verify of a claim, Affected* of a literal, next and the
slider) and takes a screenshot that must not be blank.  The muddy children's
page shows |W| going 8, 7, 4, 1 and each agent's information cells; a turn the
rules reject shows its code and message.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from grounded.cli.app import load_engine
from grounded.present.book import book

from .browser import close, driver, dump_dom, parse_dom

ROOT = Path(__file__).resolve().parents[1]

REJECTED = """\
grounded: 1
title: "A rejected turn"
agents: {alice: {}, bob: {}}
turns:
  - turn: 1
    speaker: alice
    text: Redis times out.
    ops: [{op: observe, claim: o1}]
  - turn: 2
    speaker: bob
    text: It must be the network.
    ops: [{op: hypothesize, claim: h1, deps: [zz], explains: [o1]}]
    expect:
      - rejected: [hypothesize_dep_unknown]
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("book")
    phase2 = out / "phase2.html"
    r = subprocess.run([sys.executable, "-m", "grounded", "book", "scenarios/phase2.yaml", "-o", str(phase2)],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    (out / "rejected.yaml").write_text(REJECTED)
    pages = {"phase2": phase2}
    for name, source in (("phase1", ROOT / "scenarios" / "phase1.yaml"), ("rejected", out / "rejected.yaml")):
        pages[name] = out / f"{name}.html"
        pages[name].write_text(book(source)[0], encoding="utf-8")
    return pages


@pytest.fixture(scope="module")
def phase2_engine():
    engine = load_engine(ROOT / "scenarios" / "phase2.yaml", None)
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def browser():
    d = driver()
    yield d
    close(d)


def test_the_page_is_one_file_that_fetches_nothing(pages):
    html = pages["phase2"].read_text()
    assert "<script src" not in html and "<link" not in html and "@import" not in html
    assert not re.search(r"url\(", html)
    # the only URLs are the SVG namespaces, which are names, not requests
    assert {u for u in re.findall(r"https?://[^\s\\\"'<>]+", html)} <= {
        "http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
    assert html.count("<script") == 2  # the data and the script, inlined


def test_dump_dom_at_t9_shows_turn_standings_and_changed_nodes(pages, phase2_engine):
    dom = parse_dom(dump_dom(pages["phase2"].as_uri() + "#t=9"))
    assert dom.find("turn").text == "T9"
    assert dom.find("speaker").text == "alice"
    assert "token expiry issue is a different problem" in dom.find("utterance-text").text
    assert [li.text for li in dom.find("ops").select("li")] == ["revise h2 by o9"]
    assert "h2 abandoned by o9" in [li.text for li in dom.find("changes").select("li")]
    # the standings are the engine's at T9
    rows = {tr.attrs["data-claim"]: tr for tr in dom.find("standings").select("tr") if "data-claim" in tr.attrs}
    engine = phase2_engine
    assert set(rows) == {a.claim for a in engine.arguments(at=9)}
    for a in engine.arguments(at=9):
        assert rows[a.claim].select(cls="standing")[0].attrs["data-standing"] == a.standing
    assert rows["h2"].select(cls="standing")[0].attrs["data-standing"] == "abandoned"
    assert rows["h1"].select(cls="grounded")[0].text == "\u2713"
    assert rows["h2"].select(cls="grounded")[0].text == "\u2717"
    # the highlighted nodes: the arguments T9 changed, read off their standing histories
    changed_t9 = {f"arg{a.id}" for a in engine.arguments(at=9) if a.turn == 9 or any(
        h.turn == 9 for h in a.history)}
    assert "arg12" in changed_t9  # h2
    drawn = dom.find("picture").select("g", cls="node")
    assert {g.attrs["id"] for g in drawn if "changed" in g.classes} == changed_t9
    assert {g.attrs["id"] for g in drawn if "argument" in g.classes} == {f"arg{a.id}" for a in
                                                                          engine.arguments(at=9)}
    assert "abandoned" in dom.find("arg12").classes
    assert dom.find("worlds-size").attrs["data-size"] == str(engine.model_at(9).size)


def test_clicks_step_through_and_screenshot(pages, browser):
    from PIL import Image
    from selenium.webdriver.common.by import By

    b = browser
    b.get(pages["phase2"].as_uri() + "#t=9")
    # Verify of a claim: click h2's row
    b.find_element(By.CSS_SELECTOR, '#standings tr[data-claim="h2"] .claim').click()
    verify = b.find_element(By.ID, "verify")
    assert verify.get_attribute("data-status") == "ungrounded"
    assert "h2 abandoned at T9 by o9" in verify.text
    # a node of the picture: h1's chain is highlighted
    b.find_element(By.CSS_SELECTOR, "#picture g#arg11").click()
    assert b.find_element(By.ID, "verify").get_attribute("data-status") == "grounded"
    assert {e.get_attribute("id") for e in b.find_elements(By.CSS_SELECTOR, "#picture g.node.chain")} == {
        "arg11", "arg8"}
    # next and the slider move the turn and the URL
    b.find_element(By.ID, "next").click()
    assert b.find_element(By.ID, "turn").text == "T10"
    assert b.execute_script("return location.hash").startswith("#t=10")
    b.execute_script("const s = document.getElementById('slider'); s.value = '13';"
                     "s.dispatchEvent(new Event('input'));")
    assert b.find_element(By.ID, "turn").text == "T13"
    # Affected* of a literal: click o5 in h3's Dep
    b.find_element(By.CSS_SELECTOR, '#standings tr[data-claim="h3"] .lit[data-literal="o5"]').click()
    affected = b.find_element(By.ID, "affected")
    assert affected.get_attribute("data-claims") == "h3,h4,h1"
    assert {e.get_attribute("id") for e in b.find_elements(By.CSS_SELECTOR, "#picture g.node.hit")} == {
        "arg14", "arg15", "arg11"}
    # a screenshot that is not blank
    png = b.get_screenshot_as_png()
    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50
    background = max(colours)[0] / (image.width * image.height)
    assert background < 0.9, f"{background:.0%} of the screenshot is one colour"


def test_muddy_children_worlds_and_cells(pages, browser):
    from selenium.webdriver.common.by import By

    b = browser
    b.get(pages["phase1"].as_uri() + "#t=2")
    sizes = [int(e.get_attribute("data-size")) for e in b.find_elements(By.CSS_SELECTOR, "#trajectory .size")]
    assert sizes == [8, 7, 4, 2, 1, 1]
    it = iter(sizes)
    assert all(n in it for n in (8, 7, 4, 1))  # 8, 7, 4, 1 in order
    assert b.find_element(By.ID, "worlds-size").get_attribute("data-size") == "4"
    # after round one Alice and Bob know their state (one world per cell), Carol does not
    engine = load_engine(ROOT / "scenarios" / "phase1.yaml", None)
    model = engine.model_at(2)
    for agent in ("alice", "bob", "carol"):
        shown = b.find_element(By.CSS_SELECTOR, f'#cells .agent[data-agent="{agent}"] .ncells')
        assert int(shown.get_attribute("data-cells")) == len(set(model.cells[agent][model.world_ids()].tolist()))
    carol_cells = b.find_elements(By.CSS_SELECTOR, '#cells .agent[data-agent="carol"] .cell')
    assert any("," in c.text and "{m_a, m_b}" in c.text for c in carol_cells)  # MMC with MMM: she cannot tell
    engine.close()


def test_a_rejected_turn_shows_its_code_and_message(pages, browser):
    from selenium.webdriver.common.by import By

    b = browser
    b.get(pages["rejected"].as_uri() + "#t=2")
    assert b.find_element(By.ID, "outcome").get_attribute("class") == "rejected"
    row = b.find_element(By.CSS_SELECTOR, "#violations tr.violation")
    assert row.get_attribute("data-code") == "hypothesize_dep_unknown"
    assert "dep zz is not a known proposition" in row.text
    # nothing of it applies: the standings are those of T1
    assert [e.get_attribute("data-claim") for e in b.find_elements(By.CSS_SELECTOR, "#standings tr[data-claim]")] \
        == ["o1"]


def test_a_log_cut_short_says_so(tmp_path):
    log = tmp_path / "talk.jsonl"
    log.write_text(json.dumps({"grounded": 1, "agents": {"alice": {}}}) + "\n"
                   + json.dumps({"turn": 1, "speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]}) + "\n"
                   + '{"turn": 2, "speaker": "alice", "ops": [{"op": "obs\n')
    page, conv = book(log, partial=True)
    assert conv.note and "line 3" in conv.note
    data = json.loads(re.search(r'<script id="book-data" type="application/json">(.*?)</script>', page,
                                re.S).group(1).replace("<\\/", "</"))
    assert data["note"] == conv.note and [f["turn"] for f in data["frames"]] == [0, 1]


def _log_with_a_rejected_line(tmp_path: Path) -> Path:
    log = tmp_path / "talk.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in (
        {"grounded": 1, "agents": {"alice": {}}},
        {"turn": 1, "speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]},
        {"turn": 2, "speaker": "alice", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["zz"]}]},
        {"turn": 3, "speaker": "alice", "ops": [{"op": "observe", "claim": "o3"}]})))
    return log


def test_book_reads_a_log_strictly_as_every_command_does(tmp_path):
    """A line the rules reject: exit 2 naming file:line, no page written; --partial writes the page of the
    lines before it, which says so (as other commands' --partial answers do)."""
    from tests.inprocess import run_cli

    log, page = _log_with_a_rejected_line(tmp_path), tmp_path / "talk.html"
    status, out, err = run_cli("book", log, "-o", page)
    assert status == 2 and err.startswith(f"error: {log}:3: ") and "hypothesize_dep_unknown" in err, err
    assert len(err.strip().splitlines()) == 1 and not page.exists()
    status, out, err = run_cli("book", log, "-o", page, "--partial")
    assert status == 0 and page.exists(), err
    assert "warning: PARTIAL: answered from the 1 utterances before line 3" in err
    data = json.loads(re.search(r'<script id="book-data" type="application/json">(.*?)</script>',
                                page.read_text(), re.S).group(1).replace("<\\/", "</"))
    assert "line 3" in data["note"] and [f["turn"] for f in data["frames"]] == [0, 1]
