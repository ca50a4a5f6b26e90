"""Cue phrases of the eight operations, for the offline rule-based interpreter.

The phrases are data (``lexicon/interpreter_cues.yaml``): for each operation,
regular expressions over one sentence (case-insensitive).  They are general
English discourse markers, not the vocabulary of any scenario: reporting verbs
and measurements for Observe, hedges and modal proposals for Hypothesize,
agreement for Support, contrast and negation for Undermine, retraction
formulas for Revise, "nobody mentioned" and reframing for Expand-Awareness,
settling and deciding for Resolve, and "I'm assuming" for the claim of a
declared assumption.  A question mark makes a Question unless the question
proposes something ("could it be...", "can we use..."), which is a
Hypothesize.  A cue only says what a sentence *could* be: ``rules.py``
proposes the operation only when it can also name what it is about.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import yaml

_FLAGS = re.IGNORECASE
LEXICON = Path(__file__).resolve().parent / "lexicon" / "interpreter_cues.yaml"
"""The cue lexicon: a ``source`` note and one list of patterns per key of ``KEYS``."""
OPERATIONS = ("observe", "assume", "hypothesize", "support", "undermine", "revise", "expand_awareness", "resolve")
KEYS = (*OPERATIONS, "surprise", "question_proposal")


@cache
def lexicon() -> dict[str, list[re.Pattern[str]]]:
    """The compiled patterns of every key of ``KEYS``; a malformed file is an error naming the key."""
    data = yaml.safe_load(LEXICON.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("source"), str):
        raise ValueError(f"{LEXICON}: expected a mapping with a `source` note")
    out: dict[str, list[re.Pattern[str]]] = {}
    for key in KEYS:
        patterns = data.get(key)
        if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
            raise ValueError(f"{LEXICON}: `{key}` must be a list of patterns")
        try:
            out[key] = [re.compile(p, _FLAGS) for p in patterns]
        except re.error as exc:
            raise ValueError(f"{LEXICON}: `{key}`: {exc}") from exc
    return out


def _matches(key: str, sentence: str) -> bool:
    return any(p.search(sentence) for p in lexicon()[key])


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=\.\.\.)\s*")


def sentences(text: str) -> list[str]:
    """Split an utterance into sentences (at . ! ? and ellipses)."""
    return [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if s and s.strip()]


_IN_QUESTIONS = frozenset({"hypothesize", "revise", "expand_awareness"})
_CONDITIONAL = re.compile(r"^\s*(?:and |so )?(?:if|when|unless)\b", _FLAGS)


def cues(sentence: str) -> set[str]:
    """The operations whose cue phrases occur in ``sentence``.

    A question asserts nothing, so of the assertive cues only a proposal
    (Hypothesize), a retraction and a reframing count in one; a conditional
    ("if X, ...") reports no observation; a hypothesis is not also an
    observation; surprise ("that's strange") raises an open problem, a Question.
    """
    sentence = sentence.replace("\u2019", "'")
    found = {op for op in OPERATIONS if _matches(op, sentence)}
    if sentence.rstrip().endswith("?"):
        found &= _IN_QUESTIONS
        if _matches("question_proposal", sentence):
            found.add("hypothesize")
        else:
            found.add("question")
            found.discard("hypothesize")
    if _matches("surprise", sentence):
        found.add("question")
    if "hypothesize" in found or _CONDITIONAL.match(sentence):
        found.discard("observe")
    if found & {"revise", "resolve", "expand_awareness"}:  # a retraction, a settlement or news is not also an objection
        found -= {"undermine", "support"}
    return found
