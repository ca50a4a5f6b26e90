"""`grounded check`: Python, Prolog and ASP must agree on a whole history.

The engine replays the file (its Prolog rules decide, its Python state
mirrors); asp/history.lp recomputes the same history from the same candidate
utterances, in one shot (or turn by turn).  Compared:

* which utterances are accepted, and the violation codes of the others;
* per accepted utterance, per operation, the transitions the Prolog rules
  reported against the events ASP derived (standing changes, Dep, attacks,
  commitments, decisions and their ids, open problems, world-model effects ...),
  and the claims the utterance took out of S_t with what rests on them
  (``Update.flagged``);
* every event of the Python state (arguments and their standing histories,
  Dep, explanations, attacks, commitments, dissent, problems, propositions,
  awareness, agents) against the ASP events;
* at the last turn (or ``at``): the standings the rules hold, the grounded
  arguments, Verify for every claim, Affected and Affected* (with hops) for
  every literal, the reinstatable arguments and each claim's standing note.

Every comparison is linear in the history: transitions per utterance instead of
standings snapshots per turn.  A difference names the first differing element.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import clingo

from grounded.core.errors import InputError, PreconditionError
from grounded.core.turns import assign_turn
from grounded.crosscheck.audit import audit
from grounded.crosscheck.diff import describe
from grounded.crosscheck.events import (
    asp_events,
    asp_flagged,
    asp_transitions,
    engine_events,
    prolog_transitions,
    transition_key,
)
from grounded.crosscheck.locate import Locations
from grounded.crosscheck.probe import PER_OP, ProbeReport, Probing
from grounded.crosscheck.retraction import RetractionReport, check_retractions
from grounded.crosscheck.shrink import Shrunk
from grounded.crosscheck.shrink import shrink as shrink_history
from grounded.dmap.effects import Effect, NewArg, Problem
from grounded.dmap.model import Header
from grounded.engine import Engine, Update
from grounded.engine.applied_lines import applied_lines
from grounded.io.eventlog import LogStatus
from grounded.queries.registry import QUERIES
from grounded.queries.verify import grounded_arguments
from grounded.scenario import SCENARIO_SUFFIXES, Scenario
from grounded.solvers import facts as F
from grounded.solvers.apart import APART_FROM, give_back, run_apart
from grounded.solvers.history import (
    AffectedBatch,
    Candidate,
    HistoryAnswer,
    IncrementalHistory,
    OneShotHistory,
    affected_batch,
    rule_file,
)
from grounded.solvers.ruleset import asp_twins

Progress = Callable[[str, int, int], None]
"""progress(phase, done, total): called as a long check goes (the CLI draws it on stderr)."""


def candidates_of(path: str | Path, extensions=(), *, strict: bool = True, allow_rules_change: bool = False,
                  progress: Progress | None = None) -> tuple[Header, list[dict], LogStatus | None]:
    """The header and every utterance of a log or scenario (a scenario's rejected turns included).

    A log is read as every command reads it (``Engine.load``: strict unless
    ``strict=False``, which stops at the first bad line); its LogStatus comes third.
    """
    path = Path(path)
    if path.suffix in SCENARIO_SUFFIXES:
        scenario = Scenario.load(path)
        return scenario.header, [t.utterance() for t in scenario.turns], None
    read = None if progress is None else (lambda done, total: progress("read", done, total))
    return applied_lines(path, extensions, strict=strict, allow_rules_change=allow_rules_change, progress=read)


@dataclass
class Outcome:
    accepted: bool
    violations: set[tuple[int, str]]
    update: Update | None = None
    given: bool = False
    """The utterance uses an operation without an ASP twin: ASP took the engine's record."""


@dataclass
class CheckReport:
    path: str
    utterances: int = 0
    accepted: int = 0
    transitions: int = 0
    claims: int = 0
    literals: int = 0
    events: int = 0
    asp: bool = False
    """Did ASP recompute the history (False for a log with no utterance)?"""
    given: dict[str, int] = field(default_factory=dict)
    """Operations without an ASP twin -> utterances whose effects ASP took from the engine."""
    retractions: int = 0
    """Retractions for which Proposition 2.5 / Corollary 2.6 were decided (``retraction=True``)."""
    mismatches: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    """Retractions for which a proposition failed, by turn and cause (crosscheck/retraction.py)."""
    retraction: RetractionReport | None = None
    audit: list[str] | None = None
    """With ``retraction``: the standing audit's findings (crosscheck/audit.py), also among ``failures``."""
    probe: ProbeReport | None = None
    shrunk: Shrunk | None = None
    """With ``shrink``: the smallest sub-history of a disagreeing log that still disagrees."""
    """The states of a log probed with candidate utterances (crosscheck/probe.py), if they were."""
    log_status: LogStatus | None = None
    """How the reading of a log ended (None for a scenario); a partial reading checked the lines before it."""
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.failures

    def sides(self) -> str:
        if not self.given:
            return "Python, Prolog and ASP"
        skipped = ", ".join(f"{n} utterances using {op}" for op, n in sorted(self.given.items()))
        return f"Python, Prolog and ASP; ASP took the engine's effects for {skipped} (no .lp twin)"

    def summary(self) -> str:
        props = f"; {self.retraction.summary()}" if self.retraction is not None and not self.failures else ""
        if self.audit is not None and not self.audit:
            props += "; every standing agrees with the attacks of AF_t (standing audit)"
        if self.probe is not None:
            props += f"; {self.probe.summary()}"
        if self.ok:
            return (f"all agree ({self.sides()}): {self.utterances} utterances ({self.accepted} accepted), "
                    f"{self.transitions} transitions, {self.events} events, Verify of {self.claims} claims, "
                    f"Affected and Affected* of {self.literals} literals{props}")
        parts = [f"{len(self.mismatches)} disagreements ({self.sides()})"] if self.mismatches else []
        if self.retraction is not None and self.failures:
            parts.append(self.retraction.summary())
        if self.audit:
            parts.append(f"standing audit: {len(self.audit)} standings the paper excludes")
        if self.probe is not None:
            parts.append(self.probe.summary())
        return ", ".join(parts)

    def to_json(self) -> dict:
        return {"path": self.path, "ok": self.ok, "utterances": self.utterances, "accepted": self.accepted,
                "transitions": self.transitions, "events": self.events, "claims": self.claims,
                "literals": self.literals, "asp": self.asp, "given": self.given,
                "retractions": self.retractions, "mismatches": self.mismatches, "failures": self.failures,
                "audit": self.audit,
                "retraction": None if self.retraction is None else self.retraction.to_json(),
                "probe": None if self.probe is None else self.probe.to_json(),
                "shrunk": None if self.shrunk is None else {
                    "utterances": self.shrunk.utterances, "tries": self.shrunk.tries,
                    "complete": self.shrunk.complete, "summary": self.shrunk.summary(self.utterances)},
                **(self.log_status.to_json() if self.log_status is not None else {"complete": True})}


def check(path: str | Path, at: int | None = None, extensions=(), incremental: bool = False,
          retraction: bool = False, every_turn: bool | None = None, seed: int | None = None, *,
          partial: bool = False, allow_rules_change: bool = False, probes: int = PER_OP, shrink: bool = False,
          asp_overrides: Mapping[str, str] | None = None, progress: Progress | None = None,
          apart: bool = True) -> CheckReport:
    """Check a log or scenario file, up to turn ``at`` if given (``partial``: up to a log's first bad line).

    A log is also probed (``probes`` candidate utterances per operation and state, crosscheck/probe.py):
    it holds no rejected utterance, so only the probes hold the twins' preconditions equal.
    ``shrink``: a log that disagrees is reduced to a smallest sub-history that still does
    (crosscheck/shrink.py), in ``report.shrunk``.

    A log of ``APART_FROM`` lines or more is read and checked in a process of its own (solvers/apart.py),
    so that what reading it (every line through the rules), its replay, its ASP answer and its comparison
    grew goes back to the system when it ends, and the caller holds only the report beside the check's
    pieces (reading a long argument-heavy log in process left the caller the rules' clause store and the
    utterances: 62 MB after 20,000 turns).  Its progress is then one phase, ``check``; an error reading the log is
    raised here as it would be in process.  ``apart=False``: never, for a caller that is itself such a
    process (``grounded check`` runs the check in a child of its own, crosscheck/budget.py).
    """
    options = {"at": at, "extensions": tuple(extensions), "incremental": incremental, "retraction": retraction,
               "every_turn": every_turn, "seed": seed, "partial": partial,
               "allow_rules_change": allow_rules_change, "probes": probes, "shrink": shrink,
               "asp_overrides": asp_overrides}
    if not apart or not _long_log(Path(path)):
        return _check_here(path, options, progress)
    if progress is not None:
        progress("check", 0, 1)
    give_back()  # what the caller freed so far, before a process it waits on
    report = run_apart(f"the check of {path}", _check_here, path, options, None)
    if progress is not None:
        progress("check", 1, 1)
    return report


def _long_log(path: Path) -> bool:
    """A log (not a scenario) of ``APART_FROM`` lines or more: counted, not parsed."""
    if path.suffix in SCENARIO_SUFFIXES or not path.is_file():
        return False
    lines = 0
    with path.open("rb") as f:
        while lines < APART_FROM and (chunk := f.read(1 << 20)):
            lines += chunk.count(b"\n")
    return lines >= APART_FROM


def _check_here(path: str | Path, options: dict, progress: Progress | None) -> CheckReport:
    """``check`` in this process: read, replayed, probed and shrunk here (a piece apart is called with
    positional arguments)."""
    extensions, seed, probes = options["extensions"], options["seed"], options["probes"]
    asp_overrides = options["asp_overrides"]
    header, candidates, status = candidates_of(path, extensions, strict=not options["partial"],
                                               allow_rules_change=options["allow_rules_change"], progress=progress)
    if options["at"] is not None:
        candidates = [c for c in candidates if c.get("turn") is None or c["turn"] <= options["at"]]
    probing = Probing(header, candidates, extensions, seed=seed, per_op=probes) if (
        status is not None and probes > 0) else None
    report = check_history(header, candidates, extensions, label=str(path), incremental=options["incremental"],
                           retraction=options["retraction"], every_turn=options["every_turn"], seed=seed,
                           asp_overrides=asp_overrides, progress=progress, probing=probing)
    report.log_status = status
    if probing is not None:
        report.probe = probing.report
        report.mismatches.extend(report.probe.mismatches)
    if options["shrink"] and status is not None and report.mismatches:
        if progress is not None:
            progress("shrink", 0, 1)
        probed_too = report.probe is not None and bool(report.probe.mismatches)

        def disagrees(kept: list[dict]) -> bool:
            """Does ``kept`` still disagree: the check of it, and its probe only if the probe was among
            what disagreed (a disagreement of the log's own lines needs no candidate to show again)."""
            probed = Probing(header, kept, extensions, seed=seed, per_op=probes) if probed_too else None
            found = check_history(header, kept, extensions, label=str(path), asp_overrides=asp_overrides,
                                  probing=probed)
            return bool(found.mismatches) or (probed is not None and bool(probed.report.mismatches))

        report.shrunk = shrink_history(header, candidates, disagrees, extensions)
    return report


def check_history(header: Header, candidates: list[dict], extensions=(), label: str = "history",
                  incremental: bool = False, retraction: bool = False, every_turn: bool | None = None,
                  seed: int | None = None, asp_overrides: Mapping[str, str] | None = None,
                  progress: Progress | None = None, apart: bool | None = None,
                  probing: Probing | None = None) -> CheckReport:
    """Replay candidate utterances (rejected ones included) three ways and compare.

    ASP grounds the history in one shot unless ``incremental`` (turn by turn, as
    a live conversation would); both modes must give the same answer.  With
    ``retraction``, Proposition 2.5 and Corollary 2.6 are decided by clingo from
    the raw history at every turn (a seeded sample above a size, or always
    with ``every_turn``): crosscheck/retraction.py.  ``asp_overrides``
    replaces shipped rule files by name (``{"ops/undermine.lp": path}``).
    ``apart``: the one-shot ASP grounds each window, its view and each batch of
    Affected* in a process of its own (solvers/apart.py), so that the check's peak
    does not hold every piece clingo grounded; by default for histories of at
    least ``APART_FROM`` utterances.
    ``probing``: the probe of the states it names runs inside this check (crosscheck/probe.py), its
    lines in ``probing.report``, not in this report.
    """
    tell = progress or (lambda phase, done, total: None)
    engine = Engine(header, extensions=extensions)
    report = CheckReport(label, utterances=len(candidates))
    twins, twinless = asp_twins(extensions)
    apart = len(candidates) >= APART_FROM if apart is None else apart
    asp = (IncrementalHistory(header, engine.registry, twins, asp_overrides) if incremental else
           OneShotHistory(header, engine.registry, twins, asp_overrides, apart=apart))
    outcomes: list[Outcome] = []
    located = _Located(extensions)
    created: dict[int, int] = {}  # engine argument id -> the ASP step that created it
    start = time.perf_counter()
    for n, data in enumerate(candidates, 1):
        if isinstance(data, dict) and data.get("turn") is None:
            data = {**data, "turn": assign_turn(None, engine.state.last_turn)}  # the turn the engine gives it
        first = asp.facts.next_step
        try:
            outcome = _outcome(engine, data)
        except InputError as exc:
            raise InputError(f"utterance {len(outcomes) + 1}: {exc.detail}", path=label) from exc
        if outcome.update is not None:
            for e in outcome.update.of(NewArg):
                created[e.arg] = first + e.index
        ops = [op.op for op in engine.registry.utterance(data).ops] if twinless else []
        given = _given(ops, twinless, outcome, created, first)
        if given is not None:
            outcome.given = True
            for op in {op for op in ops if op in twinless}:
                report.given[op] = report.given.get(op, 0) + 1
        outcomes.append(outcome)
        asp.add(data, engine.last_verdicts, given)
        if probing is not None and n in probing.wanted:
            taken = time.perf_counter()
            probing.take(n, engine, asp.facts, _outcome)
            report.timings["probe"] = report.timings.get("probe", 0.0) + time.perf_counter() - taken
        if n % 200 == 0 or n == len(candidates):
            tell("replay", n, len(candidates))
    report.timings["replay"] = time.perf_counter() - start - report.timings.get("probe", 0.0)
    report.accepted = sum(o.accepted for o in outcomes)
    tell("asp", 0, 1)
    answer = None
    if asp.candidates:
        start = time.perf_counter()
        if isinstance(asp, IncrementalHistory):
            asp.view()
            answer = asp.solve()
        else:
            answer = asp.solve(affected=False)
        report.timings["asp"] = time.perf_counter() - start
        report.timings.update({f"asp_{k}": v for k, v in getattr(asp, "timings", {}).items()})
    report.asp = answer is not None  # an empty history leaves ASP nothing to recompute
    tell("compare", 0, 1)
    start = time.perf_counter()
    python = engine_events(engine)
    report.events = sum(len(v) for v in python.values())
    if answer is not None:
        keyed: list[tuple[int, int, str]] = []
        _compare_outcomes(keyed, outcomes, answer, located)
        _compare_transitions(report, keyed, outcomes, answer, located)
        report.mismatches.extend(line for _, _, line in sorted(keyed))  # in turn order: the first one first
        _add(report, describe("events ", "Python", python, "ASP", asp_events(answer)))
    del python, outcomes, created  # what the last turn's comparison no longer needs: let it go before its peak
    if isinstance(asp, OneShotHistory):
        asp.forget_facts()
    _compare_final(report, engine, answer, None if answer is None else _affected_batches(asp, answer))
    report.timings["compare"] = time.perf_counter() - start
    if probing is not None and answer is not None:
        tell("probe", 0, 1)
        start = time.perf_counter()
        _compare_probed(probing, asp, answer, apart, asp_overrides or {}, located)
        report.timings["probe"] = report.timings.get("probe", 0.0) + time.perf_counter() - start
    if retraction:
        r = report.retraction = check_retractions(engine.state, every_turn=every_turn, seed=seed,
                                                  accepted_turns=report.accepted)
        report.retractions = len(r.results)
        report.failures.extend(r.failure_lines())
        report.mismatches.extend(r.mismatches)
        report.audit = audit(engine)
        report.failures.extend(report.audit)
    engine.close()
    return report


def _outcome(engine: Engine, data: dict) -> Outcome:
    """``data`` applied to ``engine``: accepted with its update, or rejected with its violation codes
    (an InputError, a malformed utterance, goes on up)."""
    try:
        update = engine.apply(data)
    except PreconditionError as exc:
        return Outcome(False, {(v.index, v.code) for v in exc.violations})
    return Outcome(True, set(), update)


def _compare_probed(probing: Probing, asp: OneShotHistory | IncrementalHistory, answer: HistoryAnswer,
                    apart: bool, overrides: Mapping[str, str], located: _Located) -> None:
    """The probed states' candidates, as a log's utterances are compared: accepted or rejected and the
    violation codes, transitions, flagged claims (decided by ASP from ``answer``, the check's history)."""
    files, views = ([*asp.files, rule_file(name, overrides)] for name in ("oneshot.lp", "oneshot_view.lp"))
    base = [str(f.raw) for f in asp.facts.base]
    for state, decided in probing.decide(files, views, tuple(asp.facts.registry.specs), base, answer, apart):
        keyed: list[tuple[int, int, str]] = []
        _compare_outcomes(keyed, state.outcomes, decided, located)
        _compare_transitions(CheckReport("probe"), keyed, state.outcomes, decided, located)
        probing.found(state, [line for _, _, line in sorted(keyed)])


def _affected_batches(asp: OneShotHistory | IncrementalHistory, answer: HistoryAnswer) -> Iterable[AffectedBatch]:
    """ASP's Affected* and Affected by literal: a batch at a time from a one-shot history,
    whole from the turn-by-turn one (whose view grounded them with the rest)."""
    if isinstance(asp, OneShotHistory):
        return asp.affected(answer)
    return [affected_batch(((h.lit, h.a, h.hop) for h in answer.facts.query(F.NowHop).all()),
                           ((h.lit, h.a) for h in answer.facts.query(F.NowAffectedOne).all()), answer.arg_id)]


def _given(ops: list[str], twinless: set[str], outcome: Outcome, created: dict[int, int],
           first: int) -> dict[int, list[clingo.Symbol | str]] | None:
    """What the engine recorded for the operations of this utterance that have no ASP twin."""
    if not any(op in twinless for op in ops):
        return None
    given: dict[int, list[clingo.Symbol | str]] = {i: [] for i, op in enumerate(ops) if op in twinless}
    if not outcome.accepted:
        codes: dict[int, list[clingo.Symbol | str]] = defaultdict(list)
        for i, code in outcome.violations:
            codes[i].append(code)
        for i in given:
            given[i] = list(codes.get(i) or ["rejected_by_the_engine"])
        return given
    assert outcome.update is not None
    for e in outcome.update.effects:
        if e.index in given and not isinstance(e, Problem):
            given[e.index].append(_effect(e, created, first))
    return given


def _effect(e: Effect, created: dict[int, int], first: int) -> clingo.Symbol:
    """An effect the engine reported, as the effect an ASP rule would state."""
    name, *values = transition_key(e)

    def arg(a: int) -> int | str:
        return "new" if created[a] == first + e.index else created[a]

    if name == "new_arg":  # the engine's (id, claim, kind): ASP states (claim, kind) of the step's new argument
        return F.effect_symbol(name, values[1], values[2])
    return F.effect_symbol(name, *(arg(v) if kind == "arg" else v for kind, v in zip(F.EFFECTS[name], values,
                                                                                      strict=True)))


def _add(report: CheckReport, line: str | None) -> None:
    if line is not None:
        report.mismatches.append(line)


def _op_name(c: Candidate, i: int) -> str:
    return "(the utterance)" if i < 0 or i >= len(c.ops) else c.ops[i]


class _Located:
    """The clauses and rules that decide a code or an effect (crosscheck/locate.py), read on the first
    disagreement only: an agreeing check pays nothing for them."""

    def __init__(self, extensions: Iterable[str | Path]):
        self.extensions = tuple(extensions)
        self.locations: Locations | None = None

    def __call__(self, kind: str, op: str, name: str) -> str:
        if self.locations is None:
            self.locations = Locations(self.extensions)
        if not self.locations.knows(kind, op, name):  # a check of the driver's own, not the operation's
            return ""
        return f" (decided at {self.locations.where(kind, op, name)})"


def _compare_outcomes(keyed: list[tuple[int, int, str]], outcomes: list[Outcome], answer: HistoryAnswer,
                      located: _Located) -> None:
    """Accepted or rejected, and the violation codes (each with its operation's index and name, and where
    the first differing one is decided)."""
    for c, o in zip(answer.candidates, outcomes, strict=True):
        if o.given:
            continue
        asp_ok = c.u in answer.accepted
        asp_viol = answer.violations.get(c.u, set())
        if o.accepted != asp_ok or o.violations != asp_viol:
            differing = sorted(o.violations ^ asp_viol)
            code = ""
            if differing:
                first = differing[0]
                code = f"; first differing code: {_code(c, first)}"
                if isinstance(first, tuple):
                    code += located("violation", _op_name(c, first[0]), first[1])
            keyed.append((c.u, 0,
                          f"utterance {c.u} (turn {c.turn}, {c.speaker}, ops {', '.join(c.ops)}): engine "
                          f"{'accepted' if o.accepted else _codes(c, o.violations)} but ASP "
                          f"{'accepted' if asp_ok else _codes(c, asp_viol)}{code}"))


def _code(c: Candidate, v: Any) -> str:
    if not isinstance(v, tuple):
        return str(v)
    i, code = v
    return f"{code} (op [{i}] {_op_name(c, i)})"


def _codes(c: Candidate, violations: set[tuple[int, str]]) -> str:
    return "rejected [" + ", ".join(_code(c, v) for v in sorted(violations)) + "]"


def _compare_transitions(report: CheckReport, keyed: list[tuple[int, int, str]], outcomes: list[Outcome],
                         answer: HistoryAnswer, located: _Located) -> None:
    """Per accepted utterance: Prolog's reported transitions and flagged set against ASP's.

    The line names the first operation whose transitions differ, by index and name, and
    the first differing transition of it."""
    asp = asp_transitions(answer)
    flagged = asp_flagged(answer)
    for c, o in zip(answer.candidates, outcomes, strict=True):
        if o.update is None or o.given or c.u not in answer.accepted:
            continue
        prolog = prolog_transitions(o.update.effects)
        report.transitions += sum(sum(v.values()) for v in prolog.values())
        theirs = asp.get(c.u, {})
        for i in sorted(set(prolog) | set(theirs)):
            ours, asps = prolog.get(i, Counter()), theirs.get(i, Counter())
            line = describe(f"utterance {c.u} (turn {c.turn}) transitions of op [{i}] {_op_name(c, i)}",
                            "Prolog", ours, "ASP", asps)
            if line is not None:
                differing = sorted((ours - asps) + (asps - ours), key=repr)
                if differing and isinstance(differing[0], tuple) and differing[0]:
                    line += located("effect", _op_name(c, i), str(differing[0][0]))
                keyed.append((c.u, 1, line))
                break
        python_flagged = {claim: set(losing) for claim, losing in o.update.flagged.items()}
        line = describe(f"utterance {c.u} (turn {c.turn}) flagged claims ", "Python", python_flagged,
                        "ASP", flagged.get(c.u, {}))
        if line is not None:
            keyed.append((c.u, 2, line))


# -- the last turn ----------------------------------------------------------------

def _compare_registered(report: CheckReport, engine: Engine, answer: HistoryAnswer | None) -> None:
    """Every registered query the rules answer as a set of arguments (``Query.ids``): the registry's Python
    walk, the rules' ``query(Name)`` (asked as ``ask(Name, State)``) and ASP's ``#show`` predicate."""
    for q in QUERIES.values():
        if q.ids is None or q.prolog is None:
            continue
        python = sorted(q.ids(q.ask(engine)))
        _add(report, describe(f"{q.name} arguments", "Python", python, "Prolog", engine.rules.ask(q.prolog)))
        if answer is not None and q.asp is not None:
            shown = sorted(answer.arg_id[s.arguments[1].number] for s in answer.facts
                           if s.name == q.asp and len(s.arguments) == 2)
            _add(report, describe(f"{q.name} arguments", "Python", python, "ASP", shown))


def _compare_final(report: CheckReport, engine: Engine, answer: HistoryAnswer | None,
                   batches: Iterable[AffectedBatch] | None) -> None:
    """The last turn: standings, registered queries, notes, grounded arguments, Verify of every claim,
    Affected and Affected* of every literal (``batches``: ASP's, None when ASP did not run)."""
    dm = engine.state
    rules = engine.rules
    python_standings = {r.id: r.standing for r in dm.args}
    _add(report, describe("standings at the last turn", "Python", python_standings, "Prolog", rules.standings()))
    answers = rules.queries()
    prolog_grounded = answers.grounded
    python_notes = {claim: str(dm.note(claim)) for claim in dm.claimants}
    _compare_registered(report, engine, answer)
    _add(report, describe("standing notes", "Python", python_notes, "Prolog",
                          {claim: str(note) for claim, note in rules.notes().items()}))
    python_grounded = grounded_arguments(dm)
    asp_grounded: set[int] | None = None
    if answer is not None:
        asp_grounded = {answer.arg_id[a.a] for a in answer.facts.query(F.NowGrounded).all()}
        asp_notes = {n.lit: f"{n.standing} at T{n.turn}" + (f" by {n.cause}" if n.cause else "")
                     for n in answer.facts.query(F.NowNote).all()}
        _add(report, describe("standing notes", "Python", python_notes, "ASP", asp_notes))
    for side, other in (("Prolog", prolog_grounded), ("ASP", asp_grounded)):
        if other is not None:
            _add(report, describe("grounded arguments", "Python", python_grounded, side, other))
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
    _compare_affected(report, engine, literals, answers.affected, batches)


def _compare_affected(report: CheckReport, engine: Engine, literals: list[str],
                      prolog: dict[str, dict[int, int]], batches: Iterable[AffectedBatch] | None) -> None:
    """Affected* (with hops) and Affected of every literal: Python against Prolog and ASP.

    ASP's answers come a batch of literals at a time (``OneShotHistory.affected``):
    each batch is compared and let go before the next is asked for, so the check never
    holds every literal's closure from ASP at once.  A literal no batch
    names has none in ASP.  The lines come out in the order of ``literals``."""
    wanted = set(literals)
    lines: dict[str, list[str]] = {}

    def compare(p: str, star: dict[int, int] | None, one: set[int] | None) -> None:
        closure = engine.affected(p)
        python: dict[int, Any] = dict(zip(closure.arguments, closure.hops, strict=True))
        first = set(engine.affected(p, closure=False).arguments)
        found = [describe(f"Affected*({p})", "Python", python, "Prolog", prolog.get(p, {}))]
        if star is not None and one is not None:
            found += [describe(f"Affected*({p})", "Python", python, "ASP", star),
                      describe(f"Affected({p})", "Python", first, "ASP", one)]
        if first != {a for a, k in python.items() if k == 1}:
            found.append(f"Affected({p}) is not hop 1 of Affected*({p})")
        if any(line is not None for line in found):
            lines[p] = [line for line in found if line is not None]

    for stars, ones in batches or ():
        for p in sorted((stars.keys() | ones.keys()) & wanted):
            compare(p, stars.get(p, {}), ones.get(p, set()))
            wanted.discard(p)
    for p in sorted(wanted):
        compare(p, None if batches is None else {}, None if batches is None else set())
    for p in literals:
        report.mismatches.extend(lines.get(p, ()))
