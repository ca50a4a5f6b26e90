"""Several engines' utterances decided by the rules in one request: the service's group of writes.

A served append costs one request to the rules, and between two of them the
server parses HTTP, writes SQLite and answers JSON, so each request finds the
rules' code and data out of the processor's caches and pays the crossing and
the driver's wrapper on its own (the rules' time per append in the server was
1.3-1.7x the same request's in a loop).  The service queues the writes of a
loop iteration and runs them as one group (service/host.py): ``apply_group``
decides all of them in one request, the rules running back to back, then
mirrors each accepted one in its engine, as ``Engine.apply`` would have.

Each utterance is decided on its own: one rejected leaves the others.  Each
engine takes the two halves of ``Engine.apply``: ``_prepare`` (the utterance
validated, its turn, the rules' request text) before the group's request, and
``_settle`` (the rules' answer mirrored, or the PreconditionError
``Engine.apply`` raises) after it, so a grouped utterance comes to what it
would have alone.  An engine ``_prepare`` finds no request text for (an
utterance without operations, which needs no rule run; a world model to ask;
a log to write inside the rules' transaction; a value the flat text does not
carry), or with extensions other than the group's, is applied alone, as
``Engine.apply`` would.  Each engine appears once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grounded.core.errors import InputError, PreconditionError, PrologError
from grounded.engine.engine import Engine
from grounded.engine.update import Update

if TYPE_CHECKING:
    from grounded.dmap.operations import UtteranceBase
    from grounded.solvers.flat import Accepted, Rejected
    from grounded.solvers.termdata import PlString

Outcome = Update | InputError | PreconditionError | PrologError
"""What one utterance of a group came to: its update, or what ``Engine.apply`` would have raised."""


def apply_group(items: Sequence[tuple[Engine, UtteranceBase | dict[str, Any]]]) -> list[Outcome]:
    """Apply each (engine, utterance), every engine once, in one request to the rules where they can
    take it: each outcome in the order given."""
    if len({id(engine) for engine, _ in items}) != len(items):
        raise ValueError("apply_group: an engine appears twice (its utterances go one after the other)")
    outcomes: list[Outcome | None] = [None] * len(items)
    grouped: list[tuple[int, Engine, UtteranceBase, int, PlString]] = []
    extensions: tuple[str, ...] | None = None
    for i, (engine, utterance) in enumerate(items):
        try:
            u, turn, text = engine._prepare(utterance)
        except (InputError, PreconditionError) as exc:
            outcomes[i] = exc
            continue
        if text is None or (extensions is not None and engine.extensions != extensions):
            outcomes[i] = _alone(engine, u, turn, text)
            continue
        extensions = engine.extensions
        grouped.append((i, engine, u, turn, text))
    if grouped:
        prolog = grouped[0][1]._prolog
        prolog.use_extensions(grouped[0][1].extensions)
        decided = prolog.apply_group([(engine.rules, text) for _, engine, _, _, text in grouped])
        for (i, engine, u, turn, _), result in zip(grouped, decided, strict=True):
            outcomes[i] = result if isinstance(result, PrologError) else _settled(engine, u, turn, result)
    assert all(o is not None for o in outcomes)
    return outcomes  # type: ignore[return-value]  # every one set above


def _settled(engine: Engine, u: UtteranceBase, turn: int, result: Accepted | Rejected) -> Outcome:
    """The rules' answer on a grouped utterance, settled as ``Engine.apply`` settles it: the update or the refusal."""
    try:
        return engine._settle(turn, u, result)
    except PreconditionError as exc:
        return exc


def _alone(engine: Engine, u: UtteranceBase, turn: int, text: PlString | None) -> Outcome:
    """An utterance the group does not take, applied as ``Engine.apply`` applies it: the update or the error."""
    try:
        return engine._apply_prepared(u, turn, text)
    except (InputError, PreconditionError, PrologError) as exc:
        return exc
