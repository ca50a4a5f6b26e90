"""What each claim says: the texts that matching, scoring and prompts work on.

An argument's text is its own (the restatement an operation gave) or, when
it has none, the utterance that made it.  A claim says what all its arguments
say, so a claim re-argued later is found by the words of either.
"""

from __future__ import annotations

from grounded.engine.view import Reads


def claim_texts(engine: Reads, at: int | None = None) -> dict[str, list[str]]:
    """Claim -> the texts of its arguments made by turn ``at`` (all when None), in the order they were made."""
    dm = engine.state
    texts: dict[str, list[str]] = {}
    for r in dm.args:
        if dm.visible(r.id, at):
            texts.setdefault(r.claim, []).append(r.text or r.utterance)
    return texts
