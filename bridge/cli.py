"""The ``grounded`` command line.

Every command reads an event log (``.jsonl``) or a scenario (``.yaml``).
Errors are one line on stderr and exit status 2; a failed expectation in
``run`` exits 1.
"""

from __future__ import annotations

import json
import os
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer
from pydantic.json_schema import models_json_schema
from rich.console import Console

from . import render
from .bench.cli import bench_app
from .engine import Engine
from .errors import GroundedError
from .model import Header
from .scenario import Scenario, retraction_score, run

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True,
                  help="Check whether a continuation still rests on what a conversation has established.")
app.add_typer(bench_app, name="bench")
out = Console(highlight=False, soft_wrap=True)

File = Annotated[Path, typer.Argument(help="Scenario (.yaml) or event log (.jsonl).")]
Extensions = Annotated[list[Path] | None,
                       typer.Option("--extension", "-x", help="Rule file adding operations (repeatable).")]
At = Annotated[int | None, typer.Option("--at", help="Answer as of this earlier turn.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON.")]

SCENARIO_SUFFIXES = (".yaml", ".yml")


def load_engine(path: Path, extensions: list[Path] | None) -> Engine:
    """An engine holding a log's state, or a scenario's after all its gold turns."""
    if path.suffix in SCENARIO_SUFFIXES:
        scenario = Scenario.load(path)
        engine = Engine(scenario.header, extensions=extensions or ())
        for _ in run(scenario, engine):
            pass
        return engine
    engine = Engine.load(path, extensions=extensions or (), strict=False)
    if engine.load_error is not None:
        print(f"warning: {engine.load_error}; answering from the lines before it (up to turn "
              f"{engine.turn})", file=sys.stderr)
    return engine


@app.command()
def demo() -> None:
    """Phase 2 end to end, offline: per-turn state, retraction queries, a stale continuation."""
    path = Path(str(resources.files("grounded.scenarios") / "phase2.yaml"))
    scenario = Scenario.load(path)
    engine = Engine(scenario.header)
    out.rule(f"[bold]{scenario.title}[/]: replaying the gold operations through the rules")
    for outcome in run(scenario, engine):
        if outcome.turn is None:
            break
        render.render_update(out, engine, outcome.update)
        render.render_state(out, engine)
        out.print()

    out.rule("[bold]Retraction: what loses support if an observation is withdrawn?")
    gold = next(c.spec for c in scenario.expect if c.kind == "retraction")  # the paper's four queries
    for literal in gold["gold"]:
        out.print(render.affected_line(engine.affected(literal, closure=False)))
        out.print(render.affected_line(engine.affected(literal)))
    for closure, name in ((False, "one-step Affected"), (True, "Affected*")):
        s = retraction_score(engine, gold["hypotheses"], gold["gold"], closure)
        out.print(f"{name:>17}: {s['correct']}/{s['decisions']} decisions correct, "
                  f"{s['exact']}/{s['queries']} queries exact, TP/FP/FN {s['tp']}/{s['fp']}/{s['fn']}")

    out.rule("[bold]Verify: does the next output still rest on the conversation?")
    candidates = [
        ("Restart Redis: the outage is what breaks auth.", "h2"),
        ("Roll back the token refresh change; its retry storm is exhausting Redis.", "h4"),
        ("The primary database is failing.", "db_primary_failing"),
    ]
    for text, claim in candidates:
        v = engine.verify(claim)
        out.print(f'candidate: "{text}"  [asserts {claim}]', markup=False)
        out.print("  ", render.verification_line(v))
        flag = render.flag_continuation(engine, v)
        if flag:
            out.print(f"  flag: {flag}", style="yellow", markup=False)
        verdict = "accept" if v.grounded else ("abstain" if v.status == "no_anchor" else "reject (stale)")
        out.print(f"  -> {verdict}")


@app.command("run")
def run_command(
    file: File,
    extension: Extensions = None,
    state: Annotated[bool, typer.Option("--state", help="Print the state table after each turn.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only failures and the summary.")] = False,
) -> None:
    """Replay a scenario or log; PASS/FAIL for each expectation; exit 1 on any FAIL."""
    if file.suffix not in SCENARIO_SUFFIXES:
        def show(engine: Engine, update) -> None:
            if not quiet:
                render.render_update(out, engine, update)
                if state:
                    render.render_state(out, engine)

        engine = Engine.load(file, extensions=extension or (), on_update=show)
        out.print(f"{file}: {engine.turn} turns, {len(engine.state.args)} arguments, "
                  f"{len(engine.open_problems())} open problems")
        return
    scenario = Scenario.load(file)
    engine = Engine(scenario.header, extensions=extension or ())
    passed = failed = 0
    for outcome in run(scenario, engine):
        if outcome.turn is not None and not quiet:
            if outcome.update is not None:
                render.render_update(out, engine, outcome.update)
            else:
                out.print(f"T{outcome.turn.turn} {outcome.turn.speaker}: rejected "
                          f"({', '.join(outcome.rejection.codes)})", style="yellow")
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


@app.command()
def verify(
    file: File,
    claim: Annotated[str, typer.Argument(help="The literal the continuation asserts, e.g. h2 or -a3.")],
    at: At = None,
    as_json: AsJson = False,
    extension: Extensions = None,
) -> None:
    """Verify(c): is the claim carried by an argument in good standing, grounded all the way down?"""
    engine = load_engine(file, extension)
    v = engine.verify(claim, at=at)
    if as_json:
        print(json.dumps({"claim": v.claim, "grounded": v.grounded, "chain": list(v.chain),
                          "reason": v.reason, "status": v.status}))
    else:
        out.print(render.verification_line(v))


@app.command()
def affected(
    file: File,
    claim: Annotated[str, typer.Argument(help="The literal to retract.")],
    one_step: Annotated[bool, typer.Option("--one-step", help="One-step Affected instead of Affected*.")] = False,
    at: At = None,
    as_json: AsJson = False,
    extension: Extensions = None,
) -> None:
    """Affected*(p): every argument that rests, transitively, on p."""
    engine = load_engine(file, extension)
    a = engine.affected(claim, closure=not one_step, at=at)
    if as_json:
        print(json.dumps({"claim": claim, "claims": a.claims, "lose_support": a.lose_support,
                          "hops": a.claim_hops}))
    else:
        out.print(render.affected_line(a))


@app.command()
def state(file: File, at: At = None, extension: Extensions = None) -> None:
    """Every argument with its standing, groundedness and Dep; open problems, commitments, dissent."""
    engine = load_engine(file, extension)
    render.render_state(out, engine, at, full=True)


@app.command()
def schema(extension: Extensions = None) -> None:
    """Print the JSON Schema of the event-log format (header line, utterance lines)."""
    utterance = Engine(extensions=extension or ()).registry.utterance_model
    _, doc = models_json_schema([(Header, "validation"), (utterance, "validation")],
                                title="grounded event log line")
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema",
           "description": "Line 1 of an event log is a Header; every further line is an Utterance.",
           "oneOf": [{"$ref": "#/$defs/Header"}, {"$ref": "#/$defs/Utterance"}], **doc}
    print(json.dumps(doc, indent=2))


def main() -> None:
    """Entry point: run the app, turning every error into one line on stderr (exit 2)."""
    try:
        status = app(standalone_mode=False)
    except typer.Abort:
        sys.exit(130)
    except typer.TyperException as exc:  # usage errors: bad option, missing argument
        print(f"error: {_one_line(exc.format_message())}", file=sys.stderr)
        sys.exit(2)
    except (GroundedError, OSError) as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        sys.exit(2)
    except Exception as exc:  # noqa: BLE001 - the promise is: no traceback, ever
        if os.environ.get("GROUNDED_DEBUG"):
            raise
        print(f"internal error: {type(exc).__name__}: {_one_line(exc)} "
              "(set GROUNDED_DEBUG=1 for a traceback)", file=sys.stderr)
        sys.exit(2)
    sys.exit(status if isinstance(status, int) else 0)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


if __name__ == "__main__":  # pragma: no cover
    main()
