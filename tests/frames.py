"""The Python functions a call enters: what the tests that bound a path's per-item work count
(a count of frames is the same on any machine, a time is not)."""

from __future__ import annotations

import sys
from collections.abc import Callable


def python_calls(ask: Callable[[], object]) -> list[str]:
    """The Python functions entered while ``ask()`` runs, in order (C calls not counted)."""
    entered: list[str] = []

    def profile(frame, event, arg):  # noqa: ANN001, ANN202  # sys.setprofile's signature
        if event == "call":
            entered.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        ask()
    finally:
        sys.setprofile(None)
    return entered[1:]  # ``ask`` itself
