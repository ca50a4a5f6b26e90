"""The world model a conversation may declare in its header (key ``world``).

    world:
      atoms: [m_a, m_b, m_c]                 # W starts as every valuation of these
      agents:                                # who is modelled and what each observes
        alice: {observes: [m_b, m_c]}        #   (default: the header's agents, observing nothing)
      actual: [m_a, m_b]                     # optional: the atoms true in the actual world
      formulas:                              # what propositions stand for
        dk_alice: "~K_alice m_a & ~K_alice ~m_a"
      background:                            # propositional constraints, common knowledge
        - "h1 & p_redis -> p_stripe429"

A proposition id that is an atom stands for itself; one listed under
``formulas`` stands for its formula (definitions may use each other, without
cycles); any other claim has no epistemic content and leaves the model alone.
Atoms mentioned in formulas or background but not listed in ``atoms`` are
*latent*: nobody is aware of them and W does not distinguish them until an
operation first mentions them, which refines W on them (Definition A.3).  A
background constraint holds from the moment all its atoms are in the model.
"""

from __future__ import annotations

from graphlib import CycleError, TopologicalSorter
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from grounded.core.bounds import MAX_FORMULA_DEPTH, MAX_FORMULA_SIZE, MAX_UNIVERSE, preview
from grounded.core.fields import Atom

if TYPE_CHECKING:  # formula and parse are imported where used: every header's model imports this module, and
    # a header declaring no world (a query answered from a snapshot) never parses a formula
    from grounded.epistemic.formula import Formula

MAX_ATOMS = MAX_UNIVERSE.bit_length() - 1


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class WorldAgent(_Strict):
    """A modelled agent: two worlds are indistinguishable to it iff they agree on what it observes."""

    observes: list[Atom] = Field(default_factory=list)


class WorldDeclaration(_Strict):
    """Atoms, agents and observations, the actual world, propositions' formulas, background."""

    atoms: list[Atom]
    agents: dict[Atom, WorldAgent] | None = None
    actual: list[Atom] | None = None
    formulas: dict[Atom, str] = Field(default_factory=dict)
    background: list[str] = Field(default_factory=list)

    _defs: dict[str, Formula] = PrivateAttr(default_factory=dict)
    _background: list[Formula] = PrivateAttr(default_factory=list)
    _depths: dict[str, int] = PrivateAttr(default_factory=dict)
    _sizes: dict[str, int] = PrivateAttr(default_factory=dict)

    @field_validator("formulas")
    @classmethod
    def _formulas_parse(cls, value: dict[str, str]) -> dict[str, str]:
        from grounded.epistemic.parse import FormulaSyntaxError, parse

        for name, text in value.items():
            try:
                parse(text)
            except FormulaSyntaxError as exc:
                raise ValueError(f"{name}: {exc}") from None
        return value

    @field_validator("background")
    @classmethod
    def _background_parses(cls, value: list[str]) -> list[str]:
        from grounded.epistemic.parse import FormulaSyntaxError, parse

        for i, text in enumerate(value):
            try:
                parse(text)
            except FormulaSyntaxError as exc:
                raise ValueError(f"[{i}]: {exc}") from None
        return value

    @model_validator(mode="after")
    def _consistent(self) -> WorldDeclaration:
        from grounded.epistemic.formula import atoms, boolean_value, depth, size
        from grounded.epistemic.parse import parse

        if len(set(self.atoms)) != len(self.atoms):
            raise ValueError(f"atoms repeat: {self.atoms}")
        defs = {name: parse(text) for name, text in self.formulas.items()}
        clash = sorted(set(defs) & set(self.atoms))
        if clash:
            raise ValueError(f"formulas: {clash} are atoms and cannot also be defined by a formula")
        order = TopologicalSorter({name: atoms(f) & set(defs) for name, f in defs.items()})
        try:
            ordered = tuple(order.static_order())
        except CycleError as exc:
            raise ValueError(f"formulas: the definitions of {exc.args[1]} are circular") from None
        expanded: dict[str, int] = {}  # each definition's depth once the names it uses are expanded
        sizes: dict[str, int] = {}  # and its number of nodes
        for name in ordered:
            expanded[name] = depth(defs[name], expanded)
            if expanded[name] > MAX_FORMULA_DEPTH:
                raise ValueError(f"formulas: {name} is nested {expanded[name]} levels deep with the definitions "
                                 f"it uses expanded (at most {MAX_FORMULA_DEPTH})")
            sizes[name] = size(defs[name], sizes)
            if sizes[name] > MAX_FORMULA_SIZE:
                raise ValueError(f"formulas: {name}: {too_large(sizes[name])}")
        self._depths, self._sizes = expanded, sizes
        self._defs = defs
        self._background = [parse(t) for t in self.background]
        propositional: dict[str, bool] = {}
        for i, (text, f) in enumerate(zip(self.background, self._background, strict=True)):
            nodes = self.expanded_size(f)
            if nodes > MAX_FORMULA_SIZE:
                raise ValueError(f"background[{i}]: {preview(text)}: {too_large(nodes)}")
            if not _propositional(f, defs, propositional):
                raise ValueError(f"background[{i}]: {text!r}: background constraints are propositional "
                                 "(no K, B, C, A, also not through the formulas of the names they use)")
        names = self.all_atoms()
        if len(names) > MAX_ATOMS:
            raise ValueError(f"{len(names)} atoms (latent ones included) could make 2^{len(names)} worlds; "
                             f"the limit is {MAX_ATOMS}")
        for agent, spec in (self.agents or {}).items():
            bad = [a for a in spec.observes if a not in names]
            if bad:
                raise ValueError(f"agents.{agent}.observes: {bad} are not atoms of the world")
        if self.actual is not None:
            bad = [a for a in self.actual if a not in names]
            if bad:
                raise ValueError(f"actual: {bad} are not atoms of the world")
            true = set(self.actual)
            for text, f in zip(self.background, self._background, strict=True):
                if not boolean_value(f, true, defs):
                    raise ValueError(f"actual: the actual world violates the background constraint {text!r}")
        return self

    # -- what the declaration means -------------------------------------------------

    def definitions(self) -> dict[str, Formula]:
        return dict(self._defs)

    def expanded_depth(self, f: Formula) -> int:
        """The nesting depth of ``f`` with the names it uses replaced by their definitions."""
        from grounded.epistemic.formula import depth

        return depth(f, self._depths)

    def expanded_size(self, f: Formula) -> int:
        """The number of nodes of ``f`` with the names it uses replaced by their definitions
        (counted, not built: evaluation reads each definition once)."""
        from grounded.epistemic.formula import size

        return size(f, self._sizes)

    def background_formulas(self) -> list[Formula]:
        return list(self._background)

    def mentioned(self) -> set[str]:
        from grounded.epistemic.formula import atoms

        found: set[str] = set()
        for f in (*self._defs.values(), *self._background):
            found |= atoms(f)
        return found - set(self._defs)

    def latent(self) -> set[str]:
        """Atoms that enter W only when an operation first mentions them."""
        return self.mentioned() - set(self.atoms)

    def all_atoms(self) -> set[str]:
        return set(self.atoms) | self.latent()

    def agent_names(self, header_agents: list[str]) -> list[str]:
        return list(self.agents) if self.agents is not None else list(header_agents)

    def observes(self, agent: str) -> list[str]:
        return list(self.agents[agent].observes) if self.agents and agent in self.agents else []

    def check_agents(self, header_agents: list[str]) -> None:
        """The modelled agents are header agents (when the header names any), and
        every agent a formula names is modelled."""
        from grounded.epistemic.formula import agents

        names = self.agent_names(header_agents)
        if not names:
            raise ValueError("no agents to model: declare agents in the header or under world.agents")
        if header_agents and self.agents is not None:
            bad = [g for g in self.agents if g not in header_agents]
            if bad:
                raise ValueError(f"agents: {bad} are not agents of the conversation ({header_agents})")
        for name, f in self._defs.items():
            bad = sorted(agents(f) - set(names))
            if bad:
                raise ValueError(f"formulas.{name}: {bad} are not modelled agents ({names})")


def _propositional(f: Formula, defs: dict[str, Formula], known: dict[str, bool]) -> bool:
    """Propositional, with every defined name it uses standing for a propositional formula
    (each name looked at once: ``known`` remembers the answer)."""
    from grounded.epistemic.formula import atoms, is_propositional

    if not is_propositional(f):
        return False
    for name in atoms(f) & set(defs):
        if name not in known:
            known[name] = _propositional(defs[name], defs, known)
        if not known[name]:
            return False
    return True


def too_large(nodes: int) -> str:
    """Why a formula of ``nodes`` nodes (definitions expanded) is refused."""
    return (f"{nodes} nodes with the definitions it uses expanded (at most {MAX_FORMULA_SIZE}): "
            "definitions that use each other more than once double at every level")
