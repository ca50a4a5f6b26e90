"""The Python functions a call enters: what the tests that bound a path's per-item work count
(a count of frames is the same on any machine, a time is not)."""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable


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
