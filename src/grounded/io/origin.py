"""What a log's header line records besides the Header: the rules and extensions that wrote the log.

The pydantic models of those fields, apart from grounded.io.format (which imports no pydantic): a log whose
snapshot fits is read without them (grounded.io.reader, ``authenticated_header``), so that a query answered
from a snapshot starts without importing pydantic.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from grounded.core.fields import Name
from grounded.dmap.model import Header


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
