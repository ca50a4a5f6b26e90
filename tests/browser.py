"""A real headless browser for the page tests: Debian's chromium, offline, and a tiny DOM reader.

``dump_dom`` runs chromium --dump-dom (the DOM after the page's scripts ran);
``driver`` starts chromium under the system chromedriver through selenium for
clicks and screenshots.  Both run as root in containers, hence --no-sandbox,
and with everything that would reach the network turned off.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-default-apps",
         "--no-default-browser-check", "--metrics-recording-only", "--disable-dev-shm-usage"]


def require(path: str, what: str) -> None:
    if not shutil.which(path):
        pytest.fail(f"{what} is not installed ({path}): `make setup-test` installs it (apt-get install chromium "
                    "chromium-driver)")


def dump_dom(url: str, timeout: float = 60) -> str:
    require(CHROMIUM, "chromium")
    with tempfile.TemporaryDirectory() as profile:
        result = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                                capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def driver(width: int = 1400, height: int = 1000):
    """A selenium WebDriver on the system chromium and chromedriver (nothing is downloaded)."""
    require(CHROMIUM, "chromium")
    require(CHROMEDRIVER, "chromedriver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="grounded-chromium-")
    for flag in [*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"]:
        options.add_argument(flag)
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    d.set_page_load_timeout(30)
    d._grounded_profile = profile  # removed by close()
    return d


def write_pages(folder, names) -> dict:
    """The page `grounded book` writes for each shipped scenario named, in ``folder``: name -> path."""
    from pathlib import Path

    from grounded.present.book import book

    scenarios = Path(__file__).resolve().parents[1] / "scenarios"
    written = {}
    for name in names:
        written[name] = Path(folder) / f"{name}.html"
        written[name].write_text(book(scenarios / f"{name}.yaml")[0], encoding="utf-8")
    return written


def close(d) -> None:
    d.quit()
    shutil.rmtree(d._grounded_profile, ignore_errors=True)


# -- a DOM read back from --dump-dom -----------------------------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    @property
    def text(self) -> str:
        return "".join(self.parts) + "".join(c.text for c in self.children)

    def iter(self):
        yield self
        for c in self.children:
            yield from c.iter()

    def find(self, id_: str) -> Element:
        for e in self.iter():
            if e.attrs.get("id") == id_:
                return e
        raise KeyError(f"no element with id {id_}")

    def select(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[Element]:
        return [e for e in self.iter() if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)
                and all(e.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        e = Element(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(e)
        if tag not in VOID:
            self.stack.append(e)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        self.stack[-1].parts.append(data)


def parse_dom(html: str) -> Element:
    b = _Builder()
    b.feed(html)
    return b.root
