"""The screenshots in docs/ of the page in presentation mode, taken in headless Chromium at 1280x720.

``python -m tests.screenshots`` (or ``make screenshots``) writes them again into docs/; the test
``test_book_present::test_the_screenshots_in_docs_are_what_the_page_shows`` takes them into a
temporary folder and compares them with the committed ones, so a change to the page that changes
what a lecturer sees also changes the pictures in the documentation.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZE = (1280, 720)

SHOTS = [
    # Phase 2 at T9: h2 abandoned by o9, Verify(h2) says why it is not grounded
    ("phase2", "t=9&claim=h2&present", "present-phase2-t9.png"),
    # Phase 2 at T13 compared with T9: what appeared, what changed standing
    ("phase2", "t=13&diff=9&present", "present-phase2-t13.png"),
    # Phase 3 at T20: -a3 abandons a3; alpha18 stays resolved and loses its grounding (fails at a3)
    ("phase3", "t=20&claim=alpha18&present", "present-phase3-t20.png"),
]


def take(out: Path) -> list[Path]:
    """Write the screenshots into ``out``; the files written."""
    sys.path.insert(0, str(ROOT))
    from grounded.present.book import book
    from tests.browser import close, driver

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        pages = {}
        for name in dict.fromkeys(s[0] for s in SHOTS):
            pages[name] = Path(tmp) / f"{name}.html"
            pages[name].write_text(book(ROOT / "scenarios" / f"{name}.yaml")[0], encoding="utf-8")
        d = driver(*SIZE)
        try:
            d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": SIZE[0], "height": SIZE[1], "deviceScaleFactor": 1, "mobile": False})
            d.execute_cdp_cmd("Emulation.setEmulatedMedia",
                              {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
            for name, hash_, filename in SHOTS:
                d.get("about:blank")
                d.get(pages[name].as_uri() + "#" + hash_)
                target = out / filename
                target.write_bytes(d.get_screenshot_as_png())
                written.append(target)
        finally:
            close(d)
    return written


if __name__ == "__main__":
    for path in take(ROOT / "docs"):
        print(f"wrote {path.relative_to(ROOT)}")
