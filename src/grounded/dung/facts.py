"""A framework as the facts the af_*.lp encodings read: arg(X). att(X, Y).

The facts go to clingo as program text, parsed by clingo itself: one string
built in a list comprehension, rather than a Python ``clingo.Symbol`` per
fact handed to the backend (at 10^5 arguments and 2 x 10^5 attacks, building
the symbols cost more than grounding and solving together).
"""

from __future__ import annotations

from collections.abc import Iterable

import clingo

from grounded.dung.framework import Framework


def framework_program(af: Framework, required: Iterable[int] = ()) -> str:
    """The facts of ``af`` (and ``required(X)`` for each argument that must be in) as ASP text."""
    return "".join([*[f"arg({a})." for a in af.arguments], *[f"att({a},{b})." for a, b in af.attacks],
                    *[f"required({x})." for x in required]])


def add_framework(ctl: clingo.Control, af: Framework, required: Iterable[int] = ()) -> None:
    ctl.add("base", [], framework_program(af, required))


def members(model: clingo.Model) -> frozenset[int]:
    """The arguments of the extension a model describes: its in/1 atoms."""
    return frozenset(s.arguments[0].number for s in model.symbols(shown=True) if s.name == "in")
