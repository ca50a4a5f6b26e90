"""Interpreters turn an utterance into operations (``grounded.interpreter``).

* ``LLMInterpreter`` (any OpenAI-compatible server), ``RuleInterpreter``
  (offline cue phrases and lexical linking), ``ReplayInterpreter`` (gold);
* ``interpret`` / ``interpret_turn``: the propose / apply / re-prompt loop;
* ``score_classification``, ``score_dependencies``: the paper's scoring;
* ``anchor`` / ``verify_text`` / ``AnchorIndex``: the verdict on a continuation's
  text, read offline by coverage (``coverage.py``: accept only what grounded
  claims cover, through WordNet); ``LLMAnchor``: a reading through the
  configured endpoint;
* ``verify_cited``: the verdict on a continuation that cites the claim ids it
  asserts and denies; ``ask_cited``: one from a model, through structured outputs.

See docs/interpreter.md.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Eager: the function ``anchor`` must shadow the submodule of the same name, which a later import would not do.
from grounded.interpreter.anchor import Anchor, AnchorIndex, anchor, verify_text

if TYPE_CHECKING:
    from grounded.interpreter.cited import CitedContinuation, CitedVerdict, verify_cited
    from grounded.interpreter.cited_llm import ask_cited
    from grounded.interpreter.dependencies import score_dependencies
    from grounded.interpreter.llm import LLMConfig, LLMInterpreter
    from grounded.interpreter.llm_anchor import LLMAnchor
    from grounded.interpreter.replay import ReplayInterpreter
    from grounded.interpreter.rules import RuleInterpreter
    from grounded.interpreter.scoring import score_classification
    from grounded.interpreter.session import interpret, interpret_turn
    from grounded.interpreter.transcript import Said, read_transcript
    from grounded.interpreter.verdict import TextVerdict

_HOMES = {
    "cited": ("CitedContinuation", "CitedVerdict", "verify_cited"), "cited_llm": ("ask_cited",),
    "dependencies": ("score_dependencies",),
    "llm": ("LLMConfig", "LLMInterpreter"), "llm_anchor": ("LLMAnchor",), "replay": ("ReplayInterpreter",),
    "rules": ("RuleInterpreter",), "scoring": ("score_classification",), "session": ("interpret", "interpret_turn"),
    "transcript": ("Said", "read_transcript"), "verdict": ("TextVerdict",),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    """Each name imported from its module on first use: reading a text offline must not import the OpenAI
    client (half a second of a ``grounded verify --text`` call)."""
    if name not in _HOME:
        raise AttributeError(f"module 'grounded.interpreter' has no attribute {name!r}")
    value = getattr(import_module(f"grounded.interpreter.{_HOME[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "Anchor", "AnchorIndex", "CitedContinuation", "CitedVerdict", "LLMAnchor", "LLMConfig", "LLMInterpreter",
    "ReplayInterpreter", "RuleInterpreter", "Said", "anchor", "ask_cited", "interpret", "interpret_turn",
    "read_transcript", "score_classification", "score_dependencies", "TextVerdict", "verify_cited", "verify_text",
]
