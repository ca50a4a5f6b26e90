"""``grounded test-op``: each case of a test file, run against the Prolog operation and its
ASP twin, the first difference named.

A case's history and utterance go through an ``Engine`` with the rule file
(the Prolog side) and, as candidate utterances, through ``asp/history.lp``
with the twin beside it (the ASP side, as ``grounded check`` grounds it).
Each side's answer for the utterance (accepted with its effects, or rejected
with its codes) is held to what the case expects, then the whole case is
checked three ways by ``check_history``.  So an effect both files forget is
caught by the case that names it, and a twin that lacks a precondition or an
effect by the side that differs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grounded.authoring.cases import Case, OpTests, canonical, load_cases, tests_beside
from grounded.core.errors import InputError, PreconditionError
from grounded.crosscheck.check import asp_twins, check_history
from grounded.crosscheck.events import asp_transitions, prolog_transitions
from grounded.crosscheck.locate import Locations
from grounded.dmap.model import Header
from grounded.engine import Engine
from grounded.solvers import facts as F
from grounded.solvers.history import OneShotHistory


@dataclass
class Answer:
    """One side's answer for a case's utterance."""

    accepted: bool
    codes: set[str] = field(default_factory=set)
    effects: set[str] = field(default_factory=set)


@dataclass
class CaseResult:
    case: Case
    ops: list[str]
    difference: str | None
    """The first difference, or None: the case passes."""

    @property
    def passed(self) -> bool:
        return self.difference is None


def locate(path: str | Path) -> Path:
    """The test file for ``path``: itself, or the one beside a rule file (``concur.pl``)."""
    path = Path(path)
    if path.suffix == ".pl":
        beside = tests_beside(path)
        if not beside.is_file():
            raise InputError(f"no test file {beside.name} beside it (grounded new-op writes one)", path=str(path))
        return beside
    return path


def run_op_tests(path: str | Path, extensions: Sequence[str | Path] = ()) -> tuple[OpTests, Iterator[CaseResult]]:
    """The test file read (an InputError if malformed or if the rule file has no twin) and its cases,
    run one at a time as the iterator is read.  ``extensions``: other rule files the cases use."""
    tests = load_cases(locate(path))
    rules = [*map(Path, extensions), tests.rules]
    if not tests.rules.with_suffix(".lp").is_file():
        raise InputError(f"no ASP twin {tests.rules.with_suffix('.lp').name} beside {tests.rules.name}: "
                         "test-op holds the operation to its twin", path=tests.path)
    return tests, (run_case(tests.header, rules, case, tests.path) for case in tests.cases)


def run_case(header: Header, rules: list[Path], case: Case, path: str = "cases") -> CaseResult:
    engine = Engine(header, extensions=rules)
    twins, _ = asp_twins(rules)
    asp = OneShotHistory(header, engine.registry, twins)
    history = [{**u, "turn": u.get("turn", n)} for n, u in enumerate(case.history, 1)]
    utterance = {**case.utterance, "turn": case.utterance.get("turn", len(history) + 1)}
    where = f'case "{case.name}"'
    for n, u in enumerate(history, 1):
        try:
            engine.apply(u)
        except PreconditionError as exc:
            raise InputError(f"{where}: history utterance {n} is rejected: {exc}", path=path, line=case.line) from exc
        except InputError as exc:
            raise InputError(f"{where}: history utterance {n}: {exc.detail}", path=path, line=case.line) from exc
        asp.add(u, engine.last_verdicts, None)
    try:
        update = engine.apply(utterance)
    except PreconditionError as exc:
        prolog = Answer(False, {v.code for v in exc.violations})
    except InputError as exc:
        raise InputError(f"{where}: utterance: {exc.detail}", path=path, line=case.line) from exc
    else:
        prolog = Answer(True, effects=_named(prolog_transitions(update.effects), _names(engine)))
    ops = [op.op for op in engine.registry.utterance(utterance).ops]
    asp.add(utterance, engine.last_verdicts, None)
    answer = asp.solve()
    engine.close()
    *before, last = answer.candidates
    for c in before:
        if c.u not in answer.accepted:
            codes = sorted(code for _, code in answer.violations.get(c.u, set()))
            return CaseResult(case, ops, f"history utterance {c.u}: Prolog accepts it but ASP rejects it {codes}")
    accepted = last.u in answer.accepted
    asp_answer = Answer(accepted, {code for _, code in answer.violations.get(last.u, set())},
                        _named(asp_transitions(answer).get(last.u, {}), _asp_names(answer)) if accepted else set())
    first = _first_difference(case, prolog, asp_answer)
    difference = None if first is None else first[0] + _decided_at(case, ops, rules, first[1])
    if difference is None:
        report = check_history(header, [*history, utterance], rules, label=path)
        if report.mismatches:
            difference = f"three-way check: {report.mismatches[0]}"
    return CaseResult(case, ops, difference)


# -- naming effects as a test file writes them -----------------------------------------------


def _names(engine: Engine) -> dict[Any, str]:
    """Argument id -> its claim (``claim@turn`` when several arguments claim it)."""
    return _claim_names({r.id: (r.claim, r.turn) for r in engine.state.args})


def _asp_names(answer: Any) -> dict[Any, str]:
    ids = answer.arg_id
    return _claim_names({ids.get(a.a, ("step", a.a)): (a.claim, a.turn) for a in answer.facts.query(F.FArg).all()})


def _claim_names(args: dict[Any, tuple[str, int]]) -> dict[Any, str]:
    claims = [claim for claim, _ in args.values()]
    return {a: claim if claims.count(claim) == 1 else f"{claim}@{turn}" for a, (claim, turn) in args.items()}


def _named(transitions: dict[int, Any], names: dict[Any, str]) -> set[str]:
    """The effects of the utterance's operations (not its turn, nor the open problems the driver re-decides)."""
    out = set()
    for index, effects in transitions.items():
        for name, *values in effects if index >= 0 else ():
            if name == "problem":
                continue
            if name == "new_arg":
                values = values[1:]  # the id: the argument is named by its claim
            kinds = F.EFFECTS.get(name, ("text",) * len(values))
            shown = [_value(kind, v, names) for kind, v in zip(kinds, values, strict=False)]
            out.add(canonical(f"{name}({', '.join(shown)})"))
    return out


def _value(kind: str, value: Any, names: dict[Any, str]) -> str:
    if kind == "arg":
        return "none" if value is None else names.get(value, str(value))
    if kind == "cause":
        return "none" if value is None else f"by({value})"
    return str(value)


def shown(effect: str) -> str:
    """A canonical effect as printed: a space after each comma."""
    return effect.replace(",", ", ")


# -- the first difference ----------------------------------------------------------------------


def _side_difference(case: Case, side: str, got: Answer) -> tuple[str, str] | None:
    """(sort key, message) of the first way ``got`` differs from the case."""
    if case.effects is None:
        if got.accepted:
            return ("0", f"expected rejection with {sorted(case.violations)}, {side}: accepted")
        return _first(case.violations, got.codes, side, "violation")
    if not got.accepted:
        return ("0", f"expected acceptance, {side}: rejected with {sorted(got.codes)}")
    return _first(case.effects, got.effects, side, "effect")


def _first(expected: set[str], got: set[str], side: str, what: str) -> tuple[str, str] | None:
    differing = sorted(expected ^ got)
    if not differing:
        return None
    item = differing[0]
    if item in expected:
        return (item, f"expected {what} {shown(item)}, {side}: absent")
    return (item, f"{side}: {what} {shown(item)}, not expected")


def _first_difference(case: Case, prolog: Answer, asp: Answer) -> tuple[str, str] | None:
    """(message, the differing code or effect) of the first difference of either side from the case;
    one message when both differ alike."""
    p, a = _side_difference(case, "Prolog", prolog), _side_difference(case, "ASP", asp)
    if p is not None and a is not None and p[1].replace("Prolog", "ASP") == a[1]:
        return p[1].replace("Prolog", "Prolog and ASP"), p[0]
    found = [d for d in (p, a) if d is not None]
    if not found:
        return None
    key, message = min(found)
    return message, key


def _decided_at(case: Case, ops: list[str], rules: list[Path], item: str) -> str:
    """Where the differing code or effect is decided, in the rule file and its twin ('' when no
    clause of the case's operations names it, or the difference is acceptance itself)."""
    kind = "violation" if case.effects is None else "effect"
    name = item.split("(", 1)[0]
    if not name or name == "0":
        return ""
    locations = Locations(rules)
    for op in dict.fromkeys(ops):
        if locations.knows(kind, op, name):
            return f" (decided at {locations.where(kind, op, name)})"
    return ""
