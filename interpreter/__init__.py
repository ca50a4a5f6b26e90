"""Interpreters turn an utterance into operations (``grounded.interpreter``).

* ``LLMInterpreter`` (any OpenAI-compatible server), ``RuleInterpreter``
  (offline cue phrases and lexical linking), ``ReplayInterpreter`` (gold);
* ``interpret`` / ``interpret_turn``: the propose / apply / re-prompt loop;
* ``score_classification``, ``score_dependencies``: the paper's scoring;
* ``anchor`` / ``verify_text``: Verify from a continuation's text.

See docs/interpreter.md.
"""

from .anchor import Anchor, AnchorIndex, anchor, verify_text
from .dependencies import score_dependencies
from .llm import LLMConfig, LLMInterpreter
from .replay import ReplayInterpreter
from .rules import RuleInterpreter
from .scoring import score_classification
from .session import interpret, interpret_turn
from .transcript import Said, read_transcript

__all__ = [
    "Anchor", "AnchorIndex", "LLMConfig", "LLMInterpreter", "ReplayInterpreter", "RuleInterpreter", "Said",
    "anchor", "interpret", "interpret_turn", "read_transcript", "score_classification", "score_dependencies",
    "verify_text",
]
