"""The expectations a scenario may state about the dependency map; each returns (passed, description).

``CHECKS`` names every kind a scenario file may use, the world-model ones
(scenario/epistemic.py) included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from grounded.scenario.epistemic import EPISTEMIC_CHECKS

if TYPE_CHECKING:
    from grounded.engine import Engine


def names(spec: Any) -> list[str]:
    return list(spec) if isinstance(spec, (list, dict)) else [spec]


def _check_standing(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    got = {c: e.standing(c, at) for c in spec}
    return got == dict(spec), f"standing {_fmt(spec)}" + ("" if got == dict(spec) else f" (got {_fmt(got)})")


def _check_grounded(e: Engine, spec: list, at: int | None) -> tuple[bool, str]:
    bad = {c: e.verify(c, at).reason for c in names(spec) if not e.verify(c, at).grounded}
    return not bad, f"grounded {', '.join(names(spec))}" + ("" if not bad else f" (not: {bad})")


def _check_ungrounded(e: Engine, spec: Any, at: int | None) -> tuple[bool, str]:
    wanted = spec if isinstance(spec, dict) else {c: "" for c in names(spec)}
    problems = []
    for claim, reason in wanted.items():
        v = e.verify(claim, at)
        if v.grounded:
            problems.append(f"{claim} is grounded")
        elif reason and reason not in (v.reason or ""):
            problems.append(f"{claim}: reason {v.reason!r}")
    desc = "ungrounded " + ", ".join(f"{c} ({r!r})" if r else c for c, r in wanted.items())
    return not problems, desc + ("" if not problems else f" ({'; '.join(problems)})")


def _check_no_anchor(e: Engine, spec: list, at: int | None) -> tuple[bool, str]:
    bad = [c for c in names(spec) if e.verify(c, at).status != "no_anchor"]
    return not bad, f"no anchor for {', '.join(names(spec))}" + ("" if not bad else f" (anchored: {bad})")


def _check_chain(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    got = {c: list(e.verify(c, at).chain) for c in spec}
    ok = got == {c: list(v) for c, v in spec.items()}
    return ok, f"chain {_fmt(spec)}" + ("" if ok else f" (got {_fmt(got)})")


def _check_dep(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    got = {c: e.dep(c, at) for c in spec}
    ok = all(set(got[c]) == set(v) for c, v in spec.items())
    return ok, f"Dep {_fmt(spec)}" + ("" if ok else f" (got {_fmt(got)})")


def _check_affected(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    closure = spec.get("closure", True)
    result = e.affected(spec["of"], closure, at)
    name = f"Affected{'*' if closure else ''}({spec['of']})"
    problems = []
    if "claims" in spec and set(result.claims) != set(spec["claims"]):
        problems.append(f"got {result.claims}")
    if "lose_support" in spec and set(result.lose_support) != set(spec["lose_support"]):
        problems.append(f"lose support {result.lose_support}")
    if "hops" in spec and result.claim_hops != dict(spec["hops"]):
        problems.append(f"hops {result.claim_hops}")
    desc = f"{name} = {{{', '.join(spec.get('claims', result.claims))}}}"
    if "hops" in spec:
        desc += f" hops {_fmt(spec['hops'])}"
    return not problems, desc + ("" if not problems else f" ({'; '.join(problems)})")


def _check_not_affected(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    closure = spec.get("closure", True)
    got = set(e.affected(spec["of"], closure, at).claims)
    hit = [c for c in spec["claims"] if c in got]
    return not hit, (f"untouched by Affected{'*' if closure else ''}({spec['of']}): "
                     f"{', '.join(spec['claims'])}" + ("" if not hit else f" (affected: {hit})"))


def retraction_score(e: Engine, hypotheses: list[str], gold: dict[str, list[str]], closure: bool,
                     at: int | None = None) -> dict[str, int]:
    """Score affected/unaffected decisions against gold dependents (the paper's 16/16 vs 12/16)."""
    score = dict(decisions=0, correct=0, exact=0, queries=len(gold), tp=0, fp=0, fn=0)
    hyps = set(hypotheses)
    for literal, dependents in gold.items():
        got = set(e.affected(literal, closure, at).claims) & hyps
        want = set(dependents)
        score["decisions"] += len(hyps)
        score["correct"] += sum((h in got) == (h in want) for h in hyps)
        score["exact"] += got == want
        score["tp"] += len(got & want)
        score["fp"] += len(got - want)
        score["fn"] += len(want - got)
    return score


def _check_retraction(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    closure = spec.get("closure", True)
    s = retraction_score(e, spec["hypotheses"], spec["gold"], closure, at)
    wanted = {k: spec[k] for k in ("correct", "exact", "tp", "fp", "fn") if k in spec}
    ok = all(s[k] == v for k, v in wanted.items())
    desc = (f"retraction with {'Affected*' if closure else 'one-step Affected'}: "
            f"{s['correct']}/{s['decisions']} decisions, {s['exact']}/{s['queries']} exact, "
            f"TP/FP/FN {s['tp']}/{s['fp']}/{s['fn']}")
    return ok, desc + ("" if ok else f" (expected {_fmt(wanted)})")


def _includes_excludes(label: str, got: list[str], spec: dict) -> tuple[bool, str]:
    missing = [c for c in spec.get("includes", []) if c not in got]
    extra = [c for c in spec.get("excludes", []) if c in got]
    parts = []
    if spec.get("includes"):
        parts.append(f"includes {', '.join(spec['includes'])}")
    if spec.get("excludes"):
        parts.append(f"excludes {', '.join(spec['excludes'])}")
    desc = f"{label} {' and '.join(parts)}"
    if missing or extra:
        desc += f" (got {got})"
    return not (missing or extra), desc


def _check_commitments(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    cm = e.commitments(at)
    results = [_includes_excludes(f"Cm({agent})", cm.get(agent, []), want) for agent, want in spec.items()]
    return all(ok for ok, _ in results), "; ".join(d for _, d in results)


def _check_open_problems(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    return _includes_excludes("open problems", e.open_problems(at), spec)


def _check_reinstatable(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    claims = [e.state.arg(i).claim for i in e.reinstatable(at)]
    return _includes_excludes("reinstatable", claims, spec)


def _check_dissent(e: Engine, spec: dict, at: int | None) -> tuple[bool, str]:
    got = e.dissent(at)
    ok = all(set(got.get(d, [])) == set(agents) for d, agents in spec.items())
    return ok, f"dissent {_fmt(spec)}" + ("" if ok else f" (got {_fmt(got)})")


def _check_rejected_elsewhere(e: Engine, spec: Any, at: int | None) -> tuple[bool, str]:
    raise AssertionError("`rejected` is checked by the runner, against the turn's own utterance")


CHECKS: dict[str, Callable[[Engine, Any, int | None], tuple[bool, str]]] = {
    "standing": _check_standing,
    "grounded": _check_grounded,
    "ungrounded": _check_ungrounded,
    "no_anchor": _check_no_anchor,
    "chain": _check_chain,
    "dep": _check_dep,
    "affected": _check_affected,
    "not_affected": _check_not_affected,
    "retraction": _check_retraction,
    "commitments": _check_commitments,
    "open_problems": _check_open_problems,
    "reinstatable": _check_reinstatable,
    "dissent": _check_dissent,
    "rejected": _check_rejected_elsewhere,
    **EPISTEMIC_CHECKS,
}


def _fmt(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_fmt(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


