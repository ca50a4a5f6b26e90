"""`grounded verify`, `grounded affected` and `grounded query`: the queries of the registry on a file.

Exit codes (docs/reliability.md): verify 0 grounded, 1 not grounded or no
anchor; affected 0 answered, 1 the literal is unknown to the state (said in
words); query as the query's own (verify, affected) and 0 for the others; all 2
on an input error.  Every answer is the registry's one JSON shape.

No ``from __future__ import annotations`` here: Typer reads a command's annotations four times, and a string
annotation is compiled each time (a measurable part of a query's start-up: docs/benchmarks.md, tests/test_startup.py).
"""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from grounded.cli.app import (
    DEFAULT_READING,
    LITERAL_ARGS,
    AsJson,
    At,
    File,
    LogReading,
    app,
    exit_with,
    log_json,
    out,
    reads_log,
    say_partial,
)
from grounded.core.bounds import MAX_ARGUMENT_FILE_BYTES
from grounded.core.errors import InputError
from grounded.present import render
from grounded.queries.registry import AFFECTED, QUERIES, VERIFY, Query, get

if TYPE_CHECKING:  # a question of one claim is answered from the snapshot's index, without an engine
    from grounded.engine import Engine
    from grounded.engine.indexed import IndexedAnswers


@app.command(context_settings=LITERAL_ARGS)
@reads_log()
def verify(
    file: File,
    claim: Annotated[str | None, typer.Argument(help="The literal the continuation asserts, e.g. h2 or -a3 "
                                                     "(a literal such as -x1 that looks like an option: after --).")
                     ] = None,
    text: Annotated[str | None, typer.Option("--text", help="The continuation's text: accepted only when the "
                                                            "grounded claims cover every clause of it.")] = None,
    threshold: Annotated[float | None, typer.Option("--threshold", help="Least share of the text's words the "
                                                                         "closest claim shown covers.")] = None,
    anchor: Annotated[str, typer.Option("--anchor", help="How --text is read: offline (coverage by the claims' "
                                                         "words through WordNet; tfidf is the same), or llm (the "
                                                         "configured endpoint).")] = "offline",
    model: Annotated[str | None, typer.Option(help="--anchor llm: model (default: $GROUNDED_MODEL).")] = None,
    base_url: Annotated[str | None, typer.Option(help="--anchor llm: endpoint (default: $OPENAI_BASE_URL).")] = None,
    api_key: Annotated[str | None, typer.Option(help="--anchor llm: API key (default: $OPENAI_API_KEY).")] = None,
    call_log: Annotated[Path | None, typer.Option(help="--anchor llm: append each request to this JSONL "
                                                       "call log.")] = None,
    cited: Annotated[str | None, typer.Option("--cited", help="A continuation with the claim ids it cites, as JSON "
                                                              "(or @FILE): {\"text\": ..., \"asserts\": [...], "
                                                              "\"denies\": [...]}. Verified by claim, its text "
                                                              "read against the citation.")] = None,
    at: At = None,
    as_json: AsJson = False,
    reading: LogReading = DEFAULT_READING,
) -> None:
    """Verify(c): is the claim carried by an argument in good standing, grounded all the way down?

    Exit 0 grounded, 1 not grounded or no anchor, 2 input error.  With --text: the literals the text
    asserts and denies, each verified, and one verdict: accept (exit 0), reject or abstain (exit 1).
    With --cited: the cited ids verified by claim, the text read against them, one verdict likewise.
    """
    given = [name for name, value in (("a CLAIM", claim), ("--text", text), ("--cited", cited)) if value is not None]
    if len(given) != 1:
        raise InputError(f"give one of a CLAIM, --text or --cited, not {' and '.join(given)}" if given
                         else "give a CLAIM, --text or --cited")
    if text is not None and anchor not in ANCHORS:
        raise InputError(f"--anchor: unknown {anchor!r} (one of {', '.join(ANCHORS)})")
    if cited is not None and anchor not in ("offline", "tfidf"):
        raise InputError("--anchor with --cited: offline or tfidf (the citation says what the text asserts; the "
                         "offline reader checks the text against it)")
    if claim is not None and anchor != "offline":
        raise InputError("--anchor applies to --text and --cited only")
    citation = _read_cited(cited) if cited is not None else None  # bad JSON is refused before the file loads
    if claim is not None:
        _answer(reading.answers(file), VERIFY, at, {"claim": claim}, as_json, log=True)
        return
    engine = reading.load(file)
    if citation is not None:
        from grounded.interpreter.cited import verify_cited

        tv = verify_cited(engine, citation, at, threshold=threshold,
                          similarity="tfidf" if anchor == "tfidf" else "auto")
    else:
        assert text is not None  # exactly one of CLAIM, --text and --cited, checked above
        tv = _read_text(engine, text, at, anchor, threshold, model=model, base_url=base_url, api_key=api_key,
                        call_log=call_log)
    flag = tv.flag(engine)
    if as_json:
        print(json.dumps({**tv.to_json(), "flag": flag, **log_json(engine)}))
    else:
        _print_text_verdict(tv, flag)
        say_partial(engine)
    exit_with(tv.exit_code)


ANCHORS = ("offline", "tfidf", "llm")


def _read_cited(value: str):
    """The --cited JSON, given inline or as @FILE; an error names the option, the file and the field."""
    from grounded.interpreter.cited import read_cited

    if not value.startswith("@"):
        return read_cited(value, "--cited")
    path = Path(value[1:])
    try:
        with open(path, "rb") as handle:  # a pipe or a device too (@/dev/stdin), read no further than the bound
            data = handle.read(MAX_ARGUMENT_FILE_BYTES + 1)
        if len(data) > MAX_ARGUMENT_FILE_BYTES:
            raise InputError(f"--cited: {path} holds more than {MAX_ARGUMENT_FILE_BYTES} bytes (a cited "
                             "continuation is at most one log line)")
        raw = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"--cited: cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    return read_cited(raw, f"--cited {path}")


def _read_text(engine, text: str, at: int | None, anchor: str, threshold: float | None, *,
               call_log: Path | None, **endpoint: str | None):
    """The verdict on ``text`` through the chosen anchoring."""
    if anchor == "llm":
        from grounded.interpreter.calllog import CallLog
        from grounded.interpreter.llm import LLMConfig
        from grounded.interpreter.llm_anchor import LLMAnchor

        reader = LLMAnchor(LLMConfig.from_env(**endpoint), CallLog(call_log) if call_log is not None else None)
        try:
            return reader.verify(engine, text, at)
        finally:
            reader.close()
    from grounded.interpreter.anchor import verify_text

    return verify_text(engine, text, at, threshold, "tfidf" if anchor == "tfidf" else "auto")


def _print_text_verdict(tv, flag: str | None) -> None:
    style = {"accept": "bold green", "reject": "bold red"}.get(tv.verdict, "bold yellow")
    out.print(Text("verdict: ", style="bold") + Text(tv.verdict.upper(), style=style) + Text(f"  {tv.reason}"))
    for f in tv.findings:
        out.print(f"  {f.describe()}: ", end="", markup=False)
        out.print(render.verification_line(f.verification))
    if not tv.findings and tv.best:
        out.print(f"  nothing anchors (closest: {tv.best[0]} at {tv.best[1]:.2f}, below {tv.threshold})",
                  markup=False)
    for note in tv.notes:
        out.print(f"note: {note}", style="dim", markup=False)
    if flag:
        out.print(f"flag: {flag}", style="yellow", markup=False)
    out.print(f"read by: {tv.method}", style="dim", markup=False)


@app.command(context_settings=LITERAL_ARGS)
@reads_log()
def affected(
    file: File,
    claim: Annotated[str, typer.Argument(help="The literal to retract, e.g. o5 or -a3 (a literal such as -x1 "
                                              "that looks like an option: after --).")],
    one_step: Annotated[bool, typer.Option("--one-step", help="One-step Affected instead of Affected*.")] = False,
    at: At = None,
    as_json: AsJson = False,
    reading: LogReading = DEFAULT_READING,
) -> None:
    """Affected*(p): every argument that rests, transitively, on p.

    Exit 0 answered, 1 the literal is unknown to the state, 2 input error.
    """
    _answer(reading.answers(file), AFFECTED, at, {"claim": claim, "closure": not one_step}, as_json, log=True)


@app.command(name="query", context_settings=LITERAL_ARGS)
@reads_log()
def query_command(
    file: File,
    name: Annotated[str, typer.Argument(help="The query: " + ", ".join(QUERIES) + ".")],
    claim: Annotated[str | None, typer.Argument(help="Its claim, for a query that takes one (a literal such "
                                                     "as -x1 that looks like an option: after --).")] = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="Another parameter, as NAME=VALUE "
                                                                         "(VALUE read as JSON when it is; "
                                                                         "e.g. -p closure=false).")] = None,
    at: At = None,
    as_json: AsJson = False,
    reading: LogReading = DEFAULT_READING,
) -> None:
    """Any registered query (grounded.queries.registry), answered in its one JSON shape (as the HTTP API and
    the MCP tools answer it).  Exit 0 answered (for verify: grounded; for affected: known), 1 otherwise, 2 input
    error."""
    q = get(name)
    params = _params(param or [])
    if claim is not None:
        params["claim"] = claim
    q.read(params)  # a bad parameter is refused before the file loads
    load = reading.answers if q in (VERIFY, AFFECTED) else reading.load
    _answer(load(file), q, at, params, as_json, log=reading.partial)


def _params(given: list[str]) -> dict[str, Any]:
    """``--param NAME=VALUE`` options: each VALUE as JSON when it parses, else as text."""
    params: dict[str, Any] = {}
    for item in given:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"--param {item!r}: expected NAME=VALUE")
        try:
            params[key] = json.loads(value)
        except ValueError:
            params[key] = value
    return params


def _answer(engine: "Engine | IndexedAnswers", q: Query, at: int | None, params: dict[str, Any], as_json: bool,
            log: bool) -> None:
    """Print the query's answer (JSON: its one shape, with the log's status when ``log``) and exit by ``q.ok``."""
    answer = engine.ask(q.name, at, **params)
    if as_json:
        print(json.dumps({**answer, **(log_json(engine) if log else {})}))
    else:
        out.print(render.answer_line(q, answer))
        say_partial(engine)
    exit_with(0 if q.ok(answer) else 1)
