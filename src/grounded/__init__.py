"""grounded: check, turn by turn, whether a continuation still rests on what a
conversation has established.

    from grounded import Engine
    engine = Engine.load("conversation.jsonl")
    engine.verify("h2")            # .grounded, .chain, .reason
    engine.affected("o5")          # .arguments, .claims, .lose_support

The names below are imported on first access (PEP 562), not by ``import grounded``:
every ``import grounded.x`` runs this module first, and the command line
(``grounded --version``, a query answered from a snapshot) must not pay for the
engine, pydantic, numpy and the solvers it does not use (docs/reliability.md,
start-up).  The notebook renderers (grounded.present.notebook) are registered
when the first object is shown (grounded.core.display.on_first_use).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from grounded.core import display as _display

if TYPE_CHECKING:
    from grounded.core.errors import GroundedError, InputError, LogError, PreconditionError, PrologError, Violation
    from grounded.dmap.model import Agent, Argument, Header, Proposition
    from grounded.dmap.operations import Operation
    from grounded.engine import Engine, Update, WhatIf
    from grounded.queries.affected import Affected
    from grounded.queries.verify import Verification

_LAZY = {
    "grounded.core.errors": ("GroundedError", "InputError", "LogError", "PreconditionError", "PrologError",
                             "Violation"),
    "grounded.dmap.model": ("Agent", "Argument", "Header", "Proposition"),
    "grounded.dmap.operations": ("Operation",),
    "grounded.engine": ("Engine", "Update", "WhatIf"),
    "grounded.queries.affected": ("Affected",),
    "grounded.queries.verify": ("Verification",),
}
_HOME = {name: module for module, names in _LAZY.items() for name in names}

OPERATION_MODELS = ("ExpandAwareness", "Hypothesize", "Observe", "Question", "Resolve", "Revise", "Support",
                    "Undermine", "Utterance")
"""Generated from the rule files' operation/3 (grounded.dmap.operations) on first access:
generating them starts SWI-Prolog, which ``import grounded`` alone does not."""


def _register_notebook() -> None:
    importlib.import_module("grounded.present.notebook")


_display.on_first_use(_register_notebook)


def __getattr__(name: str) -> Any:
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
        globals()[name] = value
        return value
    if name in OPERATION_MODELS:
        from grounded.solvers.prolog import PrologRules

        registry = PrologRules.get().builtin_registry()
        models: dict[str, type] = {model.__name__: model for model in registry.models.values()}
        models["Utterance"] = registry.utterance_model
        globals().update((n, models[n]) for n in OPERATION_MODELS)
        return models[name]
    if name == "__version__":
        from grounded.solvers.ruleset import package_version

        globals()["__version__"] = version = package_version()
        return version
    raise AttributeError(f"module 'grounded' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})


__all__ = [
    "Affected", "Agent", "Argument", "Engine", "ExpandAwareness", "GroundedError", "Header",
    "Hypothesize", "InputError", "LogError", "Observe", "Operation", "PreconditionError",
    "PrologError", "Proposition", "Question", "Resolve", "Revise", "Support", "Undermine",
    "Update", "Utterance", "Verification", "Violation", "WhatIf",
]
