"""Scenario files: a conversation with gold operations and expected results.

A scenario (YAML) carries the event-log header, then ``turns`` (each an
utterance plus the paper's ``labels`` and optional ``expect`` checks run after
it) and a final ``expect`` list.  Each check is a mapping with one key naming
it (see ``CHECKS``) and an optional ``at`` turn to look back to.  Errors name
the file and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from grounded.core.bounds import MAX_YAML_DEPTH
from grounded.core.errors import InputError
from grounded.core.vocabulary import SCENARIO_SUFFIXES  # noqa: F401 - grounded.scenario re-exports it
from grounded.dmap.model import Header
from grounded.io.eventlog import describe_validation_error
from grounded.scenario.checks import CHECKS
from grounded.scenario.epistemic import EPISTEMIC_CHECKS
from grounded.scenario.epistemic import validate as validate_epistemic
from grounded.scenario.questions import QUESTION_KEYS, Question, normalise, parse_query

HEADER_KEYS = ("grounded", "agents", "props", "acyclic", "world")
TOP_KEYS = ("title", "description", "turns", "expect", "key_shifts")
"""The keys of a scenario besides the header's (docs/scenarios.md describes each; a test holds it to these)."""
TURN_KEYS = ("turn", "speaker", "text", "labels", "ops", "expect", "note", "questions")


class _Mapping(dict):
    line = 0


class NoAliasLoader(yaml.SafeLoader):
    """PyYAML's safe loader refusing aliases at their line: nine nested aliases in a 484-byte
    file expand to gigabytes, and none of the YAML files grounded reads needs them.  It also refuses
    nesting deeper than MAX_YAML_DEPTH at the line where it goes too deep: PyYAML composes and
    constructs by recursion, and 400 levels (806 bytes of brackets) exhaust Python's stack."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, f"alias *{event.anchor} is not allowed "
                                              "(write the value out)", event.start_mark)
        if self._depth >= MAX_YAML_DEPTH and self.check_event(yaml.CollectionStartEvent):
            raise yaml.composer.ComposerError(None, None, f"nested more than {MAX_YAML_DEPTH} levels deep",
                                              self.peek_event().start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Loader(NoAliasLoader):
    """A YAML loader that remembers the line of every mapping, for error messages."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> _Mapping:
    mapping = _Mapping(loader.construct_mapping(node, deep=True))
    mapping.line = node.start_mark.line + 1
    return mapping


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml(path: str, what: str) -> Any:
    """A YAML file whose mappings know their line (``getattr(m, "line")``), aliases refused;
    a file that cannot be read or parsed is an InputError naming ``what`` it should be."""
    try:
        with open(path, encoding="utf-8") as handle:
            return yaml.load(handle, Loader=_Loader)  # noqa: S506 - SafeLoader subclass
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror}", path=path) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(f"invalid YAML: {getattr(exc, 'problem', exc)}", path=path,
                         line=mark.line + 1 if mark else None) from exc


@dataclass
class Check:
    kind: str
    spec: Any
    at: int | None
    line: int


@dataclass
class ScenarioTurn:
    turn: int
    speaker: str
    text: str
    labels: list[str]
    ops: list[dict]
    expect: list[Check]
    line: int
    note: str = ""
    """A lecturer's note on the turn: shown by `grounded run` and on the page, never given to the engine."""
    questions: list[Question] = field(default_factory=list)
    """Questions for the class after this turn (scenario/questions.py): the page holds the engine's answer back."""

    def utterance(self) -> dict:
        u = {"turn": self.turn, "speaker": self.speaker, "text": self.text, "ops": self.ops}
        if self.labels:
            u["labels"] = self.labels
        return u


@dataclass
class Scenario:
    path: str
    title: str
    header: Header
    turns: list[ScenarioTurn]
    expect: list[Check] = field(default_factory=list)
    key_shifts: list[int] = field(default_factory=list)
    """The turns at which standing or awareness changes (scored separately by ``grounded score``)."""

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        path = str(path)
        data = load_yaml(path, "scenario")
        if not isinstance(data, _Mapping):
            raise InputError("a scenario is a mapping with a header and `turns`", path=path)
        unknown = set(data) - set(HEADER_KEYS) - set(TOP_KEYS)
        if unknown:
            raise InputError(f"unknown top-level keys {sorted(unknown)}", path=path, line=data.line)
        try:
            header = Header.model_validate({k: data[k] for k in HEADER_KEYS if k in data})
        except ValidationError as exc:
            raise InputError("header: " + describe_validation_error(exc), path=path, line=data.line) from exc
        named = {str(p.id) for p in header.props}
        turns = [_turn(path, t, named) for t in _list(path, data, "turns")]
        final = _checks(path, data.get("expect") or [], data.line)
        for check in final:
            if check.kind == "rejected":
                raise InputError("`rejected` checks a turn: put it in that turn's expect", path=path,
                                 line=check.line)
        key_shifts = data.get("key_shifts") or []
        if not isinstance(key_shifts, list) or not all(_is_turn(t) for t in key_shifts):
            raise InputError("`key_shifts` must be a list of turn numbers", path=path, line=data.line)
        known = {t.turn for t in turns}
        if missing := [t for t in key_shifts if t not in known]:
            raise InputError(f"`key_shifts` names turns the scenario does not have: {missing}", path=path,
                             line=data.line)
        return cls(path, str(data.get("title", Path(path).stem)), header, turns, final, key_shifts)


def _is_turn(value: Any) -> bool:
    """An integer written as one: YAML's ``true`` is a bool, which Python would count as turn 1."""
    return isinstance(value, int) and not isinstance(value, bool)


def _list(path: str, data: _Mapping, key: str) -> list:
    value = data.get(key)
    if not isinstance(value, list):
        raise InputError(f"`{key}` must be a list", path=path, line=data.line)
    return value


def _turn(path: str, t: Any, known: set[str]) -> ScenarioTurn:
    """One turn; ``known`` (the literals named so far) grows by the literals its operations name."""
    if not isinstance(t, dict):
        raise InputError("each turn is a mapping with turn, speaker, text, ops", path=path)
    line = getattr(t, "line", None)
    unknown = set(t) - set(TURN_KEYS)
    if unknown:
        raise InputError(f"turn: unknown keys {sorted(unknown)}", path=path, line=line)
    for key in ("turn", "speaker"):
        if key not in t:
            raise InputError(f"turn: missing `{key}`", path=path, line=line)
    if not _is_turn(t["turn"]):
        raise InputError(f"turn: `turn` must be an integer, not {t['turn']!r}", path=path, line=line)
    ops = t.get("ops") or []
    if not isinstance(ops, list):
        raise InputError(f"turn {t['turn']}: `ops` must be a list", path=path, line=line)
    note = t.get("note", "")
    if not isinstance(note, str):
        raise InputError(f"turn {t['turn']}: `note` must be a text, not {note!r}", path=path, line=line)
    known.update(_literals(ops))
    return ScenarioTurn(t["turn"], str(t["speaker"]), str(t.get("text", "")),
                        [str(x) for x in t.get("labels") or []], ops,
                        _checks(path, t.get("expect") or [], line), line or 0, note,
                        _questions(path, t["turn"], t.get("questions") or [], line, known))


def _literals(ops: list) -> set[str]:
    """Every name an operation's fields give (its text aside): what a question may ask about."""
    names: set[str] = set()
    for op in ops:
        for key, value in op.items() if isinstance(op, dict) else ():
            if key in ("op", "text"):
                continue
            values = value if isinstance(value, list) else [value]
            names.update(v for v in values if isinstance(v, str))
    return names


def _questions(path: str, turn: int, items: Any, line: int | None, known: set[str]) -> list[Question]:
    """A turn's questions, each asking one query about a literal the conversation has named by then."""
    if not isinstance(items, list):
        raise InputError(f"turn {turn}: `questions` must be a list of {{ask, query}}", path=path, line=line)
    out = []
    for item in items:
        where = getattr(item, "line", line)
        if not isinstance(item, dict) or "ask" not in item or "query" not in item:
            raise InputError(f"turn {turn}: a question is a mapping {{ask: TEXT, query: QUERY, answer: optional}}, "
                             f"not {item!r}", path=path, line=where)
        if unknown := set(item) - set(QUESTION_KEYS):
            raise InputError(f"turn {turn}: question: unknown keys {sorted(unknown)}", path=path, line=where)
        if not isinstance(item["ask"], str) or not item["ask"].strip():
            raise InputError(f"turn {turn}: question: `ask` must be a text", path=path, line=where)
        try:
            kind, literal = parse_query(item["query"])
            question = Question(item["ask"], kind, literal, line=where or 0)
            if "answer" in item:
                question.answer = normalise(question.shape, item["answer"])
        except ValueError as exc:
            raise InputError(f"turn {turn}: question: {exc}", path=path, line=where) from None
        if literal not in known:
            raise InputError(f"turn {turn}: question: `query` asks about {literal!r}, which no operation "
                             "up to this turn names (nor the header's props)", path=path, line=where)
        out.append(question)
    return out


def _checks(path: str, items: Any, line: int | None) -> list[Check]:
    if not isinstance(items, list):
        raise InputError("`expect` must be a list of checks", path=path, line=line)
    checks = []
    for item in items:
        where = getattr(item, "line", line)
        if not isinstance(item, dict):
            raise InputError(f"a check is a mapping such as {{grounded: [h1]}}, not {item!r}",
                             path=path, line=where)
        at = item.get("at")
        keys = [k for k in item if k != "at"]
        if len(keys) != 1 or keys[0] not in CHECKS:
            raise InputError(f"a check names exactly one of {sorted(CHECKS)} (got {keys})",
                             path=path, line=where)
        if at is not None and not _is_turn(at):
            raise InputError(f"`at` must be a turn number, not {at!r}", path=path, line=where)
        if keys[0] == "rejected" and not _codes_or_true(item["rejected"]):
            raise InputError("`rejected` takes true (any rejection), a code or a list of codes, "
                             f"not {item['rejected']!r}", path=path, line=where)
        if keys[0] in EPISTEMIC_CHECKS:
            try:
                validate_epistemic(keys[0], item[keys[0]])
            except ValueError as exc:
                raise InputError(str(exc), path=path, line=where) from None
        checks.append(Check(keys[0], item[keys[0]], at, where or 0))
    return checks


def _codes_or_true(spec: Any) -> bool:
    if spec is True or (isinstance(spec, str) and spec):
        return True
    return isinstance(spec, list) and bool(spec) and all(isinstance(code, str) and code for code in spec)
