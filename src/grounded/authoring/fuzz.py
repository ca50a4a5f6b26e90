"""``grounded fuzz -x FILE``: aimed histories mixing the built-in operations with the author's,
each checked three ways by ``check_history`` (what ``grounded check`` runs), and what they reached.

Histories are drawn by grounded.authoring.aim: a header with or without a
world model (and, in some, without restriction A2), a scene that builds the
states where bugs live (a target in each standing, competing hypotheses on
one question, an attack cycle), then moves drawn from each operation's JSON
Schema and the current state's literals; rejected utterances stay in the
history, since the check compares rejections too.  History ``i`` of a run
with seed ``s`` draws from ``random.Random(s + i)``: ``--seed s+i
--histories 1`` redraws it alone.

The run fails on the first disagreement, and also when the coverage says the
check tested too little: an operation of the extension never accepted, or a
transition it declares never fired (grounded.authoring.coverage).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grounded.authoring.aim import draw
from grounded.authoring.coverage import Coverage, Tally
from grounded.crosscheck.check import check_history


@dataclass
class FuzzReport:
    seed: int
    histories: int = 0
    in_world: int = 0
    """Histories under a header that declares a world model."""
    utterances: int = 0
    accepted: int = 0
    coverage: dict[str, Coverage] = field(default_factory=dict)
    """The extension's operations, each with what the histories reached of it."""
    failure: tuple[int, int, int, str] | None = None
    """(history number, its seed, its utterances, the first disagreement)."""

    @property
    def used(self) -> dict[str, int]:
        """The author's operations accepted, by name."""
        return {op: c.accepted for op, c in self.coverage.items() if c.accepted}

    @property
    def problems(self) -> list[str]:
        """What the coverage says the run missed (an operation never accepted, a transition never fired)."""
        return [p for c in self.coverage.values() for p in c.problems()]

    @property
    def ok(self) -> bool:
        return self.failure is None and not self.problems


def fuzz(extensions: Sequence[str | Path], histories: int, seed: int, length: int = 12,
         on_history: Callable[[int, FuzzReport], None] | None = None) -> FuzzReport:
    """Draw and check ``histories`` histories of a scene and ``length`` moves; stop at the first
    disagreement."""
    report = FuzzReport(seed)
    tally: Tally | None = None
    for i in range(histories):
        head, drawn = draw(random.Random(seed + i), extensions, length)
        if tally is None:  # the rules hold the extensions now: their operations and declarations
            from grounded.solvers.prolog import PrologRules

            registry = PrologRules.get().registry()
            tally = Tally(sorted(n for n in registry.specs if n not in registry.builtins))
            report.coverage = tally.of
        tally.history(drawn, head.world is not None)
        candidates = [d.utterance for d in drawn]
        result = check_history(head, candidates, extensions, label=f"history {i + 1}")
        report.histories += 1
        report.in_world += head.world is not None
        report.utterances += len(candidates)
        report.accepted += sum(d.update is not None for d in drawn)
        if not result.ok:
            report.failure = (i + 1, seed + i, len(candidates), (result.mismatches or result.failures)[0])
            break
        if on_history is not None:
            on_history(i + 1, report)
    return report
