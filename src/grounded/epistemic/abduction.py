"""Abductive problems and solutions (Definition A.2), checked in a plausibility model.

Given an agent i, an observation chi and a candidate explanation gamma:

* **surprise**: chi is true but i did not believe it (M, w |= chi and
  M, w |/= B_i chi).  In a conversation chi is announced, after which it is
  known; so surprise is judged in the model *just before chi was announced*
  ("not previously believed", as the definition says);
* (1) **consistency**: M |/= B_i ~gamma;
* (2) **explanatory**: M[^gamma], w |= B_i chi.  Read in the *background*
  model: the current one with chi's own announcement withdrawn (everything now
  known except chi), since with chi announced every gamma would "explain" it;
* (3) **non-triviality**: gamma is not equivalent to chi (in the background),
  not already believed (M |/= B_i gamma), and not valid (gamma != Top in M).

``point`` is where the statements are evaluated: a world id, ``None`` for
"every live world" (M |= phi), or ``"actual"``.  The conversation layer
evaluates at the declared actual world, or model-wide when there is none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from grounded.epistemic.formula import B, Formula, Not
from grounded.epistemic.model import PlausibilityModel
from grounded.epistemic.semantics import NO_DEFS, at_point, holds, truth
from grounded.epistemic.updates import lexicographic


@dataclass(frozen=True)
class Problem:
    """An observation chi to explain: its label, formula, the model just before
    it was announced (``before``) and the model without its announcement
    (``background``)."""

    label: str
    formula: Formula
    before: PlausibilityModel
    background: PlausibilityModel


@dataclass(frozen=True)
class ProblemVerdict:
    label: str
    surprising: bool
    explanatory: bool
    distinct: bool


@dataclass(frozen=True)
class AbductionVerdict:
    agent: str
    consistent: bool
    novel: bool
    contingent: bool
    problems: tuple[ProblemVerdict, ...] = field(default=())
    """What each check found; whether gamma is an abductive solution is the rules'
    decision (prolog/ops/hypothesize.pl), not this module's."""


def surprising(before: PlausibilityModel, agent: str, chi: Formula, point: int | None | str = "actual",
               defs: Mapping[str, Formula] = NO_DEFS) -> bool:
    """chi holds and agent does not believe it (in the model before chi was announced)."""
    where = before.actual if point == "actual" else point
    if where is not None and not holds(before, chi, where, defs):
        return False
    return not holds(before, B(agent, chi), where, defs)


def explanatory(background: PlausibilityModel, agent: str, gamma: Formula, chi: Formula,
                point: int | None | str = "actual", defs: Mapping[str, Formula] = NO_DEFS) -> bool:
    """After [^gamma] on the background model, agent believes chi."""
    return holds(lexicographic(background, gamma, defs), B(agent, chi), point, defs)


def distinct(background: PlausibilityModel, gamma: Formula, chi: Formula,
             defs: Mapping[str, Formula] = NO_DEFS) -> bool:
    """gamma and chi differ on some live world of the background model."""
    live = background.alive
    return not np.array_equal(truth(background, gamma, defs)[live], truth(background, chi, defs)[live])


def abduce(model: PlausibilityModel, agent: str, gamma: Formula, problems: Sequence[Problem] = (),
           point: int | None | str = "actual", defs: Mapping[str, Formula] = NO_DEFS) -> AbductionVerdict:
    """Every check of Definition A.2 for gamma as agent's explanation of each problem."""
    model.check_agent(agent)
    verdicts = tuple(
        ProblemVerdict(p.label, surprising(p.before, agent, p.formula, point, defs),
                       explanatory(p.background, agent, gamma, p.formula, point, defs),
                       distinct(p.background, gamma, p.formula, defs))
        for p in problems)
    return AbductionVerdict(
        agent,
        consistent=not holds(model, B(agent, Not(gamma)), point, defs),
        novel=not holds(model, B(agent, gamma), point, defs),
        contingent=not at_point(model, truth(model, gamma, defs), None),
        problems=verdicts,
    )
