"""The Python functions a call enters and the requests it sends the rules: what the tests that bound a
path's per-item work count (a count of frames or of crossings is the same on any machine, a time is not)."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import Any

import pytest

from grounded.solvers.prolog import PrologRules


def python_calls(ask: Callable[[], object]) -> list[str]:
    """The Python functions entered while ``ask()`` runs, in order (C calls not counted).  With the
    garbage collector paused: a collection falling in the call would enter whatever callbacks the
    process has registered (hypothesis keeps one), which are not the call's work."""
    entered: list[str] = []

    def profile(frame, event, arg):  # noqa: ANN001, ANN202  # sys.setprofile's signature
        if event == "call":
            entered.append(frame.f_code.co_name)

    paused = gc.isenabled()
    gc.disable()
    sys.setprofile(profile)
    try:
        ask()
    finally:
        sys.setprofile(None)
        if paused:
            gc.enable()
    return entered[1:]  # ``ask`` itself


def rules_requests(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The requests the bridge sends the rules from now on (any engine's), by kind, in order; counted until
    ``monkeypatch`` undoes it."""
    made: list[str] = []
    request = PrologRules.request

    def counted(self: PrologRules, req: tuple, shape: Any = "any") -> Any:
        made.append(req[0])
        return request(self, req, shape)

    monkeypatch.setattr(PrologRules, "request", counted)
    return made
