"""The screenshots in docs/, taken in headless Chromium at 1280x720.

``python -m tests.screenshots`` (or ``make screenshots``) writes them all again into docs/:

* the page (``SHOTS``) with the claims' texts in the nodes, from a page written with ``--wrap 12``:
  Phase 2 at T9 (presentation mode with the labels toggle on texts, ``&labels=short``), Phase 2 at
  T13 compared with T9 and Phase 3 at T20 where alpha18 loses its grounding (the normal page scrolled
  to the picture): no mode fits these conversations' texts at 18 px (``book.type_size``), so each is
  taken where Chromium draws them largest; and Phase 3 at T20 in presentation mode as it starts, the
  ids alone.  The test
  ``test_book_present::test_the_screenshots_in_docs_are_what_the_page_shows`` takes them into a
  temporary folder and compares them with the committed ones, so a change to the page that changes
  what a lecturer sees also changes the pictures in the documentation;
* ``grounded try scenarios/phase1.yaml`` (``TRYIT``, ``WORLD``): at T2 Alice's "yes, I'm muddy"
  proposed and accepted (the transitions the rules emitted, |W| 4 -> 2), and at T1 the world model
  drawn (seven worlds, each child's indistinguishability); ``test_tryit`` checks their size.
"""

from __future__ import annotations

import sys
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SIZE = (1280, 720)
TRYIT = DOCS / "tryit-phase1-t2.png"
WORLD = DOCS / "world-phase1-t1.png"

TEXT_WRAP = 12
"""Characters per line of the texts in the screenshots with texts (None below: the default): narrow nodes,
so that the type is larger."""

SHOTS = [
    # Phase 2 at T9: h2 abandoned by o9, the texts in the nodes (presentation mode: 10.3 px, the normal page 7.4)
    ("phase2", TEXT_WRAP, "t=9&present&labels=short", "texts-phase2-t9.png", None),
    # Phase 2 at T13 compared with T9: what appeared, what changed standing (the normal page, the picture block:
    # 7.4 px, presentation mode with the comparison beside the picture 7.1)
    ("phase2", TEXT_WRAP, "t=13&diff=9", "texts-phase2-t13.png", "picture-box"),
    # Phase 3 at T20: -a3 abandons a3; alpha18 stays resolved and loses its grounding (fails at a3); the normal
    # page's picture block with the whole legend and Verify(alpha18) beside it (6.4 px, presentation mode 6.2)
    ("phase3", TEXT_WRAP, "t=20&claim=alpha18", "texts-phase3-t20.png", "picture-box"),
    # a class from the projector (docs/views.md, *Running a class*): presentation mode as it starts, every text
    # 18 px or more and nothing clipped (test_book_present::test_the_screenshots_in_docs_are_what_the_page_shows
    # measures both): Phase 2 at T13 with its six changes, Phase 3 at T20 (alpha18 loses its grounding), Phase 1
    # at T1 with the cube of worlds, the pendulum course scenario at T8 with its questions
    ("phase2", None, "t=13&present", "present-phase2-t13.png", None),
    ("phase3", None, "t=20&present", "present-phase3-t20.png", None),
    ("phase1", None, "t=1&present", "present-phase1-t1.png", None),
    ("pendulum", None, "t=8&present", "present-pendulum-t8.png", None),
]
PRESENT = [s[3] for s in SHOTS if "&present" in s[2] and "labels=" not in s[2]]
"""The screenshots of presentation mode as it starts, held to 18 px and to nothing clipped."""


def take(out: Path, measure: str | None = None, measured: dict | None = None) -> list[Path]:
    """Write the page's screenshots (``SHOTS``) into ``out``; the files written.  With ``measure`` (a script),
    what it returns for each shot in ``PRESENT`` goes into ``measured`` under the file's name."""
    sys.path.insert(0, str(ROOT))
    from grounded.present.book import book
    from tests.browser import close, driver

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        pages = {}
        for name, wrap in dict.fromkeys(s[:2] for s in SHOTS):
            pages[name, wrap] = Path(tmp) / f"{name}-{wrap}.html"
            given = {} if wrap is None else {"wrap": wrap}  # None: the page's default width
            pages[name, wrap].write_text(book(ROOT / "scenarios" / f"{name}.yaml", **given)[0], encoding="utf-8")
        d = driver(*SIZE)
        try:
            d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": SIZE[0], "height": SIZE[1], "deviceScaleFactor": 1, "mobile": False})
            d.execute_cdp_cmd("Emulation.setEmulatedMedia",
                              {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
            for name, wrap, hash_, filename, element in SHOTS:
                d.get("about:blank")
                d.get(pages[name, wrap].as_uri() + "#" + hash_)
                if element is not None:
                    scroll_to(d, element)
                target = out / filename
                target.write_bytes(d.get_screenshot_as_png())
                if measure is not None and measured is not None and filename in PRESENT:
                    measured[filename] = d.execute_script(measure, 18)
                written.append(target)
        finally:
            close(d)
    return written


def scroll_to(b, element_id: str) -> None:
    """The page scrolled so that the element's top is just under the sticky header."""
    b.execute_script("const e = document.getElementById(arguments[0]);"
                     "window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY"
                     " - document.querySelector('header').offsetHeight - 8);", element_id)


def shoot(b, element_id: str, path: Path) -> None:
    """The viewport with the element's top just under the sticky header, as a PNG of exactly SIZE."""
    from PIL import Image

    scroll_to(b, element_id)
    image = Image.open(BytesIO(b.get_screenshot_as_png()))
    if image.size != SIZE:  # the window's size is the outer one: crop to the viewport asked for
        image = image.crop((0, 0, *SIZE))
    image.save(path)


def take_tryit() -> list[Path]:
    """Write the try-it and world-model screenshots (TRYIT, WORLD) from a `grounded try` server."""
    from .browser import close, driver
    from .tryit_server import propose, try_server

    with try_server("scenarios/phase1.yaml") as url:
        b = driver(*SIZE)
        try:
            b.set_window_size(*SIZE)
            inner = b.execute_script("return [window.innerWidth, window.innerHeight]")
            b.set_window_size(2 * SIZE[0] - inner[0], 2 * SIZE[1] - inner[1])  # a viewport of exactly SIZE
            b.get(url + "#t=2")
            state = propose(b, "alice", "observe", {"claim": "know_alice", "text": "Yes, I'm muddy."})
            assert state == "accepted", state
            shoot(b, "try-box", TRYIT)
            b.get(url + "#t=1")
            b.refresh()
            shoot(b, "world-box", WORLD)
        finally:
            close(b)
    return [TRYIT, WORLD]


if __name__ == "__main__":
    for path in [*take(DOCS), *take_tryit()]:
        print(f"wrote {path.relative_to(ROOT)}")
