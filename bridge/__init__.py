"""grounded: check, turn by turn, whether a continuation still rests on what a
conversation has established.

    from grounded import Engine
    engine = Engine.load("conversation.jsonl")
    engine.verify("h2")            # .grounded, .chain, .reason
    engine.affected("o5")          # .arguments, .claims, .lose_support
"""

from typing import Any

from grounded.core.errors import GroundedError, InputError, LogError, PreconditionError, PrologError, Violation
from grounded.dmap.model import Agent, Argument, Header, Proposition
from grounded.dmap.operations import Operation
from grounded.engine import Engine, Update, WhatIf
from grounded.present import notebook as _notebook  # noqa: F401 - registers the notebook display (core/display.py)
from grounded.queries.affected import Affected
from grounded.queries.verify import Verification
from grounded.solvers.ruleset import package_version as _package_version

OPERATION_MODELS = ("ExpandAwareness", "Hypothesize", "Observe", "Question", "Resolve", "Revise", "Support",
                    "Undermine", "Utterance")
"""Generated from the rule files' operation/3 (grounded.dmap.operations) on first access:
generating them starts SWI-Prolog, which ``import grounded`` alone does not."""


def __getattr__(name: str) -> Any:
    if name in OPERATION_MODELS:
        from grounded.solvers.prolog import PrologRules

        registry = PrologRules.get().builtin_registry()
        models: dict[str, type] = {model.__name__: model for model in registry.models.values()}
        models["Utterance"] = registry.utterance_model
        globals().update((n, models[n]) for n in OPERATION_MODELS)
        return models[name]
    raise AttributeError(f"module 'grounded' has no attribute {name!r}")


__all__ = [
    "Affected", "Agent", "Argument", "Engine", "ExpandAwareness", "GroundedError", "Header",
    "Hypothesize", "InputError", "LogError", "Observe", "Operation", "PreconditionError",
    "PrologError", "Proposition", "Question", "Resolve", "Revise", "Support", "Undermine",
    "Update", "Utterance", "Verification", "Violation", "WhatIf",
]
__version__ = _package_version()
"""The installed distribution's version, from its metadata (pyproject.toml is the single source)."""
