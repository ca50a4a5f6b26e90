"""The rules interpreter's measured F1, as recorded by ``python -m bench interpret --split test --record``.

``grounded interpret`` quotes it on stderr whenever it runs the offline rules
interpreter (the fallback when no LLM endpoint is configured), so that a
user reads the figure measured on the held-out corpus, not a promise.  Kept
apart from the benchmark's code so that quoting it imports nothing heavy.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path


def baseline_path() -> Path:
    """The checked-in record of the rules interpreter's figures on the held-out corpus's test split (bench/corpus),
    shipped with the interpreter: the benchmark stays in the repository, the figure travels with the package."""
    return Path(str(resources.files("grounded.interpreter") / "rules_baseline.json"))


def read_baseline(path: Path | None = None) -> dict | None:
    """The recorded figures, or None when there are none to read (missing or malformed file)."""
    try:
        data = json.loads((path or baseline_path()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(data, dict) and isinstance(data.get("f1"), int | float) and isinstance(data.get("turns"), int)
    return data if ok else None


def rules_note(endpoint_configured: bool, path: Path | None = None) -> str:
    """The one stderr line saying the rules interpreter is a baseline, with its measured F1."""
    why = "" if endpoint_configured else "no LLM endpoint configured: "
    data = read_baseline(path)
    if data is None:
        figure = "no measured F1 recorded"
    else:
        figure = (f"multi-label F1 {data['f1']:.2f} on the held-out corpus's {data.get('split', '?')} split "
                  f"({data['turns']} turns, {path or 'src/grounded/interpreter/rules_baseline.json'})")
    return f"{why}the offline rules interpreter is a baseline: {figure}"
