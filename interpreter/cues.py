"""Cue phrases of the eight operations, for the offline rule-based interpreter.

Each operation has a list of regular expressions over one sentence (lower
case).  They are general English discourse markers, not the vocabulary of any
scenario: reporting verbs and measurements for Observe, hedges and causal
connectives for Hypothesize, agreement for Support, contrast and risk for
Undermine, retraction for Revise, reframing ("X is really about Y, not Z")
for Expand-Awareness, settling and deciding for Resolve.  A question mark
makes a Question unless the question proposes something ("could it be...",
"can we use..."), which is a Hypothesize.
"""

from __future__ import annotations

import re

_FLAGS = re.IGNORECASE


def _compile(patterns: list[str]) -> list[re.Pattern[str]]:
    return [re.compile(p, _FLAGS) for p in patterns]


OBSERVE = _compile([
    r"\bi(?:'m| am)? (?:see|seeing|saw|notice|noticed|measured|found)\b", r"\bwe(?:'re| are)? (?:see|seeing)\b",
    r"\bi can confirm\b", r"\b(?:logs?|dashboard|metrics?|graphs?|alerts?) (?:show|shows|showed|say)\b",
    r"\bfiring\b", r"\bstarted (?:around|at)\b", r"\b\d+(?:\.\d+)?\s?(?:x|%|ms|s|am|pm)\b",
    r"\b(?:spik\w*|dropp?ed|rose|doubled|tripled)\b",
    r"\b(?:our|the) (?:documents|docs|users|customers|logs)\b (?:are|have|show)\b",
    r"\bi(?:'ve| have) (?:tried|tested|used)\b",
])

HYPOTHESIZE = _compile([
    r"\bcould be\b", r"\bmight be\b", r"\bmay be\b", r"\bmaybe\b", r"\bperhaps\b", r"\bi suspect\b",
    r"\bmy guess\b", r"\bwould explain\b", r"\bthat explains\b", r"\bthat's why\b", r"\bwhich is why\b",
    r"\bcaused by\b", r"\bcausing\b", r"->|→", r"\bthe (?:root )?cause\b", r"\bthe chain\b",
    r"\bwhat if\b", r"\bcould we\b", r"\bcan we\b", r"\bhow about\b", r"\bwhat about\b", r"\bwhy not\b",
    r"\bwe could\b", r"\bshould we\b", r"\bi propose\b(?! we go)",
])

SUPPORT = _compile([
    r"^\s*yes\b", r"\bthat's (?:actually )?(?:plausible|right|correct|true|consistent)\b", r"\bconsistent with\b",
    r"\bconfirms?\b", r"\bi agree\b", r"\bmakes sense\b", r"\brecommended\b", r"\bbenefits?\b",
    r"\badvantage\b", r"\bworks? (?:well )?with\b", r"\bit's fine\b", r"\bgood point\b", r"\bexactly\b",
    r"\bbacks? (?:this|that) up\b",
])

UNDERMINE = _compile([
    r"^\s*but\b", r"\bbut (?:wait|then|if|the|it|that)\b", r"\bhowever\b", r"\bwait\b", r"\brisk(?:y|s)?\b",
    r"\bproblem\b", r"\bconcern\w*\b", r"\bhard\b", r"\bnot trivial\b", r"\bdoesn't\b", r"\bdon't know if\b",
    r"\bunclear\b", r"\bwrong\b", r"\bcontradict\w*\b", r"\bdifferent\b", r"\bdownside\b",
    r"\bnot because\b", r"\bdoesn't explain\b",
])

REVISE = _compile([
    r"\bi don't think so\b", r"\bafter all\b(?!\s*\?)", r"\breversed?\b", r"\bno longer\b", r"\bturns out\b",
    r"\bscratch that\b", r"\brule (?:that|it) out\b", r"\bdifferent problem\b", r"\bnot .{1,40} but\b",
    r"\bwas wrong\b", r"\bis wrong\b", r"\bit's not\b", r"\bisn't (?:the|a) cause\b", r"\binstead\b",
])

EXPAND_AWARENESS = _compile([
    r"\bis (?:really|actually) (?:about|a|an)\b", r"\b(?:really|actually) about\b", r", not the\b",
    r"\bwhat about using\b", r"\bwe (?:hadn't|haven't|never) (?:considered|thought)\b", r"\banother option\b",
    r"\bthere's also\b", r"\bnew option\b",
])

RESOLVE = _compile([
    r"\blet's go with\b", r"\bwe go with\b", r"\bwe'll go with\b", r"\bdecided\b", r"\bdecision\b",
    r"\bagreed\b", r"\bsettled\b", r"\bthat's the (?:root )?cause\b",
    r"\bconfirmed:", r"\bfinal answer\b", r"\bwe'll ship\b",
])

SURPRISE = _compile([
    r"\b(?:that's|this is|it's) (?:strange|weird|odd|surprising|puzzling)\b", r"\bdoesn't make sense\b",
    r"\bno idea why\b",
])

QUESTION_PROPOSAL = _compile([
    r"^\s*(?:so )?(?:could|might) (?:it|this|that) be\b", r"^\s*(?:so )?can we\b", r"^\s*(?:so )?could we\b",
    r"^\s*what about\b", r"^\s*how about\b", r"^\s*what if\b", r"\bcould be what\b", r"->|→",
    r"\bcausing\b",
    r"^\s*wait, so\b",
])

CUES: dict[str, list[re.Pattern[str]]] = {
    "observe": OBSERVE, "hypothesize": HYPOTHESIZE, "support": SUPPORT, "undermine": UNDERMINE,
    "revise": REVISE, "expand_awareness": EXPAND_AWARENESS, "resolve": RESOLVE,
}

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
    found = {op for op, patterns in CUES.items() if any(p.search(sentence) for p in patterns)}
    if sentence.rstrip().endswith("?"):
        found &= _IN_QUESTIONS
        if any(p.search(sentence) for p in QUESTION_PROPOSAL):
            found.add("hypothesize")
        else:
            found.add("question")
            found.discard("hypothesize")
    if any(p.search(sentence) for p in SURPRISE):
        found.add("question")
    if "hypothesize" in found or _CONDITIONAL.match(sentence):
        found.discard("observe")
    return found
