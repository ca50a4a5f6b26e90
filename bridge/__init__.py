"""grounded: check, turn by turn, whether a continuation still rests on what a
conversation has established.

    from grounded import Engine
    engine = Engine.load("conversation.jsonl")
    engine.verify("h2")            # .grounded, .chain, .reason
    engine.affected("o5")          # .arguments, .claims, .lose_support
"""

from grounded.core.errors import GroundedError, InputError, LogError, PreconditionError, PrologError, Violation
from grounded.dmap.model import Agent, Argument, Header, Proposition
from grounded.dmap.operations import (
    ExpandAwareness,
    Hypothesize,
    Observe,
    Operation,
    Question,
    Resolve,
    Revise,
    Support,
    Undermine,
    Utterance,
)
from grounded.engine import Engine, Update, WhatIf
from grounded.present import notebook as _notebook  # noqa: F401 - registers the notebook display (core/display.py)
from grounded.queries.affected import Affected
from grounded.queries.verify import Verification

__all__ = [
    "Affected", "Agent", "Argument", "Engine", "ExpandAwareness", "GroundedError", "Header",
    "Hypothesize", "InputError", "LogError", "Observe", "Operation", "PreconditionError",
    "PrologError", "Proposition", "Question", "Resolve", "Revise", "Support", "Undermine",
    "Update", "Utterance", "Verification", "Violation", "WhatIf",
]
from grounded.solvers.ruleset import package_version as _package_version

__version__ = _package_version()
"""The installed distribution's version, from its metadata (pyproject.toml is the single source)."""
