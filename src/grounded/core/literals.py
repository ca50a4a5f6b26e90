"""Literals: a proposition id (``o5``) or its negation (``-a3``).

Claims, Dep entries and operation fields all hold literals, so
``Dep(alpha17) = {-a3}`` is expressible.  The same spelling is used in JSON,
YAML, Prolog (``-a3`` reads as the term ``-(a3)``) and on the command line.
"""

from __future__ import annotations

import re

from grounded.core.bounds import MAX_ID_LENGTH, MAX_TEXT_LENGTH, preview
from grounded.core.errors import InputError

ATOM_PATTERN = r"[A-Za-z0-9_][A-Za-z0-9_.:\-]*"
_LITERAL = re.compile(rf"-?{ATOM_PATTERN}")
_ATOM = re.compile(ATOM_PATTERN)


def is_literal(text: str) -> bool:
    """An id of at most MAX_ID_LENGTH characters, or its negation (the - not counted)."""
    return (isinstance(text, str) and len(text) <= MAX_ID_LENGTH + text.startswith("-")
            and _LITERAL.fullmatch(text) is not None)


def _check_id_length(text: str) -> None:
    if len(text) > MAX_ID_LENGTH + text.startswith("-"):
        raise ValueError(f"an id of {len(text)} characters is too long (at most {MAX_ID_LENGTH})")


def check_literal(text: str) -> str:
    """``text`` if it is a literal, else ValueError naming what is wrong.  A well-formed literal is
    told in one test, no further call (every literal of every utterance validated passes here);
    the checks below only word the error."""
    if len(text) <= MAX_ID_LENGTH and _LITERAL.fullmatch(text) is not None:
        return text
    _check_id_length(text)
    if not is_literal(text):
        raise ValueError(
            f"{preview(text)} is not a literal: expected an id such as o5 or its negation -o5 "
            "(letters, digits, _ . : -; no spaces)"
        )
    return text


def check_asked(literal: str) -> None:
    """A literal a query is asked about (an InputError naming it otherwise: the CLI's exit 2, the service's 422)."""
    if not is_literal(literal):
        shown = preview(literal) if isinstance(literal, str) else repr(literal)
        raise InputError(f"{shown} is not a literal (expected an id such as o5 or -a3, at most "
                         f"{MAX_ID_LENGTH} characters)")


def check_atom(text: str) -> str:
    """``text`` if it is a proposition id, else ValueError naming what is wrong (the common case in
    one test, as ``check_literal``)."""
    if len(text) <= MAX_ID_LENGTH and _ATOM.fullmatch(text) is not None:
        return text
    _check_id_length(text)
    if _ATOM.fullmatch(text) is None:
        raise ValueError(f"{preview(text)} is not a proposition id (letters, digits, _ . : -; not starting with -)")
    return text


def check_text(text: str) -> str:
    """Text of at most MAX_TEXT_LENGTH characters that is valid Unicode (no lone surrogate).

    A lone surrogate (``"\\ud800"``, which JSON can spell) cannot be written as
    UTF-8: refused here, it never reaches the log or the rules.
    """
    if len(text) > MAX_TEXT_LENGTH:
        raise ValueError(f"a text of {len(text)} characters is too long (at most {MAX_TEXT_LENGTH})")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"a lone surrogate {text[exc.start]!r} at character {exc.start} is not valid "
                         "Unicode text") from None
    return text


def check_name(text: str) -> str:
    """A short free-form name (a label, a role): at most MAX_ID_LENGTH characters of valid Unicode."""
    if len(text) > MAX_ID_LENGTH:
        raise ValueError(f"a name of {len(text)} characters is too long (at most {MAX_ID_LENGTH})")
    return check_text(text)


def atom_of(literal: str) -> str:
    return literal[1:] if literal.startswith("-") else literal


def negate(literal: str) -> str:
    return literal[1:] if literal.startswith("-") else "-" + literal


def literal_term(literal: str) -> str | tuple[str, str]:
    """A literal as term data (grounded.solvers.terms): ``-a3`` is the compound ``-(a3)``."""
    return ("-", literal[1:]) if literal.startswith("-") else literal
