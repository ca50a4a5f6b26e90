"""What the rules report back for one utterance: transitions or violations.

The Prolog driver prints one tab-separated line per item (see
``print_result`` in prolog/grounded.pl); this module reads them.
"""

from __future__ import annotations

from typing import NamedTuple

from grounded.core.errors import Violation


class Transition(NamedTuple):
    """One effect the rules applied: ``index`` is the operation (-1: the utterance)."""

    index: int
    name: str
    fields: tuple[str, ...]


def parse_result(text: str) -> tuple[bool, list[Transition] | list[Violation]]:
    status, _, body = text.partition("\n")
    lines = [line for line in body.split("\n") if line]
    if status == "accepted":
        transitions = []
        for line in lines:
            index, name, *fields = line.split("\t")
            transitions.append(Transition(int(index), name, tuple(fields)))
        return True, transitions
    if status == "rejected":
        violations = []
        for line in lines:
            index, op, code, message = line.split("\t", 3)
            violations.append(Violation(int(index), op, code, message))
        return False, violations
    raise ValueError(f"unexpected answer from the rules: {text[:200]!r}")
