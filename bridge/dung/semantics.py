"""Dung's semantics in ASP: one small encoding per semantics (asp/af_*.lp).

Each ``Semantics`` names its encoding and the solver options it needs;
``extensions`` enumerates, ``credulous`` asks whether some extension contains
given arguments (brave reasoning) and ``skeptical`` intersects all of them
(cautious reasoning).  Preferred extensions are the subset-maximal complete
ones, enumerated with clingo's domain heuristic (``--enum-mode=domRec``).

On an acyclic framework grounded, complete, preferred and stable semantics
have one extension, the grounded one, computed by the fast path in
``acyclic.py``; ``fast=False`` forces the general encodings (the tests hold
both equal).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import clingo

from grounded.dung.acyclic import acyclic_grounded_asp
from grounded.dung.facts import add_facts, framework_symbols, members
from grounded.dung.framework import Framework
from grounded.solvers.asp import encoding, new_control

DOMREC = ("--heuristic=Domain", "--enum-mode=domRec")


@dataclass(frozen=True)
class Semantics:
    name: str
    encoding: str
    options: tuple[str, ...] = ()
    coincide_when_acyclic: bool = True
    """Grounded, complete, preferred and stable all equal the grounded extension on an acyclic AF."""

    def control(self, af: Framework, options: Iterable[str] = (), required: Iterable[int] = ()) -> clingo.Control:
        ctl = new_control([*self.options, *options])
        ctl.load(encoding(self.encoding))
        required = list(required)
        add_facts(ctl, framework_symbols(af, required))
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
    ctl.configuration.solve.models = limit
    found: list[frozenset[int]] = []
    ctl.solve(on_model=lambda m: found.append(members(m)))
    return found


def extensions(af: Framework, name: str, limit: int = 0, fast: bool = True) -> list[frozenset[int]]:
    """The extensions of ``af`` under the named semantics (at most ``limit``; 0: all), sorted."""
    sem = semantics(name)
    if fast and sem.coincide_when_acyclic and af.is_acyclic():
        return [acyclic_grounded_asp(af, checked=True)]
    return sorted(_models(sem.control(af), limit), key=lambda e: (len(e), sorted(e)))


def credulous(af: Framework, name: str, required: Iterable[int]) -> bool:
    """Brave reasoning: does some extension contain every argument of ``required``?

    For complete and preferred semantics it suffices to find an admissible set
    containing them: every admissible set lies inside a complete extension and
    inside a preferred one (Dung 1995).
    """
    sem = semantics(name)
    required = list(required)
    if sem is GROUNDED:
        return set(required) <= extensions(af, "grounded")[0]
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
    if sem is PREFERRED:
        exts = extensions(af, name)
        return frozenset.intersection(*exts) if exts else None
    models = _models(sem.control(af, options=["--enum-mode=cautious"]))
    return models[-1] if models else None  # the last model of a cautious run is the intersection


