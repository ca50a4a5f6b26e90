"""Ask clingo (asp/queries.lp) the same questions the Python walk answers."""

from __future__ import annotations

import json

import clingo

from grounded.asp_history import encoding
from grounded.state import DependencyMap


def facts(dm: DependencyMap, query: str) -> str:
    q = json.dumps  # an ASP string constant is a JSON string for our ids
    lines = [f"query(0,{q(query)})."]
    for r in dm.args:
        lines.append(f"arg(0,{r.id}). claim(0,{r.id},{q(r.claim)}). standing(0,{r.id},{r.standing}).")
        lines.extend(f"dep(0,{r.id},{q(d)})." for d in r.deps)
    return "\n".join(lines)


def ask(dm: DependencyMap, query: str) -> dict:
    """The one answer set of view 0, copied out of the model callback."""
    ctl = clingo.Control(["--warn=none"])
    ctl.load(encoding("queries.lp"))
    ctl.add("base", [], facts(dm, query))
    ctl.ground([("base", []), ("query", [clingo.Number(0)])])
    ctl.assign_external(clingo.Function("now", [clingo.Number(0)]), True)
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
