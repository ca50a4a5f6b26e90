"""The Engine: one conversation's dependency map, updated per utterance.

``apply`` sends the utterance to the Prolog rules, which check every
precondition and decide the effects; with a world model they ask it about
each operation as they go (one rule run per utterance).  When they accept,
the engine writes the utterance to its event log (if it has one, inside the
rules' transaction: a failed write rolls them back) and mirrors the effects in
its Python state.  Queries
(Verify, Affected*, commitments, open problems, ...) are answered from that
state, for the current turn or any earlier one.
"""

from __future__ import annotations

import gc
import json
import os
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from grounded.core import display
from grounded.core.bounds import MAX_ID_LENGTH, MAX_TURN, check_turn, preview
from grounded.core.display import Displayable
from grounded.core.errors import InputError, LogError, PreconditionError, PrologError, Violation
from grounded.core.literals import is_literal
from grounded.core.turns import assign_turn
from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.effects import Effect
from grounded.dmap.effects import Turn as TurnEffect
from grounded.dmap.model import Argument, Header
from grounded.dmap.operations import UtteranceBase
from grounded.dmap.state import DependencyMap
from grounded.engine.whatif import WhatIf, what_if
from grounded.engine.world import ConversationModel, Reading
from grounded.epistemic.formula import Formula
from grounded.epistemic.model import PlausibilityModel
from grounded.epistemic.verdicts import Verdict, verdict_term
from grounded.io.eventlog import (
    EventLogWriter,
    ExtensionRef,
    FsyncPolicy,
    LogOrigin,
    LogReader,
    LogStatus,
    describe_validation_error,
    header_json,
)
from grounded.io.snapshot import SnapshotKey, read_snapshot, write_snapshot
from grounded.queries import affected as _affected
from grounded.queries import verify as _verify
from grounded.solvers.flat import Accepted, Rejected
from grounded.solvers.prolog import RULES_DIR_VARIABLE, PrologRules, state_facts
from grounded.solvers.ruleset import file_sha256, rules_version, twin_sha256
from grounded.solvers.terms import Value

E = TypeVar("E")

BATCH = 256
"""Log lines ``Engine.load`` hands the rules per request."""


class Update(Displayable):
    """What one accepted utterance changed.

    ``effects`` are the rules' typed effects, in the order they applied them
    (grounded.dmap.effects).  ``left`` are the claims this utterance took out of
    S_t (the rules decide them: prolog/grounded.pl, left_standing/2);
    ``flagged`` maps each of them to the claims in S_t that rest on it
    (Affected* in S_t, walked here): flagged for re-evaluation, never changed
    silently.  With a declared world model, ``worlds`` is |W| before and after
    the utterance (else None) and ``model_updates`` what the utterance did to M
    ('!o5', '^h1', 'withdraw a3').
    """

    __slots__ = ("turn", "speaker", "utterance", "effects", "left", "flagged", "worlds", "model_updates")

    def __init__(self, turn: int, speaker: str, utterance: UtteranceBase, effects: list[Effect],
                 left: tuple[str, ...], flagged: dict[str, list[str]], worlds: tuple[int, int] | None = None,
                 model_updates: tuple[str, ...] = ()):
        self.turn = turn
        self.speaker = speaker
        self.utterance = utterance
        self.effects = effects
        self.left = left
        self.flagged = flagged
        self.worlds = worlds
        self.model_updates = model_updates

    def of(self, kind: type[E]) -> list[E]:
        """The effects of one kind, e.g. ``update.of(Problem)``."""
        return [e for e in self.effects if isinstance(e, kind)]

    def __repr__(self) -> str:
        return f"Update(T{self.turn} {self.speaker}: {len(self.effects)} effects)"


class _Recorder:
    """The engine's side of one utterance while the rules decide it (a ``Session``).

    The rules call ``read``/``applied`` for the world model's findings, and, when
    the engine keeps an event log, ``record`` once they accept: the utterance is
    written inside the rules' transaction, so if the write fails the rules roll
    back too and every state stays as it was.
    """

    def __init__(self, engine: Engine, turn: int, u: UtteranceBase, reading: Reading | None):
        self.engine = engine
        self.turn = turn
        self.u = u
        self.reading = reading
        self.line: bytes | None = None
        """The line written to the log, once recorded."""

    def read(self, index: int, effects: list[Effect]) -> list[Value]:
        if self.reading is None:
            raise PrologError("the rules asked the world model, but this conversation declares none")
        return [verdict_term(v) for v in self.reading.read(index, effects)]

    def applied(self, index: int) -> None:
        if self.reading is not None:
            self.reading.applied(index)

    def record(self) -> None:
        if self.engine._log is not None:
            self.line = self.engine._log.append(self.turn, self.u)


class Engine(Displayable):
    """The dependency map D_t of one conversation.

    >>> engine = Engine({"agents": {"alice": {"authority": True}}})
    >>> _ = engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    >>> engine.verify("o1").grounded
    True
    """

    def __init__(self, header: Header | dict | None = None, *, log: str | Path | None = None,
                 extensions: Iterable[str | Path] = (), acyclic: bool | None = None,
                 fsync: FsyncPolicy = "always"):
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
        self._prolog = PrologRules.get()
        self._prolog.use_extensions(self.extensions)
        self.registry = self._prolog.registry()
        self.state = DependencyMap(header)
        self.world = (None if header.world is None else
                      ConversationModel(header.world, list(header.agents), [p.id for p in header.props if not p.aware]))
        self.rules = self._prolog.new_state(state_facts(self.state))
        """This engine's state in the rule base, and the rules' own answers about it
        (standings, reinstatable, notes, queries: what ``grounded check`` compares)."""
        weakref.finalize(self.rules, self._prolog.release, self.rules.module)  # freed with the last reference
        self._log = (EventLogWriter(log, header_json(header, self.origin()), fsync=fsync)
                     if log is not None else None)
        self.load_error: LogError | None = None
        """What stopped a partial ``load`` (None when the whole log was applied)."""
        self.log_status: LogStatus | None = None
        """How much of its log a loaded engine holds (None for an engine that was not loaded)."""
        self._reader_end = 0  # where the reading of a loaded log ended (for append)
        self._reader_unterminated = False
        self._history: list[tuple[int, UtteranceBase | bytes | str]] = []
        self._history_log: tuple[str, SnapshotKey] | None = None
        """A restored engine's older history: the log and the part of it the snapshot covers."""
        """The accepted utterances and their turns, which ``whatif`` replays (a line read from a log
        is kept as its bytes: see ``history``)."""
        self.last_verdicts: dict[int, list[Verdict]] = {}
        """What the world model found about each operation of the last utterance
        (op index -> verdicts), accepted or not: the ASP reference reads the same."""

    # -- loading ------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path, *, extensions: Iterable[str | Path] = (), strict: bool = True,
             append: bool = False, on_update: Callable[[Engine, Update], None] | None = None,
             fsync: FsyncPolicy = "always", allow_rules_change: bool = False,
             progress: Callable[[int, int], None] | None = None, snapshot: bool = False) -> Engine:
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
        utterance (the rules, which take many lines per request, may be ahead);
        ``progress(bytes read, bytes in all)`` is called after each batch of lines.

        ``snapshot=True`` reads the state from the snapshot beside the log
        (``<path>.snapshot``, grounded.io.snapshot) when it fits the log, replays
        only the lines after it, and writes the snapshot again when the state it
        holds is not the one read: the answer is the same as a full replay's.  A
        stale snapshot is replayed over; a corrupt one too, with a note in
        ``log_status.snapshot_note``.  Not with a world model (its M is not
        snapshotted), nor, for reading, with ``on_update`` (the lines before the
        snapshot would not be seen).
        """
        writer = EventLogWriter(path, fsync=fsync) if append else None
        try:
            engine = cls._replay(path, extensions, strict or append, on_update, allow_rules_change, progress,
                                 snapshot=snapshot)
            if writer is not None:
                if engine.load_error is not None:
                    raise engine.load_error
                engine._continue(writer)
        except BaseException:
            if writer is not None:
                writer.close()
            raise
        return engine

    @classmethod
    def _open(cls, path: str | Path, paths: tuple[str, ...], allow_rules_change: bool, digest: bool
              ) -> tuple[LogReader, Engine]:
        reader = LogReader(path, digest=digest)
        try:
            _check_origin(reader.origin, paths, allow_rules_change, str(path))
            return reader, cls(reader.header, extensions=paths)
        except BaseException:
            reader.close()
            raise

    @classmethod
    def _replay(cls, path: str | Path, extensions: Iterable[str | Path], strict: bool,
                on_update: Callable[[Engine, Update], None] | None, allow_rules_change: bool,
                progress: Callable[[int, int], None] | None, batch: int = BATCH, snapshot: bool = False) -> Engine:
        paths = tuple(_extension_path(p) for p in extensions)
        snapshot = snapshot and RULES_DIR_VARIABLE not in os.environ  # rules_version() covers the shipped rules
        reader, engine = cls._open(path, paths, allow_rules_change, digest=snapshot)
        status = LogStatus(str(path))
        restored: SnapshotKey | None = None
        if snapshot and engine.world is not None:
            snapshot = False
        collecting = gc.isenabled()
        gc.disable()  # see _replay_lines; reading a snapshot makes many objects and no garbage either
        try:
            if snapshot and on_update is None:
                header_end = reader.offset
                restored = engine._from_snapshot(path, reader, status)
                if restored is None and reader.offset != header_end:  # the log is not what the snapshot
                    reader.close()                                    # was taken from: read it all again
                    reader, engine = cls._open(path, paths, allow_rules_change, digest=True)
            engine._replay_lines(reader, status, on_update, progress, batch)
        except LogError as exc:
            if strict:
                raise
            engine.load_error = exc
        finally:
            reader.close()
            if collecting:
                gc.enable()
        if engine.load_error is not None:
            status.complete = False
            status.stopped_at = engine.load_error.line
            status.error = engine.load_error.detail
        status.torn_line = reader.torn_line
        engine.log_status = status
        engine._reader_end = reader.end
        engine._reader_unterminated = reader.unterminated
        if (snapshot and engine.load_error is None and not reader.unterminated
                and (restored is None or restored.log_size != reader.end)):
            key = SnapshotKey(reader.end, reader.end_line, reader.digest(), status.utterances, rules_version(),
                              engine._extension_refs())
            status.snapshot_note = write_snapshot(path, key, engine.state.to_data()) or status.snapshot_note
        return engine

    def _from_snapshot(self, path: str | Path, reader: LogReader, status: LogStatus) -> SnapshotKey | None:
        """Take the state from the snapshot beside the log if it fits the log read so far by
        ``reader`` (which then stands after the bytes it covers); its key, or None."""
        found = read_snapshot(path, rules_version(), self._extension_refs())
        status.snapshot_note = found.note
        if found.snapshot is None:
            return None
        key = found.snapshot.key
        if not (key.log_size >= reader.end and reader.skip_to(key.log_size, key.log_lines)
                and reader.digest() == key.log_sha256):
            return None
        try:
            self._restore(found.snapshot.state, str(path), key)
        except (ValueError, KeyError, TypeError, IndexError):  # MAC'd, yet of another shape
            status.snapshot_note = f"{path}.snapshot: snapshot ignored (not a state this version reads)"
            self.state = DependencyMap(self.header)
            return None
        status.utterances = status.restored = key.utterances
        return key

    def _extension_refs(self) -> tuple[tuple[str, str], ...]:
        return tuple((Path(p).name, file_sha256(p)) for p in self.extensions)

    def _restore(self, data: dict, path: str, key: SnapshotKey) -> None:
        """Take the state of a snapshot (this engine is new): the Python state now, the rules'
        facts when the rules are first asked, the history's lines when it is first read."""
        self.state = DependencyMap.from_data(self.header, data)
        state = self.state
        self.rules.restore(lambda: state_facts(state))
        self._history_log = (path, key)

    def _replay_lines(self, reader: LogReader, status: LogStatus, on_update: Callable[[Engine, Update], None] | None,
                      progress: Callable[[int, int], None] | None, batch: int) -> None:
        """Apply a log's utterance lines, ``batch`` per request to the rules; LogError names the
        line that stops the reading (the lines before it are applied, none after it).

        The caller runs this with Python's cyclic garbage collector paused: a replay
        allocates tens of objects per line and keeps few of them, and makes no
        reference cycles, so the collections it would trigger find nothing, yet
        cost a fifth of the replay.  Cycles an ``on_update`` callback makes are
        collected once the replay returns.
        """
        pending: list[tuple[int, int, UtteranceBase, bytes | str]] = []  # line, turn, utterance, kept
        last = self.state.last_turn
        lines = reader.raw_lines()
        while True:
            try:
                item = next(lines, None)
            except InputError as exc:  # the reader's own: a line too long
                self._apply_lines(pending, reader.name, status, on_update)
                raise LogError(exc.detail, path=reader.name, line=exc.line or 0, engine=self) from exc
            if item is None:
                break
            lineno, body = item
            try:
                u, kept = self._line_utterance(reader, lineno, body)
                turn = self._turn_of(u, last)
            except InputError as exc:
                self._apply_lines(pending, reader.name, status, on_update)
                raise LogError(exc.detail, path=reader.name, line=lineno, engine=self) from exc
            pending.append((lineno, turn, u, kept))
            last = turn
            if len(pending) >= batch:
                self._apply_lines(pending, reader.name, status, on_update)
                if progress is not None:
                    progress(reader.offset, reader.size)
        self._apply_lines(pending, reader.name, status, on_update)
        if progress is not None:
            progress(reader.offset, reader.size)

    def _line_utterance(self, reader: LogReader, lineno: int, body: bytes
                        ) -> tuple[UtteranceBase, bytes | str]:
        """A log line as a validated utterance, and what the history keeps of it.

        Straight from its bytes (then the history keeps the bytes: no objects for
        the garbage collector to walk, a tenth of the memory, validated again only
        if ``history`` is asked for), or, when that fails, by the JSON reading and
        validation that name what is wrong exactly as ``apply`` would."""
        try:
            return self.registry.utterance_model.model_validate_json(body), body
        except ValidationError:
            pass
        u = self._validated(reader.decode(lineno, body))
        return u, u.model_dump_json()

    def _apply_lines(self, pending: list[tuple[int, int, UtteranceBase, bytes | str]], path: str,
                     status: LogStatus,
                     on_update: Callable[[Engine, Update], None] | None) -> None:
        """Apply validated lines in order: in one request to the rules, or one request per line
        with a world model (the rules ask it about each operation as they go).  Empties ``pending``."""
        stop: tuple[int, Rejected] | None = None
        if self.world is not None:
            for i, (_, turn, u, kept) in enumerate(pending):
                reading = self.world.reading(u.speaker)
                result, _ = self._decide(turn, u, reading)
                if isinstance(result, Rejected):
                    stop = (i, result)
                    break
                self._accepted(self._mirror(turn, u, result, reading, kept), status, on_update)
        elif pending:
            self._prolog.use_extensions(self.extensions)
            accepted, stop = self.rules.apply_batch([self.registry.encode(turn, u) for _, turn, u, _ in pending])
            for (_, turn, u, kept), result in zip(pending, accepted, strict=False):  # shorter if one was rejected
                self._accepted(self._mirror(turn, u, result, None, kept), status, on_update)
        if stop is not None:
            index, rejected = stop
            lineno, turn, u, _ = pending[index]
            pending.clear()
            error = PreconditionError(turn, u.speaker, rejected.violations)
            raise LogError(f"rejected by the rules: {error}", path=path, line=lineno, engine=self) from error
        pending.clear()

    def _accepted(self, update: Update, status: LogStatus, on_update: Callable[[Engine, Update], None] | None
                  ) -> None:
        status.utterances += 1
        if on_update is not None:
            on_update(self, update)

    def _continue(self, writer: EventLogWriter) -> None:
        """Make ``writer`` this engine's log, its tail repaired so the next line starts a line of its own."""
        if writer.end > self._reader_end:  # a torn final line (never acknowledged) or blanks: dropped
            writer.cut_to(self._reader_end)
        if self._reader_unterminated:
            writer.terminate_last_line()
        self._log = writer

    def origin(self) -> LogOrigin:
        """The rules version and extensions this engine runs, as a log's header records them."""
        return LogOrigin(rules=rules_version(), extensions=[_extension_ref(p) for p in self.extensions])

    def sync(self) -> None:
        """Make every utterance logged so far durable now (``fsync="batch"`` otherwise groups them)."""
        if self._log is not None:
            self._log.sync()

    # -- updating -------------------------------------------------------------------

    def apply(self, utterance: UtteranceBase | dict[str, Any]) -> Update:
        """Apply one utterance atomically, or raise PreconditionError and change nothing."""
        u = self._validated(utterance)
        last = self.state.last_turn
        turn = self._turn_of(u, last)
        if not u.ops and self.world is None and (last is None or turn > last) and u.speaker in self.state.agents:
            return self._admit(turn, u, utterance)
        reading = None if self.world is None else self.world.reading(u.speaker)
        result, line = self._decide(turn, u, reading)
        if isinstance(result, Rejected):
            raise PreconditionError(turn, u.speaker, result.violations)
        return self._mirror(turn, u, result, reading, line or _as_json(utterance))

    def _admit(self, turn: int, u: UtteranceBase, given: object) -> Update:
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
        self.last_verdicts = {}
        line = self._log.append(turn, u) if self._log is not None else None
        self.rules.admitted(turn)
        return self._mirror(turn, u, Accepted([TurnEffect(-1, turn)], []), None, line or _as_json(given))

    def _validated(self, utterance: UtteranceBase | dict[str, Any]) -> UtteranceBase:
        try:
            return self.registry.utterance(utterance)
        except ValidationError as exc:
            raise InputError(describe_validation_error(exc, frozenset(self.registry.models))) from exc

    @staticmethod
    def _turn_of(u: UtteranceBase, last: int | None) -> int:
        turn = assign_turn(u.turn, last)
        if turn > MAX_TURN:
            raise InputError(f"turn: {turn} is beyond the last turn a log can hold ({MAX_TURN})")
        return turn

    def _decide(self, turn: int, u: UtteranceBase, reading: Reading | None) -> tuple[Accepted | Rejected, bytes | None]:
        """The rules' verdict on one utterance, and its log line when the engine keeps a log (the
        rules have it written inside their transaction when they accept); nothing is mirrored yet."""
        self._prolog.use_extensions(self.extensions)
        recorder = _Recorder(self, turn, u, reading)
        try:
            return (self.rules.apply(self.registry.encode(turn, u), recorder, record=self._log is not None),
                    recorder.line)
        finally:
            self.last_verdicts = {} if reading is None else reading.verdicts

    def _mirror(self, turn: int, u: UtteranceBase, result: Accepted, reading: Reading | None,
                kept: bytes | str | UtteranceBase | None = None) -> Update:
        """An accepted utterance, committed by the rules (and logged): mirror it in the Python state.

        ``kept`` is what the history keeps of it: by default its JSON, text with no
        objects inside for the garbage collector to walk (a conversation of 10^5
        utterances kept as models is most of the objects a full collection visits,
        and most of the history's memory); ``history`` validates it again when asked.
        """
        self.state.apply(result.effects, turn, u.speaker, u.text, u.ops)
        worlds = None
        if reading is not None and self.world is not None:
            worlds = (self.world.current.model.size, reading.frame.model.size)
            self.world.commit(turn, reading.frame)
        self._history.append((turn, u.model_dump_json() if kept is None else kept))
        left = tuple(result.left)
        return Update(turn, u.speaker, u, result.effects, left, self._flagged(left) if left else {}, worlds,
                      reading.frame.applied if reading is not None else ())

    def _flagged(self, left: tuple[str, ...]) -> dict[str, list[str]]:
        """What rests on each claim the utterance took out of S_t (the rules say which)."""
        flagged = {}
        for claim in left:
            losing = self.affected(claim).lose_support
            if losing:
                flagged[claim] = losing
        return flagged

    # -- queries -------------------------------------------------------------------------

    def verify(self, literal: str, at: int | None = None) -> _verify.Verification:
        """Verify(c): is ``literal`` carried by a grounded argument in S_t (as of turn ``at``)?

        An observation-like anchor in good standing (no Dep) is answered here, without
        a second call: the authors' engine answers it with one dict lookup, and the
        call into ``queries.verify`` was a third of our cost (bench/compare.py).  Its
        answer depends on the anchor alone and is made once (``queries.verify.leaf``).
        """
        state = self.state
        if at is None:
            ids = state.claimants.get(literal)
            if ids:  # a literal the state holds was validated when it came in: nothing to check
                newest = state.args[ids[-1] - 1]
                if not newest.deps and newest.standing in GOOD_STANDING:
                    return newest.answer or _verify.leaf(newest)  # type: ignore[return-value]
                return _verify.anchored(state, literal, ids, newest)
        self._check_query(literal)
        return _verify.verify(state, literal, check_turn(at))

    def affected(self, literal: str, closure: bool = True, at: int | None = None) -> _affected.Affected:
        """Affected*(literal), or one-step Affected with ``closure=False`` (Definition 2.3)."""
        state = self.state
        if at is None and (literal in state.claimants or literal in state.rev):  # nothing to check
            return _affected.affected(state, literal, closure)
        self._check_query(literal)
        return _affected.affected(state, literal, closure, check_turn(at))

    def _check_query(self, literal: str) -> None:
        """A literal the state already holds was validated when it came in; others are checked."""
        if literal not in self.state.claimants and literal not in self.state.rev:
            _check_literal(literal)

    def reinstatable(self, at: int | None = None) -> list[int]:
        """Arguments out of standing whose every attacker has left S_t (reported, never reinstated)."""
        t = check_turn(at)
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
        return self.state.open_problems_at(check_turn(at))

    def commitments(self, at: int | None = None) -> dict[str, list[str]]:
        """Cm: each agent's public commitments, as the claims of the committed arguments."""
        args = self.state.args
        return {agent: list(dict.fromkeys(args[i - 1].claim for i in ids))
                for agent, ids in self.state.commitments_at(check_turn(at)).items()}

    def dissent(self, at: int | None = None) -> dict[str, list[str]]:
        """Decision claim -> agents recorded as dissenting from it."""
        t = check_turn(at)
        return {self.state.arg(i).claim: list(agents) for i, agents in self.state.dissent.items()
                if self.state.visible(i, t)}

    def argument(self, arg_id: int, at: int | None = None) -> Argument:
        t = check_turn(at)
        if not 1 <= arg_id <= len(self.state.args) or not self.state.visible(arg_id, t):
            raise InputError(f"no argument {arg_id}" + ("" if t is None else f" at turn {t}"))
        return self.state.argument(arg_id, t)

    def arguments(self, claim: str | None = None, at: int | None = None) -> list[Argument]:
        t = check_turn(at)
        ids = (self.state.claimants_at(claim, t) if claim is not None
               else [r.id for r in self.state.args if self.state.visible(r.id, t)])
        return [self.state.argument(i, t) for i in ids]

    def standing(self, claim: str, at: int | None = None) -> str | None:
        """Standing of the newest argument for ``claim`` (None if nothing claims it)."""
        t = check_turn(at)
        ids = self.state.claimants_at(claim, t)
        return self.state.arg(ids[-1]).standing_at(t) if ids else None

    def dep(self, claim: str, at: int | None = None) -> list[str]:
        """Dep of the newest argument for ``claim``."""
        t = check_turn(at)
        ids = self.state.claimants_at(claim, t)
        return list(self.state.arg(ids[-1]).deps_at(t)) if ids else []

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
            self._history[:0] = self._read_history(*self._history_log)
            self._history_log = None
        model = self.registry.utterance_model
        return [(turn, model.model_validate_json(u) if isinstance(u, bytes | str) else u)
                for turn, u in self._history if t is None or turn <= t]

    def _read_history(self, path: str, key: SnapshotKey) -> list[tuple[int, UtteranceBase | bytes | str]]:
        """The utterances a snapshot's state came from: the log's lines it covers, read now,
        and only if those bytes are still the ones the snapshot was taken from."""
        entries: list[tuple[int, UtteranceBase | bytes | str]] = []
        last: int | None = None
        with LogReader(path, mark=key.log_size) as reader:
            for lineno, body in reader.raw_lines():
                if reader.end > key.log_size:
                    break
                u, kept = self._line_utterance(reader, lineno, body)
                last = assign_turn(u.turn, last)
                entries.append((last, kept))
            if reader.marked_digest != key.log_sha256:
                raise InputError("the log changed since its state was read (its first bytes differ from the "
                                 "snapshot's): read it again", path=path)
        return entries

    def whatif(self, utterance: UtteranceBase | dict[str, Any], at: int | None = None) -> WhatIf:
        """What the rules would do with ``utterance`` after turn ``at`` (None: now), recording nothing.

        This engine, its world model and its log are left as they are; the
        answer carries the transitions and flagged claims, or the violations,
        and the scratch engine that holds the hypothetical state.
        """
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

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _as_json(utterance: object) -> str | None:
    """An utterance given as a dict, as JSON text (validating it again gives the same utterance);
    None if it is not JSON (the history then writes the validated utterance)."""
    if not isinstance(utterance, dict):
        return None
    try:
        return json.dumps(utterance)
    except (TypeError, ValueError):
        return None


def _check_literal(literal: str) -> None:
    if not is_literal(literal):
        shown = preview(literal) if isinstance(literal, str) else repr(literal)
        raise InputError(f"{shown} is not a literal (expected an id such as o5 or -a3, at most "
                         f"{MAX_ID_LENGTH} characters)")


def _check_origin(origin: LogOrigin, extensions: tuple[str, ...], allow_rules_change: bool, path: str) -> None:
    """The log's rules version and extensions are the ones given (InputError naming each difference)."""
    problems = []
    if origin.rules is not None and origin.rules != rules_version() and not allow_rules_change:
        problems.append(f"written by rules {origin.rules}, replayed by rules {rules_version()}: the same lines "
                        "could give another state (allow_rules_change=True, or --allow-rules-change, replays "
                        "it anyway)")
    if origin.extensions is not None:
        given = {ref.name: ref for ref in map(_extension_ref, extensions)}
        for ref in origin.extensions:
            now = given.get(ref.name)
            if now is None:
                problems.append(f"written with the extension {ref.short()}, which is not given "
                                f"(pass it: -x {ref.name}, or extensions=[...])")
            elif now.sha256 != ref.sha256:
                problems.append(f"extension {ref.name} changed since the log was written (sha256 "
                                f"{ref.sha256[:12]} then, {now.sha256[:12]} now)")
            elif ref.twin_sha256 is not None and now.twin_sha256 != ref.twin_sha256:  # an older log records none
                problems.append(f"the ASP twin {ref.twin_name} of extension {ref.name} changed since the log was "
                                f"written (sha256 {ref.twin_sha256[:12]} then, "
                                f"{'none' if now.twin_sha256 is None else now.twin_sha256[:12]} now)")
        recorded = {r.name for r in origin.extensions}
        for name in given:
            if name not in recorded:
                problems.append(f"the extension {name} was not used to write this log")
    if problems:
        raise InputError("header: " + "; ".join(problems), path=path, line=1)


def _extension_ref(path: str | Path) -> ExtensionRef:
    """An extension rule file as a log's header records it: name, sha256, and its twin's sha256."""
    return ExtensionRef(name=Path(path).name, sha256=file_sha256(path), twin_sha256=twin_sha256(path))


def _extension_path(path: str | Path) -> str:
    p = Path(path).expanduser().resolve()
    if not p.is_file():
        raise InputError(f"extension rule file not found: {path}")
    return str(p)


__all__ = ["Engine", "PreconditionError", "Update", "Violation", "WhatIf"]
