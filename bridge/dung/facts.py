"""A framework as the facts the af_*.lp encodings read: arg(X). att(X, Y).

The facts are clingo symbols handed to the solver's backend: typed terms, no
string building.  (clorm, used for the history facts, costs about a second per
10,000 arguments here, more than solving.)
"""

from __future__ import annotations

from collections.abc import Iterable

import clingo

from grounded.dung.framework import Framework

_N = clingo.Number


def framework_symbols(af: Framework, required: Iterable[int] = ()) -> list[clingo.Symbol]:
    symbols = [clingo.Function("arg", [_N(a)]) for a in af.arguments]
    symbols += [clingo.Function("att", [_N(a), _N(b)]) for a, b in af.attacks]
    symbols += [clingo.Function("required", [_N(x)]) for x in required]
    return symbols


def add_facts(ctl: clingo.Control, symbols: Iterable[clingo.Symbol]) -> None:
    with ctl.backend() as backend:
        for symbol in symbols:
            backend.add_rule([backend.add_atom(symbol)])


def members(model: clingo.Model) -> frozenset[int]:
    """The arguments of the extension a model describes: its in/1 atoms."""
    return frozenset(s.arguments[0].number for s in model.symbols(shown=True) if s.name == "in")
