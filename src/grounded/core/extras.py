"""Optional dependencies, grouped in the distribution's extras (pyproject.toml), imported where they are used.

``pip install grounded`` brings what the engine, the rules, the queries and ``grounded check`` need; pictures,
the text interpreters and the service come with the extras ``views``, ``interpreter`` and ``serve``.  A module
needing one imports it through ``require``, so that a missing extra reads as one line naming the command and the
``pip install`` that fixes it (the CLI exits 2), never as a ModuleNotFoundError from deep inside.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

from grounded.core.errors import GroundedError


class MissingExtra(GroundedError):
    """An optional dependency is not installed; the message says which extra brings it."""

    def __init__(self, extra: str, module: str):
        self.extra, self.module = extra, module
        super().__init__(f"{_command()} needs the '{extra}' extra: pip install 'grounded[{extra}]' "
                         f"({module} is not installed)")


def _command() -> str:
    """``grounded NAME`` when the grounded command line runs (what the user typed), else "this"."""
    program = Path(sys.argv[0]) if sys.argv else Path()
    ours = program.name == "grounded" or (program.name == "__main__.py" and program.parent.name == "grounded")
    if not ours or len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        return "this"
    return f"grounded {sys.argv[1]}"


def require(extra: str, module: str) -> ModuleType:
    """Import ``module`` (from the ``extra`` of grounded), or raise MissingExtra when it is not installed.

    Only the module itself (or a package above it) missing counts: an import failing inside an installed
    package is a real error and is raised as it is."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or not (module == exc.name or module.startswith(exc.name + ".")):
            raise
        raise MissingExtra(extra, exc.name) from exc
