"""The thread SWI-Prolog belongs to: the first to make an engine claims it, before the rules start.

Kept apart from grounded.solvers.prolog so that making an engine, which claims the thread, does not import
the Prolog bridge: a query answered from a snapshot never starts the rules.
"""

from __future__ import annotations

import threading

_owner: list[int] = []
"""The owning thread's identifier, once claimed."""


def claim_rules() -> None:
    """The calling thread makes an engine (or starts the rules): the rule base belongs to the first to claim it."""
    if not _owner:
        _owner.append(threading.get_ident())


def rules_owner() -> int | None:
    """The thread that claimed the rule base (None before any did)."""
    return _owner[0] if _owner else None
