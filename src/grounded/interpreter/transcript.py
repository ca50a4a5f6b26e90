"""Transcripts to interpret: plain ``speaker: text`` lines, or a scenario file.

A plain transcript has one utterance per line (``Carol: P1 incident. ...``);
blank lines and lines starting with ``#`` are skipped, and speakers are
normalised to ids (lower case, non-word characters as ``_``) so that
``Carol`` speaks as the agent ``carol`` of a header.  A scenario (``.yaml``)
gives its turns, its header and, for the replay interpreter, its gold
operations.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from grounded.core.errors import InputError
from grounded.dmap.model import Header
from grounded.io.eventlog import describe_validation_error, read_log
from grounded.scenario import SCENARIO_SUFFIXES, Scenario, ScenarioTurn

_LINE = re.compile(r"^\s*([^:]{1,80}?)\s*:\s*(.+?)\s*$")


@dataclass(frozen=True, slots=True)
class Said:
    """One utterance to interpret; ``gold`` is its scenario turn when there is one."""

    turn: int
    speaker: str
    text: str
    gold: ScenarioTurn | None = None


@dataclass(frozen=True, slots=True)
class Transcript:
    path: str
    header: Header
    turns: list[Said]


def speaker_id(name: str) -> str:
    """``Dr. Smith`` -> ``dr_smith``: a speaker name as an agent id."""
    ident = re.sub(r"\W+", "_", name.strip().lower()).strip("_")
    if not ident:
        raise ValueError(f"{name!r} has no letters or digits to name a speaker")
    return ident


def read_transcript(path: str | Path, header: Header | None = None) -> Transcript:
    """Read a transcript; ``header`` (agents, initial propositions) overrides a scenario's own."""
    path = Path(path)
    if path.suffix in SCENARIO_SUFFIXES:
        scenario = Scenario.load(path)
        said = [Said(t.turn, t.speaker, t.text, t) for t in scenario.turns]
        return Transcript(str(path), header or scenario.header, said)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read the transcript: {exc.strerror}", path=str(path)) from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"not valid UTF-8 at byte {exc.start}", path=str(path)) from exc
    turns: list[Said] = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            raise InputError("expected `speaker: text`", path=str(path), line=lineno)
        try:
            speaker = speaker_id(match.group(1))
        except ValueError as exc:
            raise InputError(str(exc), path=str(path), line=lineno) from exc
        turns.append(Said(len(turns) + 1, speaker, match.group(2)))
    if not turns:
        raise InputError("no utterances (expected lines of `speaker: text`)", path=str(path))
    return Transcript(str(path), header or Header(), turns)


def read_header(path: str | Path) -> Header:
    """A header from a scenario, an event log (its first line) or a JSON file holding one."""
    path = Path(path)
    if path.suffix in SCENARIO_SUFFIXES:
        return Scenario.load(path).header
    if path.suffix == ".jsonl":
        header, lines = read_log(path)
        lines.close()
        return header
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read the header: {exc.strerror}", path=str(path)) from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}",
                         path=str(path)) from exc
    try:
        return Header.model_validate(data)
    except ValidationError as exc:
        raise InputError("header: " + describe_validation_error(exc), path=str(path)) from exc
