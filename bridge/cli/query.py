"""`grounded verify` and `grounded affected`: the two runtime queries on a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from grounded.cli.app import AsJson, At, Extensions, File, app, load_engine, out
from grounded.core.errors import InputError
from grounded.present import render


@app.command()
def verify(
    file: File,
    claim: Annotated[str | None, typer.Argument(help="The literal the continuation asserts, e.g. h2 or -a3.")] = None,
    text: Annotated[str | None, typer.Option("--text", help="The continuation's text: its claim is found by "
                                                            "similarity among all propositions.")] = None,
    threshold: Annotated[float | None, typer.Option("--threshold", help="Least similarity for a clause of --text "
                                                                         "to anchor (below it: no anchor).")] = None,
    anchor: Annotated[str, typer.Option("--anchor", help="How --text is read: offline (sentence embeddings when "
                                                         "installed, else TF-IDF), tfidf, or llm (the configured "
                                                         "endpoint).")] = "offline",
    model: Annotated[str | None, typer.Option(help="--anchor llm: model (default: $GROUNDED_MODEL).")] = None,
    base_url: Annotated[str | None, typer.Option(help="--anchor llm: endpoint (default: $OPENAI_BASE_URL).")] = None,
    api_key: Annotated[str | None, typer.Option(help="--anchor llm: API key (default: $OPENAI_API_KEY).")] = None,
    call_log: Annotated[Path | None, typer.Option(help="--anchor llm: append each request to this JSONL "
                                                       "call log.")] = None,
    at: At = None,
    as_json: AsJson = False,
    extension: Extensions = None,
) -> int | None:
    """Verify(c): is the claim carried by an argument in good standing, grounded all the way down?

    With --text: the literals the text asserts and denies, each verified, and one verdict: accept (exit 0),
    reject or abstain (exit 1).
    """
    if (claim is None) == (text is None):
        raise InputError("give either a CLAIM or --text, not both" if claim else "give a CLAIM or --text")
    if text is not None and anchor not in ANCHORS:
        raise InputError(f"--anchor: unknown {anchor!r} (one of {', '.join(ANCHORS)})")
    if text is None and anchor != "offline":
        raise InputError("--anchor applies to --text only")
    engine = load_engine(file, extension)
    if text is not None:
        tv = _read_text(engine, text, at, anchor, threshold, model=model, base_url=base_url, api_key=api_key,
                        call_log=call_log)
        flag = tv.flag(engine)
        if as_json:
            print(json.dumps({**tv.to_json(), "flag": flag}))
        else:
            _print_text_verdict(tv, flag)
        return tv.exit_code
    assert claim is not None  # exactly one of CLAIM and --text, checked above
    v = engine.verify(claim, at=at)
    if as_json:
        print(json.dumps({"claim": v.claim, "grounded": v.grounded, "chain": list(v.chain),
                          "reason": v.reason, "status": v.status}))
    else:
        out.print(render.verification_line(v))
    return None


ANCHORS = ("offline", "tfidf", "llm")


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
    if flag:
        out.print(f"flag: {flag}", style="yellow", markup=False)
    out.print(f"read by: {tv.method}", style="dim", markup=False)


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
