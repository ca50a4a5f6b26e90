"""The input bounds: how big any one piece of input may be.

Everything up to these bounds must work (no stack or recursion error in
Python, Prolog or clingo); beyond them the input is refused with an
InputError naming the field.  They are checked where input comes in: the
field types (``grounded.core.literals``), the utterance model, the event-log
reader and writer, the formula parser.  docs/reliability.md lists them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

MAX_ID_LENGTH = 200
"""Characters in an id: a claim, literal, speaker, agent or proposition."""

MAX_TEXT_LENGTH = 100_000
"""Characters in one text field (an utterance's text, an operation's, a proposition's)."""

MAX_OPS_PER_UTTERANCE = 1_000
"""Operations in one utterance."""

MAX_CITED_CLAIMS = 1_000
"""Claim ids a cited continuation asserts, and as many again that it denies."""

MAX_LINE_BYTES = 4 * 1024 * 1024
"""Bytes in one event-log line, its newline excluded (4 MiB)."""

MAX_TURN = 1_000_000_000
"""The largest turn number.  clingo's integers are 32-bit; a billion leaves room for arithmetic."""

MAX_FORMULA_DEPTH = 100
"""Nesting depth of an epistemic formula (parentheses, prefixes, binary operators),
the definitions of the names it uses expanded."""

Turn = Annotated[int, Field(ge=0, le=MAX_TURN)]
"""A turn number, bounded so that every solver can hold it."""


def preview(text: str, limit: int = 40) -> str:
    """``text`` as a short repr for an error message (an input may be megabytes long)."""
    shown = repr(text if len(text) <= limit else text[:limit])
    return shown if len(text) <= limit else f"{shown}... ({len(text)} characters)"
