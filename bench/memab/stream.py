"""One MemAB-FC fact stream, its questions, and its ingestion through the engine.

The single-hop and multi-hop files of one length share the same stream (the
loader checks this), so one engine per length serves both question sets.

Ingestion is native: each fact, in serial order, is one utterance carrying
Observe(f<serial>), with ``supersedes`` naming the current fact of the same
(relation, subject) key if there is one.  The Prolog rules abandon the old
argument; the active set is then every fact whose argument is in S_t.
``larger_serial_wins`` computes the same set straight from the parsed stream,
with no engine, as the independent check.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.datasets import memab_file
from bench.memab.facts import Fact, FactParseError, parse_fact
from bench.memab.questions import strip_note
from grounded.core.errors import InputError
from grounded.core.vocabulary import GOOD_STANDING
from grounded.engine import Engine

HOPS = ("sh", "mh")
SPEAKER = "stream"


@dataclass(frozen=True)
class Question:
    qid: str
    hop: str
    text: str
    gold: str

    @property
    def plain(self) -> str:
        return strip_note(self.text)


@dataclass
class Stream:
    length: str
    facts: list[Fact]
    questions: dict[str, list[Question]]


def load_stream(data: Path, length: str) -> Stream:
    """The stream and both question sets of one length; the fact texts are parsed once."""
    texts: list[str] | None = None
    questions: dict[str, list[Question]] = {}
    for hop in HOPS:
        path = memab_file(data, hop, length)
        raw, queries = _read(path)
        if texts is None:
            texts, first = raw, path
            try:
                facts = [parse_fact(text, serial) for serial, text in enumerate(texts)]
            except FactParseError as exc:
                raise InputError(str(exc), path=str(path)) from exc
        elif raw != texts:
            raise InputError(f"its fact stream differs from the one in {first.name} (length {length})",
                             path=str(path))
        questions[hop] = [Question(qid, hop, q["q"], q["gold"]) for qid, q in queries.items()]
    return Stream(length, facts, questions)


def _read(path: Path) -> tuple[list[str], dict]:
    """The fact texts in serial order and the probing queries of one MemAB-FC file."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))[0]
        sessions = record["sessions"]
        dated = [(int(s["date"]), s["turns"][0]) for s in sessions]
        queries = record["probing_queries"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise InputError(f"not a MemAB-FC file: {type(exc).__name__}: {exc}", path=str(path)) from exc
    if [serial for serial, _ in dated] != list(range(len(dated))):
        raise InputError("sessions[i].date must be the serial numbers 0, 1, 2, ... in order", path=str(path))
    return [text for _, text in dated], queries


def claim_of(fact: Fact) -> str:
    return f"f{fact.serial}"


def serial_of(claim: str) -> int:
    return int(claim[1:])


@dataclass
class Ingested:
    """A stream ingested through the engine: the engine, and what the ingestion saw."""

    engine: Engine
    seconds: float
    superseded: int

    def active_serials(self) -> set[int]:
        """Serials of the facts whose argument is in S_t, read from the engine's state."""
        return {serial_of(a.claim) for a in self.engine.state.args if a.standing in GOOD_STANDING}


def ingest(stream: Stream, on_fact: Callable[[int], None] | None = None) -> Ingested:
    """Feed the stream, fact by fact in serial order, to a fresh engine."""
    engine = Engine()
    current: dict[tuple[str, str], int] = {}
    superseded = 0
    start = time.perf_counter()
    for fact in stream.facts:
        op: dict = {"op": "observe", "claim": claim_of(fact), "text": fact.text}
        previous = current.get(fact.key)
        if previous is not None:
            op["supersedes"] = [f"f{previous}"]
            superseded += 1
        engine.apply({"turn": fact.serial + 1, "speaker": SPEAKER, "ops": [op]})
        current[fact.key] = fact.serial
        if on_fact is not None:
            on_fact(fact.serial)
    return Ingested(engine, time.perf_counter() - start, superseded)


def larger_serial_wins(facts: list[Fact]) -> set[int]:
    """The active set by the benchmark's rule, computed with no engine: per key, the largest serial."""
    newest: dict[tuple[str, str], int] = {}
    for fact in facts:
        if fact.serial > newest.get(fact.key, -1):
            newest[fact.key] = fact.serial
    return set(newest.values())
