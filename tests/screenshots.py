"""The try-it and world-model screenshots in docs/, at 1280x720, made in headless Chromium.

    python -m tests.screenshots

docs/tryit-phase1-t2.png: `grounded try scenarios/phase1.yaml` at T2, Alice's "yes, I'm muddy" proposed
and accepted (the transitions the rules emitted, |W| 4 -> 2).  docs/world-phase1-t1.png: the same page
at T1, the world model drawn (seven worlds, each child's indistinguishability).
test_screenshots_are_1280x720 checks both.
"""

from __future__ import annotations

from pathlib import Path

from .browser import close, driver
from .tryit_server import propose, try_server

DOCS = Path(__file__).resolve().parents[1] / "docs"
SIZE = (1280, 720)
TRYIT = DOCS / "tryit-phase1-t2.png"
WORLD = DOCS / "world-phase1-t1.png"


def shoot(b, element_id: str, path: Path) -> None:
    """The viewport with the element's top just under the sticky header, as a PNG of exactly SIZE."""
    from io import BytesIO

    from PIL import Image

    b.execute_script("const e = document.getElementById(arguments[0]);"
                     "window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY"
                     " - document.querySelector('header').offsetHeight - 8);", element_id)
    image = Image.open(BytesIO(b.get_screenshot_as_png()))
    if image.size != SIZE:  # the window's size is the outer one: crop to the viewport asked for
        image = image.crop((0, 0, *SIZE))
    image.save(path)


def main() -> None:
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
    for p in (TRYIT, WORLD):
        print(f"wrote {p}")


if __name__ == "__main__":
    main()
