"""Replaying a scenario's gold operations and checking its expectations turn by turn."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from grounded.core.errors import InputError, PreconditionError
from grounded.engine import Engine, Update
from grounded.scenario.checks import CHECKS, names
from grounded.scenario.file import Check, Scenario, ScenarioTurn


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
        yield TurnOutcome(turn, update, rejection, results)
    yield TurnOutcome(None, None, None, evaluate(engine, scenario.expect, scenario.path))
