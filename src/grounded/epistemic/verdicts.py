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

The same tuples go to the runtime rules as terms (``verdict_term``: the
operation's ``epistemic`` field, answered while the rules decide the
utterance) and to the ASP reference as typed facts (grounded.solvers.history).
"""

from __future__ import annotations

from grounded.core.literals import literal_term

Verdict = tuple
FLAGS = ("consistent", "novel", "contingent")
LITERAL_KINDS = ("impossible", "false")


def truth(value: bool) -> str:
    """A finding's truth value as both rule languages spell it."""
    return "true" if value else "false"


def verdict_term(v: Verdict) -> tuple:
    """A finding as term data (grounded.solvers.terms), as the rules' ``epistemic/2`` reads it."""
    kind = v[0]
    if kind == "agent":
        return ("agent", v[1])
    if kind in FLAGS:
        return (kind, truth(v[1]))
    if kind == "problem":
        return ("problem", literal_term(v[1]), truth(v[2]), truth(v[3]), truth(v[4]))
    if kind in LITERAL_KINDS:
        return (kind, literal_term(v[1]))
    raise ValueError(f"not an epistemic verdict: {v!r}")
