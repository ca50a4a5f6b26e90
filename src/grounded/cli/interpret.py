"""`grounded interpret` and `grounded score`: transcripts to event logs, and how well."""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path
from typing import Annotated

import typer

from grounded.cli.app import AsJson, LogReading, NoCache, app, err, out
from grounded.core.errors import EndpointError, InputError
from grounded.engine import Engine
from grounded.present import context
from grounded.scenario import Scenario, run


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
    resume: Annotated[bool, typer.Option("--resume", help="Continue an interrupted run: OUTPUT (and its call log) "
                                                          "go on after their last turn.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Print what each utterance changed.")] = False,
) -> None:
    """Turn a transcript into an event log, utterance by utterance, through an Interpreter and the rules."""
    from grounded.interpreter import runner
    from grounded.interpreter.transcript import read_header

    name = interpreter or runner.default_interpreter()
    if name == "llm" and call_log is None:
        call_log = output.with_suffix(".calls.jsonl")
    given_header = read_header(header) if header else None
    runner.check_output(output, force, resume)  # before the call log is opened: a refused run leaves nothing
    interp = runner.make_interpreter(
        name, call_log=call_log, overwrite=force, model=model, base_url=base_url, api_key=api_key, condition=condition,
        max_attempts=max_attempts, max_retries=max_retries, timeout=timeout, temperature=temperature,
        json_mode=json_mode, state_budget=state_budget)
    if name == "rules":  # a run under way (not refused): say what its reading is worth, as measured
        from grounded.interpreter.baseline import rules_note
        from grounded.interpreter.llm import endpoint_configured

        err.print(rules_note(endpoint_configured()), markup=False)

    def show(engine: Engine, result) -> None:
        labels = ", ".join(result.labels) or ("UNCLASSIFIED" if result.unclassified else "(no operations)")
        tries = f"  (re-prompted {len(result.rejections)}x)" if result.rejections else ""
        out.print(f"T{result.said.turn} {result.said.speaker}: {labels}{tries}",
                  style="yellow" if result.unclassified else None, markup=False)
        if verbose:
            out.print("    " + context.summarize(engine, result.update).replace("\n", "\n    "), markup=False)

    summary = runner.interpret_file(transcript, interp, output, header=given_header,
                                    overwrite=force, resume=resume, on_turn=show)
    resumed = "" if summary.resumed_from is None else f" (resumed after turn {summary.resumed_from})"
    out.print(f"{output}: {summary.turns} utterances{resumed} with the {name} interpreter"
              + (f" ({condition})" if name == "llm" else "")
              + f", {summary.reprompted} re-prompted, {summary.unclassified} unclassified"
              + (f"; calls in {call_log}" if name == "llm" else ""), markup=False)
    if summary.endpoint_failed:
        failed = (f"{summary.endpoint_failed} of {summary.turns} utterances unclassified because every request to "
                  f"the endpoint failed (the last: {summary.failure})")
        if summary.unclassified == summary.turns:  # the log holds the words and nothing read from them
            raise EndpointError(f"{failed}; nothing was classified: {output} holds the utterances without operations "
                                "(--force runs again)")
        err.print(f"warning: {failed}; see {call_log}", markup=False)


@app.command()
def score(
    log: Annotated[Path, typer.Argument(help="Event log written by `grounded interpret`.")],
    gold: Annotated[Path, typer.Option("--gold", help="Scenario (.yaml) with the gold labels and operations.")],
    turns: Annotated[str | None, typer.Option(help="Turns to score, e.g. 1-19 (default: every labelled turn).")] = None,
    key_shifts: Annotated[str | None, typer.Option(help="Key-shift turns (default: the scenario's).")] = None,
    as_json: AsJson = False,
    no_cache: NoCache = False,
) -> None:
    """Multi-label F1 and exact match per utterance, overall and on key shifts; Dep extraction P/R/F1."""
    from grounded.interpreter.dependencies import score_dependencies
    from grounded.interpreter.report import print_classification, print_dependencies
    from grounded.interpreter.scoring import parse_turns, score_classification

    try:
        chosen = parse_turns(turns) if turns else None
        shifts = parse_turns(key_shifts) if key_shifts else None
    except ValueError as exc:
        raise InputError(f"--turns/--key-shifts: {exc}") from exc
    scenario = Scenario.load(gold)
    classification = score_classification(log, scenario, chosen, shifts)
    last = max((t.turn for t in classification.turns), default=0)
    with Engine(scenario.header) as reference, LogReading(no_cache=no_cache).load(log) as extracted:
        # the gold state as `run` builds it (turns expecting their own rejection leave it as it was)
        for _ in islice(run(scenario, reference), sum(t.turn <= last for t in scenario.turns)):
            pass
        dependencies = score_dependencies(extracted, reference, at_extracted=last, at_gold=last)
    if as_json:
        print(json.dumps({"classification": classification.to_json(), "dependencies": dependencies.to_json()}))
        return
    print_classification(out, classification)
    print_dependencies(out, dependencies)
