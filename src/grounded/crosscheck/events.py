"""The same history read off each side, keyed the same way, for `grounded check`.

* ``engine_events``: what the Python state recorded (arguments, standing
  histories, Dep, attacks, commitments, problems, ...), from its own lists;
* ``asp_events``: the same tables from the events asp/history.lp derived;
* ``transition_key`` / ``asp_transitions``: what each accepted utterance did,
  per operation, as the Prolog rules reported it (``Update.effects``) and as
  the ASP events of its steps say.  Comparing these per utterance replaces
  comparing full standings snapshots after every turn: the state is the sum of
  its transitions, so equal transitions mean equal states, at linear cost.

Argument ids: the engine numbers accepted arguments 1, 2, ...; ASP names an
argument by the step that created it (``HistoryAnswer.arg_id`` maps one to the
other).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from grounded.dmap.effects import Effect, fields_of
from grounded.engine import Engine
from grounded.solvers import facts as F
from grounded.solvers.history import HistoryAnswer


def transition_key(e: Effect) -> tuple[Any, ...]:
    """An effect reported by the Prolog rules, as a tuple (name, values...)."""
    return (e.name, *fields_of(e))


def prolog_transitions(effects: list[Effect]) -> dict[int, Counter[tuple[Any, ...]]]:
    """Operation index (-1: the utterance) -> its effects (a multiset)."""
    out: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for e in effects:
        out[e.index].append(transition_key(e))
    return {k: Counter(v) for k, v in out.items()}


def asp_transitions(answer: HistoryAnswer) -> dict[int, dict[int, Counter[tuple[Any, ...]]]]:
    """Accepted utterance -> operation index (-1: the utterance) -> its transitions (a multiset)."""
    ids, step_of = answer.arg_id, answer.step_of
    out: dict[int, dict[int, list[tuple[Any, ...]]]] = {c.u: defaultdict(list) for c in answer.candidates
                                                         if c.u in answer.accepted}

    def put(step: int, item: tuple[Any, ...]) -> None:
        u, i = step_of[step]
        if u in out:
            out[u][i].append(item)

    q = answer.facts.query
    for c in answer.candidates:
        if c.u in out:
            out[c.u][-1].append(("turn", c.turn))
    for j in q(F.Joined).all():
        out[j.u][-1].append(("new_agent", j.agent))
    for a in q(F.FArg).all():
        put(a.a, ("new_arg", ids.get(a.a), a.claim, str(a.kind)))
    for e in q(F.StEvent).all():
        if e.order == 1:
            put(e.s, ("set_standing", ids.get(e.a), str(e.standing), e.cause))
    for d in q(F.FDep).all():
        put(d.s, ("add_dep", ids.get(d.a), d.lit))
    for d in q(F.FExpl).all():
        put(d.s, ("add_explains", ids.get(d.a), d.lit))
    for d in q(F.FAtt).all():
        put(d.s, ("add_attack", ids.get(d.b), ids.get(d.a)))
    for d in q(F.FCom).all():
        put(d.s, ("commit" if str(d.kind) == "add" else "retract_commitment", d.agent, ids.get(d.a)))
    for d in q(F.FDis).all():
        put(d.s, ("dissent", ids.get(d.a), d.agent))
    for d in q(F.FProp).all():
        put(d.s, ("new_prop", d.atom, str(d.kind)))
    for d in q(F.FAware).all():
        put(d.s, ("aware", d.atom))
    for d in q(F.FModel).all():
        put(d.s, F.effect_value(d.effect))
    for d in q(F.Prob).all():
        put(d.s, ("problem", d.lit, str(d.status)))
    return {u: {i: Counter(ts) for i, ts in per.items()} for u, per in out.items()}


def engine_events(engine: Engine) -> dict[str, Any]:
    """The Python state's own record of the history."""
    dm = engine.state
    return {
        "arguments": {r.id: (r.claim, r.kind, r.speaker, r.turn) for r in dm.args},
        "standing": {r.id: [(t, s, c) for t, s, c in r.history] for r in dm.args},
        "dep": Counter((r.id, d, t) for r in dm.args for d, t in zip(r.deps, r.dep_turns, strict=True)),
        "explains": Counter((r.id, x, t) for r in dm.args for x, t in zip(r.explains, r.explain_turns, strict=True)),
        "attacks": Counter(dm.attacks),
        "commitments": Counter(dm.commit_events),
        "dissent": Counter((a, g) for a, gs in dm.dissent.items() for g in gs),
        "problems": Counter(dm.problem_events),
        "props": {p.id: (p.kind, p.turn) for p in dm.props.values() if p.turn is not None},
        "aware": {p.id: p.aware_turn for p in dm.props.values() if p.aware_turn not in (None, -1)},
        "joined": dict(dm.agent_turns),
    }


def asp_events(answer: HistoryAnswer) -> dict[str, Any]:
    """The same tables from the ASP events of accepted utterances."""
    facts, ids, turn, ok = answer.facts, answer.arg_id, answer.step_turn, answer.ok

    def q(kind: type[F.Predicate]) -> list[Any]:
        return list(facts.query(kind).all())

    standing: dict[int, list[tuple[int, str, str | None]]] = defaultdict(list)
    for e in sorted(q(F.StEvent), key=lambda e: (e.s, e.order)):
        if ok(e.s):
            standing[ids[e.a]].append((turn[e.s], str(e.standing), e.cause))
    return {
        "arguments": {ids[a.a]: (a.claim, str(a.kind), a.speaker, a.turn) for a in q(F.FArg) if ok(a.a)},
        "standing": dict(standing),
        "dep": Counter((ids[d.a], d.lit, turn[d.s]) for d in q(F.FDep) if ok(d.s)),
        "explains": Counter((ids[d.a], d.lit, turn[d.s]) for d in q(F.FExpl) if ok(d.s)),
        "attacks": Counter((ids[d.b], ids[d.a], turn[d.s]) for d in q(F.FAtt) if ok(d.s)),
        "commitments": Counter((turn[d.s], d.agent, ids[d.a], str(d.kind) == "add") for d in q(F.FCom) if ok(d.s)),
        "dissent": Counter((ids[d.a], d.agent) for d in q(F.FDis) if ok(d.s)),
        "problems": Counter((turn[d.s], d.lit, str(d.status) == "open") for d in q(F.Prob) if ok(d.s)),
        "props": {d.atom: (str(d.kind), turn[d.s]) for d in q(F.FProp) if ok(d.s)},
        "aware": {d.atom: turn[d.s] for d in q(F.FAware) if ok(d.s)},
        "joined": {d.agent: answer.candidates[d.u - 1].turn for d in q(F.Joined)},
    }


def asp_flagged(answer: HistoryAnswer) -> dict[int, dict[str, set[str]]]:
    """Accepted utterance -> claim it took out of S_t -> the claims in S_t resting on it."""
    out: dict[int, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for f in answer.facts.query(F.Flagged).all():
        out[f.u][f.lit].add(f.claim)
    return {u: dict(v) for u, v in out.items()}
