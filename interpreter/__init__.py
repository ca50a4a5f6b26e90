"""Interpreters turn an utterance into operations (``grounded.interpreter``).

* ``LLMInterpreter`` (any OpenAI-compatible server), ``RuleInterpreter``
  (offline cue phrases and lexical linking), ``ReplayInterpreter`` (gold);
* ``interpret`` / ``interpret_turn``: the propose / apply / re-prompt loop;
* ``score_classification``, ``score_dependencies``: the paper's scoring;
* ``anchor`` / ``verify_text``: Verify from a continuation's text.

See docs/interpreter.md.
"""

from grounded.interpreter.anchor import Anchor, AnchorIndex, anchor, verify_text
from grounded.interpreter.dependencies import score_dependencies
from grounded.interpreter.llm import LLMConfig, LLMInterpreter
from grounded.interpreter.replay import ReplayInterpreter
from grounded.interpreter.rules import RuleInterpreter
from grounded.interpreter.scoring import score_classification
from grounded.interpreter.session import interpret, interpret_turn
from grounded.interpreter.transcript import Said, read_transcript

__all__ = [
    "Anchor", "AnchorIndex", "LLMConfig", "LLMInterpreter", "ReplayInterpreter", "RuleInterpreter", "Said",
    "anchor", "interpret", "interpret_turn", "read_transcript", "score_classification", "score_dependencies",
    "verify_text",
]
