"""What one accepted utterance changed: ``Update``, as ``Engine.apply`` returns it and
``Engine.load`` hands each replayed utterance to ``on_update``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from grounded.core.display import Displayable

if TYPE_CHECKING:
    from grounded.dmap.effects import Effect
    from grounded.dmap.operations import UtteranceBase

E = TypeVar("E")


@dataclass(slots=True, eq=False)  # an update is one event: two are the same only if they are one
class Update(Displayable):
    """What one accepted utterance changed.

    ``effects`` are the rules' typed effects, in the order they applied them
    (grounded.dmap.effects).  ``left`` are the claims this utterance took out of
    S_t (the rules decide them: prolog/grounded.pl, left_standing/2);
    ``flagged`` maps each of them to the claims in S_t that rest on it
    (Affected* in S_t, walked here): flagged for re-evaluation, never changed
    silently.  With a declared world model, ``worlds`` is |W| before and after
    the utterance (else None) and ``model_updates`` what the utterance did to M
    ('!o5', '^h1', 'withdraw a3').
    """

    turn: int
    speaker: str
    utterance: UtteranceBase
    effects: list[Effect]
    left: tuple[str, ...]
    flagged: dict[str, list[str]]
    worlds: tuple[int, int] | None = None
    model_updates: tuple[str, ...] = ()

    def of(self, kind: type[E]) -> list[E]:
        """The effects of one kind, e.g. ``update.of(Problem)``."""
        return [e for e in self.effects if isinstance(e, kind)]

    def __repr__(self) -> str:
        return f"Update(T{self.turn} {self.speaker}: {len(self.effects)} effects)"
