"""Several engines' utterances decided by the rules in one request: the service's group of writes.

A served append costs one request to the rules, and between two of them the
server parses HTTP, writes SQLite and answers JSON, so each request finds the
rules' code and data out of the processor's caches and pays the crossing and
the driver's wrapper on its own (docs/benchmarks.md measures it).  The service
queues the writes of a loop iteration and runs them as one group
(service/host.py): ``apply_group`` has the rules decide all of them in one
request (``decide_group``, beside ``Engine.decide`` in engine.py), then commits
each engine's decision, as ``Engine.apply`` does: decide, then commit.

Each utterance is decided on its own: one rejected leaves the others, and an
utterance the group's request cannot carry (see ``decide_group``) is decided by
its engine alone, so a grouped utterance comes to what it would have alone.
Each engine appears once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grounded.core.errors import InputError, PreconditionError, PrologError
from grounded.engine.engine import Engine, decide_group
from grounded.engine.update import Update

if TYPE_CHECKING:
    from grounded.dmap.operations import UtteranceBase

Outcome = Update | InputError | PreconditionError | PrologError
"""What one utterance of a group came to: its update, or what ``Engine.apply`` would have raised."""


def apply_group(items: Sequence[tuple[Engine, UtteranceBase | dict[str, Any]]]) -> list[Outcome]:
    """Apply each (engine, utterance), every engine once, in one request to the rules where they can
    take it: each outcome in the order given."""
    outcomes: list[Outcome] = []
    for (engine, _), decided in zip(items, decide_group(items), strict=True):
        if isinstance(decided, Exception):
            outcomes.append(decided)
            continue
        try:
            decided.check()
        except PreconditionError as exc:
            outcomes.append(exc)
            continue
        outcomes.append(engine.commit(decided)[0])
    return outcomes
