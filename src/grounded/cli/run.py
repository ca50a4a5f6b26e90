"""`grounded run`: replay a scenario or log, checking every expectation."""

from __future__ import annotations

from typing import Annotated

import typer

from grounded.cli.app import (
    AllowRulesChange,
    Extensions,
    File,
    LoadProgress,
    Partial,
    Timeout,
    app,
    out,
    report_reading,
    say_partial,
)
from grounded.engine import Engine
from grounded.present import render
from grounded.scenario import SCENARIO_SUFFIXES, Scenario, run


@app.command("run")
def run_command(
    file: File,
    extension: Extensions = None,
    timeout: Timeout = None,
    state: Annotated[bool, typer.Option("--state", help="Print the state table after each turn.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only failures and the summary.")] = False,
    partial: Partial = False,
    allow_rules_change: AllowRulesChange = False,
) -> None:
    """Replay a scenario or log; PASS/FAIL for each expectation; exit 1 on any FAIL."""
    if file.suffix not in SCENARIO_SUFFIXES:
        def show(engine: Engine, update) -> None:
            if not quiet:
                render.render_update(out, engine, update)
                if state:
                    render.render_state(out, engine)

        with LoadProgress(f"replaying {file.name}") as progress:
            engine = Engine.load(file, extensions=extension or (), on_update=show, strict=not partial,
                                 allow_rules_change=allow_rules_change, progress=None if not quiet else progress)
        report_reading(engine)
        out.print(f"{file}: {engine.turn} turns, {len(engine.state.args)} arguments, "
                  f"{len(engine.open_problems())} open problems")
        say_partial(engine)
        return
    scenario = Scenario.load(file)
    engine = Engine(scenario.header, extensions=extension or ())
    passed = failed = 0
    for outcome in run(scenario, engine):
        if outcome.turn is not None and not quiet:
            # a turn's note comes before what the rules did and before the answers, as the class reads it
            if outcome.update is not None:
                render.render_update(out, engine, outcome.update, outcome.turn.note)
            elif outcome.rejection is not None:
                out.print(f"T{outcome.turn.turn} {outcome.turn.speaker}: rejected", style="yellow")
                if outcome.turn.note:
                    out.print(f"  note: {outcome.turn.note}", style="italic", markup=False)
                out.print(f"  rejected: {', '.join(outcome.rejection.codes)}", style="yellow", markup=False)
            for question, answer in outcome.answers:
                out.print(f"  question: {question.ask} ({question.query}) engine: "
                          f"{', '.join(answer['shown']) or 'nothing'}", style="cyan", markup=False)
            if state:
                render.render_state(out, engine)
        elif outcome.turn is None and not quiet:
            out.print("[bold]after the last turn[/]")
        for check in outcome.checks:
            passed += check.passed
            failed += not check.passed
            if not quiet or not check.passed:
                style = "green" if check.passed else "bold red"
                out.print(f"  {check}", style=style, markup=False)
    out.print(f"{scenario.path}: {passed} passed, {failed} failed",
              style="bold green" if not failed else "bold red")
    if failed:
        raise typer.Exit(1)
