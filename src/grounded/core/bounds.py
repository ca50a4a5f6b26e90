"""The input bounds: how big any one piece of input may be.

Everything up to these bounds must work (no stack or recursion error in
Python, Prolog or clingo); beyond them the input is refused with an
InputError naming the field.  They are checked where input comes in: the
field types (``grounded.core.literals``), the utterance model, the event-log
reader and writer, the formula parser.  docs/reliability.md lists them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

from grounded.core.errors import InputError

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

MAX_FORMULA_SIZE = 1_000_000
"""Nodes of an epistemic formula with the definitions of the names it uses written out in place.
Definitions that use the one before twice double at every level (2^26 nodes from a 500-byte header);
evaluation reads each definition once, but anything that expands them would not finish."""

MAX_UNIVERSE = 1 << 22
"""The largest universe an epistemic model may have (2^22 worlds: about 4M; grounded.epistemic.model)."""

def _json_number(code: str, word: str) -> BeforeValidator:
    """A number as JSON Schema has it, never a string (``"22"``) or a bool (``true``, which Python
    counts as 1), which pydantic would otherwise take; an integer is a number with no fractional
    part (``1`` or ``1.0``)."""
    def check(value: object) -> object:
        if isinstance(value, (bool, str, bytes, bytearray)):
            raise PydanticCustomError(code, f"Input should be a valid {word}, not {{kind}}",
                                      {"kind": type(value).__name__})
        return value
    return BeforeValidator(check)


JsonInt = _json_number("int_type", "integer")
"""Put on an ``int`` field: it accepts exactly what the published JSON Schema's ``integer`` accepts."""
JsonNumber = _json_number("float_type", "number")
"""Put on a ``float`` field: it accepts exactly what JSON Schema's ``number`` accepts (JSON has no nan)."""

Turn = Annotated[int, Field(ge=0, le=MAX_TURN), JsonInt]
"""A turn number, bounded so that every solver can hold it."""


def check_turn(at: int | None, lowest: int = 0) -> int | None:
    """A turn a query looks back to, as given (None: now); InputError past the bounds.

    The world model also has turn -1, its initial model (``lowest=-1``).  A bool is
    not a turn although Python counts it as an int.
    """
    if at is None:
        return None
    if isinstance(at, bool) or not isinstance(at, int):
        raise InputError(f"at={at!r}: a turn is an integer, not {type(at).__name__}")
    if at < lowest:
        raise InputError(f"at={at!r}: a turn is " + ("a non-negative integer" if lowest == 0
                                                    else f"an integer >= {lowest} (-1: the initial model)"))
    if at > MAX_TURN:
        raise InputError(f"at={preview(str(at))}: a turn is at most {MAX_TURN}")
    return at


MIN_THRESHOLD, MAX_THRESHOLD = 0.0, 1.0
"""The similarity a text must reach to anchor: a number from 0 to 1 (not nan)."""


Threshold = Annotated[float, Field(ge=MIN_THRESHOLD, le=MAX_THRESHOLD, allow_inf_nan=False), JsonNumber]
"""A similarity threshold in a request body (``check_threshold`` for one given in Python)."""


def check_threshold(value: float) -> float:
    """A similarity threshold as given; InputError outside [0, 1] or nan."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"threshold={value!r}: a similarity threshold is a number, not {type(value).__name__}")
    if not MIN_THRESHOLD <= value <= MAX_THRESHOLD:  # nan compares false
        raise InputError(f"threshold={value!r}: a similarity threshold is a number from {MIN_THRESHOLD:g} "
                         f"to {MAX_THRESHOLD:g}")
    return float(value)


def preview(text: str, limit: int = 40) -> str:
    """``text`` as a short repr for an error message (an input may be megabytes long)."""
    shown = repr(text if len(text) <= limit else text[:limit])
    return shown if len(text) <= limit else f"{shown}... ({len(text)} characters)"
