"""The accepted utterances as an engine keeps them for ``Engine.history``, packed.

Each utterance is kept as its JSON text (validated again only when the history
is asked for).  Kept as a list of ``(turn, text)`` pairs, an utterance cost a
tuple, a string header and a list slot beside its text: about 120 bytes more
than the text (12 MB of the resident set at 10^5 utterances).  Here
the texts share a byte buffer, cut by an array of end offsets, and the turns
sit in an array of machine integers: 12 bytes beside the text.  Each 64 KiB of
text is then compressed (zlib at its fastest level: the lines of one
conversation repeat their keys and speakers, and shrink about tenfold), so the
history costs a few bytes per utterance; asking for it decompresses the blocks
once.  An utterance that is not JSON text (a model given directly) is kept as
the object.
"""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import TYPE_CHECKING

from grounded.engine.snapshots import Kept

if TYPE_CHECKING:  # the models: a query answered from a snapshot imports no pydantic
    from grounded.dmap.operations import UtteranceBase

BLOCK = 1 << 16
"""Bytes of text gathered before they are compressed as one block."""


class History:
    """Turns and utterances in order of acceptance; iterating gives ``(turn, bytes | model)``."""

    __slots__ = ("_turns", "_ends", "_text", "_blocks", "_counts", "_models")

    def __init__(self, entries: Iterable[tuple[int, Kept]] = ()) -> None:
        self._turns = array("q")
        self._ends = array("I")  # each text's end within its block
        self._text = bytearray()  # the block being filled
        self._blocks: list[bytes] = []  # the blocks filled, compressed
        self._counts: list[int] = []  # utterances up to the end of each of them
        self._models: dict[int, UtteranceBase] = {}
        for turn, kept in entries:
            self.append(turn, kept)

    def append(self, turn: int, kept: Kept) -> None:
        if isinstance(kept, bytes):
            self.append_text(turn, kept)
        elif isinstance(kept, str):
            self.append_text(turn, kept.encode())
        else:
            self._models[len(self._turns)] = kept
            self.append_text(turn, b"")

    def append_text(self, turn: int, text: bytes) -> None:
        """``append`` of a log line's bytes, without asking what was kept: a load from the effects record
        keeps one a line, 10^5 a second (grounded.engine.loading)."""
        self._text += text
        self._turns.append(turn)
        self._ends.append(len(self._text))
        if len(self._text) >= BLOCK:
            self._blocks.append(zlib.compress(self._text, 1))
            self._counts.append(len(self._turns))
            self._text = bytearray()

    def prepend(self, entries: Iterable[tuple[int, Kept]]) -> None:
        """``entries`` (the earlier turns, read back from a log) before those kept now."""
        whole = History(entries)
        for turn, kept in self:
            whole.append(turn, kept)
        for name in History.__slots__:
            setattr(self, name, getattr(whole, name))

    def __len__(self) -> int:
        return len(self._turns)

    def __iter__(self) -> Iterator[tuple[int, bytes | UtteranceBase]]:
        turns, ends, models = self._turns, self._ends, self._models
        first = 0
        for text, last in chain(zip(map(zlib.decompress, self._blocks), self._counts, strict=True),
                                [(bytes(self._text), len(turns))]):
            start = 0
            for i in range(first, last):
                end = ends[i]
                model = models.get(i) if models else None
                yield turns[i], (model if model is not None else text[start:end])
                start = end
            first = last
