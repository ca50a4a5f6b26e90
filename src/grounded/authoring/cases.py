"""Operation test files: the cases ``grounded test-op`` runs, read with their lines.

A test file (``concur.test.yaml`` beside ``concur.pl``) holds an event-log
header (``agents`` ...), the rule file it tests (``rules``, default: the file
named like it) and ``cases``.  A case is a starting state written as a short
``history`` (utterances, each accepted), one ``utterance``, and what it must
do: either ``effects`` (every effect of the utterance's operations, once each,
arguments named by their claim) or ``violations`` (the codes it is rejected
with).  Every error names the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from grounded.core.errors import InputError
from grounded.dmap.model import Header
from grounded.io.format import describe_validation_error
from grounded.scenario.file import HEADER_KEYS, load_yaml

TOP_KEYS = ("rules", "cases")
CASE_KEYS = ("name", "history", "utterance", "effects", "violations")
SUFFIX = ".test.yaml"


@dataclass
class Case:
    name: str
    line: int
    history: list[dict]
    utterance: dict
    effects: set[str] | None
    """Expected effects, written as ``effect_name(value, ...)`` (spaces ignored); None: a rejection."""
    violations: set[str]


@dataclass
class OpTests:
    path: str
    rules: Path
    header: Header
    cases: list[Case]


def tests_beside(rule_file: Path) -> Path:
    """``concur.pl`` -> ``concur.test.yaml``."""
    return rule_file.with_name(rule_file.stem + SUFFIX)


def canonical(effect: str) -> str:
    """An effect as written in a test file, as compared: without spaces."""
    return re.sub(r"\s+", "", effect)


def load_cases(path: str | Path) -> OpTests:
    """Read a test file; a malformed one is an InputError naming the file, the line and the key."""
    path = str(path)
    data = load_yaml(path, "operation test file")
    line = getattr(data, "line", None)
    if not isinstance(data, dict):
        raise InputError("an operation test file is a mapping with a header, `rules` and `cases`", path=path)
    if unknown := sorted(set(data) - set(HEADER_KEYS) - set(TOP_KEYS)):
        raise InputError(f"unknown top-level keys {unknown} (known: {[*HEADER_KEYS, *TOP_KEYS]})",
                         path=path, line=line)
    try:
        header = Header.model_validate({k: data[k] for k in HEADER_KEYS if k in data})
    except ValidationError as exc:
        raise InputError("header: " + describe_validation_error(exc), path=path, line=line) from exc
    default = Path(path).name.removesuffix(SUFFIX).removesuffix(".yaml") + ".pl"
    rules = data.get("rules", default)
    if not isinstance(rules, str):
        raise InputError(f"`rules` names one rule file, not {rules!r}", path=path, line=line)
    rules_path = Path(path).parent / rules
    if not rules_path.is_file():
        raise InputError(f"rules: no such rule file {rules_path}", path=path, line=line)
    cases = data.get("cases")
    if not isinstance(cases, list) or not cases:
        raise InputError("`cases` must be a non-empty list", path=path, line=line)
    read = [_case(path, c, line or 0) for c in cases]
    names = [c.name for c in read]
    if dup := sorted({n for n in names if names.count(n) > 1}):
        raise InputError(f"two cases are named {dup[0]!r}: give each its own name", path=path, line=line)
    return OpTests(path, rules_path, header, read)


def _case(path: str, c: Any, outer: int) -> Case:
    line = getattr(c, "line", outer)
    if not isinstance(c, dict):
        raise InputError(f"a case is a mapping with {list(CASE_KEYS)}, not {c!r}", path=path, line=line)
    if unknown := sorted(set(c) - set(CASE_KEYS)):
        raise InputError(f"case: unknown keys {unknown} (known: {list(CASE_KEYS)})", path=path, line=line)
    for key in ("name", "utterance"):
        if key not in c:
            raise InputError(f"case: missing `{key}`", path=path, line=line)
    name = str(c["name"])
    if ("effects" in c) == ("violations" in c):
        raise InputError(f"case {name!r}: give exactly one of `effects` (it is accepted) and `violations` "
                         "(it is rejected)", path=path, line=line)
    history = c.get("history") or []
    if not isinstance(history, list) or not all(isinstance(u, dict) for u in history):
        raise InputError(f"case {name!r}: `history` is a list of utterances", path=path, line=line)
    if not isinstance(c["utterance"], dict):
        raise InputError(f"case {name!r}: `utterance` is one utterance ({{speaker: ..., ops: [...]}})",
                         path=path, line=line)
    expected = c.get("effects", c.get("violations"))
    if not isinstance(expected, list) or not all(isinstance(x, str) for x in expected):
        raise InputError(f"case {name!r}: `{'effects' if 'effects' in c else 'violations'}` is a list of texts",
                         path=path, line=line)
    if "violations" in c and not expected:
        raise InputError(f"case {name!r}: `violations` names at least one code", path=path, line=line)
    effects = {canonical(e) for e in _rejoined(expected, path, line, name)} if "effects" in c else None
    return Case(name, line, [dict(u) for u in history], dict(c["utterance"]), effects,
                set() if effects is not None else set(expected))


def _rejoined(items: list[str], path: str, line: int, case: str) -> list[str]:
    """Effects as written: a YAML flow list splits ``[commit(ben, o1)]`` at its comma, so the
    pieces of one effect (parentheses not yet closed) are joined again."""
    out: list[str] = []
    pending: list[str] = []
    for item in items:
        pending.append(item)
        depth = sum(piece.count("(") - piece.count(")") for piece in pending)
        if depth < 0:
            raise InputError(f"case {case!r}: effect {', '.join(pending)!r}: a ')' without its '('",
                             path=path, line=line)
        if depth == 0:
            out.append(", ".join(pending))
            pending = []
    if pending:
        raise InputError(f"case {case!r}: effect {', '.join(pending)!r}: a '(' without its ')'", path=path,
                         line=line)
    return out
