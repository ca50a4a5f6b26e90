"""`grounded check`: Python, Prolog and ASP must agree on a whole history.

The engine replays the file (its Prolog rules decide, its Python state
mirrors); asp/history.lp recomputes the same history from the same candidate
utterances.  Compared:

* which utterances are accepted, and the violation codes of the others;
* every event: arguments, standing changes, Dep, explanations, attacks,
  commitments, dissent, open problems, propositions, awareness, agents;
* after every accepted utterance, the standing of every argument: Python's
  view at that turn, the rules' live facts, the ASP events up to it;
* at the last turn (or ``at``): the grounded arguments, Verify for every
  claim, Affected and Affected* (with hops) for every literal.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grounded.core.errors import InputError, PreconditionError
from grounded.core.turns import assign_turn
from grounded.core.vocabulary import GOOD_STANDING
from grounded.crosscheck.retraction import RetractionReport, check_retractions
from grounded.dmap.model import Header
from grounded.engine import Engine
from grounded.engine.replay import applied_lines
from grounded.io.eventlog import LogStatus
from grounded.queries.verify import least_fixpoint
from grounded.scenario import SCENARIO_SUFFIXES, Scenario
from grounded.solvers import facts as F
from grounded.solvers.history import HistoryAnswer, IncrementalHistory, OneShotHistory


def candidates_of(path: str | Path, extensions=(), *, strict: bool = True, allow_rules_change: bool = False,
                  progress=None) -> tuple[Header, list[dict], LogStatus | None]:
    """The header and every utterance of a log or scenario (a scenario's rejected turns included).

    A log is read as every command reads it (``Engine.load``: strict unless
    ``strict=False``, which stops at the first bad line); its LogStatus comes third.
    """
    path = Path(path)
    if path.suffix in SCENARIO_SUFFIXES:
        scenario = Scenario.load(path)
        return scenario.header, [t.utterance() for t in scenario.turns], None
    return applied_lines(path, extensions, strict=strict, allow_rules_change=allow_rules_change, progress=progress)


@dataclass
class Outcome:
    accepted: bool
    violations: set[tuple[int, str]]


@dataclass
class CheckReport:
    path: str
    utterances: int = 0
    accepted: int = 0
    standings: int = 0
    claims: int = 0
    literals: int = 0
    events: int = 0
    asp: bool = True
    retractions: int = 0
    """Retractions for which Proposition 2.5 / Corollary 2.6 were decided (``retraction=True``)."""
    mismatches: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    """Retractions for which a proposition failed, by turn and cause (crosscheck/retraction.py)."""
    retraction: RetractionReport | None = None
    log_status: LogStatus | None = None
    """How the reading of a log ended (None for a scenario); a partial reading checked the lines before it."""

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.failures

    def summary(self) -> str:
        sides = ("Python, Prolog and ASP" if self.asp else
                 "Python and Prolog (ASP skipped: the extension operations have no .lp twin)")
        props = f"; {self.retraction.summary()}" if self.retraction is not None and not self.failures else ""
        if self.ok:
            return (f"all agree ({sides}): {self.utterances} utterances ({self.accepted} accepted), "
                    f"{self.events} events, {self.standings} standings over the turns, Verify of "
                    f"{self.claims} claims, Affected and Affected* of {self.literals} literals{props}")
        parts = [f"{len(self.mismatches)} disagreements ({sides})"] if self.mismatches else []
        if self.retraction is not None and self.failures:
            parts.append(self.retraction.summary())
        return ", ".join(parts)

    def to_json(self) -> dict:
        return {"path": self.path, "ok": self.ok, "utterances": self.utterances, "accepted": self.accepted,
                "events": self.events, "standings": self.standings, "claims": self.claims,
                "literals": self.literals, "asp": self.asp, "retractions": self.retractions,
                "mismatches": self.mismatches, "failures": self.failures,
                "retraction": None if self.retraction is None else self.retraction.to_json(),
                **(self.log_status.to_json() if self.log_status is not None else {"complete": True})}


def check(path: str | Path, at: int | None = None, extensions=(), incremental: bool = False,
          retraction: bool = False, every_turn: bool | None = None, seed: int | None = None, *,
          partial: bool = False, allow_rules_change: bool = False, progress=None) -> CheckReport:
    """Check a log or scenario file, up to turn ``at`` if given (``partial``: up to a log's first bad line)."""
    header, candidates, status = candidates_of(path, extensions, strict=not partial,
                                               allow_rules_change=allow_rules_change, progress=progress)
    if at is not None:
        candidates = [c for c in candidates if c.get("turn") is None or c["turn"] <= at]
    report = check_history(header, candidates, extensions, label=str(path), incremental=incremental,
                           retraction=retraction, every_turn=every_turn, seed=seed)
    report.log_status = status
    return report


def check_history(header: Header, candidates: list[dict], extensions=(), label: str = "history",
                  incremental: bool = False, retraction: bool = False, every_turn: bool | None = None,
                  seed: int | None = None) -> CheckReport:
    """Replay candidate utterances (rejected ones included) three ways and compare.

    ASP grounds the history in one shot unless ``incremental`` (turn by turn, as
    a live conversation would); both modes must give the same answer.  With
    ``retraction``, Proposition 2.5 and Corollary 2.6 are decided by clingo from
    the raw history at every turn (a seeded sample above a size, or always
    with ``every_turn``): crosscheck/retraction.py.
    """
    engine = Engine(header, extensions=extensions)
    report = CheckReport(label, utterances=len(candidates))
    mode = IncrementalHistory if incremental else OneShotHistory
    twins = asp_twins(extensions)
    asp = mode(header, engine.registry, twins) if twins or not engine.registry.extension_names else None
    report.asp = asp is not None
    outcomes: list[Outcome] = []
    prolog_standings: dict[int, dict[int, str]] = {}
    for data in candidates:
        if isinstance(data, dict) and data.get("turn") is None:
            data = {**data, "turn": assign_turn(None, engine.state.last_turn)}  # the turn the engine gives it
        try:
            update = engine.apply(data)
        except PreconditionError as exc:
            outcomes.append(Outcome(False, {(v.index, v.code) for v in exc.violations}))
        except InputError as exc:
            raise InputError(f"utterance {len(outcomes) + 1}: {exc.detail}", path=label) from exc
        else:
            outcomes.append(Outcome(True, set()))
            prolog_standings[update.turn] = engine.rules.standings()
        if asp is not None:
            asp.add(data, engine.last_verdicts)
    report.accepted = sum(o.accepted for o in outcomes)
    python = engine_events(engine)
    report.events = sum(len(v) for v in python.values())
    answer = None
    if asp is not None and asp.candidates:
        if incremental:
            asp.view()
        answer = asp.solve()
        _compare_outcomes(report, outcomes, answer)
        _compare(report, "events", python, asp_events(answer))
    _compare_standings(report, engine, prolog_standings, answer)
    _compare_queries(report, engine, answer)
    if retraction:
        r = report.retraction = check_retractions(engine.state, every_turn=every_turn, seed=seed,
                                                  accepted_turns=len(prolog_standings))
        report.retractions = len(r.results)
        report.failures.extend(r.failure_lines())
        report.mismatches.extend(r.mismatches)
    engine.close()
    return report


def asp_twins(extensions) -> list[str]:
    """The ASP twin of each extension rule file: ``rules.lp`` beside ``rules.pl``."""
    return [str(twin) for p in extensions if (twin := Path(p).with_suffix(".lp")).is_file()]


def _compare(report: CheckReport, what: str, python: dict, asp: dict) -> None:
    for key in sorted(set(python) | set(asp)):
        p, a = python.get(key), asp.get(key)
        if p != a:
            report.mismatches.append(f"{what} {key}: Python {_short(p)} but ASP {_short(a)}")


def _short(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _compare_outcomes(report: CheckReport, outcomes: list[Outcome], answer: HistoryAnswer) -> None:
    for c, o in zip(answer.candidates, outcomes, strict=True):
        asp_ok = c.u in answer.accepted
        asp_viol = answer.violations.get(c.u, set())
        if o.accepted != asp_ok or o.violations != asp_viol:
            report.mismatches.append(
                f"utterance {c.u} (turn {c.turn}, {c.speaker}): engine "
                f"{'accepted' if o.accepted else sorted(o.violations)} but ASP "
                f"{'accepted' if asp_ok else sorted(asp_viol)}")


# -- events, keyed the same way on both sides -------------------------------------

def engine_events(engine: Engine) -> dict[str, Any]:
    dm = engine.state
    return {
        "arguments": {r.id: (r.claim, r.kind, r.speaker, r.turn) for r in dm.args},
        "standing": {r.id: [(t, s, c) for t, s, c in r.history] for r in dm.args},
        "dep": sorted((r.id, d, t) for r in dm.args for d, t in zip(r.deps, r.dep_turns, strict=True)),
        "explains": sorted((r.id, x, t) for r in dm.args for x, t in zip(r.explains, r.explain_turns, strict=True)),
        "attacks": sorted(dm.attacks),
        "commitments": sorted(dm.commit_events),
        "dissent": sorted((a, g) for a, gs in dm.dissent.items() for g in gs),
        "problems": sorted(dm.problem_events),
        "props": {p.id: (p.kind, p.turn) for p in dm.props.values() if p.turn is not None},
        "aware": {p.id: p.aware_turn for p in dm.props.values() if p.aware_turn not in (None, -1)},
        "joined": dict(dm.agent_turns),
    }


def asp_events(answer: HistoryAnswer) -> dict[str, Any]:
    facts, ids, turn = answer.facts, answer.arg_id, answer.step_turn
    ok = set(turn) and {s for s in turn if _utterance_of(answer, s) in answer.accepted}

    def q(kind):
        return facts.query(kind).all()

    standing: dict[int, list] = defaultdict(list)
    for e in sorted(q(F.StEvent), key=lambda e: (e.s, e.order)):
        if e.s in ok:
            standing[ids[e.a]].append((turn[e.s], str(e.standing), e.cause or None))
    return {
        "arguments": {ids[a.a]: (a.claim, str(a.kind), a.speaker, a.turn) for a in q(F.FArg) if a.a in ok},
        "standing": dict(standing),
        "dep": sorted((ids[d.a], d.lit, turn[d.s]) for d in q(F.FDep) if d.s in ok),
        "explains": sorted((ids[d.a], d.lit, turn[d.s]) for d in q(F.FExpl) if d.s in ok),
        "attacks": sorted((ids[d.b], ids[d.a], turn[d.s]) for d in q(F.FAtt) if d.s in ok),
        "commitments": sorted((turn[d.s], d.agent, ids[d.a], str(d.kind) == "add") for d in q(F.FCom) if d.s in ok),
        "dissent": sorted((ids[d.a], d.agent) for d in q(F.FDis) if d.s in ok),
        "problems": sorted((turn[d.s], d.lit, str(d.status) == "open") for d in q(F.Prob) if d.s in ok),
        "props": {d.atom: (str(d.kind), turn[d.s]) for d in q(F.FProp) if d.s in ok},
        "aware": {d.atom: turn[d.s] for d in q(F.FAware) if d.s in ok},
        "joined": {d.agent: answer.candidates[d.u - 1].turn for d in q(F.Joined)},
    }


def _utterance_of(answer: HistoryAnswer, step: int) -> int:
    for c in answer.candidates:
        if c.first_step <= step < c.close_step:
            return c.u
    raise KeyError(step)


# -- standing after every accepted utterance ---------------------------------------

def _compare_standings(report: CheckReport, engine: Engine, prolog: dict[int, dict[int, str]],
                       answer: HistoryAnswer | None) -> None:
    dm = engine.state
    asp_by_turn = _asp_standings_by_turn(answer) if answer is not None else {}
    for t, live in prolog.items():
        python = {r.id: r.standing_at(t) for r in dm.args if r.turn <= t}
        report.standings += len(python)
        if python != live:
            report.mismatches.append(f"standing at turn {t}: Python {_diff(python, live)} Prolog")
        if answer is not None and asp_by_turn.get(t) != python:
            report.mismatches.append(f"standing at turn {t}: Python {_diff(python, asp_by_turn.get(t, {}))} ASP")


def _asp_standings_by_turn(answer: HistoryAnswer) -> dict[int, dict[int, str]]:
    events = defaultdict(list)
    for e in answer.facts.query(F.StEvent).all():
        events[_utterance_of(answer, e.s)].append(e)
    current: dict[int, str] = {}
    result = {}
    for c in answer.candidates:
        if c.u in answer.accepted:
            for e in sorted(events[c.u], key=lambda e: (e.s, e.order)):
                current[answer.arg_id[e.a]] = str(e.standing)
            result[c.turn] = dict(current)
    return result


def _diff(a: dict, b: dict) -> str:
    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))[:5]
    return ", ".join(f"#{k}: {a.get(k)} vs {b.get(k)}" for k in keys) + " differs from"


# -- the queries at the last turn ----------------------------------------------------

def _compare_queries(report: CheckReport, engine: Engine, answer: HistoryAnswer | None) -> None:
    dm = engine.state
    answers = engine.rules.queries()
    prolog_grounded, prolog_affected = answers.grounded, answers.affected
    anchors = [r.id for r in dm.args if r.standing in GOOD_STANDING]
    _, python_grounded = least_fixpoint(dm, anchors, None)
    asp_grounded = asp_affected = asp_one = None
    if answer is not None:
        ids = answer.arg_id
        asp_grounded = {ids[a.a] for a in answer.facts.query(F.NowGrounded).all()}
        asp_affected = defaultdict(dict)
        for h in answer.facts.query(F.NowHop).all():
            asp_affected[h.lit][ids[h.a]] = h.hop
        asp_one = defaultdict(set)
        for h in answer.facts.query(F.NowAffectedOne).all():
            asp_one[h.lit].add(ids[h.a])
    for side, other in (("Prolog", prolog_grounded), ("ASP", asp_grounded)):
        if other is not None and python_grounded != other:
            report.mismatches.append(f"grounded arguments: Python {sorted(python_grounded)} {side} {sorted(other)}")
    claims = sorted(dm.claimants)
    report.claims = len(claims)
    for claim in claims:
        verdict = engine.verify(claim).grounded
        by_rules = any(a in prolog_grounded for a in dm.claimants[claim])
        by_asp = verdict if asp_grounded is None else any(a in asp_grounded for a in dm.claimants[claim])
        if not verdict == by_rules == by_asp:
            report.mismatches.append(f"Verify({claim}): Python {verdict}, Prolog {by_rules}, ASP {by_asp}")
    literals = sorted(set(dm.claimants) | set(dm.rev))
    report.literals = len(literals)
    for p in literals:
        star = engine.affected(p)
        python = dict(zip(star.arguments, star.hops, strict=True))
        one = set(engine.affected(p, closure=False).arguments)
        if python != prolog_affected.get(p, {}):
            report.mismatches.append(f"Affected*({p}): Python {python} Prolog {prolog_affected.get(p, {})}")
        if asp_affected is not None:
            if python != asp_affected.get(p, {}):
                report.mismatches.append(f"Affected*({p}): Python {python} ASP {asp_affected.get(p, {})}")
            if one != asp_one.get(p, set()):
                report.mismatches.append(f"Affected({p}): Python {sorted(one)} ASP {sorted(asp_one.get(p, set()))}")
        if one != {a for a, k in python.items() if k == 1}:
            report.mismatches.append(f"Affected({p}) is not hop 1 of Affected*({p})")
