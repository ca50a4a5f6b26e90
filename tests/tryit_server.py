"""`grounded try` in a process of its own on 127.0.0.1, for the page tests and the screenshots script."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.serving import answering, bound_port

ROOT = Path(__file__).resolve().parents[1]
START_SECONDS = 120
"""How long the server may take to replay the scenario and draw its page before it answers."""
TRYING = re.compile(r"grounded try: .* at http://127\.0\.0\.1:(\d+)/ ")
"""``grounded try``'s start-up line, naming the port it bound."""


@contextmanager
def try_server(scenario: str) -> Iterator[str]:
    """Run `grounded try SCENARIO --port 0` (it binds a free port and names it); yield its address once the page
    answers; stop it."""
    with tempfile.TemporaryDirectory(prefix="grounded-try-") as tmp:
        log = Path(tmp) / "try.log"
        with open(log, "ab") as err:
            proc = subprocess.Popen([sys.executable, "-m", "grounded", "try", scenario, "--port", "0"],
                                    cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + START_SECONDS
            url = f"http://127.0.0.1:{bound_port(proc, log, 0, TRYING, deadline)}/"
            yield answering(proc, log, 0, url, deadline)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=20)


def write_op(b, op: str, fields: dict[str, str]) -> None:
    """Pick the operation in the try-it form and type its fields."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select

    Select(b.find_element(By.ID, "try-op")).select_by_value(op)
    for name, value in fields.items():
        b.find_element(By.CSS_SELECTOR, f'#try-fields input[name="{name}"]').send_keys(value)


def propose(b, speaker: str, op: str, fields: dict[str, str], keep: tuple[tuple[str, dict[str, str]], ...] = (),
            timeout: float = 60) -> str:
    """Fill the page's try-it form in browser ``b`` (``keep``: operations added first with "+ another
    operation") and submit it; return the result's state (accepted, rejected or error) once shown."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.wait import WebDriverWait

    Select(b.find_element(By.ID, "try-speaker")).select_by_value(speaker)
    for kept_op, kept_fields in keep:
        write_op(b, kept_op, kept_fields)
        b.find_element(By.ID, "try-add").click()
    write_op(b, op, fields)
    result = b.find_element(By.ID, "try-result")
    b.execute_script("arguments[0].dataset.state = 'sent'", result)
    b.find_element(By.ID, "try-submit").click()
    WebDriverWait(b, timeout).until(lambda _: result.get_attribute("data-state") in ("accepted", "rejected", "error"))
    return result.get_attribute("data-state")
