"""Interpreters turn an utterance into operations (``grounded.interpreter``).

* ``LLMInterpreter`` (any OpenAI-compatible server), ``RuleInterpreter``
  (offline cue phrases and lexical linking), ``ReplayInterpreter`` (gold);
* ``interpret`` / ``interpret_turn``: the propose / apply / re-prompt loop;
* ``score_classification``, ``score_dependencies``: the paper's scoring;
* ``anchor`` / ``verify_text`` / ``AnchorIndex``: the verdict on a continuation's
  text, read offline (polarity, contrast, causal direction, similarity);
  ``LLMAnchor``: the same through the configured endpoint;
* ``verify_cited``: the verdict on a continuation that cites the claim ids it
  asserts and denies; ``ask_cited``: one from a model, through structured outputs.

See docs/interpreter.md.
"""

from grounded.interpreter.anchor import Anchor, AnchorIndex, anchor, verify_text
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

__all__ = [
    "Anchor", "AnchorIndex", "CitedContinuation", "CitedVerdict", "LLMAnchor", "LLMConfig", "LLMInterpreter",
    "ReplayInterpreter", "RuleInterpreter", "Said", "anchor", "ask_cited", "interpret", "interpret_turn",
    "read_transcript", "score_classification", "score_dependencies", "TextVerdict", "verify_cited", "verify_text",
]
