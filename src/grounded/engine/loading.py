"""Reading an event log into an engine: what ``Engine.load`` does, split off from the Engine.

A log is read line by line, validated, and handed to the rules ``BATCH``
lines per request (the engine applies and mirrors them: ``Engine._apply_lines``),
with Python's cyclic garbage collector paused (``paused_gc``).  With
``snapshot=True`` the state of the log's first lines comes from the snapshot
beside it (grounded.engine.snapshots) and only the lines after it are read.
The log's header must name the rules version and extensions the engine runs
(``check_origin``).  Everything here reaches the engine through ``Loadable``:
the few parts of it loading sets or calls.
"""

from __future__ import annotations

import gc
import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeAlias, TypeVar

from grounded.core import collector
from grounded.core.bounds import MAX_TURN
from grounded.core.errors import InputError, LogError
from grounded.core.turns import assign_turn
from grounded.dmap.state import DependencyMap
from grounded.engine.snapshots import Kept, extension_refs, fitting_snapshot, restored_state, save, save_index
from grounded.engine.update import Update
from grounded.io.effectlog import EffectsReader, EffectsWriter
from grounded.io.eventlog import EventLogWriter, FsyncPolicy, LogReader, LogStatus
from grounded.io.format import PlainOrigin
from grounded.io.snapshot import Snapshot, SnapshotKey
from grounded.solvers.ruleset import RULES_DIR_VARIABLE, file_sha256, rules_version, twin_sha256

if TYPE_CHECKING:  # the models: a query answered from a snapshot imports no pydantic (issue 23, item 5)
    from grounded.dmap.model import Header
    from grounded.dmap.notes import PlainHeader
    from grounded.dmap.operations import OperationRegistry, UtteranceBase
    from grounded.engine.world import ConversationModel  # numpy: imported only with a world
    from grounded.io.origin import ExtensionRef, LogOrigin
    from grounded.solvers.prolog import PrologRules, RuleState  # the rules: imported when they start

BATCH = 256
"""Log lines ``Engine.load`` hands the rules per request."""

Pending: TypeAlias = "list[tuple[int, int, UtteranceBase, Kept]]"
"""Validated lines waiting for the rules: line number, turn, utterance, what the history keeps."""


class Loadable(Protocol):
    """What loading reads and sets of an engine (grounded.engine.engine.Engine)."""

    extensions: tuple[str, ...]
    state: DependencyMap
    world: ConversationModel | None
    _rules: tuple[PrologRules, OperationRegistry, RuleState] | None  # the rule base, once started (Engine._rule_base)
    load_error: LogError | None
    log_status: LogStatus | None
    _log: EventLogWriter | None
    _reader_end: int
    _reader_unterminated: bool
    _history_log: tuple[str, SnapshotKey] | None
    _effects: EffectsWriter | None
    _effects_resume: tuple[int, bytes] | None

    def take_state(self, state: DependencyMap) -> None: ...

    def _line_utterance(self, reader: LogReader, lineno: int, body: bytes) -> tuple[UtteranceBase, Kept]: ...

    def _apply_lines(self, pending: Pending, path: str, status: LogStatus,
                     on_update: Callable[[Loadable, Update], None] | None) -> None: ...

    def _apply_recorded(self, lines: list[tuple[int, bytes]], recorded: list[str], reader: LogReader,
                        status: LogStatus, on_update: Callable[[Loadable, Update], None] | None) -> None: ...


L = TypeVar("L", bound=Loadable)
OnUpdate = Callable[[L, Update], None]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a log is read, then restore it as it was.

    A replay allocates tens of objects per line and keeps few of them, and makes no
    reference cycles (reading a snapshot makes many objects and no garbage either),
    so the collections it would trigger find nothing, yet cost a fifth of the
    replay.  Cycles an ``on_update`` callback makes are collected once it returns.

    What the reading kept is the engine's state, long-lived: it goes to the oldest
    generation (``gc.freeze`` then ``gc.unfreeze``, which moves the young generations
    there without scanning them), where full collections still see it, instead of being
    scanned by the young collection the first allocation after the pause would run
    (a seventh of a load from the record beside the log).  Not when something is
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


def load(make: Callable[[Header | PlainHeader, tuple[str, ...]], L], path: str | Path, *,
         extensions: Iterable[str | Path], strict: bool, append: bool, on_update: OnUpdate | None,
         fsync: FsyncPolicy, allow_rules_change: bool,
         progress: Callable[[int, int], None] | None, snapshot: bool, effects: bool = True, batch: int = BATCH) -> L:
    """``Engine.load`` (documented there); ``make(header, extensions)`` builds the engine."""
    writer = EventLogWriter(path, fsync=fsync) if append else None
    try:
        engine = _replay(make, path, extensions, strict or append, on_update, allow_rules_change, progress,
                         snapshot, batch, effects=effects, rebuild=append)
        if writer is not None:
            if engine.load_error is not None:
                raise engine.load_error
            _continue(engine, writer)
    except BaseException:
        if writer is not None:
            writer.close()
        raise
    return engine


def _open(make: Callable[[Header | PlainHeader, tuple[str, ...]], L], path: str | Path, paths: tuple[str, ...],
          allow_rules_change: bool, digest: bool,
          status: LogStatus | None = None) -> tuple[LogReader, L, Snapshot | None]:
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


def _replay(make: Callable[[Header | PlainHeader, tuple[str, ...]], L], path: str | Path,
            extensions: Iterable[str | Path], strict: bool, on_update: OnUpdate | None, allow_rules_change: bool,
            progress: Callable[[int, int], None] | None, snapshot: bool, batch: int, effects: bool = False,
            rebuild: bool = False) -> L:
    paths = tuple(extension_path(p) for p in extensions)
    snapshot = snapshot and RULES_DIR_VARIABLE not in os.environ  # rules_version() covers the shipped rules
    status = LogStatus(str(path))
    restored: SnapshotKey | None = None
    with paused_gc():
        reader, engine, found = _open(make, path, paths, allow_rules_change, digest=snapshot,
                                      status=status if snapshot and on_update is None else None)
    if snapshot and engine.world is not None:
        snapshot = False
    try:
        with paused_gc():
            if found is not None:
                restored = _from_snapshot(engine, path, found, status)
            if restored is None and reader.offset != reader.header_end:  # the log is not what the snapshot
                reader.close()                                           # was taken from: read it all again
                reader, engine, _ = _open(make, path, paths, allow_rules_change, digest=True)
            bulk = (EffectsReader(path, reader.header_line, rules_version(), extension_refs(engine.extensions))
                    if effects and restored is None and records_effects(engine) else None)
            _replay_lines(engine, reader, status, on_update, progress, batch, bulk, rebuild)
    except LogError as exc:
        if strict:
            raise
        engine.load_error = exc
    finally:
        reader.close()
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
        save(path, reader, status, engine.extensions, engine.state)
    elif snapshot and restored is not None:  # the snapshot's index beside it too (snapshots.save_index)
        save_index(path, reader, restored, engine.state, status)
    return engine


def _from_snapshot(engine: Loadable, path: str | Path, found: Snapshot, status: LogStatus) -> SnapshotKey | None:
    """Take the state from the snapshot that fits the log (the engine is new): the Python state now,
    the rules' facts when the rules are first asked, the history's lines when it is first read.
    The snapshot's key, or None (a state of a shape this version does not read)."""
    state = restored_state(found, engine.state.header, path, status)  # the header the engine was made from
    if state is None:
        return None
    engine.take_state(state)
    engine._history_log = (str(path), found.key)
    return found.key


def _replay_lines(engine: L, reader: LogReader, status: LogStatus, on_update: OnUpdate | None,
                  progress: Callable[[int, int], None] | None, batch: int, bulk: EffectsReader | None = None,
                  rebuild: bool = False) -> None:
    """Apply a log's utterance lines, ``batch`` per request to the rules; LogError names the
    line that stops the reading (the lines before it are applied, none after it).

    With ``bulk`` (the effects recorded beside the log), each line whose record
    authenticates is applied from it; from the first that does not, the rules
    judge the rest, starting from the state the record gave.  With ``rebuild`` too (a log
    being continued), the rules' decisions on those lines are recorded from there on, so the
    log, continued by this engine, is read back from its record next time."""
    lines: Iterator[tuple[int, bytes]] = reader.raw_lines()
    try:
        if bulk is not None:
            lines = _from_record(engine, bulk, lines, reader, status, on_update, progress, batch)
            _hand_to_rules(engine, status)
            if bulk.active:  # every line authenticated: a log continued keeps recording
                engine._effects_resume = (bulk.offset, bulk.chain)
            elif rebuild:  # the rules' decisions on the lines they judge are recorded from here on
                engine._effects = (EffectsWriter.resume(reader.path, bulk.offset, bulk.chain) if bulk.used else
                                   EffectsWriter.create(reader.path, reader.header_line, rules_version(),
                                                        extension_refs(engine.extensions)))
        _judge_lines(engine, lines, reader, status, on_update, progress, batch)
    finally:
        if bulk is not None:
            bulk.stop()
            status.effects_note = bulk.note
    if progress is not None:
        progress(reader.offset, reader.size)


def _from_record(engine: L, bulk: EffectsReader, lines: Iterator[tuple[int, bytes]], reader: LogReader,
                 status: LogStatus, on_update: OnUpdate | None, progress: Callable[[int, int], None] | None,
                 batch: int) -> Iterator[tuple[int, bytes]]:
    """Apply the lines whose recorded effects authenticate, ``batch`` at a time; the lines left for the
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
        engine._apply_recorded(block[:n], decided, reader, status, on_update)
        if error is not None:
            return itertools.chain(block[n:], _raise(error))
        if n < len(block) or len(block) < batch:
            return itertools.chain(block[n:], lines)
        if progress is not None:
            progress(reader.offset, reader.size)


def _raise(error: InputError) -> Iterator[tuple[int, bytes]]:
    """Lines that end in ``error``, as the reader raised it."""
    raise error
    yield  # a generator: raises when next asked for a line


def _judge_lines(engine: L, lines: Iterator[tuple[int, bytes]], reader: LogReader, status: LogStatus,
                 on_update: OnUpdate | None, progress: Callable[[int, int], None] | None, batch: int) -> None:
    """The rules judge ``lines``, ``batch`` per request, from the engine's state."""
    pending: Pending = []
    last = engine.state.last_turn
    while True:
        try:
            item = next(lines, None)
        except InputError as exc:  # the reader's own: a line too long
            engine._apply_lines(pending, reader.name, status, on_update)
            raise LogError(exc.detail, path=reader.name, line=exc.line or 0, engine=engine) from exc
        if item is None:
            break
        lineno, body = item
        try:
            u, kept = engine._line_utterance(reader, lineno, body)
            turn = u.turn  # the engine writes every line's turn: ``turn_of``'s two frames only when one is not
            if turn is None or turn > MAX_TURN:  # (or when it is out of bounds, which it words)
                turn = turn_of(u, last)
        except InputError as exc:
            engine._apply_lines(pending, reader.name, status, on_update)
            raise LogError(exc.detail, path=reader.name, line=lineno, engine=engine) from exc
        pending.append((lineno, turn, u, kept))
        last = turn
        if len(pending) >= batch:
            engine._apply_lines(pending, reader.name, status, on_update)
            if progress is not None:
                progress(reader.offset, reader.size)
    engine._apply_lines(pending, reader.name, status, on_update)


def _hand_to_rules(engine: Loadable, status: LogStatus) -> None:
    """The lines applied from the record are in the Python state only: the rules take their facts
    from it (when next asked, as from a snapshot; when first started, from the state as it then is)."""
    if status.bulk:
        engine.take_state(engine.state)


def records_effects(engine: Loadable) -> bool:
    """Whether the effects beside this engine's log are written and read: not with a world model (its M
    is built by reading each line), nor with rules from elsewhere (the version covers the shipped ones)."""
    return engine.world is None and RULES_DIR_VARIABLE not in os.environ


def _continue(engine: Loadable, writer: EventLogWriter) -> None:
    """Make ``writer`` the engine's log, its tail repaired so the next line starts a line of its own."""
    if writer.end > engine._reader_end:  # a torn final line (never acknowledged) or blanks: dropped
        writer.cut_to(engine._reader_end)
    if engine._reader_unterminated:
        writer.terminate_last_line()
    engine._log = writer
    if engine._effects is None and engine._effects_resume is not None and records_effects(engine):
        engine._effects = EffectsWriter.resume(writer.path, *engine._effects_resume)


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
