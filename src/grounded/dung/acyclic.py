"""The grounded extension of an acyclic framework, by topological processing, twice more.

Under the paper's restriction A2 the attack graph is acyclic, and then the
grounded extension is the only complete extension (so also the only
preferred and the only stable one).  ``semantics.extensions`` finds it with
the linear labelling of ``labelling.py``; these two independent computations
(in Prolog, prolog/dung.pl, one pass over the attack graph; in ASP,
asp/af_acyclic.lp, decided by propagation alone) are what the tests hold it to.
"""

from __future__ import annotations

from grounded.dung.facts import add_framework, members
from grounded.dung.framework import Framework
from grounded.solvers.asp import encoding, new_control
from grounded.solvers.prolog import PrologRules


class CyclicFramework(ValueError):
    """The fast path was asked about a framework whose attacks form a cycle."""


def acyclic_grounded_prolog(af: Framework) -> frozenset[int]:
    members = PrologRules.get().acyclic_grounded(sorted(af.arguments), sorted(af.attacks))
    if members is None:
        raise CyclicFramework("the attack graph has a cycle: the acyclic fast path does not apply")
    return members


def acyclic_grounded_asp(af: Framework, statistics: dict | None = None, checked: bool = False) -> frozenset[int]:
    """The grounded extension of an acyclic ``af`` (``checked``: the caller knows it is acyclic);
    ``statistics`` receives clingo's."""
    if not checked and not af.is_acyclic():
        raise CyclicFramework("the attack graph has a cycle: the acyclic fast path does not apply")
    ctl = new_control()
    ctl.load(encoding("af_acyclic.lp"))
    add_framework(ctl, af)
    ctl.ground([("base", [])])
    found: list[frozenset[int]] = []
    ctl.solve(on_model=lambda m: found.append(members(m)))
    if statistics is not None:
        statistics.update(ctl.statistics)
    return found[0]
