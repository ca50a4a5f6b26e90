"""Log lines applied from the effects recorded for them (grounded.io.effectlog), as the mirror reads them."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # the models: a query answered from a snapshot imports no pydantic
    from grounded.dmap.operations import UtteranceBase


class _Ops(list):
    """An utterance's operations as JSON objects, each made an object with attributes only when the
    mirror reads it (for a new proposition or argument: its ``op`` and ``text``)."""

    def __getitem__(self, i: Any) -> Any:
        return SimpleNamespace(**super().__getitem__(i))


class RecordedLine:
    """A log line whose recorded effects authenticated, as the mirror reads it: speaker, text, turn and
    operations straight from its JSON.  The engine validated the line when it wrote it (the record's MAC
    covers its bytes), so a replay without ``on_update`` (which is handed validated utterances) does not
    validate it again: that was half of the cost of a line applied from its record.  ``history``
    validates the kept bytes when asked, as for every line read from a log."""

    __slots__ = ("turn", "speaker", "text", "ops")

    def __init__(self, turn: int | None, speaker: str, text: str, ops: _Ops):
        self.turn, self.speaker, self.text, self.ops = turn, speaker, text, ops

    @classmethod
    def read_all(cls, bodies: list[bytes]) -> list[UtteranceBase] | None:
        """The lines, read as one JSON array (one call for a batch, not one a line), or None if one is not
        the shape the engine writes (then each is validated as usual, naming what is wrong)."""
        try:
            objects = json.loads(b"[" + b",".join(bodies) + b"]")
            return [cast("UtteranceBase", cls(d.get("turn"), d["speaker"], d.get("text", ""), _Ops(d.get("ops", ()))))
                    for d in objects]
        except (ValueError, TypeError, KeyError, AttributeError):
            return None
