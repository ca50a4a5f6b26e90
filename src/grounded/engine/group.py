"""Several engines' utterances decided by the rules in one request: the service's group of writes.

A served append costs one request to the rules, and between two of them the
server parses HTTP, writes SQLite and answers JSON, so each request finds the
rules' code and data out of the processor's caches and pays the crossing and
the driver's wrapper on its own (the rules' time per append in the server was
1.3-1.7x the same request's in a loop).  The service queues the writes of a
loop iteration and runs them as one group (service/host.py): ``apply_group``
decides all of them in one request, the rules running back to back, then
mirrors each accepted one in its engine, as ``Engine.apply`` would have.

Each utterance is decided on its own: one rejected leaves the others.  An
engine the group cannot take (a world model to ask, a log to write inside the
rules' transaction, an utterance without operations, which needs no rule run,
a value the flat text does not carry, extensions other than the group's) is
applied alone, by ``Engine.apply``.  Each engine appears once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from grounded.core.errors import InputError, PreconditionError, PrologError
from grounded.engine import loading
from grounded.engine.engine import Engine
from grounded.engine.update import Update

if TYPE_CHECKING:
    from grounded.dmap.operations import UtteranceBase
    from grounded.solvers.prolog import RuleState
    from grounded.solvers.termdata import PlString

Outcome = Update | InputError | PreconditionError | PrologError
"""What one utterance of a group came to: its update, or what ``Engine.apply`` would have raised."""


def apply_group(items: Sequence[tuple[Engine, UtteranceBase | dict[str, Any]]]) -> list[Outcome]:
    """Apply each (engine, utterance), every engine once, in one request to the rules where they can
    take it: each outcome in the order given."""
    if len({id(engine) for engine, _ in items}) != len(items):
        raise ValueError("apply_group: an engine appears twice (its utterances go one after the other)")
    outcomes: list[Outcome | None] = [None] * len(items)
    grouped: list[tuple[int, Engine, int, UtteranceBase, RuleState, PlString]] = []
    extensions: tuple[str, ...] | None = None
    for i, (engine, utterance) in enumerate(items):
        try:
            u = engine._validated(utterance)
            turn = loading.turn_of(u, engine.state.last_turn)
        except (InputError, PreconditionError) as exc:
            outcomes[i] = exc
            continue
        text = None
        if (u.ops and engine.world is None and engine._log is None
                and (extensions is None or engine.extensions == extensions)):
            _, registry, rules = engine._rule_base()
            text = rules.live_text(registry.encode(turn, u))
        if text is None:
            outcomes[i] = _alone(engine, u)
            continue
        extensions = engine.extensions
        grouped.append((i, engine, turn, u, rules, text))
    if grouped:
        from grounded.solvers.flat import Rejected

        prolog = grouped[0][1]._prolog
        prolog.use_extensions(grouped[0][1].extensions)
        decided = prolog.apply_group([(rules, text) for *_, rules, text in grouped])
        for (i, engine, turn, u, _, _), result in zip(grouped, decided, strict=True):
            engine.last_verdicts = {}
            if isinstance(result, PrologError):
                outcomes[i] = result
            elif isinstance(result, Rejected):
                outcomes[i] = PreconditionError(turn, u.speaker, result.violations)
            else:
                outcomes[i] = engine._mirror(turn, u, result, None)
    assert all(o is not None for o in outcomes)
    return outcomes  # type: ignore[return-value]  # every one set above


def _alone(engine: Engine, u: UtteranceBase) -> Outcome:
    try:
        return engine.apply(u)
    except (InputError, PreconditionError, PrologError) as exc:
        return exc
