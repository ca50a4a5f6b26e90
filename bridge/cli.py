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
from itertools import islice
from pathlib import Path
from typing import Annotated

import typer
from pydantic.json_schema import models_json_schema
from rich.console import Console

from . import context, render
from .bench.cli import bench_app
from .check import check as check_history_file
from .dung import SEMANTICS, Framework
from .dung import extensions as dung_extensions
from .engine import Engine
from .errors import GroundedError, InputError
from .model import Header
from .scenario import SCENARIO_SUFFIXES, Scenario, retraction_score, run
from .verify import GROUNDED, NO_ANCHOR, UNGROUNDED

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True,
                  help="Check whether a continuation still rests on what a conversation has established.")
app.add_typer(bench_app, name="bench")
out = Console(highlight=False, soft_wrap=True)

File = Annotated[Path, typer.Argument(help="Scenario (.yaml) or event log (.jsonl).")]
Extensions = Annotated[list[Path] | None,
                       typer.Option("--extension", "-x", help="Rule file adding operations (repeatable).")]
At = Annotated[int | None, typer.Option("--at", help="Answer as of this earlier turn.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON.")]


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
    """Phase 2 end to end, offline: per-turn state, retraction queries, stale continuations checked from text."""
    from .interpreter.anchor import AnchorIndex

    path = Path(str(resources.files("grounded.scenarios") / "phase2.yaml"))
    scenario = Scenario.load(path)
    engine = Engine(scenario.header)
    out.rule(f"[bold]{scenario.title}[/]: replaying the gold operations through the rules")
    for outcome in run(scenario, engine):
        if outcome.turn is None:
            break
        render.render_update(out, engine, outcome.update)
        out.print(context.summarize(engine, outcome.update, "text").replace("\n", "\n    "),
                  style="italic", markup=False)
        render.render_state(out, engine)
        out.print()

    out.rule(f"[bold]Context Renderer: the state the next Interpreter call sees ({DEMO_BUDGET}-token budget)")
    out.print(context.render_state(engine, budget=DEMO_BUDGET, fmt="markdown"), markup=False)

    out.rule("[bold]Retraction: what loses support if an observation is withdrawn?")
    gold = next(c.spec for c in scenario.expect if c.kind == "retraction")  # the paper's four queries
    for literal in gold["gold"]:
        out.print(render.affected_line(engine.affected(literal, closure=False)))
        out.print(render.affected_line(engine.affected(literal)))
    for closure, name in ((False, "one-step Affected"), (True, "Affected*")):
        s = retraction_score(engine, gold["hypotheses"], gold["gold"], closure)
        out.print(f"{name:>17}: {s['correct']}/{s['decisions']} decisions correct, "
                  f"{s['exact']}/{s['queries']} queries exact, TP/FP/FN {s['tp']}/{s['fp']}/{s['fn']}")

    out.rule("[bold]Verify from text: does the next output still rest on the conversation?")
    index = AnchorIndex(engine)  # one index of the final state for every candidate
    for text in DEMO_CANDIDATES:
        tv = index.verify(text)
        out.print(f'candidate: "{text}"', markup=False)
        best = f"{tv.best.claim} at {tv.best.score:.2f}" if tv.best else "nothing"
        if tv.verification is None:
            out.print(f"  anchor: none (best {best}, below {tv.threshold})", markup=False)
        else:
            out.print(f"  anchor: {best}", markup=False)
            out.print("  ", render.verification_line(tv.verification))
            flag = render.flag_continuation(engine, tv.verification)
            if flag:
                out.print(f"  flag: {flag}", style="yellow", markup=False)
        out.print(f"  -> {DEMO_VERDICT[tv.status]}")


DEMO_BUDGET = 350
DEMO_VERDICT = {GROUNDED: "accept", UNGROUNDED: "reject (stale)", NO_ANCHOR: "abstain"}
DEMO_CANDIDATES = (
    "Restart Redis: the Redis failure is what causes the auth failures.",
    "Roll back the token refresh change; its retry storm is exhausting the Redis connection pool.",
    "The primary database is failing.",
)


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
    claim: Annotated[str | None, typer.Argument(help="The literal the continuation asserts, e.g. h2 or -a3.")] = None,
    text: Annotated[str | None, typer.Option("--text", help="The continuation's text: its claim is found by "
                                                            "similarity among all propositions.")] = None,
    threshold: Annotated[float | None, typer.Option("--threshold", help="Least similarity for --text to anchor "
                                                                         "(below it: abstain).")] = None,
    at: At = None,
    as_json: AsJson = False,
    extension: Extensions = None,
) -> None:
    """Verify(c): is the claim carried by an argument in good standing, grounded all the way down?"""
    if (claim is None) == (text is None):
        raise InputError("give either a CLAIM or --text, not both" if claim else "give a CLAIM or --text")
    engine = load_engine(file, extension)
    if text is not None:
        from .interpreter.anchor import THRESHOLD, verify_text

        tv = verify_text(engine, text, at, THRESHOLD if threshold is None else threshold)
        if as_json:
            print(json.dumps(tv.to_json()))
        elif tv.verification is None:
            out.print(f"abstain: {tv.to_json()['reason']}", markup=False)
        else:
            out.print(f"anchor: {tv.anchor.claim} (similarity {tv.anchor.score:.2f})", markup=False)
            out.print(render.verification_line(tv.verification))
        return
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


@app.command("check")
def check_command(
    file: File,
    at: At = None,
    incremental: Annotated[bool, typer.Option(
        "--incremental", help="Ground the ASP history turn by turn instead of in one shot.")] = False,
    retraction: Annotated[bool, typer.Option(
        "--retraction", help="Also decide Proposition 2.5 and Corollary 2.6 for every literal in a Dep.")] = False,
    as_json: AsJson = False,
    extension: Extensions = None,
) -> None:
    """Recompute the history with Python, Prolog and ASP; 'all agree' or the differences; exit 1 on any."""
    report = check_history_file(file, at, extension or (), incremental=incremental, retraction=retraction)
    if report.load_error is not None:
        print(f"warning: {report.load_error}; checked the {report.utterances} utterances before it",
              file=sys.stderr)
    if as_json:
        print(json.dumps(report.to_json()))
    else:
        for line in report.mismatches + report.failures:
            out.print(line, style="red", markup=False)
        out.print(f"{file}: {report.summary()}", style="bold green" if report.ok else "bold red", markup=False)
    if not report.ok:
        raise typer.Exit(1)


@app.command("extensions")
def extensions_command(
    file: File,
    semantics: Annotated[str, typer.Option(
        "--semantics", "-s", help="grounded, complete, preferred, stable or admissible.")] = "preferred",
    at: At = None,
    limit: Annotated[int, typer.Option("--limit", help="At most this many extensions (0: all).")] = 0,
    as_json: AsJson = False,
    extension: Extensions = None,
) -> None:
    """Dung extensions of the conversation's argumentation framework AF_t (every argument, every attack)."""
    if semantics not in SEMANTICS:
        raise InputError(f"--semantics {semantics}: expected one of {', '.join(SEMANTICS)}")
    engine = load_engine(file, extension)
    af = Framework.from_engine(engine, at)
    found = dung_extensions(af, semantics, limit=limit)
    dm = engine.state
    if as_json:
        print(json.dumps([[dm.arg(a).claim for a in sorted(ext)] for ext in found]))
        return
    path = "acyclic: one extension, by topological processing" if af.is_acyclic() else "attack graph has cycles"
    out.print(f"{len(found)} {semantics} extension(s) of AF with {len(af)} arguments and "
              f"{len(af.attacks)} attacks ({path})")
    for i, ext in enumerate(found, 1):
        members = [f"{dm.arg(a).claim}" + ("" if dm.in_standing(a, at) else f" ({dm.arg(a).standing_at(at)})")
                   for a in sorted(ext)]
        out.print(f"{i}. " + (", ".join(members) or "(empty)"), markup=False)


@app.command()
def state(file: File, at: At = None, extension: Extensions = None) -> None:
    """Every argument with its standing, groundedness and Dep; open problems, commitments, dissent."""
    engine = load_engine(file, extension)
    render.render_state(out, engine, at, full=True)


@app.command("interpret")
def interpret_command(
    transcript: Annotated[Path, typer.Argument(help="Lines of `speaker: text`, or a scenario (.yaml).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The event log to write (.jsonl).")],
    interpreter: Annotated[str | None, typer.Option(
        "--interpreter", "-i", help="llm, rules or replay (default: llm when OPENAI_BASE_URL or OPENAI_API_KEY "
                                    "is set, else rules).")] = None,
    condition: Annotated[str, typer.Option(help="LLM prompt: minimal, definitions or state.")] = "definitions",
    header: Annotated[Path | None, typer.Option(help="Agents and initial propositions: a scenario, an event "
                                                     "log or a JSON header.")] = None,
    model: Annotated[str | None, typer.Option(help="Model name (default: $GROUNDED_MODEL).")] = None,
    base_url: Annotated[str | None, typer.Option(
        help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL).")] = None,
    api_key: Annotated[str | None, typer.Option(help="API key (default: $OPENAI_API_KEY).")] = None,
    call_log: Annotated[Path | None, typer.Option(help="JSONL log of every LLM call "
                                                       "(default: OUTPUT with .calls.jsonl).")] = None,
    max_attempts: Annotated[int | None, typer.Option(help="Model answers per utterance.")] = None,
    max_retries: Annotated[int | None, typer.Option(help="Retries per request on 429, 5xx, timeouts.")] = None,
    timeout: Annotated[float | None, typer.Option(help="Seconds per request.")] = None,
    temperature: Annotated[float | None, typer.Option()] = None,
    json_mode: Annotated[bool | None, typer.Option("--json-mode/--no-json-mode",
                                                   help="Ask the server for a JSON object.")] = None,
    state_budget: Annotated[int | None, typer.Option(help="Token budget of the rendered state.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite OUTPUT.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Print what each utterance changed.")] = False,
) -> None:
    """Turn a transcript into an event log, utterance by utterance, through an Interpreter and the rules."""
    from .interpreter import runner
    from .interpreter.transcript import read_header

    name = interpreter or runner.default_interpreter()
    if name == "llm" and call_log is None:
        call_log = output.with_suffix(".calls.jsonl")
    given_header = read_header(header) if header else None
    runner.check_output(output, force)  # before the call log is opened: a refused run leaves nothing behind
    interp = runner.make_interpreter(
        name, call_log=call_log, overwrite=force, model=model, base_url=base_url, api_key=api_key, condition=condition,
        max_attempts=max_attempts, max_retries=max_retries, timeout=timeout, temperature=temperature,
        json_mode=json_mode, state_budget=state_budget)

    def show(engine: Engine, result) -> None:
        labels = ", ".join(result.labels) or ("UNCLASSIFIED" if result.unclassified else "(no operations)")
        tries = f"  (re-prompted {len(result.rejections)}x)" if result.rejections else ""
        out.print(f"T{result.said.turn} {result.said.speaker}: {labels}{tries}",
                  style="yellow" if result.unclassified else None, markup=False)
        if verbose:
            out.print("    " + context.summarize(engine, result.update).replace("\n", "\n    "), markup=False)

    summary = runner.interpret_file(transcript, interp, output, header=given_header,
                                    overwrite=force, on_turn=show)
    out.print(f"{output}: {summary.turns} utterances with the {name} interpreter"
              + (f" ({condition})" if name == "llm" else "")
              + f", {summary.reprompted} re-prompted, {summary.unclassified} unclassified"
              + (f"; calls in {call_log}" if name == "llm" else ""), markup=False)


@app.command()
def score(
    log: Annotated[Path, typer.Argument(help="Event log written by `grounded interpret`.")],
    gold: Annotated[Path, typer.Option("--gold", help="Scenario (.yaml) with the gold labels and operations.")],
    turns: Annotated[str | None, typer.Option(help="Turns to score, e.g. 1-19 (default: every labelled turn).")] = None,
    key_shifts: Annotated[str | None, typer.Option(help="Key-shift turns (default: the scenario's).")] = None,
    as_json: AsJson = False,
) -> None:
    """Multi-label F1 and exact match per utterance, overall and on key shifts; Dep extraction P/R/F1."""
    from .interpreter.dependencies import score_dependencies
    from .interpreter.report import print_classification, print_dependencies
    from .interpreter.scoring import parse_turns, score_classification

    try:
        chosen = parse_turns(turns) if turns else None
        shifts = parse_turns(key_shifts) if key_shifts else None
    except ValueError as exc:
        raise InputError(f"--turns/--key-shifts: {exc}") from exc
    scenario = Scenario.load(gold)
    classification = score_classification(log, scenario, chosen, shifts)
    last = max((t.turn for t in classification.turns), default=0)
    with Engine(scenario.header) as reference, load_engine(log, None) as extracted:
        # the gold state as `run` builds it (turns expecting their own rejection leave it as it was)
        for _ in islice(run(scenario, reference), sum(t.turn <= last for t in scenario.turns)):
            pass
        dependencies = score_dependencies(extracted, reference, at_extracted=last, at_gold=last)
    if as_json:
        print(json.dumps({"classification": classification.to_json(), "dependencies": dependencies.to_json()}))
        return
    print_classification(out, classification)
    print_dependencies(out, dependencies)


@app.command()
def schema(extension: Extensions = None) -> None:
    """Print the JSON Schema of the event-log format (header line, utterance lines)."""
    with Engine(extensions=extension or ()) as engine:
        utterance = engine.registry.utterance_model
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
