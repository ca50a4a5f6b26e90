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

While the rules decide an utterance, a ``Reading`` reads each operation in the
model (after the operations before it in the utterance) as soon as the rules
know its effects, and answers what the rules need to know: whether an
announcement leaves no world or is false in the actual world, and for
Hypothesize every check of Definition A.2.  The rules turn failing checks into
violations.  One rule run per utterance: no dry run.
"""

from __future__ import annotations

import copy
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from grounded.core.bounds import MAX_FORMULA_DEPTH, MAX_FORMULA_SIZE
from grounded.core.literals import atom_of
from grounded.dmap.effects import Abduce, AddExplains, Announce, Effect, Refine, Upgrade, Withdraw
from grounded.epistemic.abduction import Problem, abduce
from grounded.epistemic.declaration import WorldDeclaration, too_large
from grounded.epistemic.formula import A, Atom, C, Formula, Not, children
from grounded.epistemic.formula import B as Believes
from grounded.epistemic.formula import K as Knows
from grounded.epistemic.model import ModelError, PlausibilityModel
from grounded.epistemic.parse import parse
from grounded.epistemic.semantics import expand, holds, truth
from grounded.epistemic.updates import announce, become_aware, conservative, lexicographic, refine, withdraw
from grounded.epistemic.verdicts import Verdict

UPGRADES = {"lexicographic": lexicographic, "conservative": conservative}


@dataclass(frozen=True, slots=True)
class Frame:
    """M while an utterance is carried out, with the changes it makes to the
    record of first announcements (literal -> the model just before it; None:
    withdrawn).  Committed frames keep only the model: the record itself is
    kept once, for the current turn (``ConversationModel.first_seen``)."""

    model: PlausibilityModel
    before: Mapping[str, PlausibilityModel | None]
    applied: tuple[str, ...] = ()
    """The model updates the utterance carried out so far ('!o5', '^h1', 'withdraw a3')."""


class ConversationModel:
    """The world model one engine keeps: one model per turn that changed it."""

    def __init__(self, declaration: WorldDeclaration, header_agents: list[str],
                 unaware: Iterable[str] = ()):
        """``unaware``: atoms of the model that nobody is aware of yet (header props with
        ``aware: false``); Expand-Awareness brings them in.  The header has already
        checked the declaration against its agents."""
        self.declaration = declaration
        self.defs = declaration.definitions()
        self.agents = declaration.agent_names(header_agents)
        self.latent = declaration.latent()
        self.actual = None if declaration.actual is None else frozenset(declaration.actual)
        # a constraint waits for the atoms it needs once defined names are expanded
        self._background = [(f, frozenset(expand(f, self.defs))) for f in declaration.background_formulas()]
        initial = set(declaration.atoms)
        observes = {g: [a for a in declaration.observes(g) if a in initial] for g in self.agents}
        model = PlausibilityModel.cube(declaration.atoms, observes,
                                       None if self.actual is None else self.actual & initial)
        hidden = frozenset(unaware) & initial
        if hidden:
            model = model.replace(aware={g: a - hidden for g, a in model.aware.items()})
        self.history: list[tuple[int, PlausibilityModel]] = [(-1, self._constrain(model, frozenset()))]
        self.first_seen: dict[str, PlausibilityModel] = {}
        """Each announced literal: the model just before its first announcement
        (where an observation is judged surprising)."""

    def nbytes(self) -> int:
        """Bytes of the arrays of every model kept (by turn and as first-announcement records), each array
        counted once however many models share it: what a world model costs in memory, nearly all of it."""
        seen: set[int] = set()
        total = 0
        models = [m for _, m in self.history] + [m for m in self.first_seen.values() if m is not None]
        for model in models:
            for array in model.arrays():
                if id(array) not in seen:
                    seen.add(id(array))
                    total += array.nbytes
        return total

    def fork(self) -> ConversationModel:
        """A copy that goes on on its own (a probed state's scratch engine, crosscheck/probe.py): the
        models, which no update changes in place, shared; the list of them by turn and the record of
        first announcements, which ``commit`` changes, copied."""
        other = copy.copy(self)
        other.history, other.first_seen = list(self.history), dict(self.first_seen)
        return other

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
        nested = self.declaration.expanded_depth(f)
        if nested > MAX_FORMULA_DEPTH + 1:  # + 1: the K_i, B_i or C_G that knows() and its kin wrap it in
            raise ModelError(f"the formula is nested {nested} levels deep with its definitions expanded "
                             f"(at most {MAX_FORMULA_DEPTH})")
        nodes = self.declaration.expanded_size(f)
        if nodes > MAX_FORMULA_SIZE:
            raise ModelError(f"the formula has {too_large(nodes)}")  # (not printed: it may be that large)
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
            for agent in f.group:
                model.check_agent(agent)
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
        return self.history[max(0, bisect_right(self.history, turn, key=lambda h: h[0]) - 1)][1]

    def seen_before(self, frame: Frame, literal: str) -> PlausibilityModel | None:
        """The model just before ``literal`` was first announced, as of this frame."""
        if literal in frame.before:
            return frame.before[literal]
        return self.first_seen.get(literal)

    def commit(self, turn: int, frame: Frame) -> None:
        """Record what an accepted utterance did to M."""
        for literal, model in frame.before.items():
            if model is None:
                self.first_seen.pop(literal, None)
            else:
                self.first_seen[literal] = model
        if frame.model is not self.history[-1][1]:
            self.history.append((turn, frame.model))

    # -- carrying out the rules' transitions -----------------------------------------------

    def prepare(self, frame: Frame, literals: Iterable[str]) -> Frame:
        """Bring into the model every latent atom these literals mention; activate
        the background constraints that then have all their atoms."""
        model = frame.model
        new = self.new_atoms(model, literals)
        if not new:
            return frame
        had = frozenset(model.atoms)
        for a in new:
            observers = [g for g in self.agents if a in self.declaration.observes(g)]
            model = refine(model, a, observers, actual_value=self.actual is not None and a in self.actual)
        return Frame(self._constrain(model, had), frame.before)

    def new_atoms(self, model: PlausibilityModel, literals: Iterable[str]) -> list[str]:
        """The latent atoms these literals mention that ``model`` does not have yet (in order, once)."""
        new: list[str] = []
        for literal in literals:
            f = self.formula_of(literal)
            if f is not None:
                new.extend(a for a in sorted(expand(f, self.defs)) if a not in model.atom_index)
        return list(dict.fromkeys(new))

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

    def run(self, frame: Frame, effects: Iterable[Effect], masks: Mapping[str, np.ndarray]) -> Frame:
        """Carry out model effects; ``applied`` lists what actually changed M, for the renderer."""
        model, before, applied = frame.model, frame.before, list(frame.applied)
        for e in effects:
            if isinstance(e, Refine):
                if e.atom in model.atom_index and not all(e.atom in a for a in model.aware.values()):
                    model = become_aware(model, e.atom)
                continue
            if not isinstance(e, (Announce, Withdraw, Upgrade)):
                raise ModelError(f"{e.name} is not a model transition")
            literal = e.literal
            if literal not in masks and not isinstance(e, Withdraw):
                continue  # a claim with no epistemic content leaves M alone
            if isinstance(e, Announce):
                if self.seen_before(Frame(model, before), literal) is None:
                    before = {**before, literal: model}
                model = announce(model, masks[literal], literal)
                applied.append(f"!{literal}")
            elif isinstance(e, Withdraw):
                if self.seen_before(Frame(model, before), literal) is None:
                    continue  # never announced: nothing to lift
                model = withdraw(model, literal)
                before = {**before, literal: None}
                applied.append(f"withdraw {literal}")
            else:
                if e.mode not in UPGRADES:
                    raise ModelError(f"unknown upgrade {e.mode!r} (lexicographic or conservative)")
                model = UPGRADES[e.mode](model, masks[literal])
                applied.append(f"{'^' if e.mode == 'lexicographic' else 'up '}{literal}")
        return Frame(model, before, tuple(applied))

    # -- reading an utterance in the model, while the rules decide it ----------------------

    def reading(self, speaker: str) -> Reading:
        """Start reading one utterance (see ``Reading``)."""
        return Reading(self, speaker)

    def _abduction_terms(self, frame: Frame, agent: str, gamma_literal: str, explains: list[str]) -> list[Verdict]:
        gamma = self.formula_of(gamma_literal)
        assert gamma is not None, "the caller reads only claims with epistemic content"
        problems = []
        for x in explains:
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
        """The formula at the actual world (every world of W if none is declared), as of ``turn``."""
        model = self.model_at(turn)
        return holds(model, self.query(formula, model), "actual", self.defs)

    def knows(self, agent: str, formula: str | Formula, turn: int | None = None) -> bool:
        return self.holds(Knows(agent, self._formula(formula)), turn)

    def believes(self, agent: str, formula: str | Formula, turn: int | None = None) -> bool:
        return self.holds(Believes(agent, self._formula(formula)), turn)

    def common_knowledge(self, formula: str | Formula, group: Iterable[str] | None = None,
                         turn: int | None = None) -> bool:
        """C_G formula; the group defaults to every modelled agent."""
        members = tuple(group) if group is not None else tuple(self.agents)
        return self.holds(C(members, self._formula(formula)), turn)

    @staticmethod
    def _formula(formula: str | Formula) -> Formula:
        return parse(formula) if isinstance(formula, str) else formula


class Reading:
    """One utterance read in M operation by operation, as the rules decide it.

    The rules call ``read(k, effects)`` once operation k has passed its
    preconditions and its effects are known (prolog/grounded.pl, world_call/2),
    and ``applied(k)`` once they applied them.  Operation k is read in the model
    after the operations before it that were applied; what the reading finds
    (``verdicts.py``) goes back to the rules, which decide what it means.
    ``frame`` is then what the utterance did to M, committed if the rules accept.

    The model is *prepared* before anything is read in it: every latent atom the
    utterance's model effects name enters it (W refined on it), and every
    literal's truth is read in that one model, so the announcements of one
    utterance are simultaneous (Phase 1's three "I don't know").  The rules
    reveal an operation's effects one at a time, so when a later operation names
    a new latent atom the preparation is redone from the utterance's start with
    every literal so far and the applied operations are carried out again: the
    frame is the one a reading of the whole utterance at once would give.
    """

    def __init__(self, world: ConversationModel, speaker: str):
        self.world = world
        self.speaker = speaker
        self.start = world.current
        self.literals: list[str] = []
        self.prepared = self.start
        self.masks: dict[str, np.ndarray] = {}
        self.frame = self.start
        """The model after the operations applied so far."""
        self.done: list[list[Effect]] = []  # the model effects of each applied operation
        self.verdicts: dict[int, list[Verdict]] = {}
        """What the reading found, per operation index (the ASP reference reads the same)."""
        self._pending: tuple[int, Frame, list[Effect]] | None = None

    def read(self, index: int, effects: list[Effect]) -> list[Verdict]:
        world = self.world
        model_effects: list[Effect] = []
        literals: list[str] = []
        for e in effects:
            if isinstance(e, Refine):
                model_effects.append(e)
                literals.append(e.atom)
            elif isinstance(e, (Announce, Upgrade, Withdraw)):
                model_effects.append(e)
                literals.append(e.literal)
        abduce = next((e for e in effects if isinstance(e, Abduce)), None)
        explains = [e.literal for e in effects if isinstance(e, AddExplains)]
        if abduce is not None:
            literals += [abduce.literal, *explains]
        self._prepare(literals)
        terms: list[Verdict] = []
        current = running = self.frame
        for e in model_effects:
            if isinstance(e, Announce) and e.literal in self.masks:
                terms.extend(_announcement_terms(running.model, e.literal, self.masks[e.literal]))
            running = world.run(running, [e], self.masks)
        if (abduce is not None and self.speaker in world.agents
                and world.formula_of(abduce.literal) is not None):
            terms.extend(world._abduction_terms(current, self.speaker, abduce.literal, explains))
        self._pending = (index, running, model_effects)
        if terms:
            self.verdicts[index] = terms
        return terms

    def applied(self, index: int) -> None:
        if self._pending is not None and self._pending[0] == index:
            _, self.frame, model_effects = self._pending
            self.done.append(model_effects)
        self._pending = None

    def _prepare(self, literals: list[str]) -> None:
        """Bring in the latent atoms these literals name, and read their truth in the prepared model."""
        world = self.world
        self.literals += literals
        if world.new_atoms(self.prepared.model, literals):
            # a new latent atom: prepare from the utterance's start, replay what was applied
            prepared = world.prepare(self.start, self.literals)
            self.prepared = prepared
            self.masks = world.masks(prepared, self.literals)
            frame = prepared
            for effects in self.done:
                frame = world.run(frame, effects, self.masks)
            self.frame = frame
        else:
            self.masks.update(world.masks(self.prepared, [x for x in literals if x not in self.masks]))


def _announcement_terms(model: PlausibilityModel, literal: str, mask: np.ndarray) -> list[Verdict]:
    if not np.any(model.alive & mask):
        return [("impossible", literal)]
    if model.actual_alive() and not mask[model.actual]:
        return [("false", literal)]
    return []
