"""The epistemic layer: the M component of the dependency map (Definition A.1).

    formula       the language: atoms, ~ & | ^ -> <->, K_i, B_i, C_G, A_i
    parse         its plain-ASCII syntax: parse(text), show(formula)
    model         plausibility models over a universe of worlds; W as a bitset
    semantics     truth of formulas as bitsets; holds(model, formula, point)
    updates       [!psi], lexicographic and conservative upgrades, refinement, withdrawal
    abduction     Definition A.2: surprise, consistency, explanatory, non-triviality
    declaration   the ``world`` section of an event-log header

"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grounded.epistemic.abduction import AbductionVerdict, Problem, abduce
    from grounded.epistemic.declaration import WorldAgent, WorldDeclaration
    from grounded.epistemic.formula import BOT, TOP, A, And, Atom, B, C, Formula, Iff, Implies, K, Not, Or, Xor, show
    from grounded.epistemic.model import ModelError, PlausibilityModel
    from grounded.epistemic.parse import FormulaSyntaxError, parse
    from grounded.epistemic.semantics import holds, truth
    from grounded.epistemic.updates import announce, conservative, lexicographic, refine, withdraw

_HOME = {
    **dict.fromkeys(("AbductionVerdict", "Problem", "abduce"), "abduction"),
    **dict.fromkeys(("WorldAgent", "WorldDeclaration"), "declaration"),
    **dict.fromkeys(("BOT", "TOP", "A", "And", "Atom", "B", "C", "Formula", "Iff", "Implies", "K", "Not", "Or", "Xor",
                     "show"), "formula"),
    **dict.fromkeys(("ModelError", "PlausibilityModel"), "model"),
    **dict.fromkeys(("FormulaSyntaxError", "parse"), "parse"),
    **dict.fromkeys(("holds", "truth"), "semantics"),
    **dict.fromkeys(("announce", "conservative", "lexicographic", "refine", "withdraw"), "updates"),
}
"""Where each name below lives, imported on first access (PEP 562): the event log's header declares a
world through ``declaration`` alone, and reading a log without one should not import numpy for the models."""


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'grounded.epistemic' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"grounded.epistemic.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "A", "AbductionVerdict", "And", "Atom", "B", "BOT", "C", "Formula", "FormulaSyntaxError", "Iff", "Implies",
    "K", "ModelError", "Not", "Or", "PlausibilityModel", "Problem", "TOP", "WorldAgent", "WorldDeclaration", "Xor",
    "abduce", "announce", "conservative", "holds", "lexicographic", "parse", "refine", "show", "truth", "withdraw",
]
