"""Plain values of the dependency map that its pydantic models (grounded.dmap.model) and the code that
answers queries both use: importable without pydantic, which a query answered from a snapshot does not
import (its start-up budget: tests/test_startup.py).  ``AgentRecord``, ``PropDecl`` and ``PlainHeader`` copy
their models' fields and defaults (``Agent``, ``Proposition``, ``Header``); tests/test_plain_copies.py holds
each copy equal to its model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple


def class_name(name: str) -> str:
    """A rule name as a Python class name: ``expand_awareness`` -> ``ExpandAwareness`` (operations, effects)."""
    return "".join(part.title() for part in name.split("_"))


@dataclass(frozen=True, slots=True)
class StandingNote:
    """How a claim's newest argument reached its standing: the one structured form
    (the rules compute the same triple, claim_standing/4), rendered by ``str()``."""

    standing: str
    turn: int
    cause: str | None
    """The literal whose argument caused it (None: no cause recorded)."""

    def __str__(self) -> str:
        return standing_text(self.turn, self.standing, self.cause)


def standing_text(turn: int, standing: str, cause: str | None) -> str:
    """A standing change as words ('abandoned at T9 by o9'), from its fields in the order an argument's
    history holds them: Verify's reason formats a history entry without building a ``StandingNote``."""
    return f"{standing} at T{turn}" if cause is None else f"{standing} at T{turn} by {cause}"


class AgentRecord(NamedTuple):
    """An agent of the state: declared in the header (its ``Agent``'s fields) or joined on first word.
    (A named tuple, as ``PropDecl``: made at import in a tenth of a frozen dataclass's time.)"""

    role: str = ""
    authority: bool = False


class PropDecl(NamedTuple):
    """A proposition the header declares (a ``Proposition``'s fields)."""

    id: str
    text: str = ""
    kind: str = "observation"
    aware: bool = True


class PlainHeader:
    """The header of a log whose snapshot fits, read as plain data: its fields were validated by the reading
    that took the snapshot from the log's bytes, which the snapshot's MAC covers (grounded.io.reader,
    ``authenticated_header``), so a query answered from the snapshot neither validates them again nor imports
    pydantic.  The engine and the state read what they need of it as of a ``Header``
    (agents, props, acyclic, world); ``Header.authenticated(fields)`` is the ``Header`` itself, for whoever
    asks for it (``Engine.header``).  Never a header with a world model (such a log is never snapshotted)."""

    __slots__ = ("acyclic", "agents", "fields", "props")
    world: None = None

    def __init__(self, fields: dict[str, Any]):
        if fields.get("world") is not None:
            raise ValueError("a header with a world model is validated, never taken as authenticated")
        self.fields = fields
        self.agents = {name: AgentRecord(**a) for name, a in fields.get("agents", {}).items()}
        self.props = [PropDecl(**p) for p in fields.get("props", [])]
        self.acyclic: bool = fields.get("acyclic", True)
