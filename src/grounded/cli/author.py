"""The rule author's loop (docs/extending.md): ``new-op``, ``lint``, ``test-op``, ``cost`` and
``scenario-to-log``, each a thin reading of grounded.authoring.

Exit codes as elsewhere: 0 clean / passed / written, 1 a finding or a failed
case or expectation (each named on its own line), 2 bad input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from grounded.authoring import lint, new_op, run_op_tests, scenario_to_log
from grounded.authoring.cases import SUFFIX
from grounded.authoring.cost import SAMPLES, SIZES, cost
from grounded.cli.app import Extensions, Timeout, app, exit_with, out
from grounded.core.errors import InputError

RuleFile = Annotated[Path, typer.Argument(help="A Prolog rule file (.pl).")]


@app.command("new-op")
def new_op_command(
    name: Annotated[str, typer.Argument(help="The operation's name (lower case, _ between words).")],
    directory: Annotated[Path, typer.Option("--dir", help="Where to write the four files.")] = Path("."),
) -> None:
    """Write NAME.pl, its ASP twin NAME.lp, a test file and a scenario: a working operation to fill in."""
    for path in new_op(name, directory):
        out.print(f"wrote {path}", markup=False)
    base = directory / name
    out.print(f"next: grounded lint {base}.pl; grounded test-op {base}{SUFFIX}; "
              f"grounded check {base}.yaml -x {base}.pl", markup=False)


@app.command("lint")
def lint_command(files: Annotated[list[Path], typer.Argument(help="Prolog rule files (.pl).")]) -> None:
    """Everything that keeps a rule file from loading, by line: a call outside the author layer, a
    predicate of the driver or the layer it redefines, a module-qualified call, a call that writes the
    database or a stream, a goal built at run time, a directive; exit 1 on any."""
    found = 0
    for path in files:
        findings = lint(path)
        found += len(findings)
        for finding in findings:
            out.print(str(finding), markup=False)
        if not findings:
            out.print(f"{path}: reads only the author layer", markup=False)
    exit_with(1 if found else 0)


@app.command("test-op")
def test_op_command(
    file: Annotated[Path, typer.Argument(help=f"An operation test file (NAME{SUFFIX}), or the rule file "
                                              "it sits beside.")],
    extension: Extensions = None,
    timeout: Timeout = None,
) -> None:
    """Run each case against the Prolog operation and its ASP twin; name the first difference; exit 1 on any."""
    tests, results = run_op_tests(file, extension or [])
    passed = failed = 0
    out.print(f"{tests.path}: {tests.rules.name} and {tests.rules.with_suffix('.lp').name}, "
              f"{len(tests.cases)} cases", markup=False)
    for r in results:
        if r.passed:
            passed += 1
            out.print(f"  PASS {r.case.name}", markup=False)
        else:
            failed += 1
            out.print(f"  FAIL {tests.path}:{r.case.line}: {', '.join(dict.fromkeys(r.ops))}, case "
                      f'"{r.case.name}": {r.difference}', markup=False)
    out.print(f"{tests.path}: {passed} passed, {failed} failed", markup=False)
    exit_with(1 if failed else 0)


@app.command("cost")
def cost_command(
    file: RuleFile,
    sizes: Annotated[str, typer.Option("--sizes", help="History sizes, comma-separated, ascending.")
                     ] = ",".join(str(n) for n in SIZES),
    samples: Annotated[int, typer.Option("--samples", min=1, max=1000, help="Applications per size.")] = SAMPLES,
    op: Annotated[list[str] | None, typer.Option("--op", help="Measure this operation (repeatable; built-ins "
                                                               "too). Default: the file's operations.")] = None,
) -> None:
    """Inferences per application of each operation of FILE as a history grows, and the exponent of the
    conversation's total cost (1.0: constant per application); exit 1 for an operation above 1.2."""
    try:
        sized = [int(n) for n in sizes.split(",")]
    except ValueError:
        raise InputError(f"--sizes {sizes}: expected whole numbers, comma-separated") from None
    if len(sized) < 2 or sized != sorted(set(sized)) or sized[0] < 1:
        raise InputError(f"--sizes {sizes}: give at least two ascending sizes")
    if not file.is_file():
        raise InputError("no such rule file", path=str(file))
    costs = cost([str(file)], op or (), sized, samples)
    for c in costs:
        out.print(c.line(), markup=False)
    exit_with(0 if all(c.ok for c in costs) else 1)


@app.command("scenario-to-log")
def scenario_to_log_command(
    scenario: Annotated[Path, typer.Argument(help="A scenario (.yaml).")],
    log: Annotated[Path, typer.Argument(help="The event log to write (.jsonl); it must not exist.")],
    extension: Extensions = None,
    timeout: Timeout = None,
) -> None:
    """Write a scenario's accepted turns as an event log, if every expectation of the scenario holds."""
    written = scenario_to_log(scenario, log, extension or [])
    for line in written.failed:
        out.print(f"FAIL {line}", markup=False)
    if written.failed:
        out.print(f"{scenario}: {len(written.failed)} of {written.checks} expectations failed; "
                  f"{log} is not written", markup=False)
        exit_with(1)
    rejected = (f" (turns rejected as expected, not recorded: {written.rejected})" if written.rejected else "")
    out.print(f"wrote {log}: {written.recorded} utterances{rejected}, {written.checks} expectations held",
              markup=False)
