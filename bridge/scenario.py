"""Scenario files: a conversation with gold operations and expected results.

A scenario (YAML) carries the event-log header, then ``turns`` (each an
utterance plus the paper's ``labels`` and optional ``expect`` checks run after
it) and a final ``expect`` list.  Each check is a mapping with one key naming
it (see ``CHECKS``) and an optional ``at`` turn to look back to.  Errors name
the file and line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from .engine import Engine, Update
from .epistemic.checks import EPISTEMIC_CHECKS
from .epistemic.checks import validate as validate_epistemic
from .errors import InputError, PreconditionError
from .eventlog import describe_validation_error
from .model import Header

SCENARIO_SUFFIXES = (".yaml", ".yml")
"""What a scenario file is called; anything else is read as an event log."""
HEADER_KEYS = ("grounded", "agents", "props", "acyclic", "world")


class _Mapping(dict):
    line = 0


class _Loader(yaml.SafeLoader):
    """A YAML loader that remembers the line of every mapping, for error messages."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> _Mapping:
    mapping = _Mapping(loader.construct_mapping(node, deep=True))
    mapping.line = node.start_mark.line + 1
    return mapping


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


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
        try:
            with open(path, encoding="utf-8") as handle:
                data = yaml.load(handle, Loader=_Loader)  # noqa: S506 - SafeLoader subclass
        except OSError as exc:
            raise InputError(f"cannot read the scenario: {exc.strerror}", path=path) from exc
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            raise InputError(f"invalid YAML: {getattr(exc, 'problem', exc)}", path=path,
                             line=mark.line + 1 if mark else None) from exc
        if not isinstance(data, dict):
            raise InputError("a scenario is a mapping with a header and `turns`", path=path)
        unknown = set(data) - set(HEADER_KEYS) - {"title", "description", "turns", "expect", "key_shifts"}
        if unknown:
            raise InputError(f"unknown top-level keys {sorted(unknown)}", path=path, line=data.line)
        try:
            header = Header.model_validate({k: data[k] for k in HEADER_KEYS if k in data})
        except ValidationError as exc:
            raise InputError("header: " + describe_validation_error(exc), path=path, line=data.line) from exc
        turns = [_turn(path, t) for t in _list(path, data, "turns")]
        final = _checks(path, data.get("expect") or [], data.line)
        for check in final:
            if check.kind == "rejected":
                raise InputError("`rejected` checks a turn: put it in that turn's expect", path=path,
                                 line=check.line)
        key_shifts = data.get("key_shifts") or []
        if not isinstance(key_shifts, list) or not all(isinstance(t, int) for t in key_shifts):
            raise InputError("`key_shifts` must be a list of turn numbers", path=path, line=data.line)
        known = {t.turn for t in turns}
        if missing := [t for t in key_shifts if t not in known]:
            raise InputError(f"`key_shifts` names turns the scenario does not have: {missing}", path=path,
                             line=data.line)
        return cls(path, str(data.get("title", Path(path).stem)), header, turns, final, key_shifts)


def _list(path: str, data: _Mapping, key: str) -> list:
    value = data.get(key)
    if not isinstance(value, list):
        raise InputError(f"`{key}` must be a list", path=path, line=data.line)
    return value


def _turn(path: str, t: Any) -> ScenarioTurn:
    if not isinstance(t, dict):
        raise InputError("each turn is a mapping with turn, speaker, text, ops", path=path)
    line = getattr(t, "line", None)
    unknown = set(t) - {"turn", "speaker", "text", "labels", "ops", "expect"}
    if unknown:
        raise InputError(f"turn: unknown keys {sorted(unknown)}", path=path, line=line)
    for key in ("turn", "speaker"):
        if key not in t:
            raise InputError(f"turn: missing `{key}`", path=path, line=line)
    if not isinstance(t["turn"], int):
        raise InputError(f"turn: `turn` must be an integer, not {t['turn']!r}", path=path, line=line)
    ops = t.get("ops") or []
    if not isinstance(ops, list):
        raise InputError(f"turn {t['turn']}: `ops` must be a list", path=path, line=line)
    return ScenarioTurn(t["turn"], str(t["speaker"]), str(t.get("text", "")),
                        [str(x) for x in t.get("labels") or []], ops,
                        _checks(path, t.get("expect") or [], line), line or 0)


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
        if at is not None and not isinstance(at, int):
            raise InputError(f"`at` must be a turn number, not {at!r}", path=path, line=where)
        if keys[0] in EPISTEMIC_CHECKS:
            try:
                validate_epistemic(keys[0], item[keys[0]])
            except ValueError as exc:
                raise InputError(str(exc), path=path, line=where) from None
        checks.append(Check(keys[0], item[keys[0]], at, where or 0))
    return checks


# -- checks: each returns (passed, description) ---------------------------------------

def _names(spec: Any) -> list[str]:
    return list(spec) if isinstance(spec, (list, dict)) else [spec]


def _check_standing(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    got = {c: e.standing(c, at) for c in spec}
    return got == dict(spec), f"standing {_fmt(spec)}" + ("" if got == dict(spec) else f" (got {_fmt(got)})")


def _check_grounded(e: Engine, spec: list, at: int | None) -> tuple[bool, str]:
    bad = {c: e.verify(c, at).reason for c in _names(spec) if not e.verify(c, at).grounded}
    return not bad, f"grounded {', '.join(_names(spec))}" + ("" if not bad else f" (not: {bad})")


def _check_ungrounded(e: Engine, spec: Any, at: int | None) -> tuple[bool, str]:
    wanted = spec if isinstance(spec, dict) else {c: "" for c in _names(spec)}
    problems = []
    for claim, reason in wanted.items():
        v = e.verify(claim, at)
        if v.grounded:
            problems.append(f"{claim} is grounded")
        elif reason and reason not in (v.reason or ""):
            problems.append(f"{claim}: reason {v.reason!r}")
    desc = "ungrounded " + ", ".join(f"{c} ({r!r})" if r else c for c, r in wanted.items())
    return not problems, desc + ("" if not problems else f" ({'; '.join(problems)})")


def _check_no_anchor(e: Engine, spec: list, at: int | None) -> tuple[bool, str]:
    bad = [c for c in _names(spec) if e.verify(c, at).status != "no_anchor"]
    return not bad, f"no anchor for {', '.join(_names(spec))}" + ("" if not bad else f" (anchored: {bad})")


def _check_chain(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    got = {c: list(e.verify(c, at).chain) for c in spec}
    ok = got == {c: list(v) for c, v in spec.items()}
    return ok, f"chain {_fmt(spec)}" + ("" if ok else f" (got {_fmt(got)})")


def _check_dep(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    got = {c: e.dep(c, at) for c in spec}
    ok = all(set(got[c]) == set(v) for c, v in spec.items())
    return ok, f"Dep {_fmt(spec)}" + ("" if ok else f" (got {_fmt(got)})")


def _check_affected(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    closure = spec.get("closure", True)
    result = e.affected(spec["of"], closure, at)
    name = f"Affected{'*' if closure else ''}({spec['of']})"
    problems = []
    if "claims" in spec and set(result.claims) != set(spec["claims"]):
        problems.append(f"got {result.claims}")
    if "lose_support" in spec and set(result.lose_support) != set(spec["lose_support"]):
        problems.append(f"lose support {result.lose_support}")
    if "hops" in spec and result.claim_hops != dict(spec["hops"]):
        problems.append(f"hops {result.claim_hops}")
    desc = f"{name} = {{{', '.join(spec.get('claims', result.claims))}}}"
    if "hops" in spec:
        desc += f" hops {_fmt(spec['hops'])}"
    return not problems, desc + ("" if not problems else f" ({'; '.join(problems)})")


def _check_not_affected(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    closure = spec.get("closure", True)
    got = set(e.affected(spec["of"], closure, at).claims)
    hit = [c for c in spec["claims"] if c in got]
    return not hit, (f"untouched by Affected{'*' if closure else ''}({spec['of']}): "
                     f"{', '.join(spec['claims'])}" + ("" if not hit else f" (affected: {hit})"))


def retraction_score(e: Engine, hypotheses: list[str], gold: dict[str, list[str]], closure: bool,
                     at: int | None = None) -> dict[str, int]:
    """Score affected/unaffected decisions against gold dependents (the paper's 16/16 vs 12/16)."""
    score = dict(decisions=0, correct=0, exact=0, queries=len(gold), tp=0, fp=0, fn=0)
    hyps = set(hypotheses)
    for literal, dependents in gold.items():
        got = set(e.affected(literal, closure, at).claims) & hyps
        want = set(dependents)
        score["decisions"] += len(hyps)
        score["correct"] += sum((h in got) == (h in want) for h in hyps)
        score["exact"] += got == want
        score["tp"] += len(got & want)
        score["fp"] += len(got - want)
        score["fn"] += len(want - got)
    return score


def _check_retraction(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    closure = spec.get("closure", True)
    s = retraction_score(e, spec["hypotheses"], spec["gold"], closure, at)
    wanted = {k: spec[k] for k in ("correct", "exact", "tp", "fp", "fn") if k in spec}
    ok = all(s[k] == v for k, v in wanted.items())
    desc = (f"retraction with {'Affected*' if closure else 'one-step Affected'}: "
            f"{s['correct']}/{s['decisions']} decisions, {s['exact']}/{s['queries']} exact, "
            f"TP/FP/FN {s['tp']}/{s['fp']}/{s['fn']}")
    return ok, desc + ("" if ok else f" (expected {_fmt(wanted)})")


def _includes_excludes(label: str, got: list[str], spec: dict) -> tuple[bool, str]:
    missing = [c for c in spec.get("includes", []) if c not in got]
    extra = [c for c in spec.get("excludes", []) if c in got]
    parts = []
    if spec.get("includes"):
        parts.append(f"includes {', '.join(spec['includes'])}")
    if spec.get("excludes"):
        parts.append(f"excludes {', '.join(spec['excludes'])}")
    desc = f"{label} {' and '.join(parts)}"
    if missing or extra:
        desc += f" (got {got})"
    return not (missing or extra), desc


def _check_commitments(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    cm = e.commitments(at)
    results = [_includes_excludes(f"Cm({agent})", cm.get(agent, []), want) for agent, want in spec.items()]
    return all(ok for ok, _ in results), "; ".join(d for _, d in results)


def _check_open_problems(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    return _includes_excludes("open problems", e.open_problems(at), spec)


def _check_reinstatable(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    claims = [e.state.arg(i).claim for i in e.reinstatable(at)]
    return _includes_excludes("reinstatable", claims, spec)


def _check_dissent(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    got = e.dissent(at)
    ok = all(set(got.get(d, [])) == set(agents) for d, agents in spec.items())
    return ok, f"dissent {_fmt(spec)}" + ("" if ok else f" (got {_fmt(got)})")


def _check_rejected_elsewhere(e: Engine, spec: Any, at: int | None) -> tuple[bool, str]:
    raise AssertionError("`rejected` is checked by the runner, against the turn's own utterance")


CHECKS: dict[str, Callable[[Engine, Any, int | None], tuple[bool, str]]] = {
    "standing": _check_standing,
    "grounded": _check_grounded,
    "ungrounded": _check_ungrounded,
    "no_anchor": _check_no_anchor,
    "chain": _check_chain,
    "dep": _check_dep,
    "affected": _check_affected,
    "not_affected": _check_not_affected,
    "retraction": _check_retraction,
    "commitments": _check_commitments,
    "open_problems": _check_open_problems,
    "reinstatable": _check_reinstatable,
    "dissent": _check_dissent,
    "rejected": _check_rejected_elsewhere,
    **EPISTEMIC_CHECKS,
}


def _fmt(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_fmt(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


# -- running ---------------------------------------------------------------------

@dataclass
class CheckResult:
    passed: bool
    description: str
    line: int
    at: int | None

    def __str__(self) -> str:
        when = "" if self.at is None else f" at T{self.at}"
        return f"{'PASS' if self.passed else 'FAIL'} {self.description}{when}"


@dataclass
class TurnOutcome:
    turn: ScenarioTurn | None  # None: the final checks
    update: Update | None
    rejection: PreconditionError | None
    checks: list[CheckResult]


def evaluate(engine: Engine, checks: list[Check], path: str) -> list[CheckResult]:
    results = []
    for check in checks:
        try:
            passed, description = CHECKS[check.kind](engine, check.spec, check.at)
        except InputError as exc:
            passed, description = False, f"{check.kind}: {exc}"
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise InputError(f"malformed `{check.kind}` check: {exc!r}", path=path, line=check.line) from exc
        results.append(CheckResult(passed, description, check.line, check.at))
    return results


def run(scenario: Scenario, engine: Engine | None = None) -> Iterator[TurnOutcome]:
    """Replay the scenario's gold operations turn by turn, checking expectations.

    A turn expecting ``rejected: [codes]`` must be rejected with exactly those
    codes, and the run continues with the state unchanged.
    """
    engine = engine or Engine(scenario.header)
    for turn in scenario.turns:
        rejected = [c for c in turn.expect if c.kind == "rejected"]
        checks = [c for c in turn.expect if c.kind != "rejected"]
        update, rejection, results = None, None, []
        try:
            update = engine.apply(turn.utterance())
        except PreconditionError as exc:
            rejection = exc
        except InputError as exc:
            raise InputError(f"turn {turn.turn}: {exc.detail}", path=scenario.path, line=turn.line) from exc
        if rejection is not None and not rejected:
            raise InputError(f"turn {turn.turn} was rejected: {rejection}", path=scenario.path, line=turn.line)
        for check in rejected:
            got = sorted(set(rejection.codes)) if rejection else []
            want = sorted(set(_names(check.spec)))
            results.append(CheckResult(got == want, f"rejected with {', '.join(want)}"
                                       + ("" if got == want else f" (got {got or 'accepted'})"),
                                       check.line, None))
        results.extend(evaluate(engine, checks, scenario.path))
        yield TurnOutcome(turn, update, rejection, results)
    yield TurnOutcome(None, None, None, evaluate(engine, scenario.expect, scenario.path))
