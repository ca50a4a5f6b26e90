"""Literals: a proposition id (``o5``) or its negation (``-a3``).

Claims, Dep entries and operation fields all hold literals, so
``Dep(alpha17) = {-a3}`` is expressible.  The same spelling is used in JSON,
YAML, Prolog (``-a3`` reads as the term ``-(a3)``) and on the command line.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

ATOM_PATTERN = r"[A-Za-z0-9_][A-Za-z0-9_.:\-]*"
_LITERAL = re.compile(rf"-?{ATOM_PATTERN}")
_ATOM = re.compile(ATOM_PATTERN)


def is_literal(text: str) -> bool:
    return isinstance(text, str) and _LITERAL.fullmatch(text) is not None


def check_literal(text: str) -> str:
    if not is_literal(text):
        raise ValueError(
            f"{text!r} is not a literal: expected an id such as o5 or its negation -o5 "
            "(letters, digits, _ . : -; no spaces)"
        )
    return text


def check_atom(text: str) -> str:
    if _ATOM.fullmatch(text) is None:
        raise ValueError(f"{text!r} is not a proposition id (letters, digits, _ . : -; not starting with -)")
    return text


def atom_of(literal: str) -> str:
    return literal[1:] if literal.startswith("-") else literal


def negate(literal: str) -> str:
    return literal[1:] if literal.startswith("-") else "-" + literal


def prolog_atom(text: str) -> str:
    """Quote any text as a Prolog atom."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def prolog_literal(literal: str) -> str:
    """``-a3`` as the term ``'-'('a3')``, which no neighbouring symbol char can fuse with."""
    if literal.startswith("-"):
        return "'-'(" + prolog_atom(literal[1:]) + ")"
    return prolog_atom(literal)


Lit = Annotated[str, AfterValidator(check_literal)]
"""A validated literal, as used in operation fields."""

Atom = Annotated[str, AfterValidator(check_atom)]
"""A validated proposition id (a positive literal)."""
