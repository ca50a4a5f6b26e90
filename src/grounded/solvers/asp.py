"""Where the ASP encodings live, and a clingo control that keeps quiet.

The encodings ship as package data (``grounded.asp``), found without relying
on the current directory.  clasp reports some harmless conditions on stderr
(for instance "domRec ignored: No domain atoms found" when grounding alone
decided every in/1 atom); errors still raise.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources

import clingo


def encoding(name: str) -> str:
    return str(resources.files("grounded.asp") / name)


def _ignore(_code: clingo.MessageCode, _message: str) -> None:
    pass


def new_control(options: Iterable[str] = ()) -> clingo.Control:
    return clingo.Control(["--warn=none", *options], logger=_ignore)
