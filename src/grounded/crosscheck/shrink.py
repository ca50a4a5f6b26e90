"""`grounded check LOG --shrink`: the smallest history that still disagrees, by delta debugging.

A disagreement found on a long log is easiest to read on the few utterances
it needs.  ``shrink`` runs Zeller's ddmin over the log's utterances (the
header is kept): it splits them into n chunks and drops a chunk whenever what
is left is still (1) accepted by the rules, every utterance of it (a log
holds accepted utterances only, so a shorter log must too) and (2) still
disagrees under the same check (the three-way comparison and, for a log whose
probe was among what disagreed, the same probing: crosscheck/check.py).  When
no chunk can go it splits finer, down to single utterances: the result is
1-minimal, no single utterance can be dropped.

Each try costs one check of what is left, so the tries are bounded
(``MAX_TRIES`` and ``MAX_SECONDS``); a shrink stopped by a bound says so and
returns the smallest history found so far, which still disagrees.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from grounded.core.errors import PreconditionError
from grounded.dmap.model import Header
from grounded.engine import Engine

MAX_TRIES = 400
"""Checks a shrink may run."""
MAX_SECONDS = 600.0
"""Seconds a shrink may take."""


@dataclass
class Shrunk:
    utterances: list[dict]
    tries: int
    complete: bool
    """False when a bound stopped the search: smaller, still disagreeing, but maybe not 1-minimal."""

    def summary(self, before: int) -> str:
        done = "1-minimal" if self.complete else f"stopped after {self.tries} tries, maybe not minimal"
        return f"shrunk {before} utterances to {len(self.utterances)} that still disagree ({done}, {self.tries} checks)"


def accepted_by_the_rules(header: Header, utterances: list[dict], extensions=()) -> bool:
    """Does the engine accept every one of ``utterances``, in order?"""
    with Engine(header, extensions=extensions) as engine:
        try:
            for u in utterances:
                engine.apply(u)
        except PreconditionError:
            return False
    return True


def shrink(header: Header, utterances: list[dict], disagrees: Callable[[list[dict]], bool], extensions=(), *,
           max_tries: int = MAX_TRIES, max_seconds: float = MAX_SECONDS) -> Shrunk:
    """ddmin over ``utterances`` (which disagree) keeping a sub-history the rules accept that still disagrees."""
    current = list(utterances)
    tries = 0
    deadline = time.monotonic() + max_seconds
    n = 2
    while len(current) >= 2:
        size = -(-len(current) // n)
        chunks = [current[i:i + size] for i in range(0, len(current), size)]
        reduced = False
        for i in range(len(chunks)):
            if tries >= max_tries or time.monotonic() > deadline:
                return Shrunk(current, tries, False)
            rest = [u for j, chunk in enumerate(chunks) if j != i for u in chunk]
            if not rest or not accepted_by_the_rules(header, rest, extensions):
                continue
            tries += 1
            if disagrees(rest):
                current, n, reduced = rest, max(n - 1, 2), True
                break
        if not reduced:
            if n >= len(current):
                break
            n = min(2 * n, len(current))
    return Shrunk(current, tries, True)
