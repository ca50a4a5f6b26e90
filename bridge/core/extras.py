"""Optional dependencies, grouped in the distribution's extras (pyproject.toml), imported where they are used.

``pip install grounded`` brings what the engine, the rules, the queries and ``grounded check`` need; pictures,
the text interpreters and the service come with the extras ``views``, ``interpreter`` and ``serve``.  A module
needing one imports it through ``require``, so that a missing extra reads as one line naming the command and the
``pip install`` that fixes it (the CLI exits 2), never as a ModuleNotFoundError from deep inside.
"""

from __future__ import annotations

import importlib
from types import ModuleType

import click

from grounded.core.errors import GroundedError


class MissingExtra(GroundedError):
    """An optional dependency is not installed; the message says which extra brings it."""

    def __init__(self, extra: str, module: str):
        self.extra, self.module = extra, module
        ctx = click.get_current_context(silent=True)  # the command being run, when run from the CLI
        who = ctx.command_path if ctx is not None else "this"
        super().__init__(f"{who} needs the '{extra}' extra: pip install 'grounded[{extra}]' "
                         f"({module} is not installed)")


def require(extra: str, module: str) -> ModuleType:
    """Import ``module`` (from the ``extra`` of grounded), or raise MissingExtra when it is not installed.

    Only the module itself (or a package above it) missing counts: an import failing inside an installed
    package is a real error and is raised as it is."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or not (module == exc.name or module.startswith(exc.name + ".")):
            raise
        raise MissingExtra(extra, module) from exc
