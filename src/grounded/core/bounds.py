"""The input bounds: how big any one piece of input may be.

Everything up to these bounds must work (no stack or recursion error in
Python, Prolog or clingo); beyond them the input is refused with an
InputError naming the field.  They are checked where input comes in: the
field types (``grounded.core.literals``), the utterance model, the event-log
reader and writer, the formula parser.  docs/reliability.md lists them.
"""

from __future__ import annotations

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

MAX_ARGUMENT_FILE_BYTES = MAX_LINE_BYTES
"""Bytes of a file given as a command-line argument's value (``--cited @FILE``): what one log line may hold."""

MAX_YAML_DEPTH = 64
"""Nesting of collections in a YAML file (a scenario, an operation's test file): the reader recurses once a level."""

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
