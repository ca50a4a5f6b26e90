"""The Engine: one conversation's dependency map, updated per utterance.

``apply`` sends the utterance to the Prolog rules, which check every
precondition and report the transitions; the engine writes the utterance to
its event log (if it has one) and then mirrors the transitions in its
Python state.  Queries (Verify, Affected*, commitments, open problems, ...)
are answered from that state, for the current turn or any earlier one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from . import affected as _affected
from . import verify as _verify
from .epistemic.conversation import MODEL_EFFECTS, ConversationModel
from .epistemic.formula import C as CommonKnowledge
from .epistemic.formula import Formula
from .epistemic.model import ModelError, PlausibilityModel
from .epistemic.verdicts import Verdict, prolog_field
from .errors import InputError, LogError, PreconditionError, Violation
from .eventlog import EventLogWriter, describe_validation_error, read_log
from .literals import is_literal
from .model import GOOD_STANDING, Argument, Header
from .operations import OperationRegistry, UtteranceBase
from .rules import PrologRules
from .state import DependencyMap
from .transitions import Transition, parse_result


class Update:
    """What one accepted utterance changed.

    ``flagged`` maps each claim this utterance took out of standing to the
    claims in S_t that rest on it (Affected* in S_t): flagged for
    re-evaluation, never changed silently.  With a declared world model,
    ``worlds`` is |W| before and after the utterance (else None).
    """

    __slots__ = ("turn", "speaker", "utterance", "transitions", "flagged", "worlds")

    def __init__(self, turn: int, speaker: str, utterance: UtteranceBase, transitions: list[Transition],
                 flagged: dict[str, list[str]], worlds: tuple[int, int] | None = None):
        self.turn = turn
        self.speaker = speaker
        self.utterance = utterance
        self.transitions = transitions
        self.flagged = flagged
        self.worlds = worlds

    def of(self, name: str) -> list[tuple[str, ...]]:
        return [t.fields for t in self.transitions if t.name == name]

    def __repr__(self) -> str:
        return f"Update(T{self.turn} {self.speaker}: {len(self.transitions)} transitions)"


class Engine:
    """The dependency map D_t of one conversation.

    >>> engine = Engine({"agents": {"alice": {"authority": True}}})
    >>> _ = engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    >>> engine.verify("o1").grounded
    True
    """

    def __init__(self, header: Header | dict | None = None, *, log: str | Path | None = None,
                 extensions: Iterable[str | Path] = (), acyclic: bool | None = None):
        if header is None:
            header = Header()
        elif not isinstance(header, Header):
            try:
                header = Header.model_validate(header)
            except ValidationError as exc:
                raise InputError("header: " + describe_validation_error(exc)) from exc
        if acyclic is not None:
            header = header.model_copy(update={"acyclic": acyclic})
        self.header = header
        self.extensions = tuple(_extension_path(p) for p in extensions)
        self._rules = PrologRules.get()
        self._rules.use_extensions(self.extensions)
        self.registry = OperationRegistry(self._rules.operation_specs)
        self.state = DependencyMap(header)
        self.world = ConversationModel(header.world, list(header.agents)) if header.world is not None else None
        self._rules.adopt(self, self.state.prolog_facts, self.extensions)
        self._log = EventLogWriter(log, header) if log is not None else None
        self.load_error: LogError | None = None
        self.last_verdicts: dict[int, list[Verdict]] = {}
        """What the world model found about each operation of the last utterance
        (op index -> verdicts), accepted or not: the ASP reference reads the same."""

    # -- loading ------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path, *, extensions: Iterable[str | Path] = (), strict: bool = True,
             append: bool = False, on_update: Callable[[Engine, Update], None] | None = None) -> Engine:
        """Replay an event log through the rules.

        A corrupt line raises LogError naming ``file:line``; its ``engine``
        holds the state of the lines before it.  With ``strict=False`` that
        engine is returned instead, with ``load_error`` set.  ``append=True``
        keeps writing to the same log (refused if it has a corrupt line).
        ``on_update`` sees each utterance as it is replayed.
        """
        header, lines = read_log(path)
        engine = cls(header, extensions=extensions)
        lineno = 1
        try:
            for lineno, data in lines:
                try:
                    update = engine.apply(data)
                except InputError as exc:
                    raise LogError(exc.detail, path=str(path), line=lineno, engine=engine) from exc
                except PreconditionError as exc:
                    raise LogError(f"rejected by the rules: {exc}", path=str(path), line=lineno,
                                   engine=engine) from exc
                if on_update is not None:
                    on_update(engine, update)
        except LogError as exc:
            if strict or append:
                raise
            engine.load_error = exc
        except InputError as exc:  # raised by the line reader: bad JSON or encoding
            error = LogError(exc.detail, path=str(path), line=exc.line or lineno, engine=engine)
            if strict or append:
                raise error from exc
            engine.load_error = error
        if append:
            engine._log = EventLogWriter(path)
        return engine

    # -- updating -------------------------------------------------------------------

    def apply(self, utterance: UtteranceBase | dict[str, Any]) -> Update:
        """Apply one utterance atomically, or raise PreconditionError and change nothing."""
        try:
            u = self.registry.utterance(utterance)
        except ValidationError as exc:
            raise InputError(describe_validation_error(exc, frozenset(self.registry.models))) from exc
        turn = u.turn if u.turn is not None else self.state.next_turn()
        self._rules.adopt(self, self.state.prolog_facts, self.extensions)
        self.last_verdicts = self._epistemic_verdicts(turn, u) if self.world is not None else {}
        notes = {k: prolog_field(v) for k, v in self.last_verdicts.items()}
        accepted, items = parse_result(self._rules.apply(self.registry.encode(turn, u, notes)))
        if not accepted:
            raise PreconditionError(turn, u.speaker, items)  # type: ignore[arg-type]
        worlds = frame = None
        try:
            if self.world is not None:
                before = self.world.current
                frame = self.world.step(before, [t for t in items if t.name in MODEL_EFFECTS])  # type: ignore[union-attr]
                worlds = (before.model.size, frame.model.size)
            if self._log is not None:
                self._log.append(turn, u)
            self.state.apply([t for t in items if t.name not in MODEL_EFFECTS],  # type: ignore[union-attr]
                             turn, u.speaker, u.text, u.ops)  # type: ignore[arg-type,attr-defined]
            if frame is not None:
                self.world.commit(turn, frame)  # type: ignore[union-attr]
        except BaseException:
            # The rules committed but this engine did not: make them reload
            # this engine's state before its next utterance.
            self._rules.disown(self)
            raise
        return Update(turn, u.speaker, u, items, self._flagged(items), worlds)  # type: ignore[arg-type]

    def _epistemic_verdicts(self, turn: int, u: UtteranceBase) -> dict[int, list[Verdict]]:
        """Read each operation in the world model (after the ones before it) for the rules.

        A dry run tells what the operations would do to the model; the verdicts
        are passed in the real run, where the rules decide what they mean.
        """
        if not u.ops:  # type: ignore[attr-defined]
            return {}
        _, dry = parse_result(self._rules.simulate(self.registry.encode(turn, u)))
        effects: dict[int, list[Transition]] = {}
        for t in dry:
            if t.name in MODEL_EFFECTS:  # type: ignore[union-attr]
                effects.setdefault(t.index, []).append(t)  # type: ignore[union-attr,arg-type]
        try:
            return self.world.verdicts(self.world.current, u.ops, u.speaker, effects)  # type: ignore[union-attr,attr-defined]
        except ModelError as exc:
            raise InputError(f"world model: {exc.detail}") from exc

    def _flagged(self, transitions: list[Transition]) -> dict[str, list[str]]:
        left = dict.fromkeys(self.state.arg(int(t.fields[0])).claim for t in transitions
                             if t.name == "set_standing" and t.fields[1] not in GOOD_STANDING)
        flagged = {}
        for claim in left:
            if not any(self.state.in_standing(a) for a in self.state.claimants[claim]):
                losing = self.affected(claim).lose_support
                if losing:
                    flagged[claim] = losing
        return flagged

    # -- queries -------------------------------------------------------------------------

    def verify(self, literal: str, at: int | None = None) -> _verify.Verification:
        """Verify(c): is ``literal`` carried by a grounded argument in S_t (as of turn ``at``)?"""
        self._check_query(literal)
        return _verify.verify(self.state, literal, _check_turn(at))

    def affected(self, literal: str, closure: bool = True, at: int | None = None) -> _affected.Affected:
        """Affected*(literal), or one-step Affected with ``closure=False`` (Definition 2.3)."""
        self._check_query(literal)
        return _affected.affected(self.state, literal, closure, _check_turn(at))

    def _check_query(self, literal: str) -> None:
        """A literal the state already holds was validated when it came in; others are checked."""
        if literal not in self.state.claimants and literal not in self.state.rev:
            _check_literal(literal)

    def reinstatable(self, at: int | None = None) -> list[int]:
        """Arguments out of standing whose every attacker has left S_t (reported, never reinstated)."""
        t = _check_turn(at)
        dm = self.state
        result = []
        for r in dm.args:
            standing = r.standing_at(t)
            if standing is None or standing in GOOD_STANDING:
                continue
            attackers = dm.attackers_at(r.id, t)
            if attackers and not any(dm.in_standing(a, t) for a in attackers):
                result.append(r.id)
        return result

    def open_problems(self, at: int | None = None) -> list[str]:
        return self.state.open_problems_at(_check_turn(at))

    def commitments(self, at: int | None = None) -> dict[str, list[str]]:
        """Cm: each agent's public commitments, as the claims of the committed arguments."""
        args = self.state.args
        return {agent: list(dict.fromkeys(args[i - 1].claim for i in ids))
                for agent, ids in self.state.commitments_at(_check_turn(at)).items()}

    def dissent(self, at: int | None = None) -> dict[str, list[str]]:
        """Decision claim -> agents recorded as dissenting from it."""
        t = _check_turn(at)
        return {self.state.arg(i).claim: list(agents) for i, agents in self.state.dissent.items()
                if self.state.visible(i, t)}

    def argument(self, arg_id: int, at: int | None = None) -> Argument:
        t = _check_turn(at)
        if not 1 <= arg_id <= len(self.state.args) or not self.state.visible(arg_id, t):
            raise InputError(f"no argument {arg_id}" + ("" if t is None else f" at turn {t}"))
        return self.state.argument(arg_id, t)

    def arguments(self, claim: str | None = None, at: int | None = None) -> list[Argument]:
        t = _check_turn(at)
        ids = (self.state.claimants_at(claim, t) if claim is not None
               else [r.id for r in self.state.args if self.state.visible(r.id, t)])
        return [self.state.argument(i, t) for i in ids]

    def standing(self, claim: str, at: int | None = None) -> str | None:
        """Standing of the newest argument for ``claim`` (None if nothing claims it)."""
        t = _check_turn(at)
        ids = self.state.claimants_at(claim, t)
        return self.state.arg(ids[-1]).standing_at(t) if ids else None

    def dep(self, claim: str, at: int | None = None) -> list[str]:
        """Dep of the newest argument for ``claim``."""
        t = _check_turn(at)
        ids = self.state.claimants_at(claim, t)
        return list(self.state.arg(ids[-1]).deps_at(t)) if ids else []

    # -- the world model M (only with a ``world`` declared in the header) --------------

    @property
    def model(self) -> PlausibilityModel | None:
        """The current plausibility model, or None when the header declares no world."""
        return None if self.world is None else self.world.model_at(None)

    def model_at(self, at: int | None = None) -> PlausibilityModel:
        return self._world().model_at(_check_world_turn(at))

    def worlds(self, at: int | None = None) -> list[frozenset[str]]:
        """W: each live world as the set of atoms true in it."""
        return self.model_at(at).worlds()

    def holds(self, formula: str | Formula, at: int | None = None) -> bool:
        """M, w* |= formula at the declared actual world, or in every world of W if none is declared."""
        return self._ask(lambda w, t: w.holds(formula, t), at)

    def knows(self, agent: str, formula: str | Formula, at: int | None = None) -> bool:
        return self._ask(lambda w, t: w.knows(agent, formula, t), at)

    def believes(self, agent: str, formula: str | Formula, at: int | None = None) -> bool:
        return self._ask(lambda w, t: w.believes(agent, formula, t), at)

    def common_knowledge(self, formula: str | Formula, group: Iterable[str] | None = None,
                         at: int | None = None) -> bool:
        """C_G formula; the group defaults to every modelled agent."""
        world = self._world()
        members = tuple(group) if group is not None else tuple(world.agents)

        def ask(w: ConversationModel, t: int | None) -> bool:
            model = w.model_at(t)
            return w.holds(CommonKnowledge(members, w.query(formula, model)), t)

        return self._ask(ask, at)

    def _world(self) -> ConversationModel:
        if self.world is None:
            raise InputError("this conversation declares no world model (add `world` to the header)")
        return self.world

    def _ask(self, question: Callable[[ConversationModel, int | None], bool], at: int | None) -> bool:
        world = self._world()
        try:
            return question(world, _check_world_turn(at))
        except ModelError as exc:
            raise InputError(exc.detail) from exc

    @property
    def turn(self) -> int | None:
        """The last turn applied (None before the first utterance)."""
        return self.state.last_turn

    def snapshot(self) -> dict:
        return self.state.snapshot()

    def prolog_state(self) -> str:
        """The rules' copy of this engine's state, as sorted Prolog facts (for cross-checks)."""
        self._rules.adopt(self, self.state.prolog_facts, self.extensions)
        return self._rules.dump_state()

    # -- lifetime ---------------------------------------------------------------------

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None
        self._rules.disown(self)

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_literal(literal: str) -> None:
    if not is_literal(literal):
        raise InputError(f"{literal!r} is not a literal (expected an id such as o5 or -a3)")


def _check_turn(at: int | None) -> int | None:
    if at is not None and (not isinstance(at, int) or at < 0):
        raise InputError(f"at={at!r}: a turn is a non-negative integer")
    return at


def _check_world_turn(at: int | None) -> int | None:
    """Like _check_turn, but -1 (before the first utterance: the initial model) is allowed."""
    if at is not None and (not isinstance(at, int) or at < -1):
        raise InputError(f"at={at!r}: a turn is an integer >= -1 (-1: the initial model)")
    return at


def _extension_path(path: str | Path) -> str:
    p = Path(path).expanduser().resolve()
    if not p.is_file():
        raise InputError(f"extension rule file not found: {path}")
    return str(p)


__all__ = ["Engine", "Update", "PreconditionError", "Violation"]
