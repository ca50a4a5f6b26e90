"""A continuation and the claim ids it cites: the input of ``grounded verify --cited``.

Only the shape and its bounds live here, below every layer that reads it (the
CLI, the HTTP API's request body, the MCP tool); the verdict is
``grounded.interpreter.cited.verify_cited``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from grounded.core.bounds import MAX_CITED_CLAIMS, MAX_TEXT_LENGTH
from grounded.core.fields import Lit, Text
from grounded.core.literals import ATOM_PATTERN

ClaimId = Annotated[Lit, Field(json_schema_extra={"pattern": f"^-?{ATOM_PATTERN}$"})]
"""A claim id (a literal) as the schema shows it: the pattern is for the reader, the validator checks it."""


class CitedContinuation(BaseModel):
    """A continuation and the claim ids it asserts and denies (the ids of the conversation's claims)."""

    model_config = ConfigDict(extra="forbid", title="CitedContinuation")

    text: Text = Field(min_length=1, max_length=MAX_TEXT_LENGTH, description="The continuation, as it would be said.")
    asserts: list[ClaimId] = Field(default_factory=list, max_length=MAX_CITED_CLAIMS,
                                   description="Ids of the claims the text asserts, restates or relies on.")
    denies: list[ClaimId] = Field(default_factory=list, max_length=MAX_CITED_CLAIMS,
                                  description="Ids of the claims the text denies, contradicts or rules out.")

    @field_validator("denies")
    @classmethod
    def _apart(cls, denies: list[str], info: ValidationInfo) -> list[str]:
        both = sorted(set(info.data.get("asserts", ())) & set(denies))
        if both:
            raise ValueError(f"{', '.join(both)} both asserted and denied: cite each id in one list")
        return denies


__all__ = ["CitedContinuation", "ClaimId"]
