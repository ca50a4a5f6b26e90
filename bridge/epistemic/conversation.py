"""The M component of a conversation's dependency map: the declared world model,
how operations change it, and its history.

The Prolog rules decide what each operation does to M: they report it as
transitions (``announce(L)``, ``upgrade(L, Mode)``, ``withdraw(L)``,
``refine(P)``; see the operation table in docs/epistemic.md) next to the
argumentation ones.  This module carries them out on the plausibility model:

* an utterance first brings every latent atom it mentions into the model
  (refining W on it) and activates the background constraints that now have
  all their atoms; then its formulas are read, all in that one model, so the
  announcements of one utterance are simultaneous (Phase 1's three "I don't
  know"); then the updates apply in order;
* each literal's first announcement keeps the model just before it, the model
  in which an observation is judged surprising (Definition A.2).

Before the rules decide an utterance, ``verdicts`` reads its operations in the
model (each one after the operations before it in the utterance) and returns,
per operation, what the rules need to know: whether an announcement leaves no
world or is false in the actual world, and for Hypothesize every check of
Definition A.2.  The rules turn failing checks into violations.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ..literals import atom_of
from ..transitions import Transition
from .abduction import Problem, abduce
from .declaration import WorldDeclaration
from .formula import A, Atom, C, Formula, Not, atoms, children
from .formula import B as Believes
from .formula import K as Knows
from .model import ModelError, PlausibilityModel
from .parse import parse
from .semantics import expand, holds, truth
from .updates import announce, conservative, lexicographic, refine, withdraw
from .verdicts import Verdict

MODEL_EFFECTS = frozenset({"announce", "upgrade", "withdraw", "refine"})
"""Transitions that change M; the argumentation state ignores them."""

UPGRADES = {"lexicographic": lexicographic, "conservative": conservative}


@dataclass(frozen=True, slots=True)
class Frame:
    """M while an utterance is carried out, with the changes it makes to the
    record of first announcements (literal -> the model just before it; None:
    withdrawn).  Committed frames keep only the model: the record itself is
    kept once, for the current turn (``ConversationModel.first_seen``)."""

    model: PlausibilityModel
    before: Mapping[str, PlausibilityModel | None]


class ConversationModel:
    """The world model one engine keeps: one model per turn that changed it."""

    def __init__(self, declaration: WorldDeclaration, header_agents: list[str]):
        declaration.check_agents(header_agents)
        self.declaration = declaration
        self.defs = declaration.definitions()
        self.agents = declaration.agent_names(header_agents)
        self.latent = declaration.latent()
        self.actual = None if declaration.actual is None else frozenset(declaration.actual)
        self._background = [(f, frozenset(atoms(f))) for f in declaration.background_formulas()]
        initial = set(declaration.atoms)
        observes = {g: [a for a in declaration.observes(g) if a in initial] for g in self.agents}
        model = PlausibilityModel.cube(declaration.atoms, observes,
                                       None if self.actual is None else self.actual & initial)
        self.history: list[tuple[int, PlausibilityModel]] = [(-1, self._constrain(model, frozenset()))]
        self._turns = [-1]
        self.first_seen: dict[str, PlausibilityModel] = {}
        """Each announced literal: the model just before its first announcement
        (where an observation is judged surprising)."""

    # -- literals and formulas --------------------------------------------------------

    def formula_of(self, literal: str) -> Formula | None:
        """The formula a claim stands for, or None if it has no epistemic content."""
        p = atom_of(literal)
        if p in self.defs or p in self.latent or p in self.declaration.atoms:
            return Not(Atom(p)) if literal.startswith("-") else Atom(p)
        return None

    def query(self, formula: str | Formula, model: PlausibilityModel) -> Formula:
        """A formula a user asks about, checked against the model it will be read in."""
        f = parse(formula) if isinstance(formula, str) else formula
        try:
            self._check(f, model)
        except ModelError as exc:
            raise ModelError(f"{f}: {exc.detail}") from None
        return f

    def _check(self, f: Formula, model: PlausibilityModel) -> None:
        if isinstance(f, A):  # awareness may name atoms nobody is aware of yet
            model.check_agent(f.agent)
            unknown = sorted(expand(f.arg, self.defs) - self.declaration.all_atoms())
            if unknown:
                raise ModelError(f"{unknown[0]} is not an atom of the world")
            return
        if isinstance(f, Atom):
            for name in sorted(expand(f, self.defs)):
                if name not in model.atom_index:
                    if name in self.latent:
                        raise ModelError(f"{name} is latent: it enters the model when an operation first "
                                         "mentions it")
                    raise ModelError(f"{name} is not an atom of the world (atoms: {', '.join(model.atoms)})")
            return
        if isinstance(f, (Knows, Believes)):
            model.check_agent(f.agent)
        if isinstance(f, C):
            for g in f.group:
                model.check_agent(g)
        for g in children(f):
            self._check(g, model)

    # -- frames ----------------------------------------------------------------------------

    @property
    def current(self) -> Frame:
        """The frame the next utterance starts from."""
        return Frame(self.history[-1][1], {})

    def model_at(self, turn: int | None) -> PlausibilityModel:
        if turn is None:
            return self.history[-1][1]
        return self.history[max(0, bisect_right(self._turns, turn) - 1)][1]

    def seen_before(self, frame: Frame, literal: str) -> PlausibilityModel | None:
        """The model just before ``literal`` was first announced, as of this frame."""
        if literal in frame.before:
            return frame.before[literal]
        return self.first_seen.get(literal)

    def commit(self, turn: int, frame: Frame) -> bool:
        """Record what an accepted utterance did; False if M did not change."""
        for literal, model in frame.before.items():
            if model is None:
                self.first_seen.pop(literal, None)
            else:
                self.first_seen[literal] = model
        if frame.model is self.history[-1][1]:
            return False
        self.history.append((turn, frame.model))
        self._turns.append(turn)
        return True

    # -- carrying out the rules' transitions -----------------------------------------------

    def step(self, frame: Frame, effects: list[Transition]) -> Frame:
        """The frame after one utterance's model transitions (the frame is not changed)."""
        literals = [t.fields[0] for t in effects if t.name != "refine"]
        refines = [t.fields[0] for t in effects if t.name == "refine"]
        prepared = self.prepare(frame, literals + refines)
        return self.run(prepared, effects, self.masks(prepared, literals))

    def prepare(self, frame: Frame, literals: Iterable[str]) -> Frame:
        """Bring into the model every latent atom these literals mention; activate
        the background constraints that then have all their atoms."""
        model = frame.model
        new = []
        for literal in literals:
            f = self.formula_of(literal)
            if f is not None:
                new.extend(a for a in sorted(expand(f, self.defs)) if a not in model.atom_index)
        if not new:
            return frame
        had = frozenset(model.atoms)
        for a in dict.fromkeys(new):
            observers = [g for g in self.agents if a in self.declaration.observes(g)]
            model = refine(model, a, observers, actual_value=self.actual is not None and a in self.actual)
        return Frame(self._constrain(model, had), frame.before)

    def _constrain(self, model: PlausibilityModel, had: frozenset[str]) -> PlausibilityModel:
        present = set(model.atoms)
        for f, needs in self._background:
            if needs <= present and not needs <= had:
                model = announce(model, f, None, self.defs)
        return model

    def masks(self, frame: Frame, literals: Iterable[str]) -> dict[str, np.ndarray]:
        """Each modelled literal's truth, read in one model (simultaneous reading)."""
        out = {}
        for literal in dict.fromkeys(literals):
            f = self.formula_of(literal)
            if f is not None:
                out[literal] = truth(frame.model, f, self.defs)
        return out

    def run(self, frame: Frame, effects: Iterable[Transition], masks: Mapping[str, np.ndarray]) -> Frame:
        model, before = frame.model, frame.before
        for t in effects:
            literal = t.fields[0]
            if t.name == "refine" or literal not in masks and t.name != "withdraw":
                continue
            if t.name == "announce":
                if self.seen_before(Frame(model, before), literal) is None:
                    before = {**before, literal: model}
                model = announce(model, masks[literal], literal)
            elif t.name == "withdraw":
                model = withdraw(model, literal)
                if self.seen_before(Frame(model, before), literal) is not None:
                    before = {**before, literal: None}
            elif t.name == "upgrade":
                mode = t.fields[1]
                if mode not in UPGRADES:
                    raise ModelError(f"unknown upgrade {mode!r} (lexicographic or conservative)")
                model = UPGRADES[mode](model, masks[literal])
            else:
                raise ModelError(f"{t.name} is not a model transition")
        return Frame(model, before)

    # -- epistemic verdicts for the rules ---------------------------------------------------

    def verdicts(self, frame: Frame, ops: list, speaker: str,
                 effects: Mapping[int, list[Transition]]) -> dict[int, list[Verdict]]:
        """Per operation index, what the model found (``verdicts.py``) for the rules to judge.

        ``effects`` are the model transitions the rules would apply for each
        operation (from a dry run); operation k is judged in the model after
        operations 0..k-1.
        """
        literals = [t.fields[0] for k in sorted(effects) for t in effects[k]]
        for op in ops:
            if op.op == "hypothesize":
                literals += [op.claim, *op.explains]
        prepared = self.prepare(frame, literals)
        masks = self.masks(prepared, literals)
        out: dict[int, list[Verdict]] = {}
        current = prepared
        for k, op in enumerate(ops):
            terms: list[Verdict] = []
            running = current
            for t in effects.get(k, []):
                if t.name == "announce" and t.fields[0] in masks:
                    terms.extend(_announcement_terms(running.model, t.fields[0], masks[t.fields[0]]))
                running = self.run(running, [t], masks)
            if op.op == "hypothesize" and speaker in self.agents and self.formula_of(op.claim) is not None:
                terms.extend(self._abduction_terms(current, speaker, op))
            current = running
            if terms:
                out[k] = terms
        return out

    def _abduction_terms(self, frame: Frame, agent: str, op) -> list[Verdict]:
        gamma = self.formula_of(op.claim)
        problems = []
        for x in op.explains:
            chi = self.formula_of(x)
            if chi is not None:
                seen = self.seen_before(frame, x)
                problems.append(Problem(x, chi, frame.model if seen is None else seen, withdraw(frame.model, x)))
        v = abduce(frame.model, agent, gamma, problems, "actual", self.defs)
        terms: list[Verdict] = [("agent", agent), ("consistent", v.consistent), ("novel", v.novel),
                                ("contingent", v.contingent)]
        terms += [("problem", p.label, p.surprising, p.explanatory, p.distinct) for p in v.problems]
        return terms

    # -- queries ----------------------------------------------------------------------------

    def holds(self, formula: str | Formula, turn: int | None = None) -> bool:
        model = self.model_at(turn)
        return holds(model, self.query(formula, model), "actual", self.defs)

    def knows(self, agent: str, formula: str | Formula, turn: int | None = None) -> bool:
        model = self.model_at(turn)
        model.check_agent(agent)
        return holds(model, Knows(agent, self.query(formula, model)), "actual", self.defs)

    def believes(self, agent: str, formula: str | Formula, turn: int | None = None) -> bool:
        model = self.model_at(turn)
        model.check_agent(agent)
        return holds(model, Believes(agent, self.query(formula, model)), "actual", self.defs)


def _announcement_terms(model: PlausibilityModel, literal: str, mask: np.ndarray) -> list[Verdict]:
    if not np.any(model.alive & mask):
        return [("impossible", literal)]
    if model.actual_alive() and not mask[model.actual]:
        return [("false", literal)]
    return []
