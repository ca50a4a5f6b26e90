"""Presentation mode never hides the lesson: every turn of every shipped scenario, in a real headless Chromium.

At 1280x720 and 1024x768 (a projector's viewport, set through the DevTools protocol) each turn is shown in
presentation mode as it starts (exercise mode on: a course scenario's questions, the picture hidden), with
exercise mode off (what the rules did, the picture), with the legend on, and with the focus view (what the turn
changed, with the full texts, beside the picture).  For every element on the page
its content must fit its box (``scrollHeight``/``scrollWidth`` no larger than ``clientHeight``/``clientWidth``:
nothing clipped, nothing to scroll inside a panel), the page must have nothing to scroll, every text in the
window must be at least 18 px, and the picture's node and edge texts at least 18 px at 1280x720 (14 px at
1024x768, where the wide conversations are bound by the window's width).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .browser import write_pages
from .test_book_present import viewport

pytestmark = pytest.mark.browser  # headless Chromium: left out of `make check`

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))
SIZES = [(1280, 720, 18), (1024, 768, 14)]
LEAST_TEXT = 18

FITS = """
const shown = (e) => { const cs = getComputedStyle(e);
  return cs.display !== 'none' && cs.visibility !== 'hidden' && e.getClientRects().length > 0; };
const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
  (typeof e.className === 'string' && e.className ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
const out = {overflow: [], small: [], svg: null, questions: null,
  scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight]};
for (const e of document.querySelectorAll('body, body *')) {
  // a form control's own inner box (a slider's track) is the browser's, not the page's
  if (e.closest('svg') || ['SCRIPT', 'STYLE', 'INPUT', 'SELECT', 'OPTION', 'BR'].includes(e.tagName)) continue;
  if (!shown(e) || getComputedStyle(e).display === 'inline') continue;
  if (e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1)
    out.overflow.push([name(e), e.clientWidth, e.scrollWidth, e.clientHeight, e.scrollHeight]);
}
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  const p = n.parentElement;
  if (!n.textContent.trim() || p.closest('script, style, #print-turns') || !shown(p)) continue;
  const r = p.getBoundingClientRect();
  if (r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
  const t = p.closest('svg text');
  if (t) {
    const size = parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a;
    out.svg = out.svg === null ? size : Math.min(out.svg, size);
  } else if (!p.closest('svg')) {
    const size = parseFloat(getComputedStyle(p).fontSize);
    if (size < arguments[0]) out.small.push([name(p), size, n.textContent.trim().slice(0, 40)]);
  }
}
const qs = document.getElementById('questions');
if (shown(document.getElementById('exercise'))) {
  const r = qs.getBoundingClientRect();
  out.questions = {inside: r.top >= 0 && r.bottom <= innerHeight, items: qs.children.length};
}
return out;
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    return write_pages(tmp_path_factory.mktemp("fits"), [s.stem for s in SCENARIOS])


def test_every_shipped_scenario_is_walked():
    assert {"phase1", "phase2", "phase3", "pendulum", "differential"} <= {s.stem for s in SCENARIOS}


@pytest.mark.parametrize(("width", "height", "least_svg"), SIZES)
@pytest.mark.parametrize("scenario", [s.stem for s in SCENARIOS])
def test_nothing_clips_in_presentation_mode_on_any_turn(pages, browser, scenario, width, height, least_svg):
    b = browser
    viewport(b, width, height)
    b.get("about:blank")
    b.get(pages[scenario].as_uri() + "#t=0&present")
    turns = b.execute_script("return JSON.parse(document.getElementById('book-data').textContent)"
                             ".frames.map((f) => f.turn)")
    asked = b.execute_script("return JSON.parse(document.getElementById('book-data').textContent)"
                             ".frames.map((f) => (f.questions || []).length)")
    seen = 0
    for exercise, legend in ((True, ""), (False, ""), (False, "&legend"), (False, "&focus")):
        b.execute_script("const box = document.getElementById('exercise-mode');"
                         "if (box.checked !== arguments[0]) box.click();", exercise)
        for turn, questions in zip(turns, asked, strict=True):
            b.execute_script("location.hash = arguments[0]", f"#t={turn}&present{legend}")
            m = b.execute_script(FITS, LEAST_TEXT)
            where = (scenario, width, turn, "exercise" if exercise else "no exercise", legend)
            assert m["overflow"] == [], (where, m["overflow"])
            assert m["scroll"] == [width, height], (where, m["scroll"])
            assert m["small"] == [], (where, m["small"])
            if questions and exercise:  # the questions full-size, all of them inside the window
                assert m["questions"] == {"inside": True, "items": questions}, (where, m)
            elif turn > 0 and not legend:
                assert m["svg"] is not None and m["svg"] >= least_svg, (where, m["svg"])
            seen += 1
    assert seen == 4 * len(turns)


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1024, 768)])
def test_compare_mode_keeps_the_pictures_type_size(pages, browser, width, height):
    """In presentation mode a comparison is listed above the picture, not beside it: the picture keeps its
    width, so its type stays what it is without the comparison (the panel above it grows by a few lines)."""
    b = browser
    viewport(b, width, height)
    sizes = {}
    for name, turn, since in (("phase3", 20, 13), ("phase2", 13, 9)):
        for diff in ("", f"&diff={since}"):
            b.get("about:blank")
            b.get(pages[name].as_uri() + f"#t={turn}&present{diff}")
            m = b.execute_script(FITS, LEAST_TEXT)
            assert m["overflow"] == [] and m["small"] == [], (name, diff, m)
            sizes[name, bool(diff)] = m["svg"]
        assert b.find_element("id", "diff").is_displayed()
        assert sizes[name, True] >= 0.9 * sizes[name, False], sizes
        assert sizes[name, True] >= (18 if width == 1280 else 14), sizes
