"""Scenario checks on the world model: |W|, knowledge, belief, common knowledge, plausibility levels.

    - worlds: 7                                   |W| after the turn (or `at`)
    - knows: {agent: alice, formula: m_a}         also {alice: m_a, bob: [m_b, "~m_c"]}
    - not_knows / believes / not_believes         same shapes
    - common_knowledge: "m_a | m_b | m_c"         or {group: [alice, bob], formula: ...}
    - holds: "K_alice m_a & ~K_carol m_c"         any formula (or a list of them)
    - levels: {alice: 1}                          plausibility levels in alice's cell(s)

Formulas are read at the declared actual world, or in every world of W when
the header declares none.  ``validate`` runs when the scenario is loaded, so a
formula that does not parse is reported with its file and line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from grounded.epistemic.formula import B, C, K, Not
from grounded.epistemic.parse import parse

if TYPE_CHECKING:
    from grounded.engine import Engine

Result = tuple[bool, str]


def _pairs(spec: Any) -> list[tuple[str, str]]:
    """{agent: a, formula: f} or {a: f, b: [f, g]} as (agent, formula) pairs."""
    if not isinstance(spec, dict):
        raise ValueError("expected {agent: NAME, formula: FORMULA} or {NAME: FORMULA, ...}")
    if "formula" in spec or "agent" in spec:
        if set(spec) != {"agent", "formula"}:
            raise ValueError("expected exactly the keys agent and formula")
        return [(str(spec["agent"]), str(spec["formula"]))]
    pairs = []
    for agent, formulas in spec.items():
        for f in formulas if isinstance(formulas, list) else [formulas]:
            pairs.append((str(agent), str(f)))
    return pairs


def _formulas(spec: Any) -> list[str]:
    return [str(f) for f in spec] if isinstance(spec, list) else [str(spec)]


def _common(spec: Any) -> tuple[list[str] | None, str]:
    if isinstance(spec, dict):
        if "formula" not in spec or set(spec) - {"group", "formula"}:
            raise ValueError("expected {group: [agents], formula: FORMULA} or a formula")
        group = spec.get("group")
        return (None if group is None else [str(g) for g in group]), str(spec["formula"])
    return None, str(spec)


def validate(kind: str, spec: Any) -> None:
    """Raise ValueError (naming the problem) if ``spec`` is not a valid ``kind`` check."""
    if kind == "worlds":
        if not isinstance(spec, int) or isinstance(spec, bool) or spec < 0:
            raise ValueError(f"worlds: expected a number of worlds, not {spec!r}")
        return
    if kind == "levels":
        if not isinstance(spec, dict) or not all(isinstance(v, int) for v in spec.values()):
            raise ValueError("levels: expected {agent: number of plausibility levels}")
        return
    if kind in ("knows", "not_knows", "believes", "not_believes"):
        texts = [f for _, f in _pairs(spec)]
    elif kind == "common_knowledge":
        texts = [_common(spec)[1]]
    else:
        texts = _formulas(spec)
    for text in texts:
        try:
            parse(text)
        except Exception as exc:  # noqa: BLE001 - reported with the scenario's line
            raise ValueError(f"{kind}: {text!r}: {exc}") from None


def _modal(query: str, expect: bool) -> Callable[[Engine, Any, int | None], Result]:
    modality = {"knows": K, "believes": B}[query]

    def check(e: Engine, spec: Any, at: int | None) -> Result:
        bad, shown = [], []
        for agent, f in _pairs(spec):
            got = getattr(e, query)(agent, f, at)
            said = modality(agent, parse(f))
            text = str(said if expect else Not(said))
            shown.append(text)
            if got != expect:
                bad.append(text)
        return not bad, ", ".join(shown) + ("" if not bad else f" (fails: {', '.join(bad)})")
    return check


def _check_worlds(e: Engine, spec: int, at: int | None) -> Result:
    got = e.model_at(at).size
    return got == spec, f"|W| = {spec}" + ("" if got == spec else f" (got {got})")


def _check_holds(e: Engine, spec: Any, at: int | None) -> Result:
    texts = _formulas(spec)
    bad = [f for f in texts if not e.holds(f, at)]
    return not bad, f"holds {'; '.join(texts)}" + ("" if not bad else f" (fails: {'; '.join(bad)})")


def _check_common(e: Engine, spec: Any, at: int | None) -> Result:
    group, f = _common(spec)
    members = group if group is not None else e.world.agents  # type: ignore[union-attr]
    ok = e.common_knowledge(f, group, at)
    return ok, str(C(tuple(members), parse(f))) + ("" if ok else " (fails)")


def _check_levels(e: Engine, spec: dict, at: int | None) -> Result:
    model = e.model_at(at)
    actual = model.alive_actual()
    if actual is not None:
        got = {agent: model.levels(agent, actual) for agent in spec}
    else:
        got = {agent: model.most_levels(agent) for agent in spec}
    ok = got == dict(spec)
    return ok, ("plausibility levels " + ", ".join(f"{a}: {n}" for a, n in spec.items())
                + ("" if ok else f" (got {', '.join(f'{a}: {n}' for a, n in got.items())})"))


EPISTEMIC_CHECKS: dict[str, Callable[[Engine, Any, int | None], Result]] = {
    "worlds": _check_worlds,
    "knows": _modal("knows", True),
    "not_knows": _modal("knows", False),
    "believes": _modal("believes", True),
    "not_believes": _modal("believes", False),
    "common_knowledge": _check_common,
    "holds": _check_holds,
    "levels": _check_levels,
}
