"""Histories drawn until every transition an operation declares has fired: the tests' reading of
grounded.authoring.coverage (``grounded cover FILE``), one operation at a time.

A bug the rules and their ASP twin share -- an effect forgotten in both files
alike -- passes the three-way check, since the two agree; it shows here as a
declared transition that never fires.  Every standing change any operation
emits is checked against what that operation declares.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from grounded.authoring.coverage import Coverage, declared_transitions, shown
from grounded.authoring.coverage import cover as cover_all

__all__ = ["Coverage", "cover", "declared_transitions", "shown"]


def cover(op: str, extensions: Iterable[str | Path] = (), *, seed: int = 0, histories: int = 400,
          length: int = 30, seconds: float = 60.0) -> Coverage:
    """The coverage of ``op`` in aimed histories that draw it about half the time."""
    return cover_all([op], tuple(extensions), seed=seed, histories=histories, length=length, seconds=seconds).of[op]
