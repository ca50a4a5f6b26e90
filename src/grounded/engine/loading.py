"""Reading an event log into an engine: what ``Engine.load`` does, split off from the Engine.

A log is read line by line and committed ``BATCH`` lines at a time, each batch
a decision: the one recorded beside the log (grounded.io.effectlog) for the
lines a user's engine wrote, as far as that record authenticates, else the
rules' (``Engine.decide``, one request a batch).  Either way the engine
commits it (``Engine.commit``), with Python's cyclic garbage collector paused
(``paused_gc``).  With ``snapshot=True`` the state of the log's first lines
comes from the snapshot beside it (grounded.engine.snapshots) and only the
lines after it are read.  The log's header must name the rules version and
extensions the engine runs (``check_origin``).  The engine is reached only
through its public steps (``Reads``); what the reading found goes back to it
as a ``Loaded``.
"""

from __future__ import annotations

import gc
import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeVar

from grounded.core import collector
from grounded.core.bounds import MAX_TURN
from grounded.core.errors import InputError, LogError, PreconditionError
from grounded.core.turns import assign_turn
from grounded.dmap.state import DependencyMap
from grounded.engine.decision import Decision
from grounded.engine.recorded import RecordedLine
from grounded.engine.snapshots import Kept, extension_refs, fitting_snapshot, restored_state, save, save_index
from grounded.engine.update import Update
from grounded.io.effectlog import EffectsReader, EffectsWriter
from grounded.io.eventlog import EventLogWriter, FsyncPolicy, LogReader, LogStatus
from grounded.io.format import PlainOrigin
from grounded.io.snapshot import Snapshot, SnapshotKey
from grounded.solvers.ruleset import RULES_DIR_VARIABLE, file_sha256, rules_version, twin_sha256

if TYPE_CHECKING:  # the models: a query answered from a snapshot imports no pydantic
    from grounded.dmap.model import Header
    from grounded.dmap.notes import PlainHeader
    from grounded.dmap.operations import OperationRegistry, UtteranceBase
    from grounded.engine.world import ConversationModel  # numpy: imported only with a world
    from grounded.io.origin import ExtensionRef, LogOrigin

BATCH = 256
"""Log lines ``Engine.load`` hands the rules per request."""

Pending: TypeAlias = "list[tuple[int, UtteranceBase, Kept]]"
"""Validated lines waiting for the rules: line number, utterance, what the history keeps."""


class Reads(Protocol):
    """What reading a log asks of an engine (grounded.engine.engine.Engine): its public steps."""

    extensions: tuple[str, ...]
    state: DependencyMap
    world: ConversationModel | None

    @property
    def registry(self) -> OperationRegistry: ...

    def decide(self, utterances: Sequence[UtteranceBase], *, kept: Sequence[Kept] | None = None) -> Decision: ...

    def commit(self, decision: Decision, *, updates: bool = True) -> list[Update]: ...

    def take_state(self, state: DependencyMap) -> None: ...

    def utterance(self, utterance: UtteranceBase | dict[str, Any]) -> UtteranceBase: ...


E = TypeVar("E", bound=Reads)
OnUpdate = Callable[[E, Update], None]


@dataclass
class Loaded:
    """What reading a log found, for the engine it was read into (``Engine.load`` takes it)."""

    status: LogStatus
    error: LogError | None = None
    """What stopped a reading that is not strict (None when every line was applied)."""
    end: int = 0
    """Where the reading ended: a log continued is cut there (a torn final line dropped)."""
    unterminated: bool = False
    """The last whole line lacks its newline: a log continued gets one."""
    history_log: tuple[str, SnapshotKey] | None = None
    """The state came from the snapshot: the log and the part of it the snapshot covers (the older history)."""
    effects: EffectsWriter | None = None
    """The record being rebuilt from the rules' decisions (a log being continued whose record stopped)."""
    effects_resume: tuple[int, bytes] | None = None
    """Where the record authenticated to the log's end: a log continued keeps recording from there."""


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a log is read, then restore it as it was.

    A replay allocates tens of objects per line and keeps few of them, and makes no
    reference cycles (reading a snapshot makes many objects and no garbage either),
    so the collections it would trigger find nothing, yet cost a good part of the
    replay (docs/benchmarks.md).  Cycles an ``on_update`` callback makes are collected once it returns.

    What the reading kept is the engine's state, long-lived: it goes to the oldest
    generation (``gc.freeze`` then ``gc.unfreeze``, which moves the young generations
    there without scanning them), where full collections still see it, instead of being
    scanned by the young collection the first allocation after the pause would run.
    Not when something is
    frozen already (the CLI and the service freeze what start-up made): unfreezing
    would hand that to the collector too.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if not collector.frozen():  # ``gc.get_freeze_count`` walks every frozen object
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def load(make: Callable[[Header | PlainHeader, tuple[str, ...]], E], path: str | Path, *,
         extensions: Iterable[str | Path], strict: bool, append: bool, on_update: OnUpdate | None,
         fsync: FsyncPolicy, allow_rules_change: bool, progress: Callable[[int, int], None] | None, snapshot: bool,
         effects: bool = True, batch: int = BATCH) -> tuple[E, Loaded, EventLogWriter | None]:
    """``Engine.load`` (documented there); ``make(header, extensions)`` builds the engine.  The engine, what
    the reading found, and with ``append`` the log's writer, its lock taken before the reading."""
    writer = EventLogWriter(path, fsync=fsync) if append else None
    try:
        engine, loaded = _replay(make, path, extensions, strict or append, on_update, allow_rules_change, progress,
                                 snapshot, batch, effects=effects, rebuild=append)
        if writer is not None and loaded.error is not None:
            raise loaded.error
    except BaseException:
        if writer is not None:
            writer.close()
        raise
    return engine, loaded, writer


def _open(make: Callable[[Header | PlainHeader, tuple[str, ...]], E], path: str | Path, paths: tuple[str, ...],
          allow_rules_change: bool, digest: bool,
          status: LogStatus | None = None) -> tuple[LogReader, E, Snapshot | None]:
    """The log opened and its engine made from its header; with ``status`` (a reading that takes the
    snapshot beside the log when it fits), that snapshot, found before the header is validated: if it
    fits, the engine is made from the header as authenticated (LogReader.authenticated_header), which
    a validating reading took the snapshot from, and the reader stands after the snapshot's bytes."""
    reader = LogReader(path, digest=digest, check_header=status is None)
    try:
        found = None
        if status is not None and not reader.has_world:  # a world model is never snapshotted
            found = fitting_snapshot(path, reader, paths, status)
        header, log_origin = reader.authenticated_header() if found is not None else (reader.header, reader.origin)
        check_origin(log_origin, paths, allow_rules_change, str(path))
        return reader, make(header, paths), found
    except BaseException:
        reader.close()
        raise


def _replay(make: Callable[[Header | PlainHeader, tuple[str, ...]], E], path: str | Path,
            extensions: Iterable[str | Path], strict: bool, on_update: OnUpdate | None, allow_rules_change: bool,
            progress: Callable[[int, int], None] | None, snapshot: bool, batch: int, effects: bool = False,
            rebuild: bool = False) -> tuple[E, Loaded]:
    paths = tuple(extension_path(p) for p in extensions)
    snapshot = snapshot and RULES_DIR_VARIABLE not in os.environ  # rules_version() covers the shipped rules
    loaded = Loaded(LogStatus(str(path)))
    status = loaded.status
    restored: SnapshotKey | None = None
    with paused_gc():
        reader, engine, found = _open(make, path, paths, allow_rules_change, digest=snapshot,
                                      status=status if snapshot and on_update is None else None)
        if snapshot and engine.world is not None:
            snapshot = False
        try:
            if found is not None:
                restored = _from_snapshot(engine, path, found, loaded)
            if restored is None and reader.offset != reader.header_end:  # the log is not what the snapshot
                reader.close()                                           # was taken from: read it all again
                reader, engine, _ = _open(make, path, paths, allow_rules_change, digest=True)
            bulk = (EffectsReader(path, reader.header_line, rules_version(), extension_refs(engine.extensions))
                    if effects and restored is None and records_effects(engine) else None)
            _replay_lines(engine, reader, loaded, on_update, progress, batch, bulk, rebuild)
        except LogError as exc:
            if strict:
                raise
            loaded.error = exc
        finally:
            reader.close()
    if loaded.error is not None:
        status.complete = False
        status.stopped_at = loaded.error.line
        status.error = loaded.error.detail
    status.torn_line = reader.torn_line
    loaded.end, loaded.unterminated = reader.end, reader.unterminated
    if (snapshot and loaded.error is None and not reader.unterminated
            and (restored is None or restored.log_size != reader.end)):
        save(path, reader, status, engine.extensions, engine.state)
    elif snapshot and restored is not None:  # the snapshot's index beside it too (snapshots.save_index)
        save_index(path, reader, restored, engine.state, status)
    return engine, loaded


def _from_snapshot(engine: Reads, path: str | Path, found: Snapshot, loaded: Loaded) -> SnapshotKey | None:
    """Take the state from the snapshot that fits the log (the engine is new): the Python state now,
    the rules' facts when the rules are first asked, the history's lines when it is first read.
    The snapshot's key, or None (a state of a shape this version does not read)."""
    state = restored_state(found, engine.state.header, path, loaded.status)  # the header the engine was made from
    if state is None:
        return None
    engine.take_state(state)
    loaded.history_log = (str(path), found.key)
    return found.key


def _replay_lines(engine: E, reader: LogReader, loaded: Loaded, on_update: OnUpdate | None,
                  progress: Callable[[int, int], None] | None, batch: int, bulk: EffectsReader | None = None,
                  rebuild: bool = False) -> None:
    """Apply a log's utterance lines, ``batch`` per decision; LogError names the line that stops the
    reading (the lines before it are applied, none after it).

    With ``bulk`` (the effects recorded beside the log), each line whose record
    authenticates is committed from it, the rules not run; from the first that does not, the rules
    judge the rest, starting from the state the record gave.  With ``rebuild`` too (a log
    being continued), the rules' decisions on those lines are recorded from there on, so the
    log, continued by this engine, is read back from its record next time."""
    lines: Iterator[tuple[int, bytes]] = reader.raw_lines()
    status = loaded.status
    try:
        if bulk is not None:
            lines = _from_record(engine, bulk, lines, reader, status, on_update, progress, batch)
            if status.bulk:  # the rules take their facts from the state the record gave, when next asked
                engine.take_state(engine.state)
            if bulk.active:  # every line authenticated: a log continued keeps recording
                loaded.effects_resume = (bulk.offset, bulk.chain)
            elif rebuild:  # the rules' decisions on the lines they judge are recorded from here on
                loaded.effects = (EffectsWriter.resume(reader.path, bulk.offset, bulk.chain) if bulk.used else
                                  EffectsWriter.create(reader.path, reader.header_line, rules_version(),
                                                       extension_refs(engine.extensions)))
        judge_lines(engine, lines, reader, status, on_update, progress, batch, loaded.effects)
    finally:
        if bulk is not None:
            bulk.stop()
            status.effects_note = bulk.note
    if progress is not None:
        progress(reader.offset, reader.size)


def _from_record(engine: E, bulk: EffectsReader, lines: Iterator[tuple[int, bytes]], reader: LogReader,
                 status: LogStatus, on_update: OnUpdate | None, progress: Callable[[int, int], None] | None,
                 batch: int) -> Iterator[tuple[int, bytes]]:
    """Commit the lines whose recorded decisions authenticate, ``batch`` at a time; the lines left for the
    rules to judge (from the first that did not authenticate; none when the record covered the log)."""
    while True:
        block: list[tuple[int, bytes]] = []
        error: InputError | None = None
        try:
            for item in itertools.islice(lines, batch):
                block.append(item)
        except InputError as exc:  # the reader's own (a line too long): the rules' loop reports it after these
            error = exc
        decided = bulk.take(block)
        n = len(decided)
        if n:
            commit_recorded(engine, block[:n], decided, reader, status, on_update)
        if error is not None:
            return itertools.chain(block[n:], _raise(error))
        if n < len(block) or len(block) < batch:
            return itertools.chain(block[n:], lines)
        if progress is not None:
            progress(reader.offset, reader.size)


def commit_recorded(engine: E, lines: list[tuple[int, bytes]], texts: list[str], reader: LogReader,
                     status: LogStatus, on_update: OnUpdate | None) -> None:
    """Lines whose recorded decisions authenticated, committed from them.  Without ``on_update`` each is
    read as JSON, all in one call, and not validated again (``RecordedLine``: the engine validated it when
    it wrote it, and the record's MAC covers its bytes); with it each is validated, for its ``Update``."""
    light = RecordedLine.read_all([body for _, body in lines]) if on_update is None else None
    turns: list[int] = []
    models: list[UtteranceBase] = []
    last = engine.state.last_turn
    stop: LogError | None = None
    for i, (lineno, body) in enumerate(lines):
        try:
            u = light[i] if light is not None else line_utterance(engine, reader, lineno, body)[0]
            turn = u.turn  # the engine writes every line's turn: turn_of only when one is not
            if turn is None or turn > MAX_TURN:
                turn = turn_of(u, last)
        except InputError as exc:
            stop = LogError(exc.detail, path=reader.name, line=lineno, engine=engine)
            stop.__cause__ = exc
            break
        turns.append(turn)
        models.append(u)
        last = turn
    n = len(turns)
    _commit(engine, Decision.from_record(turns, models, texts[:n], [body for _, body in lines[:n]]), status,
            on_update)
    status.bulk += n
    if stop is not None:
        raise stop


def _raise(error: InputError) -> Iterator[tuple[int, bytes]]:
    """Lines that end in ``error``, as the reader raised it."""
    raise error
    yield  # a generator: raises when next asked for a line


def judge_lines(engine: E, lines: Iterator[tuple[int, bytes]], reader: LogReader, status: LogStatus,
                 on_update: OnUpdate | None, progress: Callable[[int, int], None] | None, batch: int,
                 record: EffectsWriter | None) -> None:
    """The rules judge ``lines``, ``batch`` per decision, from the engine's state."""
    pending: Pending = []
    last = engine.state.last_turn

    def judge() -> None:
        if pending:
            _judge(engine, pending, reader.name, status, on_update, record)

    while True:
        try:
            item = next(lines, None)
        except InputError as exc:  # the reader's own: a line too long
            judge()
            raise LogError(exc.detail, path=reader.name, line=exc.line or 0, engine=engine) from exc
        if item is None:
            break
        lineno, body = item
        try:
            u, kept = line_utterance(engine, reader, lineno, body)
            turn = u.turn  # the engine writes every line's turn: ``turn_of`` only when one is not
            if turn is None or turn > MAX_TURN:  # (or when it is out of bounds, which it words)
                turn = turn_of(u, last)
        except InputError as exc:
            judge()
            raise LogError(exc.detail, path=reader.name, line=lineno, engine=engine) from exc
        pending.append((lineno, u, kept))
        last = turn
        if len(pending) >= batch:
            judge()
            if progress is not None:
                progress(reader.offset, reader.size)
    judge()


def _judge(engine: E, pending: Pending, path: str, status: LogStatus, on_update: OnUpdate | None,
           record: EffectsWriter | None) -> None:
    """Validated lines decided by the rules and committed, in one decision (one request), or one decision
    per line with a world model (each read in the model the one before committed).  Empties ``pending``."""
    step = 1 if engine.world is not None else max(len(pending), 1)
    try:
        for start in range(0, len(pending), step):
            part = pending[start:start + step]
            decision = engine.decide([u for _, u, _ in part], kept=[kept for _, _, kept in part])
            if record is not None:  # a log being continued: its record rebuilt from the rules' decisions
                decision.record(record)
            _commit(engine, decision, status, on_update)
            if decision.rejected is not None:
                try:
                    decision.check()
                except PreconditionError as error:
                    raise LogError(f"rejected by the rules: {error}", path=path, line=part[len(decision)][0],
                                   engine=engine) from error
    finally:
        pending.clear()


def _commit(engine: E, decision: Decision, status: LogStatus, on_update: OnUpdate | None) -> None:
    """Commit a decision on a log's lines: in one call when no one is handed the ``Update``s, else line by
    line, ``on_update`` seeing the Python state as of each."""
    if on_update is None:
        engine.commit(decision, updates=False)
        status.utterances += len(decision.turns)
        return
    for one in decision.each():
        (update,) = engine.commit(one)
        status.utterances += 1
        on_update(engine, update)


def records_effects(engine: Reads) -> bool:
    """Whether the effects beside this engine's log are written and read: not with a world model (its M
    is built by reading each line), nor with rules from elsewhere (the version covers the shipped ones)."""
    return engine.world is None and RULES_DIR_VARIABLE not in os.environ


def line_utterance(engine: Reads, reader: LogReader, lineno: int, body: bytes) -> tuple[UtteranceBase, Kept]:
    """A log line as a validated utterance, and what the history keeps of it.

    Straight from its bytes (then the history keeps the bytes: no objects for
    the garbage collector to walk, a tenth of the memory, validated again only
    if ``history`` is asked for), or, when that fails, by the JSON reading and
    validation that name what is wrong exactly as ``Engine.apply`` would."""
    import pydantic_core  # imported with the utterance models, which the rules made

    try:
        return engine.registry.utterance_model.model_validate_json(body), body
    except pydantic_core.ValidationError:
        pass
    u = engine.utterance(reader.decode(lineno, body))
    return u, u.model_dump_json()


def turn_of(u: UtteranceBase, last: int | None) -> int:
    """The utterance's turn (assigned after ``last`` when omitted), within what a log can hold."""
    turn = assign_turn(u.turn, last)
    if turn > MAX_TURN:
        raise InputError(f"turn: {turn} is beyond the last turn a log can hold ({MAX_TURN})")
    return turn


def origin(extensions: Iterable[str]) -> LogOrigin:
    """The rules version and extensions an engine runs, as a log's header records them."""
    from grounded.io.origin import LogOrigin

    return LogOrigin(rules=rules_version(), extensions=[extension_ref(p) for p in extensions])


def check_origin(origin: LogOrigin | PlainOrigin, extensions: tuple[str, ...], allow_rules_change: bool,
                 path: str) -> None:
    """The log's rules version and extensions are the ones given (InputError naming each difference)."""
    problems = []
    if origin.rules is not None and origin.rules != rules_version() and not allow_rules_change:
        problems.append(f"written by rules {origin.rules}, replayed by rules {rules_version()}: the same lines "
                        "could give another state (allow_rules_change=True, or --allow-rules-change, replays "
                        "it anyway)")
    if origin.extensions is not None:
        given = {ref.name: ref for ref in map(extension_ref, extensions)}
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


def extension_ref(path: str | Path) -> ExtensionRef:
    """An extension rule file as a log's header records it: name, sha256, and its twin's sha256."""
    from grounded.io.origin import ExtensionRef

    return ExtensionRef(name=Path(path).name, sha256=file_sha256(path), twin_sha256=twin_sha256(path))


def extension_path(path: str | Path) -> str:
    """An extension rule file's absolute path (InputError when there is no such file)."""
    p = Path(path).expanduser().resolve()
    if not p.is_file():
        raise InputError(f"extension rule file not found: {path}")
    return str(p)
