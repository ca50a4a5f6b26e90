"""The Engine: one conversation's dependency map, updated per utterance.

``apply`` sends the utterance to the Prolog rules, which check every
precondition and decide the effects; with a world model they ask it about
each operation as they go (one rule run per utterance).  When they accept,
the engine writes the utterance to its event log (if it has one, inside the
rules' transaction: a failed write rolls them back) and mirrors the effects in
its Python state.  Queries (Verify, Affected*, commitments, open problems, ...)
are answered from that state, for the current turn or any earlier one.

The Engine is the front end: reading a log (``Engine.load``: loading.py),
the snapshot beside it (snapshots.py), the world model (world.py) and
hypotheticals (whatif.py) live in modules of their own.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grounded.core import display
from grounded.core.bounds import MAX_TURN, check_turn
from grounded.core.display import Displayable
from grounded.core.errors import InputError, LogError, PreconditionError, PrologError, Violation
from grounded.dmap.notes import PlainHeader
from grounded.dmap.state import DependencyMap
from grounded.engine import loading
from grounded.engine.decision import Decision
from grounded.engine.history import History
from grounded.engine.recorder import Recorder
from grounded.engine.snapshots import Kept, extension_refs, history_lines
from grounded.engine.update import Update
from grounded.epistemic.verdicts import Verdict
from grounded.io.effectlog import EffectsWriter
from grounded.io.eventlog import (
    EventLogWriter,
    FsyncPolicy,
    LogStatus,
    describe_validation_error,
    encode_line,
    header_json,
)
from grounded.io.snapshot import SnapshotKey
from grounded.queries import registry as _registry
from grounded.queries.walks import Walks
from grounded.solvers.owner import claim_rules
from grounded.solvers.ruleset import rules_version

if TYPE_CHECKING:  # the models, and the rules (imported where they run: a query answered from a snapshot imports
    # neither pydantic nor the Prolog bridge and the effects it reads)
    from grounded.dmap.model import Argument, Header
    from grounded.dmap.operations import OperationRegistry, UtteranceBase
    from grounded.engine.whatif import WhatIf
    from grounded.engine.world import ConversationModel, Reading
    from grounded.epistemic.formula import Formula
    from grounded.epistemic.model import PlausibilityModel
    from grounded.io.origin import LogOrigin
    from grounded.solvers.flat import Accepted, Rejected
    from grounded.solvers.prolog import PrologRules, RuleState
    from grounded.solvers.termdata import PlString, Value


def world_model(header: Header | PlainHeader) -> ConversationModel | None:
    """The world model M a validated header declares, as an engine starts with it (None without one).

    Pure Python and numpy, no rules: a server builds it off its event loop (2^22 worlds take seconds) and
    hands it to ``Engine(header, world=...)``, which takes it as built from this header."""
    if header.world is None:
        return None
    from grounded.engine.world import ConversationModel  # numpy and the models: only with a world

    return ConversationModel(header.world, list(header.agents), [p.id for p in header.props if not p.aware])


def _header(header: Header | PlainHeader | dict | None, acyclic: bool | None) -> Header:
    """The header as given, validated (an InputError names the field; a plain one was), with ``acyclic`` if given."""
    from pydantic import ValidationError

    from grounded.dmap.model import Header

    if isinstance(header, PlainHeader):
        header = Header.authenticated(header.fields)
    elif header is None:
        header = Header()
    elif not isinstance(header, Header):
        try:
            header = Header.model_validate(header)
        except ValidationError as exc:
            raise InputError("header: " + describe_validation_error(exc)) from exc
    if acyclic is not None:
        header = header.model_copy(update={"acyclic": acyclic})
    return header


class Engine(Displayable, Walks):
    """The dependency map D_t of one conversation.

    >>> engine = Engine({"agents": {"alice": {"authority": True}}})
    >>> _ = engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    >>> engine.verify("o1").grounded
    True
    """

    def __init__(self, header: Header | PlainHeader | dict | None = None, *, log: str | Path | None = None,
                 extensions: Iterable[str | Path] = (), acyclic: bool | None = None,
                 fsync: FsyncPolicy = "always", world: ConversationModel | None = None):
        if not isinstance(header, PlainHeader) or acyclic is not None:
            header = _header(header, acyclic)
        self._header: Header | PlainHeader = header
        self.extensions = tuple(loading.extension_path(p) for p in extensions)
        self.state = DependencyMap(header)  # the map ``verify`` and ``affected`` walk (``Walks``)
        self.world = world if world is not None else world_model(header)
        claim_rules()  # the rules, whenever they start, belong to this thread if it is the first
        self._rules: tuple[PrologRules, OperationRegistry, RuleState] | None = None
        if self.extensions:  # loaded now: a bad rule file is refused when the engine is made
            self._rule_base()
        self._log: EventLogWriter | None = None
        self._effects: EffectsWriter | None = None
        """The rules' decisions recorded beside the log, for reading it back in bulk (grounded.io.effectlog)."""
        if log is not None:
            first = header_json(self.header, self.origin())
            self._log = EventLogWriter(log, first, fsync=fsync)
            if loading.records_effects(self):
                self._effects = EffectsWriter.create(log, encode_line(first)[:-1], rules_version(),
                                                     extension_refs(self.extensions))
        self.load_error: LogError | None = None
        """What stopped a partial ``load`` (None when the whole log was applied)."""
        self.log_status: LogStatus | None = None
        """How much of its log a loaded engine holds (None for an engine that was not loaded)."""
        self._history = History()
        """The accepted utterances and their turns, which ``whatif`` replays (a line read from a log
        is kept as its bytes: see ``history``)."""
        self._history_log: tuple[str, SnapshotKey] | None = None
        """A restored engine's older history: the log and the part of it the snapshot covers."""
        self._ahead = 0
        """Utterances the rules accepted (``decide``) that the Python state has not taken yet (``commit``)."""
        self.last_verdicts: dict[int, list[Verdict]] = {}
        """What the world model found about each operation of the last utterance
        (op index -> verdicts), accepted or not: the ASP reference reads the same."""

    # -- the rules -----------------------------------------------------------------

    def _rule_base(self) -> tuple[PrologRules, OperationRegistry, RuleState]:
        """The rule base with this engine's extensions loaded, its operations and this engine's state
        in it: started when first asked for, so that a query answered from a snapshot (which asks the
        rules nothing) does not start SWI-Prolog.  The state module is made from the Python state as it
        is then (which changes only through the rules, so it is the one they would have been given)."""
        if self._rules is None:
            from grounded.solvers.prolog import state_facts

            self._start_rules(lambda prolog: prolog.new_state(state_facts(self.state)))
        assert self._rules is not None
        return self._rules

    def _start_rules(self, make: Callable[[PrologRules], RuleState]) -> None:
        from grounded.solvers.prolog import PrologRules

        prolog = PrologRules.get()
        prolog.use_extensions(self.extensions)
        registry = prolog.registry()
        rules = make(prolog)
        weakref.finalize(rules, prolog.release, rules.module)  # freed with the last reference
        self._rules = (prolog, registry, rules)

    def rules_in_parts(self, facts: list[Value], part: int, levels: list[Value] | None = None) -> Iterator[None]:
        """The rules given this engine's state as ``facts`` (``state_facts(self.state)``) and ``levels``
        (``level_facts``; None: they rebuild them), made where it suits (pure Python: not on the rules' thread),
        ``part`` facts per request, yielding between two requests: run to its end on the rules' thread before
        anything else asks the rules about this engine.  What a server does with an engine it built from the
        store, rather than have the rules take the whole state in one go when first needed (``take_state``),
        which holds their thread the while."""
        if self._rules is None:
            made: list[Iterator[None]] = []

            def start(prolog: PrologRules) -> RuleState:
                state, putting = prolog.state_in_parts(facts, part, levels)
                made.append(putting)
                return state

            self._start_rules(start)
            return made[0]
        return self._rules[2].restoring(facts, part, levels)

    @property
    def rules_started(self) -> bool:
        """Whether this engine's rules have started (a query answered from a snapshot starts none)."""
        return self._rules is not None

    @property
    def _prolog(self) -> PrologRules:
        return self._rule_base()[0]

    @property
    def registry(self) -> OperationRegistry:
        """The operations this engine's rules know (the built-ins and its extensions')."""
        return self._rule_base()[1]

    @property
    def rules(self) -> RuleState:
        """This engine's state in the rule base, and the rules' own answers about it
        (standings, reinstatable, notes, queries: what ``grounded check`` compares)."""
        return self._rule_base()[2]

    # -- loading ------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path, *, extensions: Iterable[str | Path] = (), strict: bool = True,
             append: bool = False, on_update: Callable[[Engine, Update], None] | None = None,
             fsync: FsyncPolicy = "always", allow_rules_change: bool = False,
             progress: Callable[[int, int], None] | None = None, snapshot: bool = False,
             effects: bool = True) -> Engine:
        """Replay an event log through the rules: the one way every command reads a log.

        Strict by default: a line that is not valid JSON, fails the schema or
        is rejected by the rules raises LogError naming ``file:line`` and the
        field or the rule's code; its ``engine`` holds the state of the lines
        before it.  The one exception is a torn final line (no newline: a crash
        while writing), which is ignored and reported in ``log_status``.
        ``strict=False`` returns the engine of the valid prefix instead, with
        ``log_status.complete`` False and ``load_error`` set: every answer
        from it must say so.

        The header's rules version and extensions must match the rules and
        ``extensions`` given (an extension missing, changed or added is an
        error naming it); ``allow_rules_change`` replays a log written by
        another rules version anyway (its lines are still checked by these rules).

        ``append=True`` takes the log's lock first (a second writer is refused),
        then keeps writing to it with the given ``fsync`` policy: a torn final
        line is cut off, a whole last line missing its newline gets one.  It is
        refused on a log with a bad line, strict or not.  ``on_update`` sees
        each utterance as it is replayed, with the Python state as of that
        utterance (the rules, which take many lines per request, may be ahead, and
        are behind while lines are applied from their recorded effects);
        ``progress(bytes read, bytes in all)`` is called after each batch of lines.

        ``snapshot=True`` reads the state from the snapshot beside the log
        (``<path>.snapshot``, grounded.io.snapshot) when it fits the log, replays
        only the lines after it, and writes the snapshot again when the state it
        holds is not the one read: the answer is the same as a full replay's.  A
        stale snapshot is replayed over; a corrupt one too, with a note in
        ``log_status.snapshot_note``.  Not with a world model (its M is not
        snapshotted), nor, for reading, with ``on_update`` (the lines before the
        snapshot would not be seen).

        ``effects`` lets the lines of a log this user's engine wrote be applied from the
        effects it recorded beside it (grounded.io.effectlog), as far as that record
        authenticates, instead of running the rules on each: the same state, in bulk.
        Every other line is judged by the rules; ``effects=False`` judges them all.
        """
        engine, loaded, writer = loading.load(
            lambda header, paths: cls(header, extensions=paths), path, extensions=extensions, strict=strict,
            append=append, on_update=on_update, fsync=fsync, allow_rules_change=allow_rules_change,
            progress=progress, snapshot=snapshot, effects=effects)
        engine._take_loaded(loaded)
        if writer is not None:
            engine._continue_log(loaded, writer)
        return engine

    def _continue_log(self, loaded: loading.Loaded, writer: EventLogWriter) -> None:
        """Make ``writer`` this loaded engine's log, its tail repaired so the next line starts a line of its
        own, and keep recording the rules' decisions beside it where the reading left the record."""
        if writer.end > loaded.end:  # a torn final line (never acknowledged) or blanks: dropped
            writer.cut_to(loaded.end)
        if loaded.unterminated:
            writer.terminate_last_line()
        self._log = writer
        self._effects = loaded.effects
        if self._effects is None and loaded.effects_resume is not None and loading.records_effects(self):
            self._effects = EffectsWriter.resume(writer.path, *loaded.effects_resume)

    def _take_loaded(self, loaded: loading.Loaded) -> None:
        """What the reading of this engine's log found: how much of it the engine holds, and where the
        older history lies when the state came from the snapshot."""
        self.log_status = loaded.status
        self.load_error = loaded.error
        self._history_log = loaded.history_log

    @property
    def header(self) -> Header:
        """The conversation's header (the ``Header`` of a log whose snapshot fits is made when first asked for:
        its fields were read as plain data, grounded.dmap.notes.PlainHeader)."""
        if isinstance(self._header, PlainHeader):
            self._header = _header(self._header, None)
        return self._header

    def origin(self) -> LogOrigin:
        """The rules version and extensions this engine runs, as a log's header records them."""
        return loading.origin(self.extensions)

    def sync(self) -> None:
        """Make every utterance logged so far durable now (``fsync="batch"`` otherwise groups them)."""
        if self._log is not None:
            self._log.sync()
        if self._effects is not None:
            self._effects.flush()

    # -- deciding, then committing -------------------------------------------------------

    def apply(self, utterance: UtteranceBase | dict[str, Any]) -> Update:
        """Apply one utterance atomically, or raise PreconditionError and change nothing: the rules decide
        it, then the engine commits their decision."""
        decision = self.decide([utterance])
        if decision.rejected is not None:
            decision.check()
        return self.commit(decision)[0]

    def decide(self, utterances: Sequence[UtteranceBase | dict[str, Any]], *,
               kept: Sequence[Kept] | None = None) -> Decision:
        """The rules' decision on ``utterances``, in order, from this engine's state: each accepted one's
        effects, up to the first rejected, with its violations (the ones after it are not decided).

        Each utterance is validated first (InputError, nothing decided) and gets its turn (the one after
        the last when it states none).  The rules hold what they accepted from now on, and an engine that
        keeps an event log has written those lines, inside the rules' transaction (a failed write rolls the
        rules back); the Python state takes it with ``commit``, which must come before the next decision.
        With a world model the rules ask it about each operation as they go (``last_verdicts``), one
        utterance at a time.  ``kept``: what the history keeps of each utterance (a log line's bytes).
        """
        if self._ahead:
            raise ValueError("the engine's last decision is not committed: commit it before deciding again")
        first = self._dm.last_turn  # the state the walks read (``Engine.state``)
        if len(utterances) == 1:  # a live utterance: no lists to build around it
            u = self.utterance(utterances[0])
            decision = self._decide_one(_turn(u, first), u, None if kept is None else kept[0], first)
            self._ahead = len(decision.turns)
            return decision
        models = [self.utterance(u) for u in utterances]
        turns = []
        last = first
        for u in models:
            last = _turn(u, last)
            turns.append(last)
        keep: Sequence[Kept | None] = [None] * len(models) if kept is None else kept
        if not models:
            decision = Decision([], [], [], [])
        elif self.world is not None or self._log is not None:  # the rules call back into this engine on each
            decision = self._decide_each(turns, models, keep)
        else:
            decision = self._decide_batch(turns, models, keep)
        self._ahead = len(decision.turns)
        return decision

    def _decide_one(self, turn: int, u: UtteranceBase, kept: Kept | None, last: int | None) -> Decision:
        """One utterance after turn ``last``: admitted without a rule run when it has no operations and needs
        nothing of the rules (``_admit``), else in one request, the rules calling back for the world model and
        the log."""
        if not u.ops and self.world is None and (last is None or turn > last) and u.speaker in self._dm.agents:
            return self._admit(turn, u)
        prolog, registry, rules = self._rule_base()
        if prolog.loaded_extensions != self.extensions:  # another engine's extensions are loaded
            prolog.use_extensions(self.extensions)
        reading = None if self.world is None else self.world.reading(u.speaker)
        recorder = None if reading is None and self._log is None else Recorder(self._log, turn, u, reading)
        try:
            result = rules.apply(registry.encode(turn, u), recorder, record=self._log is not None)
        finally:
            if reading is not None:
                self.last_verdicts = reading.verdicts
            elif self.last_verdicts:
                self.last_verdicts = {}
        return _one(turn, u, result, kept if recorder is None else recorder.line, reading)

    def _decide_each(self, turns: list[int], models: list[UtteranceBase], kept: Sequence[Kept | None]) -> Decision:
        """Utterances one request each: the rules call back into this engine (its world model, its log)."""
        if self.world is not None:
            raise ValueError("with a world model the rules decide one utterance at a time: the next is read "
                             "in the model the last one committed")
        results: list[Accepted] = []
        lines: list[Kept | None] = []
        last = self._dm.last_turn
        try:
            for turn, u, k in zip(turns, models, kept, strict=True):
                one = self._decide_one(turn, u, k, last)
                if one.rejected is not None:
                    n = len(results)
                    return Decision(turns[:n], models[:n], results, lines, rejected=one.rejected)
                results.extend(one.results)
                lines.extend(one.kept)
                last = turn
        except BaseException:  # the rules and the log hold those accepted before it: the Python state takes them
            if results:
                n = self._ahead = len(results)
                self.commit(Decision(turns[:n], models[:n], results, lines), updates=False)
            raise
        return Decision(turns, models, results, lines)

    def _decide_batch(self, turns: list[int], models: list[UtteranceBase], kept: Sequence[Kept | None]) -> Decision:
        """Utterances in one request, each atomically, the rules calling nothing back."""
        prolog, registry, rules = self._rule_base()
        prolog.use_extensions(self.extensions)
        results, stop = rules.apply_batch([registry.encode(turn, u) for turn, u in zip(turns, models, strict=True)])
        n = len(results)
        rejected = None if stop is None else (turns[n], models[n], stop[1])
        return Decision(turns[:n], models[:n], results, kept[:n], rejected=rejected)

    def _admit(self, turn: int, u: UtteranceBase) -> Decision:
        """An utterance without operations, by a known speaker, after the last turn: a turn and
        nothing else, admitted without a rule run.

        Its only check is the rules' own for every utterance (the speaker, the turn
        order: ``utterance_violation/3``), here found to pass; any other chatter (a
        new speaker, a turn out of order) goes to the rules, which add the speaker or
        name the violation.  Its only effect is the turn, as the rules would report it;
        it is logged first, and the rules learn the turn with their next request
        (catch_up/1, by the same turn/1 effect). A property test holds this path to the
        rules: a log it wrote is read back by the rules alone, every line accepted.
        """
        if self.last_verdicts:
            self.last_verdicts = {}
        line = self._log.append(turn, u) if self._log is not None else None
        return _one(turn, u, self.rules.admitted(turn), line, None)

    def utterance(self, utterance: UtteranceBase | dict[str, Any]) -> UtteranceBase:
        """``utterance`` validated by the models of the operations this engine's rules know, or InputError
        naming what is wrong (the field, the operation)."""
        import pydantic_core  # imported with the utterance models, which the rules made; a plain import runs no
        # Python code (``from pydantic import`` a lazy name runs pydantic's module ``__getattr__`` each time)
        registry = self.registry
        try:
            return registry.utterance(utterance)
        except pydantic_core.ValidationError as exc:
            raise InputError(describe_validation_error(exc, frozenset(registry.models))) from exc

    def commit(self, decision: Decision, *, updates: bool = True) -> list[Update]:
        """Make the decision the engine's: each accepted utterance mirrored in the Python state, the world
        model and the history (and its effects recorded beside the log line the rules had written), in
        order; an ``Update`` for each (none made with ``updates=False``, for a reading with no one to hand
        them to).  A decision the rules made is committed on the engine that made it; one recorded beside
        a log (``Decision.from_record``) on an engine whose state is the one before its lines."""
        n = len(decision.turns)
        if not decision.recorded:
            if n > self._ahead:
                raise ValueError(f"a decision of {n} utterances, but this engine's rules hold {self._ahead} "
                                 "not committed: a decision is committed once, on the engine that made it")
            self._ahead -= n
        if self._effects is not None and not decision.recorded:
            decision.record(self._effects)
        mirror, history, world = self._dm.apply, self._history, self.world
        readings = decision.readings
        columns = zip(decision.turns, decision.utterances, decision.results, decision.kept, strict=True)
        if not updates and readings is None:  # a reading of a log's lines: the state and the history alone
            keep: Callable[[int, Any], None] = history.append_text if decision.recorded else history.append  # bytes
            for turn, u, result, kept in columns:
                mirror(result.effects, turn, u.speaker, u.text, u.ops)
                keep(turn, _as_json(u) if kept is None else kept)
            return []
        out = []
        for i, (turn, u, result, kept) in enumerate(columns):  # each with its Update: an apply's one, a replay's
            mirror(result.effects, turn, u.speaker, u.text, u.ops)
            reading = None if readings is None else readings[i]
            worlds = None
            if reading is not None and world is not None:
                worlds = (world.current.model.size, reading.frame.model.size)
                world.commit(turn, reading.frame)
            history.append(turn, _as_json(u) if kept is None else kept)
            if updates:
                left = tuple(result.left)
                out.append(Update(turn, u.speaker, u, result.effects, left, self._flagged(left) if left else {},
                                  worlds, reading.frame.applied if reading is not None else ()))
        return out

    def _flagged(self, left: tuple[str, ...]) -> dict[str, list[str]]:
        """What rests on each claim the utterance took out of S_t (the rules say which)."""
        flagged = {}
        for claim in left:
            losing = self.affected(claim).lose_support
            if losing:
                flagged[claim] = losing
        return flagged

    # -- queries -------------------------------------------------------------------------

    @property
    def state(self) -> DependencyMap:
        """The dependency map D_t the queries answer over."""
        return self._dm

    @state.setter
    def state(self, state: DependencyMap) -> None:
        """A new map (a new engine, or one restored from a snapshot): the one the query walks read."""
        self._walk_over(state)

    def take_state(self, state: DependencyMap, world: ConversationModel | None = None) -> None:
        """Hold ``state`` from now on (a new engine: a snapshot's state, a probed state's copy): the Python
        state now, the rules' facts made from it when they are next asked (or first started).  ``world``:
        the world model M that goes with it (``ConversationModel.fork``), which the Python state does not
        hold; without it a header's world model is left as it is."""
        self.state = state
        if world is not None:
            self.world = world
        if self._rules is not None:  # else the rules take the state from the Python one when started
            from grounded.solvers.prolog import state_facts

            self._rules[2].restore(lambda: state_facts(state))

    def reinstatable(self, at: int | None = None) -> list[int]:
        """Arguments out of standing whose every attacker has left S_t (reported, never reinstated).

        The walk is the registry's (``queries/registry.py``); ``grounded check`` holds it equal to the
        rules' ``reinstatable/1`` (prolog/queries.pl) and to ASP's ``now_reinstatable``."""
        return _registry.reinstatable(self.state, check_turn(at))

    def open_problems(self, at: int | None = None) -> list[str]:
        return self.state.open_problems_at(check_turn(at))

    def commitments(self, at: int | None = None) -> dict[str, list[str]]:
        """Cm: each agent's public commitments, as the claims of the committed arguments."""
        return _registry.commitments(self.state, check_turn(at))

    def dissent(self, at: int | None = None) -> dict[str, list[str]]:
        """Decision claim -> agents recorded as dissenting from it."""
        return _registry.dissent(self.state, check_turn(at))

    def argument(self, arg_id: int, at: int | None = None) -> Argument:
        t = check_turn(at)
        if not 1 <= arg_id <= len(self.state.args) or not self.state.visible(arg_id, t):
            raise InputError(f"no argument {arg_id}" + ("" if t is None else f" at turn {t}"))
        return self.state.argument(arg_id, t)

    def arguments(self, claim: str | None = None, at: int | None = None) -> list[Argument]:
        return _registry.arguments(self.state, claim, check_turn(at))

    def standing(self, claim: str, at: int | None = None) -> str | None:
        """Standing of the newest argument for ``claim`` (None if nothing claims it)."""
        return _registry.standing(self.state, claim, check_turn(at))

    def dep(self, claim: str, at: int | None = None) -> list[str]:
        """Dep of the newest argument for ``claim``."""
        return _registry.dep(self.state, claim, check_turn(at))

    def ask(self, query: str, at: int | None = None, **params: Any) -> dict[str, Any]:
        """Any registered query by name, answered in its one JSON shape (``queries/registry.py``):
        what the CLI, the HTTP API, the MCP tools and the presenters send."""
        return _registry.get(query).ask(self, at, **params)

    # -- the world model M (only with a ``world`` declared in the header) --------------

    @property
    def model(self) -> PlausibilityModel | None:
        """The current plausibility model, or None when the header declares no world."""
        return None if self.world is None else self.world.model_at(None)

    def model_at(self, at: int | None = None) -> PlausibilityModel:
        return self._world().model_at(check_turn(at, lowest=-1))

    def worlds(self, at: int | None = None) -> list[frozenset[str]]:
        """W: each live world as the set of atoms true in it."""
        return self.model_at(at).worlds()

    def holds(self, formula: str | Formula, at: int | None = None) -> bool:
        """M, w* |= formula at the declared actual world, or in every world of W if none is declared."""
        return self._world().holds(formula, check_turn(at, lowest=-1))

    def knows(self, agent: str, formula: str | Formula, at: int | None = None) -> bool:
        return self._world().knows(agent, formula, check_turn(at, lowest=-1))

    def believes(self, agent: str, formula: str | Formula, at: int | None = None) -> bool:
        return self._world().believes(agent, formula, check_turn(at, lowest=-1))

    def common_knowledge(self, formula: str | Formula, group: Iterable[str] | None = None,
                         at: int | None = None) -> bool:
        """C_G formula; the group defaults to every modelled agent."""
        return self._world().common_knowledge(formula, group, check_turn(at, lowest=-1))

    def _world(self) -> ConversationModel:
        if self.world is None:
            raise InputError("this conversation declares no world model (add `world` to the header)")
        return self.world

    # -- views and hypotheticals ------------------------------------------------------

    def history(self, at: int | None = None) -> list[tuple[int, UtteranceBase]]:
        """The accepted utterances up to turn ``at`` (all of them if None), each with its turn."""
        t = check_turn(at)
        if self._history_log is not None:
            self._history.prepend(history_lines(*self._history_log, partial(loading.line_utterance, self)))
            self._history_log = None
        model = self.registry.utterance_model
        return [(turn, model.model_validate_json(u) if isinstance(u, bytes) else u)
                for turn, u in self._history if t is None or turn <= t]

    def whatif(self, utterance: UtteranceBase | dict[str, Any], at: int | None = None) -> WhatIf:
        """What the rules would do with ``utterance`` after turn ``at`` (None: now), recording nothing.

        This engine, its world model and its log are left as they are; the
        answer carries the transitions and flagged claims, or the violations,
        and the scratch engine that holds the hypothetical state.
        """
        from grounded.engine.whatif import what_if

        return what_if(self, utterance, check_turn(at))

    def show(self, at: int | None = None, focus: str | None = None, affected: str | None = None) -> Any:
        """The picture of the dependency map as of turn ``at`` (``grounded.present.picture.Picture``).

        ``focus`` highlights the Dep* chain of a claim, ``affected`` the
        Affected* set of a literal.  Drawn by the view program, laid out by Graphviz.
        """
        return display.view("picture", self, at=check_turn(at), focus=focus, affected=affected)

    def __repr__(self) -> str:
        dm = self.state
        world = "" if self.world is None else f", |W| = {self.world.model_at(None).size}"
        return (f"Engine(T{dm.last_turn if dm.last_turn is not None else 0}: {len(dm.args)} arguments, "
                f"{sum(dm.in_standing(r.id) for r in dm.args)} in S_t, {len(dm.open_problems)} open problems{world})")

    @property
    def turn(self) -> int | None:
        """The last turn applied (None before the first utterance)."""
        return self.state.last_turn

    def snapshot(self) -> dict:
        return self.state.snapshot()

    def prolog_state(self) -> list:
        """The rules' copy of this engine's state: its facts, sorted, as term data (for cross-checks)."""
        return self.rules.facts()

    # -- lifetime ---------------------------------------------------------------------

    def close(self) -> None:
        """Close the event log.  The rules' copy of the state is released when the engine is."""
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._effects is not None:
            self._effects.close()
            self._effects = None

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _turn(u: UtteranceBase, last: int | None) -> int:
    """The utterance's turn after ``last``: the one it states (the rules judge its order), else assigned."""
    turn = u.turn
    return turn if turn is not None and turn <= MAX_TURN else loading.turn_of(u, last)


def _one(turn: int, u: UtteranceBase, result: Accepted | Rejected, kept: Kept | None, reading: Reading | None
         ) -> Decision:
    """The rules' verdict on one utterance as a decision."""
    if not result.accepted:  # (an import of the verdicts' classes here would cost a live utterance microseconds)
        return Decision([], [], [], [], rejected=(turn, u, result))  # type: ignore[arg-type]  # a Rejected
    return Decision([turn], [u], [result], [kept], None if reading is None else [reading])  # type: ignore[list-item]


def decide_group(items: Sequence[tuple[Engine, UtteranceBase | dict[str, Any]]]
                 ) -> list[Decision | InputError | PreconditionError | PrologError]:
    """Each (engine, utterance) decided, every engine once, in one request to the rules where they can take it
    (``engine/group.py``): each engine's decision, or what ``Engine.decide`` would have raised, in the order given.

    An utterance goes in the group's request when the rules need nothing of its engine while they decide it (it
    has operations, and the engine has no world model to ask and no log to write inside the transaction) and
    its engine runs the group's extensions; any other is decided by its engine alone."""
    if len({id(engine) for engine, _ in items}) != len(items):
        raise ValueError("decide_group: an engine appears twice (its utterances go one after the other)")
    out: list[Decision | InputError | PreconditionError | PrologError | None] = [None] * len(items)
    grouped: list[tuple[int, Engine, UtteranceBase, int, PlString]] = []
    extensions: tuple[str, ...] | None = None
    for i, (engine, utterance) in enumerate(items):
        try:
            if engine._ahead:
                raise ValueError("the engine's last decision is not committed: commit it before deciding again")
            u = engine.utterance(utterance)
            if not u.ops or engine.world is not None or engine._log is not None or (
                    extensions is not None and engine.extensions != extensions):
                out[i] = engine.decide([u])
                continue
            turn = loading.turn_of(u, engine.state.last_turn)
            _, registry, rules = engine._rule_base()
            text = rules.live_text(registry.encode(turn, u))
        except (InputError, PreconditionError, PrologError) as exc:
            out[i] = exc
            continue
        extensions = engine.extensions
        grouped.append((i, engine, u, turn, text))
    if grouped:
        prolog = grouped[0][1]._prolog
        prolog.use_extensions(grouped[0][1].extensions)
        decided = prolog.apply_group([(engine.rules, text) for _, engine, _, _, text in grouped])
        for (i, engine, u, turn, _), result in zip(grouped, decided, strict=True):
            if isinstance(result, PrologError):
                out[i] = result
                continue
            engine.last_verdicts = {}
            out[i] = one = _one(turn, u, result, None, None)
            engine._ahead = len(one.turns)
    assert all(o is not None for o in out)
    return out  # type: ignore[return-value]  # every one set above


def _as_json(u: UtteranceBase) -> bytes:
    """A validated utterance as JSON (validating it again gives the same utterance) by its own serializer, in
    one call rather than a dict dumped and encoded (docs/benchmarks.md), and spelled as pydantic reads it back:
    a value pydantic accepts but spells otherwise (a ``Decimal`` turn written ``"1"``) would not validate again."""
    return u.__pydantic_serializer__.to_json(u)


__all__ = ["Engine", "PreconditionError", "Update", "Violation"]
