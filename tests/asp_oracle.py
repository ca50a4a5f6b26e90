"""Ask clingo (asp/queries.lp) the same questions the Python walk answers."""

from __future__ import annotations

import clingo
from clorm import FactBase
from clorm.clingo import control_add_facts

from grounded.dmap.state import DependencyMap
from grounded.solvers import facts as F
from grounded.solvers.asp import encoding, new_control


def view_facts(dm: DependencyMap, query: str, x: int = 0) -> FactBase:
    facts = FactBase([F.ViewQuery(x, query)])
    for r in dm.args:
        facts.add(F.ViewArg(x, r.id))
        facts.add(F.ViewClaim(x, r.id, r.claim))
        facts.add(F.ViewStanding(x, r.id, r.standing))
        facts.update(F.ViewDep(x, r.id, d) for d in r.deps)
    return facts


def ask(dm: DependencyMap, query: str) -> dict:
    """The one answer set of view 0, copied out of the model callback."""
    ctl = new_control()
    ctl.load(encoding("queries.lp"))
    ctl.load(encoding("standing.lp"))
    control_add_facts(ctl, view_facts(dm, query))
    ctl.ground([("base", []), ("query", [clingo.Number(0)])])
    ctl.assign_external(clingo.Function("now", [clingo.Number(0)]), True)
    ctl.configuration.solve.models = 0
    models: list[list[clingo.Symbol]] = []
    ctl.solve(on_model=lambda m: models.append(list(m.symbols(shown=True))))
    assert len(models) == 1, "a positive program has exactly one answer set"
    answer = {"grounded": set(), "affected_one": set(), "affected": set(), "hop": {}}
    for s in models[0]:
        args = [a.number if a.type == clingo.SymbolType.Number else a.string for a in s.arguments]
        if s.name == "now_grounded":
            answer["grounded"].add(args[1])
        elif s.name == "now_affected_one":
            answer["affected_one"].add(args[2])
        elif s.name == "now_hop":
            answer["affected"].add(args[2])
            answer["hop"][args[2]] = args[3]
    claims = {r.id: r.claim for r in dm.args}
    answer["verified"] = any(claims[a] == query for a in answer["grounded"])
    return answer
