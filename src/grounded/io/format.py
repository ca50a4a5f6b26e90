"""The event-log format: what a header line and an utterance line contain.

The header line is the conversation's ``Header`` plus where the log came
from: ``rules`` (the rules version that accepted its utterances: package
version + a hash of the shipped Prolog rule files) and ``extensions`` (each
extension rule file it was written with: file name and sha256).  Replaying a
log under other rules or extensions is refused (docs/reliability.md).  The
origin's models are in ``origin.py``: this module imports no pydantic.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # pydantic is not imported to read a log: a query answered from a snapshot starts without it
    from pydantic import ValidationError

    from grounded.dmap.model import Header
    from grounded.dmap.operations import UtteranceBase
    from grounded.io.origin import LogOrigin

FORMAT_VERSION = 1


def describe_validation_error(exc: ValidationError, skip: frozenset[str] = frozenset()) -> str:
    """A pydantic error as 'ops[1].target: Field required; ...' (tags in ``skip`` left out)."""
    return describe_errors(exc.errors(), lambda seg: seg in skip)


def describe_errors(errors: Iterable[Mapping[str, Any]], skip: Callable[[str], bool]) -> str:
    """pydantic's error records (from the library or from FastAPI) as 'where: what; ...', once each;
    a location segment for which ``skip`` holds (a union's tag) is left out of the path."""
    parts = []
    for err in errors:
        where = ""
        for seg in err.get("loc", ()):
            if isinstance(seg, int):
                where += f"[{seg}]"
            elif not skip(seg):
                where += ("." if where else "") + str(seg)
        parts.append(f"{where}: {err.get('msg')}" if where else str(err.get("msg")))
    return "; ".join(dict.fromkeys(parts))


class PlainOrigin(NamedTuple):
    """A header line's origin naming no extension, as plain data (``LogOrigin``'s fields and defaults,
    which tests/test_plain_copies.py holds equal): how a log whose snapshot fits is read (grounded.io.reader,
    ``authenticated_header``).  A named tuple, as the other plain records of that reading (grounded.dmap.notes)."""

    rules: str | None = None
    extensions: list | None = None


ORIGIN_KEYS = PlainOrigin._fields
"""The keys of a header line that are its origin, not its ``Header``."""


def header_json(header: Header, origin: LogOrigin | None = None) -> dict[str, Any]:
    """The header line: the format version first, then every field that is set (no ``world`` if none)."""
    line = {"grounded": FORMAT_VERSION, **header.model_dump(mode="json", exclude={"grounded"}, exclude_none=True)}
    if origin is not None:
        line.update(origin.model_dump(mode="json", exclude_none=True))
    return line


def split_header(obj: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A header line as (the Header's fields, the origin's fields)."""
    return ({k: v for k, v in obj.items() if k not in ORIGIN_KEYS},
            {k: v for k, v in obj.items() if k in ORIGIN_KEYS})


def utterance_json(turn: int, utterance: UtteranceBase) -> dict[str, Any]:
    from grounded.dmap.operations import op_to_json  # the operation models: not imported to read a log's header

    line = {"turn": turn, "speaker": utterance.speaker, "text": utterance.text,
            "ops": [op_to_json(op) for op in utterance.ops]}
    if utterance.labels:
        line["labels"] = list(utterance.labels)
    return line


def encode_line(obj: dict[str, Any]) -> bytes:
    """One JSON line as UTF-8 bytes, newline included.

    Text that is not valid Unicode (a lone surrogate) is written escaped
    (``\\ud800``) rather than failing: JSON can carry it and the reader reads
    it back as it was.  Validated utterances never hold any (InputError).
    """
    text = json.dumps(obj, ensure_ascii=False)
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(obj) + "\n").encode("ascii")
