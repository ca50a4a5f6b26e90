"""Which turn an utterance gets: the one rule, used by the engine and the cross-checks."""

from __future__ import annotations


def assign_turn(given: int | None, last: int | None) -> int:
    """``given`` when the utterance states its turn, else the one after ``last``
    (1 before the first utterance).  Whether a given turn is acceptable (strictly
    after ``last``) is the rules' decision (``turn_order``), not this function's."""
    if given is not None:
        return given
    return 1 if last is None else last + 1
