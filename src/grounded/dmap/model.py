"""The typed vocabulary of the dependency map: agents, propositions, arguments.

These pydantic models are what the engine accepts (the event-log header) and
what it hands out (``Engine.argument``); the engine's own incremental state
lives in plain records in ``state.py`` for speed.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationInfo, field_validator

from grounded.core.fields import Atom, JsonInt, Lit, Name, Text
from grounded.core.vocabulary import PropKind, Standing
from grounded.dmap.notes import StandingNote, class_name, standing_text  # noqa: F401  # re-exported
from grounded.epistemic.declaration import WorldDeclaration


class Strict(BaseModel):
    """Frozen, no extra keys, validators built when a model is first used (``defer_build``): a query answered
    from a snapshot validates few of the models it imports, and building them all at import was a large part of
    its start (docs/benchmarks.md, start-up; tests/test_startup.py); grounded's other base models do the same."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Agent(Strict):
    """A participant; ``authority`` lets them resolve a disputed claim by decision."""

    role: Name = ""
    authority: StrictBool = False


class Proposition(Strict):
    """A proposition of Prop_t, with its natural-language text and kind.

    ``aware: false`` declares a proposition no agent is aware of yet (Phase 2's
    ``mis_monitor``): observing it is rejected until Expand-Awareness adds it.
    """

    id: Atom
    text: Text = ""
    kind: PropKind = "observation"
    aware: StrictBool = True


class Header(Strict):
    """Line 1 of an event log, and the head of a scenario file.

    With no agents declared, any speaker may talk and joins on first word
    (without decision authority).  ``acyclic: false`` opts out of the paper's
    restriction A2 (attack cycles are then accepted).  ``world`` declares the
    epistemic model M (docs/epistemic.md); without it the engine keeps none.
    """

    grounded: Annotated[Literal[1], JsonInt] = 1
    agents: dict[Atom, Agent] = Field(default_factory=dict)
    props: list[Proposition] = Field(default_factory=list)
    acyclic: StrictBool = True
    world: WorldDeclaration | None = None

    @classmethod
    def authenticated(cls, fields: dict[str, Any]) -> Header:
        """A header whose fields a reading validated before (the log of a snapshot that fits: grounded.io.reader),
        as a model, without validating them again: ``model_validate``'s model, fields set alike, without building
        the validators ``model_validate`` builds on first use (docs/benchmarks.md, start-up).
        Not for a header with a world model (never snapshotted)."""
        if fields.get("world") is not None:
            raise ValueError("a header with a world model is validated, never taken as authenticated")
        made = dict(fields)
        if "agents" in made:
            made["agents"] = {name: Agent.model_construct(**agent) for name, agent in made["agents"].items()}
        if "props" in made:
            made["props"] = [Proposition.model_construct(**prop) for prop in made["props"]]
        return cls.model_construct(**made)

    @field_validator("world")
    @classmethod
    def _world_agents(cls, world: WorldDeclaration | None, info: ValidationInfo) -> WorldDeclaration | None:
        if world is not None:
            world.check_agents(list(info.data.get("agents", {})))
        return world


class Provenance(Strict):
    """Where an argument came from: the operation and the utterance that carried it."""

    op: str
    index: int
    turn: int
    speaker: str
    utterance: str


class StandingChange(Strict):
    turn: int
    standing: Standing
    cause: str | None = None


class Argument(Strict):
    """An argument of AF_t as of some turn: its claim, standing and Dep."""

    id: int
    claim: Lit
    speaker: str
    turn: int
    kind: str
    text: str
    standing: Standing
    deps: list[str]
    explains: list[str]
    history: list[StandingChange]
    created_by: Provenance
