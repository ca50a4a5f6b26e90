"""What the world model found about one operation, for the rules to judge.

The bridge reads each operation in M; the rules (prolog/ops/hypothesize.pl,
the announcement checks of prolog/grounded.pl, and their ASP twin in
asp/history.lp) decide what a finding means.  A finding is a small tuple:

* ``("agent", name)``: whose Definition A.2 checks follow;
* ``("consistent" | "novel" | "contingent", bool)``: the checks on the hypothesis;
* ``("problem", literal, surprising, explanatory, distinct)``: one observation
  it would explain;
* ``("impossible" | "false", literal)``: an announcement that leaves no world,
  or is false in the declared actual world.

The same tuples become a Prolog field (``epistemic=[...]``) for the runtime
rules and typed facts for the ASP reference (bridge/asp_history.py).
"""

from __future__ import annotations

from grounded.core.literals import prolog_atom, prolog_literal

Verdict = tuple
FLAGS = ("consistent", "novel", "contingent")
LITERAL_KINDS = ("impossible", "false")


def truth(value: bool) -> str:
    """A finding's truth value as both rule languages spell it."""
    return "true" if value else "false"


def prolog_term(v: Verdict) -> str:
    kind = v[0]
    if kind == "agent":
        return f"agent({prolog_atom(v[1])})"
    if kind in FLAGS:
        return f"{kind}({truth(v[1])})"
    if kind == "problem":
        return f"problem({prolog_literal(v[1])},{truth(v[2])},{truth(v[3])},{truth(v[4])})"
    if kind in LITERAL_KINDS:
        return f"{kind}({prolog_literal(v[1])})"
    raise ValueError(f"not an epistemic verdict: {v!r}")


def prolog_field(verdicts: list[Verdict]) -> str:
    """The ``epistemic=[...]`` field of an operation, as the rules read it."""
    return "epistemic=[" + ",".join(map(prolog_term, verdicts)) + "]"
