"""Ask clingo (asp/queries.lp) the same questions the Python walk answers."""

from __future__ import annotations

import json
from importlib import resources

import clingo

from grounded.state import DependencyMap

ENCODING = str(resources.files("grounded.asp") / "queries.lp")


def facts(dm: DependencyMap, query: str) -> str:
    q = json.dumps  # an ASP string constant is a JSON string for our ids
    lines = [f"query({q(query)})."]
    for r in dm.args:
        lines.append(f"arg({r.id}). claim({r.id},{q(r.claim)}). standing({r.id},{r.standing}).")
        lines.extend(f"dep({r.id},{q(d)})." for d in r.deps)
    return "\n".join(lines)


def ask(dm: DependencyMap, query: str) -> dict:
    """The one answer set, copied out of the model callback."""
    ctl = clingo.Control(["--warn=none"])
    ctl.load(ENCODING)
    ctl.add("base", [], facts(dm, query))
    ctl.ground([("base", [])])
    models: list[list[clingo.Symbol]] = []
    ctl.solve(on_model=lambda m: models.append(list(m.symbols(shown=True))))
    assert len(models) == 1, "a positive program has exactly one answer set"
    answer = {"grounded": set(), "verified": False, "affected_one": set(), "affected": set(), "hop": {}}
    for s in models[0]:
        args = s.arguments
        if s.name == "verified":
            answer["verified"] = True
        elif s.name == "hop":
            answer["hop"][args[0].number] = args[1].number
        else:
            answer[s.name].add(args[0].number)
    return answer
