"""The field types of grounded's pydantic models: literals, ids, texts, turns and thresholds, each bounded.

The checks themselves are plain functions (grounded.core.literals, grounded.core.bounds), which code that
validates nothing with pydantic calls without importing it: a query answered from a snapshot imports no
pydantic (tests/test_startup.py).  These annotations put them on model fields.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, Field
from pydantic_core import PydanticCustomError

from grounded.core.bounds import MAX_THRESHOLD, MAX_TURN, MIN_THRESHOLD
from grounded.core.literals import check_atom, check_literal, check_name, check_text


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


Threshold = Annotated[float, Field(ge=MIN_THRESHOLD, le=MAX_THRESHOLD, allow_inf_nan=False), JsonNumber]
"""A similarity threshold in a request body (``check_threshold`` for one given in Python)."""


Lit = Annotated[str, AfterValidator(check_literal)]
"""A validated literal, as used in operation fields."""

Atom = Annotated[str, AfterValidator(check_atom)]
"""A validated proposition id (a positive literal)."""

Text = Annotated[str, AfterValidator(check_text)]
"""Free text (an utterance's, an operation's, a proposition's): bounded, valid Unicode."""

Name = Annotated[str, AfterValidator(check_name)]
"""A short name that is not an id (a label, a role): at most MAX_ID_LENGTH characters."""
