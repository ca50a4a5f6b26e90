"""Replaying a scenario's gold operations and checking its expectations turn by turn."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from grounded.core.errors import InputError, PreconditionError
from grounded.engine import Engine, Update
from grounded.scenario.checks import CHECKS, names
from grounded.scenario.file import Check, Scenario, ScenarioTurn
from grounded.scenario.questions import Question, engine_answer


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
    answers: list[tuple[Question, dict[str, Any]]] = field(default_factory=list)
    """The turn's questions with the engine's answers after it (``questions.engine_answer``)."""


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


def _answer_check(question: Question, answer: dict[str, Any]) -> CheckResult:
    """The lecturer's answer to a question against the engine's (both normalised: sets compare as sets)."""
    want = question.answer
    shown = ", ".join(want) if isinstance(want, list) else want
    got = ", ".join(answer["shown"]) or "nothing"
    passed = want == answer["value"]
    return CheckResult(passed, f"answer to {question.ask!r} ({question.query}): {shown or 'nothing'}"
                       + ("" if passed else f" (the engine answers {got})"), question.line, None)


def run(scenario: Scenario, engine: Engine | None = None) -> Iterator[TurnOutcome]:
    """Replay the scenario's gold operations turn by turn, checking expectations.

    A turn expecting ``rejected: [codes]`` must be rejected with exactly those
    codes (``rejected: true``: with any), and the run continues with the state
    unchanged.  A turn rejected without that expectation fails a check naming
    the codes and the run goes on: a course scenario may show a rejection
    before it is written down as expected, and the page still has every turn.
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
            results.append(CheckResult(False, f"accepted (rejected: {rejection})", turn.line, None))
        for check in rejected:
            got = sorted(set(rejection.codes)) if rejection else []
            if check.spec is True:
                results.append(CheckResult(bool(got), "rejected" + ("" if got else " (got accepted)"),
                                           check.line, None))
                continue
            want = sorted(set(names(check.spec)))
            results.append(CheckResult(got == want, f"rejected with {', '.join(want)}"
                                       + ("" if got == want else f" (got {got or 'accepted'})"),
                                       check.line, None))
        results.extend(evaluate(engine, checks, scenario.path))
        answers = [(q, engine_answer(engine, q)) for q in turn.questions]
        results.extend(_answer_check(q, a) for q, a in answers if q.answer is not None)
        yield TurnOutcome(turn, update, rejection, results, answers)
    yield TurnOutcome(None, None, None, evaluate(engine, scenario.expect, scenario.path))
