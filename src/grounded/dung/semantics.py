"""Dung's semantics: the grounded labelling in Python, the rest in ASP (asp/af_*.lp).

Each ``Semantics`` names its encoding and the solver options it needs;
``extensions`` enumerates, ``credulous`` asks whether some extension contains
given arguments (brave reasoning) and ``skeptical`` intersects all of them
(cautious reasoning).  Preferred extensions are the subset-maximal complete
ones, enumerated with clingo's domain heuristic (``--enum-mode=domRec``).

The grounded extension is always the linear-time labelling of
``labelling.py``.  When that labelling leaves nothing undecided (on every
acyclic framework, among others) complete, preferred and stable semantics
have that one extension too, and no solver runs; ``fast=False`` forces the
encodings (the tests hold both equal).  The intersection of the complete
extensions is the grounded one, so skeptical complete reasoning is the
labelling as well.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import clingo

from grounded.dung.facts import add_framework, members
from grounded.dung.framework import Framework
from grounded.dung.labelling import Labelling, grounded_labelling
from grounded.solvers.asp import encoding, new_control

DOMREC = ("--heuristic=Domain", "--enum-mode=domRec")


@dataclass(frozen=True)
class Semantics:
    name: str
    encoding: str
    options: tuple[str, ...] = ()
    coincide_when_acyclic: bool = True
    """Its only extension is the grounded one when the grounded labelling is total (so on an acyclic AF)."""

    def control(self, af: Framework, options: Iterable[str] = (), required: Iterable[int] = ()) -> clingo.Control:
        ctl = new_control([*self.options, *options])
        ctl.load(encoding(self.encoding))
        required = list(required)
        add_framework(ctl, af, required)
        if required:
            ctl.add("base", [], ":- required(X), not in(X).")
        ctl.ground([("base", [])])
        return ctl


ADMISSIBLE = Semantics("admissible", "af_admissible.lp", coincide_when_acyclic=False)
COMPLETE = Semantics("complete", "af_complete.lp")
GROUNDED = Semantics("grounded", "af_grounded.lp")
PREFERRED = Semantics("preferred", "af_preferred.lp", DOMREC)
STABLE = Semantics("stable", "af_stable.lp")

SEMANTICS = {s.name: s for s in (ADMISSIBLE, COMPLETE, GROUNDED, PREFERRED, STABLE)}


def semantics(name: str) -> Semantics:
    try:
        return SEMANTICS[name]
    except KeyError:
        raise ValueError(f"unknown semantics {name!r} (known: {', '.join(SEMANTICS)})") from None


def _models(ctl: clingo.Control, limit: int = 0) -> list[frozenset[int]]:
    solve = ctl.configuration.solve
    assert isinstance(solve, clingo.Configuration)  # a group of options, not a single value
    solve.models = limit
    found: list[frozenset[int]] = []
    ctl.solve(on_model=lambda m: found.append(members(m)))
    return found


def extensions(af: Framework, name: str, limit: int = 0, fast: bool = True) -> list[frozenset[int]]:
    """The extensions of ``af`` under the named semantics (at most ``limit``; 0: all), sorted."""
    sem = semantics(name)
    decided = _decided(af, sem) if fast else None
    if decided is not None:
        return [decided.inside]
    return sorted(_models(sem.control(af), limit), key=lambda e: (len(e), sorted(e)))


def _decided(af: Framework, sem: Semantics) -> Labelling | None:
    """The grounded labelling when it alone answers for ``sem``, else None."""
    if not sem.coincide_when_acyclic:
        return None
    labelling = grounded_labelling(af)
    return labelling if sem is GROUNDED or labelling.total else None


def credulous(af: Framework, name: str, required: Iterable[int]) -> bool:
    """Brave reasoning: does some extension contain every argument of ``required``?

    For complete and preferred semantics it suffices to find an admissible set
    containing them: every admissible set lies inside a complete extension and
    inside a preferred one (Dung 1995).
    """
    sem = semantics(name)
    required = list(required)
    decided = _decided(af, sem)
    if decided is not None:
        return set(required) <= decided.inside
    if sem in (COMPLETE, PREFERRED):
        sem = ADMISSIBLE
    return bool(_models(sem.control(af, required=required), limit=1))


def skeptical(af: Framework, name: str) -> frozenset[int] | None:
    """Cautious reasoning: the arguments in every extension (None when there is none).

    clingo computes the intersection itself (``--enum-mode=cautious``), except
    for preferred semantics, whose maximality already takes the enumeration
    mode: there the extensions are intersected here.
    """
    sem = semantics(name)
    if sem is COMPLETE:  # the grounded extension is the least complete one: it is their intersection
        return grounded_labelling(af).inside
    decided = _decided(af, sem)
    if decided is not None:
        return decided.inside
    if sem is PREFERRED:
        exts = extensions(af, name)
        return frozenset.intersection(*exts) if exts else None
    models = _models(sem.control(af, options=["--enum-mode=cautious"]))
    return models[-1] if models else None  # the last model of a cautious run is the intersection
