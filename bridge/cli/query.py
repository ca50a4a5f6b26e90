"""`grounded verify` and `grounded affected`: the two runtime queries on a file.

Exit codes (docs/reliability.md): verify 0 grounded, 1 not grounded or no
anchor; affected 0 answered, 1 the literal is unknown to the state (said in
words); both 2 on an input error.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from grounded.cli.app import (
    LITERAL_ARGS,
    AllowRulesChange,
    AsJson,
    At,
    Extensions,
    File,
    Partial,
    app,
    exit_with,
    load_engine,
    log_json,
    out,
    say_partial,
)
from grounded.core.errors import InputError
from grounded.core.literals import atom_of
from grounded.engine import Engine
from grounded.present import render
from grounded.queries.verify import GROUNDED


@app.command(context_settings=LITERAL_ARGS)
def verify(
    file: File,
    claim: Annotated[str | None, typer.Argument(help="The literal the continuation asserts, e.g. h2 or -a3 "
                                                     "(a literal such as -x1 that looks like an option: after --).")
                     ] = None,
    text: Annotated[str | None, typer.Option("--text", help="The continuation's text: its claim is found by "
                                                            "similarity among all propositions.")] = None,
    threshold: Annotated[float | None, typer.Option("--threshold", help="Least similarity for --text to anchor "
                                                                         "(below it: abstain).")] = None,
    at: At = None,
    as_json: AsJson = False,
    extension: Extensions = None,
    partial: Partial = False,
    allow_rules_change: AllowRulesChange = False,
) -> None:
    """Verify(c): is the claim carried by an argument in good standing, grounded all the way down?

    Exit 0 grounded, 1 not grounded or no anchor, 2 input error.
    """
    if (claim is None) == (text is None):
        raise InputError("give either a CLAIM or --text, not both" if claim else "give a CLAIM or --text")
    engine = load_engine(file, extension, partial, allow_rules_change)
    if text is not None:
        from grounded.interpreter.anchor import THRESHOLD, verify_text

        tv = verify_text(engine, text, at, THRESHOLD if threshold is None else threshold)
        if as_json:
            print(json.dumps({**tv.to_json(), **log_json(engine)}))
        else:
            if tv.verification is None or tv.anchor is None:
                out.print(f"abstain: {tv.to_json()['reason']}", markup=False)
            else:
                out.print(f"anchor: {tv.anchor.claim} (similarity {tv.anchor.score:.2f})", markup=False)
                out.print(render.verification_line(tv.verification))
            say_partial(engine)
        exit_with(0 if tv.status == GROUNDED else 1)
        return
    assert claim is not None
    v = engine.verify(claim, at=at)
    if as_json:
        print(json.dumps({"claim": v.claim, "grounded": v.grounded, "chain": list(v.chain),
                          "reason": v.reason, "status": v.status, **log_json(engine)}))
    else:
        out.print(render.verification_line(v))
        say_partial(engine)
    exit_with(0 if v.grounded else 1)


@app.command(context_settings=LITERAL_ARGS)
def affected(
    file: File,
    claim: Annotated[str, typer.Argument(help="The literal to retract, e.g. o5 or -a3 (a literal such as -x1 "
                                              "that looks like an option: after --).")],
    one_step: Annotated[bool, typer.Option("--one-step", help="One-step Affected instead of Affected*.")] = False,
    at: At = None,
    as_json: AsJson = False,
    extension: Extensions = None,
    partial: Partial = False,
    allow_rules_change: AllowRulesChange = False,
) -> None:
    """Affected*(p): every argument that rests, transitively, on p.

    Exit 0 answered, 1 the literal is unknown to the state, 2 input error.
    """
    engine = load_engine(file, extension, partial, allow_rules_change)
    a = engine.affected(claim, closure=not one_step, at=at)
    known = bool(a.arguments) or is_known(engine, claim, at)
    if as_json:
        print(json.dumps({"claim": claim, "known": known, "claims": a.claims, "lose_support": a.lose_support,
                          "hops": a.claim_hops, **log_json(engine)}))
    else:
        if known:
            out.print(render.affected_line(a))
        else:
            when = "" if at is None else f" at turn {at}"
            out.print(f"{claim}: unknown to the state{when} (no argument claims it, none rests on it, "
                      "no proposition declares it)", markup=False)
        say_partial(engine)
    exit_with(0 if known else 1)


def is_known(engine: Engine, literal: str, at: int | None) -> bool:
    """Whether the state (as of ``at``) has heard of ``literal``: an argument claims it or its
    proposition is declared (an empty Affected* of a known literal is an answer: nothing rests on it)."""
    if engine.state.claimants_at(literal, at):
        return True
    return any(p.id == atom_of(literal) for p in engine.state.props_at(at))
