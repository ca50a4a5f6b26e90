"""Verify and Affected* as methods of the map they walk (``Engine`` is a ``Walks``).

A question is then one Python frame over the walk, looked up as a method (the
interpreter's fastest look-up: a function kept in an instance's attribute, as
a closure bound to the map would be, is looked up more slowly, 0.06x of the
authors' answer to Verify of an observation: bench/compare.py).
"""

from __future__ import annotations

from grounded.queries.affected import affected_over
from grounded.queries.answer import Over
from grounded.queries.verify import verify_over


class Walks(Over):
    """The query walks over the map set by ``_walk_over``."""

    __slots__ = ()

    verify = verify_over
    affected = affected_over
