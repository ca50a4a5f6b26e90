"""The accepted utterances as an engine keeps them for ``Engine.history``, packed.

Each utterance is kept as its JSON text (validated again only when the history
is asked for).  Kept as a list of ``(turn, text)`` pairs, an utterance cost a
tuple, a string header and a list slot beside its text: about 120 bytes more
than the text, 12 MB of the resident set at 10^5 utterances (issue 23).  Here
the texts share one byte buffer, cut by an array of end offsets, and the turns
sit in an array of machine integers: 16 bytes beside the text.  An utterance
that is not JSON text (a model given directly) is kept as the object.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator

from grounded.dmap.operations import UtteranceBase
from grounded.engine.snapshots import Kept


class History:
    """Turns and utterances in order of acceptance; iterating gives ``(turn, bytes | model)``."""

    __slots__ = ("_turns", "_text", "_ends", "_models")

    def __init__(self, entries: Iterable[tuple[int, Kept]] = ()) -> None:
        self._turns = array("q")
        self._text = bytearray()
        self._ends = array("Q")
        self._models: dict[int, UtteranceBase] = {}
        for turn, kept in entries:
            self.append(turn, kept)

    def append(self, turn: int, kept: Kept) -> None:
        if isinstance(kept, str):
            self._text += kept.encode()
        elif isinstance(kept, bytes):
            self._text += kept
        else:
            self._models[len(self._turns)] = kept
        self._turns.append(turn)
        self._ends.append(len(self._text))

    def prepend(self, entries: Iterable[tuple[int, Kept]]) -> None:
        """``entries`` (the earlier turns, read back from a log) before those kept now."""
        whole = History(entries)
        for turn, kept in self:
            whole.append(turn, kept)
        self._turns, self._text, self._ends, self._models = whole._turns, whole._text, whole._ends, whole._models

    def __len__(self) -> int:
        return len(self._turns)

    def __iter__(self) -> Iterator[tuple[int, bytes | UtteranceBase]]:
        text, ends, models = self._text, self._ends, self._models
        start = 0
        for i, turn in enumerate(self._turns):
            end = ends[i]
            model = models.get(i) if models else None
            yield turn, (model if model is not None else bytes(text[start:end]))
            start = end
