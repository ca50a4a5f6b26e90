"""Writing a benchmark's results: JSON, a Markdown table, PNG figures; and its progress bars.

Every ``python -m bench`` command writes ``<out>/<name>.json`` (every figure it
measured, with the command's settings), ``<out>/<name>.md`` (the tables, in
the layout of the paper's) and its PNG figures, drawn with matplotlib's Agg
backend so no display is needed.  Progress bars go to stderr, so stdout
carries only the tables.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

stderr = Console(stderr=True, highlight=False)


def progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=stderr, transient=True)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], align: str | None = None) -> str:
    """A GitHub-flavoured Markdown table; ``align`` is one of l/r per column (default: first l, rest r)."""
    align = align or "l" + "r" * (len(headers) - 1)
    rule = ["---" if a == "l" else "---:" for a in align]
    lines = ["| " + " | ".join(_cell(h) for h in headers) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value).replace("|", "\\|")


def environment() -> dict:
    return {"python": platform.python_version(), "machine": platform.machine(),
            "date": time.strftime("%Y-%m-%d"), "argv": sys.argv}


def write(out: Path, name: str, data: dict, markdown: str) -> list[Path]:
    """Write ``name.json`` and ``name.md`` into ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    json_path = out / f"{name}.json"
    md_path = out / f"{name}.md"
    json_path.write_text(json.dumps({"environment": environment(), **data}, indent=2, ensure_ascii=False) + "\n",
                         encoding="utf-8")
    md_path.write_text(markdown.rstrip() + "\n", encoding="utf-8")
    return [json_path, md_path]


def pyplot():
    """matplotlib's pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130, bbox_inches="tight")
    pyplot().close(fig)
    return path
