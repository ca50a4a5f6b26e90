"""Recommendations: a clause that proposes a course of action, and the claims that are courses of action.

"Pick ShareDB and move on" shares its words with Bob's dissent ("prefers
ShareDB") as much as with the option "Use ShareDB"; what it *does* is
recommend the option, so it asserts the option.  A recommendation reads as
such by its mood: an imperative ("Pick", "Go", "Use"), a hortative ("let's",
"we should", "we'll go with"), or talk of choosing ("we settled on", "the
way to go", "we recommend").  The claims that
are courses of action are positions and decisions, and any claim one of
whose texts is itself an imperative ("Use Yjs (a CRDT library)").

A remedy in Phase 2 ("Restart Redis") is a recommendation too, but the
conversation there has no course of action among its claims; what a remedy
presupposes is read by its purpose clause (``causal.py``: "to stop the 401s").
The cue lists were tuned on the verifier set's development split only, and hold
general words of English, none copied from an item (a review removed those).
"""

from __future__ import annotations

import re

DIRECTIVE_VERBS = frozenset({
    "use", "implement", "build", "adopt", "pick", "choose", "go", "write", "ship", "deploy", "restart", "add",
    "move", "roll", "page", "file", "scale", "fix", "increase", "decrease", "tell", "get", "switch", "keep",
    "proceed", "stick", "drop", "skip", "migrate", "replace", "run", "start", "stop", "decide", "take", "opt",
    "revert", "rewrite", "abandon", "commit", "select", "favour", "favor", "prefer",
    "make", "put", "set", "turn", "disable", "enable", "remove", "raise", "lower", "bump", "block",
    "let", "let's", "lets", "do", "don't", "never", "stay", "wait", "ditch", "go-with", "evaluate", "restore",
    "warn", "notify", "escalate", "bring", "reconsider", "revisit", "rebuild", "reimplement",
})
"""Verbs that open an imperative ("Pick ShareDB", "Roll back the change")."""

HORTATIVES = (
    "let's", "let us", "we should", "we shouldn't", "we must", "we need to", "we'll go", "we will go",
    "we'll use", "we will use", "we'll build", "we will build", "we go with", "we're going with",
    "we are going with", "going with", "go with", "we'll take", "we are taking", "we're taking", "opt for",
    "propose", "proposing", "proposed", "recommend", "recommending", "recommended", "the way to go",
    "the approach we", "the plan is", "our plan is", "we settled on", "settle on", "settled on",
    "decided on", "decide on", "we decided", "we chose", "we choose", "we pick", "we picked", "we adopt",
    "should we", "ought to", "better to", "best to", "is the way", "to take",
)
"""Phrases that recommend or report a course of action ("we should", "the way to go")."""

_LEAD = re.compile(r"^\s*(?:so|ok|okay|then|now|just|please|and|but|first|instead)[,]?\s+", re.I)
_FIRST = re.compile(r"^\s*([A-Za-z][A-Za-z'-]*)")


def imperative(text: str) -> bool:
    """The text opens with a verb in the imperative ("Pick ShareDB", "So, restart Redis")."""
    m = _FIRST.match(_LEAD.sub("", text))
    return m is not None and m.group(1).lower() in DIRECTIVE_VERBS


def directive(text: str) -> bool:
    """The text recommends (or reports the choice of) a course of action."""
    low = " " + text.lower().replace("’", "'") + " "
    return imperative(text) or any(f" {h} " in low or f" {h}," in low for h in HORTATIVES)


PROPOSAL_KINDS = frozenset({"position", "decision"})
"""Kinds of proposition that are courses of action whatever their wording."""


def proposal(kind: str | None, texts: list[str]) -> bool:
    """A claim that is a course of action: a position or a decision, or one whose text is an imperative."""
    return kind in PROPOSAL_KINDS or any(imperative(t) for t in texts)


__all__ = ["DIRECTIVE_VERBS", "HORTATIVES", "PROPOSAL_KINDS", "directive", "imperative", "proposal"]
