"""Verify and Affected* of one claim answered from the snapshot's index: only the rows the walk reads.

A query command (``grounded verify LOG CLAIM``, ``affected``, ``query verify|affected``)
asks one question of a log's state.  Read from the snapshot, the state costs
what it holds (every argument made into a record); read from the index beside
the snapshot (grounded.io.snapshot_index), it costs what the question walks.
``IndexedMap`` is a ``DependencyMap`` whose arguments, claimants, reverse
index and propositions are read from the index when first looked up, so the
walks of grounded.queries (the same code as over an engine's state) read the
argument(s) carrying the claim, their Dep, the reverse index entries of what
they reach, and nothing else: the answer is the one a full replay gives
(tests/test_snapshot_index.py).

The index is used only when it fits the whole log, as a snapshot must: its
key's bytes are all the log holds (a line appended, a torn tail: the full
reading, which replays them and writes both again) and hash as they did.  A
row that does not authenticate in the middle of a walk stops it
(``IndexBroken``): the question is then asked of the engine the command would
have loaded, with a note saying the index was ignored, and the index removed
so that loading writes it again.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from sys import intern
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from grounded.core.errors import InputError
from grounded.dmap.notes import PlainHeader
from grounded.dmap.state import NONE, ArgRecord, DependencyMap, PropRecord, changed, packed
from grounded.io.reader import LogReader, LogStatus  # (not io.eventlog: a query writes no log)
from grounded.io.snapshot_index import IndexBroken, SnapshotIndex, index_path, open_index
from grounded.queries.registry import AFFECTED, VERIFY, get
from grounded.queries.walks import Walks
from grounded.solvers.ruleset import RULES_DIR_VARIABLE, rules_version

if TYPE_CHECKING:
    from grounded.engine.engine import Engine

QUERIES = (VERIFY.name, AFFECTED.name)
"""The queries answered from the index: the walks of one claim."""

V = TypeVar("V")


class LazyArgs:
    """``DependencyMap.args`` read from the index: ``args[i]`` is argument i + 1, made when first read."""

    def __init__(self, index: SnapshotIndex) -> None:
        self._index = index
        self._made: dict[int, ArgRecord] = {}

    def __len__(self) -> int:
        return self._index.args

    def __getitem__(self, i: int) -> ArgRecord:
        if i < 0:
            i += self._index.args
        record = self._made.get(i)
        if record is None:
            if not 0 <= i < self._index.args:
                raise IndexError(i)
            (a, claim, kind, speaker, turn, text, op, op_index, utterance, standing, history, deps, dep_turns,
             explains, explain_turns) = self._index.arg(i + 1)
            record = self._made[i] = ArgRecord(
                a, intern(claim), intern(kind), intern(speaker), turn, text, op, op_index, utterance, standing,
                changed(turn, [tuple(h) for h in history]), packed(deps), packed(dep_turns), packed(explains),
                packed(explain_turns))
        return record


class Names:
    """What the index holds under each name (its claimants, the arguments resting on it, their turns, its
    proposition), read once per name."""

    def __init__(self, index: SnapshotIndex) -> None:
        self._index = index
        self._rows: dict[str, tuple[Any, Any, Any, PropRecord | None] | None] = {}

    def row(self, name: str) -> tuple[Any, Any, Any, PropRecord | None] | None:
        try:
            return self._rows[name]
        except KeyError:
            found = self._index.name(name)
            if found is None:
                row = None
            else:
                claimants, rev, rev_turns, prop = found
                row = (packed(claimants), packed(rev), packed(rev_turns), None if prop is None else PropRecord(*prop))
            self._rows[name] = row
            return row


class NameView(Generic[V]):
    """One column of ``Names`` as the map's dict of it (``claimants``, ``rev``, ``rev_turns``, ``props``): a name
    with nothing in the column is not a key, as in the dict."""

    def __init__(self, names: Names, column: int) -> None:
        self._names = names
        self._column = column

    def __getitem__(self, name: str) -> V:
        row = self._names.row(name)
        if row is None or not row[self._column]:
            raise KeyError(name)
        return row[self._column]  # type: ignore[return-value]  # the column's type

    def get(self, name: str, default: Any = None) -> Any:
        row = self._names.row(name)
        return row[self._column] if row is not None and row[self._column] else default

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None


class IndexedMap(DependencyMap):
    """A dependency map whose arguments, literals and propositions are read from the index when looked up.
    Only what Verify and Affected* of a claim read is there (what the other queries read, commitments, open
    problems, attacks, is not: they are asked of an engine)."""

    def __init__(self, header: PlainHeader, index: SnapshotIndex) -> None:
        super().__init__(header)
        names = Names(index)
        self.args = LazyArgs(index)  # type: ignore[assignment]
        self.claimants = NameView(names, 0)  # type: ignore[assignment]
        self.rev = NameView(names, 1)  # type: ignore[assignment]
        self.rev_turns = NameView(names, 2)  # type: ignore[assignment]
        self.props = NameView(names, 3)  # type: ignore[assignment]
        self.attackers = NONE  # type: ignore[assignment]
        self.last_turn = index.last_turn


class IndexedAnswers(Walks):
    """What a query command asks of an engine, for Verify and Affected* of one claim, answered over an
    ``IndexedMap``: ``ask`` and ``log_status``.  A row that does not authenticate hands the question to the
    engine ``fallback`` loads (given the note to say), whose reading status is the answer's from then on."""

    __slots__ = ("_fallback", "_index", "log_status")

    def __init__(self, dm: IndexedMap, index: SnapshotIndex, status: LogStatus,
                 fallback: Callable[[str | None], Engine]) -> None:
        super().__init__(dm)
        self._index = index
        self.log_status = status
        self._fallback = fallback

    @property
    def state(self) -> DependencyMap:
        return self._dm

    def ask(self, query: str, at: int | None = None, **params: Any) -> dict[str, Any]:
        """The query's answer (only Verify and Affected* are read from the index: any other is the engine's)."""
        if query not in QUERIES:
            return self._engine(None).ask(query, at, **params)
        try:
            return get(query).ask(self, at, **params)
        except IndexBroken as exc:
            path = index_path(self.log_status.path)
            _remove(path)
            return self._engine(f"{path}: snapshot index ignored ({exc}); replaying the log").ask(query, at, **params)

    def _engine(self, note: str | None) -> Engine:
        self._index.close()
        engine = self._fallback(note)
        self.log_status = engine.log_status  # type: ignore[assignment]  # a log's engine has a status
        return engine


def indexed_answers(path: str | Path, extensions: Sequence[str | Path], allow_rules_change: bool,
                    fallback: Callable[[str | None], Engine]) -> tuple[IndexedAnswers | None, str | None]:
    """Answers from the index beside the log at ``path`` if it fits the whole log, else None, with a note when
    an index was there and could not be used (then removed, so the reading the caller falls back on writes it
    again).  A header or origin the reading would refuse is left to it (None): it says what is wrong."""
    if RULES_DIR_VARIABLE in os.environ:  # rules_version() covers the shipped rules only
        return None, None
    paths: tuple[str, ...] = ()
    refs: tuple[tuple[str, str], ...] = ()
    if extensions:  # checked as the reading checks them (which imports the engine's loading)
        from grounded.engine.loading import extension_path
        from grounded.engine.snapshots import extension_refs

        paths = tuple(extension_path(p) for p in extensions)
        refs = extension_refs(paths)
    try:
        size = os.stat(path).st_size
    except OSError:
        return None, None
    index, note = open_index(path, rules_version(), refs, size)
    if index is None:
        if note is not None:
            _remove(index_path(path))
        return None, note
    key = index.key
    try:
        with LogReader(path, digest=True, check_header=False) as reader:
            fits = (key.log_size == size and not reader.has_world and reader.skip_to(key.log_size, key.log_lines)
                    and reader.digest() == key.log_sha256)
            header, origin = reader.authenticated_header() if fits else (None, None)
    except (InputError, OSError, ValueError):  # the reading the caller falls back on says what is wrong
        fits = False
    if not fits or not isinstance(header, PlainHeader) or not _origin_holds(origin, paths, allow_rules_change, path):
        index.close()
        return None, None
    status = LogStatus(str(path), utterances=key.utterances, restored=key.utterances)
    return IndexedAnswers(IndexedMap(header, index), index, status, fallback), None


def _origin_holds(origin: Any, paths: tuple[str, ...], allow_rules_change: bool, path: str | Path) -> bool:
    """Whether the log's origin is one the reading accepts with these extensions (when not, the reading
    says why)."""
    if paths or origin.extensions:
        from grounded.engine.loading import check_origin

        try:
            check_origin(origin, paths, allow_rules_change, str(path))
        except InputError:
            return False
        return True
    return allow_rules_change or origin.rules is None or origin.rules == rules_version()


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
