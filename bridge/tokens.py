"""A deterministic token estimate, for fitting rendered state into a prompt budget.

Real tokenizers for the models this targets (tiktoken's o200k, Llama's or
Qwen's BPE) fetch or ship vocabularies this package cannot rely on offline,
so budgets are kept with an estimate instead.  It is meant to err on the high
side for English prose (BPE vocabularies hold most common words whole; here a
run of letters costs one token per six letters, digits one per three, every
other visible character and every newline one), so that a rendering that fits
the estimate is likely to fit the model.

The estimate is additive over whitespace: ``estimate("a\\nb") ==
estimate("a") + 1 + estimate("b")``, which lets the renderer fit a budget line
by line and know the total exactly.
"""

from __future__ import annotations

import re
import string

_PIECE = re.compile(r"[A-Za-z]+|[0-9]+|\n|[^\sA-Za-z0-9]")
_LETTERS = frozenset(string.ascii_letters)
_DIGITS = frozenset(string.digits)


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text`` (see the module docstring for the rule)."""
    n = 0
    for match in _PIECE.finditer(text):
        piece = match.group()
        if piece[0] in _LETTERS:
            n += (len(piece) + 5) // 6
        elif piece[0] in _DIGITS:
            n += (len(piece) + 2) // 3
        else:
            n += 1
    return n
