"""``grounded fuzz -x FILE``: random histories mixing the built-in operations with the
author's, each checked three ways by ``check_history`` (what ``grounded check`` runs).

An utterance is drawn against the state so far (the engine applies it as it
is drawn, so later draws see what was accepted): an operation, the author's
about two times in five, its fields drawn from its ``operation/3``
declaration: a literal field names a claimed literal most of the time, else
an open problem (for ``explains``), a fresh name (mostly, for ``claim``) or
a negation; observations and hypotheses are drawn more often, to build a state; rejected utterances stay in the
history, since the check compares rejections too.  History ``i`` of a run
with seed ``s`` draws from ``random.Random(s + i)``: ``--seed s+i
--histories 1`` redraws it alone.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grounded.core.errors import PreconditionError
from grounded.crosscheck.check import check_history
from grounded.dmap.model import Header
from grounded.dmap.operations import OperationSpec
from grounded.engine import Engine

HEADER = Header.model_validate({"agents": {"alice": {"authority": True}, "bob": {}, "carol": {}}})
FRESH = tuple(f"{p}{n}" for p in "ohx" for n in range(1, 9))
EXTENSION_SHARE = 0.4
BUILDERS = ("observe", "hypothesize")


@dataclass
class FuzzReport:
    seed: int
    histories: int = 0
    utterances: int = 0
    accepted: int = 0
    used: Counter[str] = field(default_factory=Counter)
    """The author's operations accepted, by name: a fuzz that never accepts them tests little."""
    failure: tuple[int, int, int, str] | None = None
    """(history number, its seed, its utterances, the first disagreement)."""

    @property
    def ok(self) -> bool:
        return self.failure is None


def fuzz(extensions: Sequence[str | Path], histories: int, seed: int, length: int = 12,
         on_history: Callable[[int, FuzzReport], None] | None = None) -> FuzzReport:
    """Draw and check ``histories`` histories of ``length`` utterances; stop at the first disagreement."""
    report = FuzzReport(seed)
    for i in range(histories):
        rng = random.Random(seed + i)
        candidates, accepted, used = _draw(rng, extensions, length)
        result = check_history(HEADER, candidates, extensions, label=f"history {i + 1}")
        report.histories += 1
        report.utterances += len(candidates)
        report.accepted += accepted
        report.used.update(used)
        if not result.ok:
            report.failure = (i + 1, seed + i, len(candidates), (result.mismatches or result.failures)[0])
            break
        if on_history is not None:
            on_history(i + 1, report)
    return report


def _draw(rng: random.Random, extensions: Sequence[str | Path], length: int) -> tuple[list[dict], int, Counter[str]]:
    engine = Engine(HEADER, extensions=extensions)
    registry = engine.registry
    # what builds a state (observations, hypotheses) three times as often as the other built-ins
    builtins = sorted(n for n in registry.specs if n in registry.builtins)
    builtins += [n for n in builtins if n in BUILDERS] * 2
    ours = sorted(n for n in registry.specs if n not in registry.builtins)
    candidates: list[dict] = []
    accepted, used = 0, Counter[str]()
    for turn in range(1, length + 1):
        names = [rng.choice(ours) if ours and rng.random() < EXTENSION_SHARE else rng.choice(builtins)
                 for _ in range(rng.choice((1, 1, 1, 2)))]
        u = {"turn": turn, "speaker": rng.choice(sorted(HEADER.agents)),
             "ops": [_op(rng, registry.specs[n], engine) for n in names]}
        candidates.append(u)
        try:
            engine.apply(u)
        except PreconditionError:
            continue
        accepted += 1
        used.update(n for n in names if n in ours)
    engine.close()
    return candidates, accepted, used


def _op(rng: random.Random, spec: OperationSpec, engine: Engine) -> dict:
    dm = engine.state
    claimed = sorted(dm.claimants)
    problems = sorted(dm.open_problems)

    def literal(key: str) -> str:
        pool = problems if key == "explains" and problems and rng.random() < 0.7 else claimed
        known = 0.2 if key == "claim" else 0.85  # a claim is mostly new, a reference mostly not
        value = rng.choice(pool) if pool and rng.random() < known else rng.choice(FRESH)
        return f"-{value.lstrip('-')}" if rng.random() < 0.05 else value

    op: dict = {"op": spec.name}
    for f in spec.fields:
        if f.type == "text" or (not f.required and rng.random() < 0.7):
            continue
        if f.type == "literal":
            op[f.name] = literal(f.name)
        else:
            op[f.name] = sorted({literal(f.name) for _ in range(rng.randint(0, 2))})
    return op
