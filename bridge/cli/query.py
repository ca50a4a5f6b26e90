"""`grounded verify` and `grounded affected`: the two runtime queries on a file."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from grounded.cli.app import AsJson, At, Extensions, File, app, load_engine, out
from grounded.core.errors import InputError
from grounded.present import render


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
        from grounded.interpreter.anchor import THRESHOLD, verify_text

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
