"""A log line applied from the effects recorded for it (grounded.io.effectlog), as the mirror reads it."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import cast

from grounded.dmap.operations import UtteranceBase


class RecordedLine:
    """A log line whose recorded effects authenticated, as the mirror reads it: speaker, text, turn and
    operations straight from its JSON.  The engine validated the line when it wrote it (the record's MAC
    covers its bytes), so a replay without ``on_update`` (which is handed validated utterances) does not
    validate it again: that was half of the cost of a line applied from its record.  ``history``
    validates the kept bytes when asked, as for every line read from a log."""

    __slots__ = ("turn", "speaker", "text", "ops")

    def __init__(self, turn: int | None, speaker: str, text: str, ops: list[SimpleNamespace]):
        self.turn, self.speaker, self.text, self.ops = turn, speaker, text, ops

    @classmethod
    def read(cls, body: bytes) -> UtteranceBase | None:
        """The line, or None if it is not the shape the engine writes (then it is validated as usual)."""
        try:
            d = json.loads(body)
            return cast(UtteranceBase, cls(d.get("turn"), d["speaker"], d.get("text", ""),
                                           [SimpleNamespace(**op) for op in d.get("ops", ())]))
        except (ValueError, TypeError, KeyError, AttributeError):
            return None
