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
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from grounded import Engine
from grounded.cli.app import load_engine
from grounded.present.book import book, collect, html, page_data

from .browser import close, driver, dump_dom, parse_dom

pytestmark = pytest.mark.browser  # headless Chromium

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
    note: "Ask the class: what must a hypothesis rest on?"
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
    for name, source in (("phase1", ROOT / "scenarios" / "phase1.yaml"), ("rejected", out / "rejected.yaml"),
                         ("phase3", ROOT / "scenarios" / "phase3.yaml")):
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
    assert not re.search(r"url\((?!#)", html)  # only references inside the page (an SVG gradient)
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
    assert b.find_element(By.ID, "turn-note").text == "Ask the class: what must a hypothesis rest on?"
    # nothing of it applies: the standings are those of T1
    assert [e.get_attribute("data-claim") for e in b.find_elements(By.CSS_SELECTOR, "#standings tr[data-claim]")] \
        == ["o1"]
    b.get(pages["rejected"].as_uri() + "#t=1")  # a turn without a note shows none
    assert not b.find_element(By.ID, "turn-note").is_displayed()


def test_a_log_cut_short_says_so(tmp_path):
    log = tmp_path / "talk.jsonl"
    log.write_text(json.dumps({"grounded": 1, "agents": {"alice": {}}}) + "\n"
                   + json.dumps({"turn": 1, "speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]}) + "\n"
                   + '{"turn": 2, "speaker": "alice", "ops": [{"op": "obs\n')
    page, conv = book(log, partial=True)
    assert conv.note and "line 3" in conv.note
    data = embedded_data(page)
    assert data["note"] == conv.note and [f["turn"] for f in data["frames"]] == [0, 1]


def test_presentation_keys_step_and_jump(pages, browser):
    """A clicker's PageUp/PageDown, Space and Shift+Space, Home and End move through the turns."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    b = browser
    b.get(pages["phase2"].as_uri() + "#t=5")
    body = b.find_element(By.TAG_NAME, "body")
    turn = lambda: b.find_element(By.ID, "turn").text  # noqa: E731
    body.send_keys(Keys.PAGE_DOWN)
    assert turn() == "T6"
    body.send_keys(Keys.PAGE_UP)
    body.send_keys(Keys.PAGE_UP)
    assert turn() == "T4"
    body.send_keys(Keys.SPACE)
    assert turn() == "T5"
    ActionChains(b).key_down(Keys.SHIFT).send_keys(Keys.SPACE).key_up(Keys.SHIFT).perform()
    assert turn() == "T4"
    body.send_keys(Keys.END)
    assert turn() == "T13"
    body.send_keys(Keys.HOME)
    assert turn() == "start"


def test_a_turn_past_the_end_says_so_and_the_hint_names_a_literal_of_this_conversation(pages, browser):
    from selenium.webdriver.common.by import By

    b = browser
    b.get(pages["rejected"].as_uri() + "#t=99")
    assert b.find_element(By.ID, "turn").text == "T2"
    assert b.find_element(By.ID, "hash-note").text == "There is no turn 99; showing T2."
    b.get(pages["rejected"].as_uri() + "#t=x")
    assert b.find_element(By.ID, "turn").text == "start"
    assert "is not a turn number" in b.find_element(By.ID, "hash-note").text
    b.get(pages["rejected"].as_uri() + "#t=1")
    assert not b.find_element(By.ID, "hash-note").is_displayed()
    assert b.find_element(By.ID, "hint-literal").text == "o1"  # not the o5 of Phase 2


def embedded_data(page: str) -> dict:
    """The data a page embeds, read as the page's script reads it (Python's JSON reader standing in
    for the browser's: the browser tests check the page's own reading)."""
    return json.loads(re.search(r'<script id="book-data" type="application/json">(.*?)</script>', page,
                                re.S).group(1))


# -- every text round-trips through the page ---------------------------------------------------------

SYNTAX = ["<!--", "-->", "--!>", "</script>", "</SCRIPT >", "<script>", "<script", "<!-- <script>", "]]>",
          "<![CDATA[", "`", "${", "${x}", "\u2028", "\u2029", "\x00", "\r\n", "\r", "&amp;", "&lt;", "&#0;",
          "<\\/", "\\u003c", "'", '"', "\\", "\ufeff", "\ufffd", "\ufffe", "\uffff", "\U0010ffff",
          "<?xml ?>", "<svg onload=alert(1)>", "$title", "$data", "{{x}}"]
"""HTML, XML and JavaScript syntax that could end, comment out or change an embedded script."""

TEXT = st.lists(st.sampled_from(SYNTAX) | st.text(st.characters(exclude_categories=("Cs",)), max_size=24),
                max_size=10).map("".join)
"""Texts the log allows: any Unicode but a lone surrogate, mixed with SYNTAX."""

CODE_POINTS = "(s) => Array.from(s, (c) => c.codePointAt(0))"


def code_points(text: str) -> list[int]:
    return [ord(c) for c in text]


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(title="".join(SYNTAX), texts=[("".join(SYNTAX[i::6]), "".join(reversed(SYNTAX[i::6]))) for i in range(6)])
@given(title=TEXT, texts=st.lists(st.tuples(TEXT, TEXT), min_size=6, max_size=6))
def test_every_text_round_trips_through_the_page(browser, tmp_path_factory, title, texts):
    """A log whose utterance and operation texts (and the page's title) are drawn from all of Unicode
    and from HTML/JS syntax, its page opened in Chromium: the page starts at T0, and every text the
    page's script reads from its data, and shows, is the original, code point for code point
    (issue "Trust, round two", item 7: ``<!--`` in a text left the page blank)."""
    from selenium.webdriver.common.by import By

    out = tmp_path_factory.mktemp("texts")
    log = out / "talk.jsonl"
    engine = Engine({"agents": {"alice": {}}}, log=log)
    for k, (said, noted) in enumerate(texts):
        engine.apply({"speaker": "alice", "text": said, "ops": [{"op": "observe", "claim": f"o{k}", "text": noted}]})
    engine.close()
    conv = collect(log)
    conv.title = title
    page = out / "talk.html"
    page.write_text(html(page_data(conv)), encoding="utf-8")
    b = browser
    b.get(page.as_uri())
    assert b.execute_script("return document.body.dataset.turn") == "0"
    assert b.find_element(By.ID, "utterance-text").text == "Before the first utterance."
    read = b.execute_script(f"const cp = {CODE_POINTS};"
                            "const d = JSON.parse(document.getElementById('book-data').textContent);"
                            "return {title: cp(d.title), said: d.frames.slice(1).map((f) => cp(f.text)),"
                            "noted: d.frames.at(-1).rows.map((r) => cp(r.text)),"
                            "shown_title: cp(document.getElementById('title').textContent)};")
    assert read["title"] == read["shown_title"] == code_points(title)
    assert read["said"] == [code_points(said) for said, _ in texts]
    assert read["noted"] == [code_points(noted) for _, noted in texts]
    for k, (said, _) in enumerate(texts, start=1):
        b.execute_script(f"const s = document.getElementById('slider'); s.value = '{k}';"
                         "s.dispatchEvent(new Event('input'));")
        shown = b.execute_script(f"return ({CODE_POINTS})(document.getElementById('utterance-text').textContent)")
        assert b.execute_script("return document.body.dataset.turn") == str(k) and shown == code_points(said)


def test_nodes_whose_ids_hold_colons_answer_clicks(browser, tmp_path):
    """The page finds a literal node by its SVG id: ``lit-net:ok`` opens Affected*(net:ok)."""
    from selenium.webdriver.common.by import By

    from .test_picture import COLONS

    source = tmp_path / "colons.yaml"
    source.write_text(COLONS)
    page = tmp_path / "colons.html"
    page.write_text(book(source)[0], encoding="utf-8")
    b = browser
    b.get(page.as_uri() + "#t=2")
    b.find_element(By.ID, "lit-net:ok").click()
    affected = b.find_element(By.ID, "affected")
    assert affected.get_attribute("data-literal") == "net:ok" and affected.get_attribute("data-claims") == "h:1"
    b.find_element(By.ID, "arg2").click()
    assert b.find_element(By.ID, "verify").get_attribute("data-claim") == "h:1"


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
    data = embedded_data(page.read_text())
    assert "line 3" in data["note"] and [f["turn"] for f in data["frames"]] == [0, 1]


# -- texts, the grounding channel and Verify as a small graph ------------------------------------------


def _dep_star(b) -> tuple[dict[str, set[str]], set[tuple[str, str]]]:
    """The Verify panel's sub-picture: its nodes (SVG id without the prefix -> classes) and Dep edges."""
    from selenium.webdriver.common.by import By

    box = b.find_element(By.CSS_SELECTOR, "#verify .dep-star svg")
    nodes = {g.get_attribute("id").removeprefix("dep-"): set(g.get_attribute("class").split())
             for g in box.find_elements(By.CSS_SELECTOR, "g.node")}
    edges = set()
    for g in box.find_elements(By.CSS_SELECTOR, "g.edge.dep"):
        tail, head = re.fullmatch(r"dep-e-dep-(arg\d+|lit-.+?)-(arg\d+)", g.get_attribute("id")).groups()
        edges.add((tail, head))
    return nodes, edges


def _is_a_line(nodes: set[str], edges: set[tuple[str, str]]) -> bool:
    indegree = {n: sum(1 for _, h in edges if h == n) for n in nodes}
    outdegree = {n: sum(1 for t, _ in edges if t == n) for n in nodes}
    return all(d <= 1 for d in indegree.values()) and all(d <= 1 for d in outdegree.values())


def _acyclic(nodes: set[str], edges: set[tuple[str, str]]) -> bool:
    left, rest = set(nodes), set(edges)
    while left:
        sources = {n for n in left if not any(h == n for _, h in rest)}
        if not sources:
            return False
        left -= sources
        rest = {(t, h) for t, h in rest if t in left}
    return True


def test_a_clicked_claim_shows_its_text_and_verify_as_a_small_graph(pages, browser):
    """Phase 3 at T20: alpha18 is resolved but not grounded (a3 abandoned).  Clicking it shows its
    text in the side panel (and on hover in the table), and Verify as its Dep* drawn: a3, a1 and a2
    all point at alpha18 (a graph, not a line), a3 marked as the failing step; the reason's arrow
    runs from premise to conclusion as the picture's do."""
    from selenium.webdriver.common.by import By

    engine = load_engine(ROOT / "scenarios" / "phase3.yaml", None)
    alpha18 = engine.state.arg(engine.state.claimants_at("alpha18", 20)[-1])
    a3 = engine.state.claimants_at("a3", 20)[-1]
    engine.close()
    b = browser
    b.get(pages["phase3"].as_uri() + "#t=20")
    span = b.find_element(By.CSS_SELECTOR, '#standings tr[data-claim="alpha18"] .claim')
    assert span.get_attribute("title").startswith(alpha18.text)
    span.click()
    panel = b.find_element(By.ID, "claim-info")
    assert alpha18.text in panel.find_element(By.CSS_SELECTOR, ".claim-text").text
    assert "resolved, NOT grounded" in panel.text
    verify = b.find_element(By.ID, "verify")
    assert verify.get_attribute("data-status") == "ungrounded"
    assert "a3 -> alpha18: a3 abandoned at T20 by -a3" in verify.text
    nodes, edges = _dep_star(b)
    assert set(nodes) == {f"arg{alpha18.id}", *(f"arg{a}" for a in (14, 22, a3))}
    assert edges == {(f"arg{d}", f"arg{alpha18.id}") for d in (14, 22, a3)}
    assert not _is_a_line(set(nodes), edges) and _acyclic(set(nodes), edges)
    assert "failing" in nodes[f"arg{a3}"] and {"ungrounded", "lost_grounding"} <= nodes[f"arg{alpha18.id}"]
    failing_edge = b.find_element(By.CSS_SELECTOR, f"#verify g#dep-e-dep-arg{a3}-arg{alpha18.id}")
    assert "failing" in failing_edge.get_attribute("class").split()
    # the page's own picture keeps its ids: one element per id
    assert b.execute_script("return document.querySelectorAll('[id=\"arg' + arguments[0] + '\"]').length",
                            alpha18.id) == 1
    # the hover title of the node in the picture carries the text too
    title = b.execute_script("return document.querySelector('#picture g#arg' + arguments[0] + ' a')"
                             ".getAttribute('xlink:title')", alpha18.id)
    assert alpha18.text in title and "NOT grounded (fails at a3)" in title
    # the row is marked changed at T20 (it lost its grounding), not at T19, where it is grounded
    assert "changed" in b.find_element(By.CSS_SELECTOR, '#standings tr[data-claim="alpha18"]').get_attribute("class")
    b.get(pages["phase3"].as_uri() + "#t=19&claim=alpha18")
    assert "changed" not in b.find_element(By.CSS_SELECTOR,
                                           '#standings tr[data-claim="alpha18"]').get_attribute("class")
    assert b.find_element(By.ID, "verify").get_attribute("data-status") == "grounded"
    nodes, edges = _dep_star(b)
    assert not any("failing" in c for c in nodes.values()) and _acyclic(set(nodes), edges)


def test_a_grounded_chain_is_drawn_as_the_graph_it_is(pages, browser):
    """Phase 2 at T13: Verify(h1) is grounded by a Dep* that branches; the panel draws it with
    arrows from premise to conclusion, every argument of the witness once, and no line."""
    from selenium.webdriver.common.by import By

    engine = load_engine(ROOT / "scenarios" / "phase2.yaml", None)
    witness = engine.verify("h1", at=13).arguments
    expected = set()
    for a in witness:
        for d in engine.state.arg(a).deps_at(13):
            expected |= {(f"arg{b}", f"arg{a}") for b in witness if engine.state.arg(b).claim == d}
    last_claim = engine.state.arg(witness[-1]).claim
    engine.close()
    b = browser
    b.get(pages["phase2"].as_uri() + "#t=13&claim=h1")
    nodes, edges = _dep_star(b)
    assert set(nodes) == {f"arg{a}" for a in witness} and edges == expected
    assert not _is_a_line(set(nodes), edges) and _acyclic(set(nodes), edges)
    assert "\u2190" not in b.find_element(By.ID, "verify").text  # no chain written as a line
    # clicking a node of the small graph asks about that claim
    b.find_element(By.CSS_SELECTOR, f"#verify g#dep-arg{witness[-1]}").click()
    assert b.find_element(By.ID, "verify").get_attribute("data-claim") == last_claim


def test_the_legend_explains_both_channels(pages):
    import html as html_

    div = re.search(r'<div class="legend"[^>]*>(.*?)</div>', pages["phase3"].read_text(), re.S).group(1)
    legend = " ".join(html_.unescape(re.sub(r"<[^>]+>", "", div)).split())
    for words in ("standing (fill)", "grounding (a channel of its own)", "not grounded", "changed this turn",
                  "where grounding fails"):
        assert words in legend, words


def test_book_takes_the_label_mode_and_width(tmp_path):
    """`grounded book --labels full --wrap 16`: every turn's picture shows whole texts in lines of at
    most 16 characters; --labels id shows ids alone; a bad mode is exit 2 before any replay."""
    import xml.etree.ElementTree as ET

    svg_ns = "{http://www.w3.org/2000/svg}"

    def node_lines(page: Path, arg: str) -> list[str]:
        svg = embedded_data(page.read_text())["frames"][-1]["svg"]
        g = next(g for g in ET.fromstring(svg).iter(f"{svg_ns}g") if g.get("id") == arg)
        return [t.text or "" for t in g.iter(f"{svg_ns}text")]

    engine = load_engine(ROOT / "scenarios" / "phase2.yaml", None)
    h2 = engine.state.arg(engine.state.claimants["h2"][0])
    engine.close()
    out = {}
    for mode, extra in (("full", ["--wrap", "16"]), ("id", [])):
        out[mode] = tmp_path / f"{mode}.html"
        r = subprocess.run([sys.executable, "-m", "grounded", "book", "scenarios/phase2.yaml", "-o", str(out[mode]),
                            "--labels", mode, *extra], capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert r.returncode == 0, r.stderr
    full = node_lines(out["full"], f"arg{h2.id}")
    assert full[0] == "h2" and "".join(full[1:]).replace(" ", "") == h2.text.replace(" ", "")
    assert all(len(line) <= 16 for line in full[1:])
    assert node_lines(out["id"], f"arg{h2.id}") == ["h2"]
    r = subprocess.run([sys.executable, "-m", "grounded", "book", "scenarios/phase2.yaml", "-o",
                        str(tmp_path / "x.html"), "--labels", "long"], capture_output=True, text=True, cwd=ROOT,
                       timeout=120)
    assert r.returncode == 2 and "--labels long" in r.stderr and not (tmp_path / "x.html").exists()
