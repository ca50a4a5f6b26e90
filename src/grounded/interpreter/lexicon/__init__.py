"""The offline reader's word lists, kept as data (``*.yaml`` beside this file), each with its source.

The reader's cues (negators, words of trouble and order, causal connectives,
opposite predicates, units) are general English, not the vocabulary of any
conversation or benchmark item; a test (tests/test_lexicon.py) fails when an
entry is a number or a rare word that a shipped scenario or a verifier item
uses.  Each file has a ``source`` note saying where its entries come from.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import yaml

FILES = ("coverage",)


@cache
def load(name: str) -> dict:
    """The lists of one lexicon file (``polarity``, ``causal``, ``opposites``, ``quantity``)."""
    if name not in FILES:
        raise KeyError(f"no lexicon {name!r} (one of {', '.join(FILES)})")
    text = (resources.files(__package__) / f"{name}.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or not isinstance(data.get("source"), str):
        raise ValueError(f"src/grounded/interpreter/lexicon/{name}.yaml: a mapping with a `source` note")
    return data


def words(name: str, key: str) -> tuple[str, ...]:
    """One list of a lexicon file, in file order."""
    return tuple(str(w) for w in load(name)[key])


__all__ = ["FILES", "load", "words"]
