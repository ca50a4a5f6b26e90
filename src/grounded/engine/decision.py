"""What the rules decided about utterances of one engine: ``Decision``, which ``Engine.commit`` makes so.

Every way an utterance reaches an engine's state takes the same two steps:
``Engine.decide`` asks the rules (each utterance accepted with its effects, or
the first rejected with its violations), then ``Engine.commit`` mirrors the
accepted ones in the Python state, the history and the world model.  A log
this user's engine wrote is read the same way, its decision taken from the
effects recorded beside it (``Decision.from_record``) instead of from the rules.

The rules hold a decision as soon as they make it (their transaction has
committed, and an engine keeping an event log has written the lines inside
it): a decision with accepted utterances must be committed before the engine
decides again, and only on the engine that made it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from grounded.core.errors import PreconditionError

if TYPE_CHECKING:
    from grounded.dmap.operations import UtteranceBase
    from grounded.engine.snapshots import Kept
    from grounded.engine.world import Reading
    from grounded.io.effectlog import EffectsWriter
    from grounded.solvers.flat import Accepted, Rejected


@dataclass(slots=True)
class Decision:
    """The rules' verdict on utterances of one engine, in order: the accepted ones' effects and, if one was
    rejected, that one and its violations (the utterances after it were not decided).

    Held as columns, one entry per accepted utterance: ``turns``, ``utterances``, ``results`` (the rules'
    ``Accepted``: effects and the claims taken out of S_t), ``kept`` (what the history keeps: the log line's
    bytes, its JSON, or None for the utterance's own JSON) and, with a world model, ``readings`` (what each
    did to M).  ``recorded``: taken from the record beside a log, the rules not run.
    """

    turns: list[int]
    utterances: Sequence[UtteranceBase]
    results: Sequence[Accepted]
    kept: Sequence[Kept | None]
    readings: Sequence[Reading | None] | None = None
    rejected: tuple[int, UtteranceBase, Rejected] | None = None
    """(turn, utterance, the rules' ``Rejected``) of the utterance that stopped the decision, or None."""
    recorded: bool = False

    @classmethod
    def from_record(cls, turns: list[int], utterances: Sequence, texts: list[str], kept: Sequence[Kept]) -> Decision:
        """The decision recorded beside a log for these lines (grounded.io.effectlog: each accepted utterance's
        effects as the rules' flat reply spells them), read in one call."""
        from grounded.solvers.flat import read_flat

        return cls(turns, utterances, read_flat("".join(texts)), kept, recorded=True)

    def __len__(self) -> int:
        """The accepted utterances."""
        return len(self.turns)

    def check(self) -> None:
        """PreconditionError naming the rejected utterance's violations, if one was rejected."""
        if self.rejected is not None:
            turn, u, rejected = self.rejected
            raise PreconditionError(turn, u.speaker, rejected.violations)

    def record(self, writer: EffectsWriter) -> None:
        """Write each accepted utterance's effects beside its log line (grounded.io.effectlog), for a later
        reading of the log to commit them without the rules.  A line not kept as its log bytes ends the
        record: the reading then could not tell which line the effects belong to."""
        from grounded.solvers.flat import accepted_text  # a module the rules have imported

        for kept, result in zip(self.kept, self.results, strict=True):
            if type(kept) is bytes:
                writer.add(kept, accepted_text(result))
            else:
                writer.add(b"", None)

    def each(self) -> Iterator[Decision]:
        """The accepted utterances one by one, each a decision of its own (to commit one at a time)."""
        for i in range(len(self.turns)):
            yield Decision(self.turns[i:i + 1], self.utterances[i:i + 1], self.results[i:i + 1], self.kept[i:i + 1],
                           None if self.readings is None else self.readings[i:i + 1], recorded=self.recorded)

    def __repr__(self) -> str:
        stop = "" if self.rejected is None else f", then T{self.rejected[0]} rejected"
        return f"Decision({len(self)} accepted{stop}{', recorded' if self.recorded else ''})"
