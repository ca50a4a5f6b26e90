"""What if: an utterance applied to the state as of some turn, without recording it.

A lecturer (or an Interpreter weighing a continuation) asks "what would the
rules do if bob said this now, or back at turn 9?".  The answer comes from a
scratch engine: a new engine with the same header and extensions decides the
accepted utterances up to that turn and commits them, then decides the
hypothetical utterance, and commits it when the rules accept it.  The asking engine is only read (its history of
accepted utterances); its state, its world model and its event log are never
touched, and the rules hand its state back before its next utterance (the
scratch engine disowns them when it is done).

Replaying is the one way to get the state as of an earlier turn exactly, the
world model M included: M's record of first announcements is kept for the
current turn only, so it cannot be cut back to an earlier one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from grounded.core.display import Displayable
from grounded.core.errors import Violation

if TYPE_CHECKING:
    from grounded.dmap.operations import UtteranceBase


@dataclass(frozen=True)
class WhatIf(Displayable):
    """The rules' answer to a hypothetical utterance.

    ``engine`` is the scratch engine: the state after the utterance when it
    was accepted, the state as of ``at`` when it was rejected.  ``update`` is
    the Update it would have made (None when rejected), ``violations`` every
    failing condition (empty when accepted).
    """

    at: int | None
    turn: int
    speaker: str
    utterance: UtteranceBase
    update: Any
    """An ``Update`` (typed loosely: engine.py imports this module, not the other way round)."""
    violations: tuple[Violation, ...]
    engine: Any

    @property
    def accepted(self) -> bool:
        return self.update is not None

    @property
    def flagged(self) -> dict[str, list[str]]:
        """Claim that would leave standing -> the claims in S_t resting on it."""
        return {} if self.update is None else dict(self.update.flagged)

    @property
    def codes(self) -> list[str]:
        return [v.code for v in self.violations]

    def __repr__(self) -> str:
        when = "now" if self.at is None else f"as of T{self.at}"
        if self.accepted:
            return (f"WhatIf(T{self.turn} {self.speaker} {when}: accepted, "
                    f"{len(self.update.effects)} effects, flagged {self.flagged})")
        return f"WhatIf(T{self.turn} {self.speaker} {when}: rejected {self.codes})"


def what_if(engine: Any, utterance: UtteranceBase | dict[str, Any], at: int | None = None) -> WhatIf:
    """Apply ``utterance`` to ``engine``'s state as of turn ``at`` (None: its last) in a scratch engine.

    The scratch engine decides the accepted history up to ``at`` and commits it (in one request, or one per
    utterance with a world model, each read in the model the one before committed), then decides the
    hypothetical utterance and commits it if the rules accept it.  The utterance's turn defaults to the one
    after the state's last turn; a malformed utterance raises InputError, as ``Engine.apply`` does.
    """
    scratch = type(engine)(engine.header, extensions=engine.extensions)
    try:
        said = [u if u.turn is not None else u.model_copy(update={"turn": turn}) for turn, u in engine.history(at)]
        step = 1 if scratch.world is not None else max(len(said), 1)
        for start in range(0, len(said), step):
            replayed = scratch.decide(said[start:start + step])
            replayed.check()  # accepted once by the same rules from the same state: accepted again
            scratch.commit(replayed, updates=False)
        decision = scratch.decide([utterance])
        if decision.rejected is not None:
            turn, u, rejected = decision.rejected
            return WhatIf(at, turn, u.speaker, u, None, tuple(rejected.violations), scratch)
        (update,) = scratch.commit(decision)
        return WhatIf(at, update.turn, update.speaker, update.utterance, update, (), scratch)
    finally:
        scratch.close()
