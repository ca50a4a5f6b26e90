"""The snapshot beside a log, as ``Engine.load(snapshot=True)`` uses it.

A snapshot (grounded.io.snapshot writes and authenticates the file) holds the
Python state of a log's first lines, keyed by the bytes it covers, the rules
version and the extensions.  This module decides whether one fits the log
being read, writes a new one when the state read is not the one it holds, and
reads back, on demand, the utterances a restored state came from (for
``Engine.history``).  It works on the data, not on an engine: the engine
takes what it finds (grounded.engine.loading).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from grounded.core.errors import InputError
from grounded.core.turns import assign_turn
from grounded.dmap.state import DependencyMap
from grounded.io.eventlog import LogReader, LogStatus
from grounded.io.snapshot import Snapshot, SnapshotKey, read_snapshot, write_snapshot
from grounded.io.snapshot_index import index_fits, write_index
from grounded.solvers.ruleset import file_sha256, rules_version

if TYPE_CHECKING:
    from grounded.dmap.model import Header
    from grounded.dmap.notes import PlainHeader
    from grounded.dmap.operations import UtteranceBase

Kept: TypeAlias = "UtteranceBase | bytes | str"
"""What an engine's history keeps of an utterance: the model, or its JSON (see ``Engine.commit``)."""

LineReader: TypeAlias = "Callable[[LogReader, int, bytes], tuple[UtteranceBase, Kept]]"
"""A log line (reader, line number, bytes) as a validated utterance and what the history keeps of it."""


def extension_refs(extensions: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """The extensions as a snapshot's key names them: file name and sha256."""
    return tuple((Path(p).name, file_sha256(p)) for p in extensions)


def fitting_snapshot(path: str | Path, reader: LogReader, extensions: Iterable[str],
                     status: LogStatus) -> Snapshot | None:
    """The snapshot beside the log if it fits the log read so far by ``reader`` (which then
    stands after the bytes it covers), else None; ``status.snapshot_note`` says why not."""
    found = read_snapshot(path, rules_version(), extension_refs(extensions))
    status.snapshot_note = found.note
    if found.snapshot is None:
        return None
    key = found.snapshot.key
    if not (key.log_size >= reader.end and reader.skip_to(key.log_size, key.log_lines)
            and reader.digest() == key.log_sha256):
        return None
    return found.snapshot


def restored_state(snapshot: Snapshot, header: Header | PlainHeader, path: str | Path,
                   status: LogStatus) -> DependencyMap | None:
    """The snapshot's state for ``header``, or None (noted in ``status``) when it is of a shape
    this version does not read; ``status`` counts its utterances as read."""
    try:
        state = DependencyMap.from_data(header, snapshot.state)
    except (ValueError, KeyError, TypeError, IndexError):  # MAC'd, yet of another shape
        status.snapshot_note = f"{path}.snapshot: snapshot ignored (not a state this version reads)"
        return None
    status.utterances = status.restored = snapshot.key.utterances
    return state


def save(path: str | Path, reader: LogReader, status: LogStatus, extensions: Iterable[str],
         state: DependencyMap) -> None:
    """Write the state read from the whole log as its snapshot, and the snapshot's index (a failure is noted
    in ``status``)."""
    key = SnapshotKey(reader.end, reader.end_line, reader.digest(), status.utterances, rules_version(),
                      extension_refs(extensions))
    data = state.to_data()
    notes = "; ".join(filter(None, (write_snapshot(path, key, data), write_index(path, key, data))))
    status.snapshot_note = notes or status.snapshot_note


def save_index(path: str | Path, reader: LogReader, key: SnapshotKey, state: DependencyMap,
               status: LogStatus) -> None:
    """Write the index of a state restored from the snapshot under ``key``, when that covers the whole log
    read by ``reader`` and the index beside the log is not that snapshot's already (a snapshot written before
    indexes were, an index removed or damaged)."""
    if status.complete and key.log_size == reader.end and not index_fits(path, key):
        status.snapshot_note = write_index(path, key, state.to_data()) or status.snapshot_note


def history_lines(path: str, key: SnapshotKey, line: LineReader) -> list[tuple[int, Kept]]:
    """The utterances a snapshot's state came from: the log's lines it covers, read now,
    and only if those bytes are still the ones the snapshot was taken from."""
    entries: list[tuple[int, Kept]] = []
    last: int | None = None
    with LogReader(path, mark=key.log_size) as reader:
        for lineno, body in reader.raw_lines():
            if reader.end > key.log_size:
                break
            u, kept = line(reader, lineno, body)
            last = assign_turn(u.turn, last)
            entries.append((last, kept))
        if reader.marked_digest != key.log_sha256:
            raise InputError("the log changed since its state was read (its first bytes differ from the "
                             "snapshot's): read it again", path=path)
    return entries
