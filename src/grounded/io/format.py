"""The event-log format: what a header line and an utterance line contain.

The header line is the conversation's ``Header`` plus where the log came
from: ``rules`` (the rules version that accepted its utterances: package
version + a hash of the shipped Prolog rule files) and ``extensions`` (each
extension rule file it was written with: file name and sha256).  Replaying a
log under other rules or extensions is refused (docs/reliability.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grounded.core.fields import Name
from grounded.dmap.model import Header

if TYPE_CHECKING:
    from grounded.dmap.operations import UtteranceBase

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


class ExtensionRef(BaseModel):
    """An extension rule file a log was written with: its file name and the sha256 of its content,
    and the sha256 of its ASP twin (``op.lp`` beside ``op.pl``, which `grounded check` reads) if it
    had one.  A log written before twins were recorded has no ``twin_sha256``: it reads as before."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    name: Name
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    twin_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")

    @classmethod
    def authenticated(cls, fields: dict[str, Any]) -> ExtensionRef:
        """Fields validated before (see ``LogOrigin.authenticated``), as a model, without validating them again."""
        return cls.model_construct(**fields)

    def short(self) -> str:
        return f"{self.name} (sha256 {self.sha256[:12]})"

    @property
    def twin_name(self) -> str:
        return self.name.rsplit(".", 1)[0] + ".lp"


class LogOrigin(BaseModel):
    """What the header line records besides the Header: the rules and extensions that wrote the log.

    Both are None in a log that does not record them (one written by hand):
    such a log is replayed under whatever rules and extensions are given.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    rules: Name | None = None
    extensions: list[ExtensionRef] | None = None

    @classmethod
    def authenticated(cls, fields: dict[str, Any]) -> LogOrigin:
        """An origin whose fields a reading validated before (a snapshot's log: grounded.io.reader), as a model,
        without validating them again: the model ``model_validate`` would give (fields set alike)."""
        refs = fields.get("extensions")
        if refs is not None:
            fields = {**fields, "extensions": [ExtensionRef.authenticated(r) for r in refs]}
        return cls.model_construct(**fields)


class HeaderLine(Header):
    """Line 1 of an event log as written: the Header, the rules version, the extensions."""

    rules: Name | None = Field(default=None, description="Rules version that accepted the utterances "
                                                         "(package version + hash of the Prolog rule files).")
    extensions: list[ExtensionRef] | None = Field(default=None, description="Extension rule files the log "
                                                                            "was written with.")


ORIGIN_KEYS = ("rules", "extensions")


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
