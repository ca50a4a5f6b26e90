"""The pydantic models of the query registry (grounded.queries.registry): each query's parameters and answer.

``params``: what the CLI, the routes and the tools validate a query's parameters with; ``answer``: the one
JSON shape of its answer, which the OpenAPI document and ``grounded schema --queries`` publish.  Apart from
the registry, so that a query answered from a snapshot, whose parameters the registry reads as plain data
when they are plainly right (``Query.read``), imports no pydantic.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from grounded.dmap.model import Argument

# -- parameters -------------------------------------------------------------------------------------


class Params(BaseModel):
    """No parameters besides ``at``."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class ClaimParams(Params):
    claim: str = Field(description="A literal, e.g. h2 or -a3.")


class AffectedParams(ClaimParams):
    closure: StrictBool = Field(True, description="Affected* (true) or one-step Affected (false).")


class ArgumentsParams(Params):
    claim: str | None = Field(None, description="Only the arguments for this literal (all of them when omitted).")


# -- answers: one JSON shape per query ----------------------------------------------------------------


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    at: int | None = Field(description="The turn asked about (null: the latest).")


class VerifyAnswer(Answer):
    claim: str
    grounded: bool
    status: Literal["grounded", "ungrounded", "no_anchor"]
    chain: list[str] = Field(description="Claims of the witness Dep*(a_c), the anchor's first.")
    arguments: list[int] = Field(description="The witness's argument ids, the anchor first.")
    reason: str | None = Field(description="Why not grounded (null when grounded).")
    failing: str | None = Field(description="The first literal the walk could not ground.")


class AffectedAnswer(Answer):
    claim: str
    closure: bool
    claims: list[str] = Field(description="Claims of the arguments reached, in the order reached.")
    lose_support: list[str] = Field(description="Those of them in S_t (they lose grounding).")
    hops: dict[str, int] = Field(description="Claim -> the hop it was first reached at (1: one-step Affected).")
    arguments: list[int]
    losing_arguments: list[int]
    known: bool = Field(description="False when no argument claims or rests on the literal and no proposition "
                                    "declares it (as of the turn).")


class ReinstatableAnswer(Answer):
    arguments: list[int] = Field(description="Arguments out of standing whose every attacker has left S_t.")
    reinstatable: list[str] = Field(description="Their claims, each once.")


class OpenProblemsAnswer(Answer):
    open_problems: list[str]


class CommitmentsAnswer(Answer):
    commitments: dict[str, list[str]] = Field(description="Agent -> the claims it is committed to.")


class DissentAnswer(Answer):
    dissent: dict[str, list[str]] = Field(description="Decision claim -> the agents dissenting from it.")


class StandingAnswer(Answer):
    claim: str
    standing: str | None = Field(description="Standing of the newest argument for the claim (null: none).")


class DepAnswer(Answer):
    claim: str
    dep: list[str] = Field(description="Dep of the newest argument for the claim.")


class ArgumentsAnswer(Answer):
    claim: str | None
    arguments: list[Argument]


class StateArgument(Argument):
    grounded: bool = Field(description="In S_t and grounded all the way down (Verify finds it for its claim).")


class StateAnswer(Answer):
    """The state as of a turn (``registry.state``): every argument, and the summary's answers."""

    at: int | None = Field(description="The turn the state is as of: the one asked, else the last (null: no "
                                       "utterance yet).")
    arguments: list[StateArgument]
    open_problems: list[str]
    commitments: dict[str, list[str]] = Field(description="Agent -> the claims it is committed to.")
    dissent: dict[str, list[str]] = Field(description="Decision claim -> the agents dissenting from it.")
    reinstatable: list[str] = Field(description="Claims of the arguments out of standing whose every attacker has "
                                                "left S_t.")
