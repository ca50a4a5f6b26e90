"""The bodies of the HTTP API, as pydantic models: the OpenAPI document is generated from them.

Requests reuse the library's own models (``Header``, the operations), so the
API validates ids and fields exactly as the library does.  An operation the
built-in models do not know (one added by an extension rule file) passes as a
plain object and the engine's registry validates it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field, create_model

from grounded.core.bounds import MAX_ID_LENGTH
from grounded.core.cited import CitedContinuation
from grounded.core.fields import Atom, Threshold, Turn
from grounded.core.literals import ATOM_PATTERN
from grounded.dmap.model import Header
from grounded.queries.models import StateAnswer

ID_SCHEMA = {"pattern": f"^{ATOM_PATTERN}$", "maxLength": MAX_ID_LENGTH}
"""An id as the schema shows it (a conversation, a speaker): the pattern is for the client, the server checks it
(``keys.check_name``, ``literals.check_atom``) and answers 422 naming the field."""
LITERAL_SCHEMA = {"pattern": f"^-?{ATOM_PATTERN}$", "maxLength": MAX_ID_LENGTH + 1}

Cid = Annotated[str, Path(description="The conversation's id.", json_schema_extra=ID_SCHEMA)]
"""The ``{cid}`` of every conversation route."""


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateConversation(Body):
    id: Annotated[str, Field(json_schema_extra=ID_SCHEMA)] | None = Field(
        None, description="The conversation's id (letters, digits, _ . : -; at most 200); generated when omitted.",
        examples=["incident-42"])
    header: Header = Field(default_factory=Header, description="The event-log header: agents, props, acyclic, world.")
    extensions: list[str] = Field(default_factory=list, description="Extension rule files (by file name) among "
                                                                    "those the server loads (`grounded serve -x`).")


class AppendUtterance(Body):
    speaker: Annotated[Atom, Field(json_schema_extra=ID_SCHEMA)]
    text: str = ""
    ops: list[dict[str, Any]] = Field(
        default_factory=list, description="The utterance's operations (see `grounded schema`); leave empty and "
                                          "name an `interpreter` to have them found from `text`.")
    turn: Turn | None = Field(None, description="The utterance's turn; the next one when omitted.")
    labels: list[str] = Field(default_factory=list)
    interpreter: Literal["rules", "llm"] | None = Field(
        None, description="Interpret `text` into operations with this interpreter (the re-prompt loop of "
                          "`grounded interpret`); `llm` uses the server's configured endpoint.")
    expect_turn: Turn | None = Field(
        None, description="Optimistic concurrency: the conversation's last turn as the client saw it (null: no "
                          "utterance yet). If the conversation is elsewhere the append is refused with 409. "
                          "Omit the field to append unconditionally.")

    def utterance(self) -> dict[str, Any]:
        u: dict[str, Any] = {"speaker": self.speaker, "text": self.text, "ops": list(self.ops)}
        if self.turn is not None:
            u["turn"] = self.turn
        if self.labels:
            u["labels"] = self.labels
        return u


class VerifyRequest(Body):
    """Exactly one of ``claim``, ``text`` and ``cited`` (the others left out or null)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"oneOf": [
        {"required": [name], "properties": {name: {"type": kind}}}
        for name, kind in (("claim", "string"), ("text", "string"), ("cited", "object"))]})

    claim: Annotated[str, Field(json_schema_extra=LITERAL_SCHEMA)] | None = Field(
        None, description="The literal the continuation asserts (e.g. h2 or -a3).")
    text: str | None = Field(None, description="Or the continuation's text: it is anchored by similarity.")
    cited: CitedContinuation | None = Field(
        None, description="Or a continuation with the claim ids it asserts and denies: verified by claim, its text "
                          "read against the citation (docs/interpreter.md, Cited continuations).")
    at: Turn | None = Field(None, description="Answer as of this earlier turn.")
    threshold: Threshold | None = Field(None, description="Least similarity for `text` to anchor, from 0 to 1 "
                                                           "(default 0.25).")


# -- answers (a query's answer is its registry model: grounded.queries.registry) ------------------------


class ConversationSummary(BaseModel):
    id: str
    tenant: str
    turn: int | None = Field(description="The last turn applied (null before the first utterance).")
    length: int = Field(description="Utterances stored.")


class ConversationInfo(ConversationSummary):
    header: dict[str, Any]
    extensions: list[dict[str, str]]


class ConversationListItem(BaseModel):
    id: str
    length: int


class TransitionOut(BaseModel):
    op: int = Field(description="Index of the operation in the utterance (-1: the utterance).")
    name: str
    fields: list[str | int | None] = Field(description="The effect's values in declaration order (`grounded rules`): "
                                                      "ids and texts, turns and indices, a cause or null.")


class ViolationOut(BaseModel):
    index: int
    op: str
    code: str
    message: str


class Appended(BaseModel):
    id: str
    seq: int = Field(description="The utterance's row number in the store (1 = first utterance).")
    turn: int
    speaker: str
    ops: list[dict[str, Any]] = Field(description="The operations applied (for text, what the interpreter found).")
    transitions: list[TransitionOut]
    flagged: dict[str, list[str]] = Field(description="Claims that left standing -> the claims in S_t resting on them.")
    rejections: list[list[ViolationOut]] = Field(description="Proposals the rules refused before one was accepted "
                                                             "(text through an interpreter).")


class TextVerificationOut(BaseModel):
    """The verdict on a continuation given as text (``text`` in the request); fields that do not apply are left
    out.  Verify by claim answers the query registry's ``VerifyAnswer``."""

    text: str | None = None
    verdict: Literal["accept", "reject", "abstain"]
    reason: str
    method: str
    at: int | None = None
    asserted: list[dict[str, Any]] = Field(description="Each literal the text asserts, verified.")
    denied: list[dict[str, Any]] = Field(description="Each literal the text denies, verified.")
    threshold: float | None = None
    best: dict[str, Any] | None = Field(None, description="The most similar claim even when nothing anchored.")
    error: str | None = None


class CitedVerificationOut(BaseModel):
    """The verdict on a cited continuation (``cited`` in the request)."""

    text: str
    verdict: Literal["accept", "reject", "abstain"]
    reason: str
    method: str
    at: int | None = None
    asserted: list[dict[str, Any]] = Field(description="Verify on each id the continuation cites as asserted.")
    denied: list[dict[str, Any]] = Field(description="Verify on each id it cites as denied.")
    cited: dict[str, list[str]]
    unknown: list[str] = Field(description="Cited ids no argument claims (they reject).")
    contradicts: list[dict[str, Any]] = Field(description="What the text says against its own citation.")
    uncited: list[dict[str, Any]] = Field(description="What the text says beyond its citation.")
    reading: dict[str, Any] = Field(description="The offline reader's own verdict on the text.")
    notes: list[str]


_STATE: dict[str, Any] = {name: (field.annotation, field) for name, field in StateAnswer.model_fields.items()
                          if name != "at"}
StateOut = create_model(
    "StateOut", __doc__="The state in its one shape (``StateAnswer``, the query registry's), its turn named "
                        "``turn``, with the conversation's id and length (utterances stored).",
    id=(str, ...), turn=(int | None, Field(description=StateAnswer.model_fields["at"].description)),
    length=(int, ...), **_STATE)


class ErrorOut(BaseModel):
    """Every refusal: a stable code and a message (some add fields naming what was refused: ``field``, ``bound``,
    ``conversation``, ``retry_after``, ``deadline``)."""

    error: str = Field(description="unauthorized, not_found, conflict, exists, invalid, too_large, too_many_requests, "
                                   "deadline_exceeded, unavailable, store_unavailable, inconsistent_store, "
                                   "method_not_allowed, internal")
    message: str


class RejectionOut(BaseModel):
    error: Literal["rejected"]
    message: str = Field(description="The library's message, as `PreconditionError` words it.")
    turn: int
    speaker: str
    violations: list[ViolationOut] = Field(description="Every failing precondition, with the rules' stable code.")
