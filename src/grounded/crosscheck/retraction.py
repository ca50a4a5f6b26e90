"""Proposition 2.5 and Corollary 2.6, decided by clingo at every turn for every literal.

For a state D_t and a retracted literal p, with X = Affected(p) (Proposition
2.5) or Affected*(p) (Corollary 2.6) and S' = S_t \\ X:

1. S' is conflict-free in AF|X;
2. some preferred extension of AF|X contains S';
3. every preferred extension of AF|X keeps every argument of S'.

The paper proves them from the standing invariant (Lemma 2.4), which the
Prolog rules enforce, so a check that assumed it could only ever pass.  This
one assumes nothing: ``asp/retraction.lp`` rebuilds S_t, AF_t and X at each
turn from the raw history (every argument's creation and claim, every
standing change, every attack and Dep entry, with their turns; never the
standing the engine reports), and decides the conditions there.  A wrong
transition rule, in the shipped rules or in an extension, makes a proposition
fail at the turn it breaks it, named with the literals it fails for
(tests/test_retraction_mutations.py plants four such bugs).

One clingo program decides every (turn, literal) pair, both modes.  Which
turns: every turn at which the history records an event (the state at any
other turn is the state of the last such turn before it).  Which literals:
every claim and every literal some Dep holds at that turn.  Above
``EVERY_TURN_LIMIT`` pairs the default is a sample, every turn with a seeded
share of its literals; the seed is reported, and ``seed`` repeats it.

X is also held against the engine's reverse-index answer (Python = ASP for
Affected and Affected*), and S_t against the engine's standings.
"""

from __future__ import annotations

import random
import re
import secrets
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import clingo

from grounded.dmap.state import DependencyMap
from grounded.dung import Framework, credulous
from grounded.dung import extensions as dung_extensions
from grounded.engine import Engine
from grounded.engine.view import StateView
from grounded.solvers.asp import encoding, new_control

EVERY_TURN_LIMIT = 20_000
"""Up to this many (turn, literal) pairs, every one is decided by default."""
SAMPLE_SIZE = 2000
"""Above the limit, about this many pairs are sampled (at least one literal per turn)."""

MODES = {"one": False, "star": True}

_N, _S, _F = clingo.Number, clingo.String, clingo.Function
_PLAIN = re.compile(r'[^",()\\]*')


@dataclass(slots=True)
class Retraction:
    """One retraction decided: the literal, the turn, X, S' and the three conditions."""

    turn: int
    literal: str
    closure: bool
    removed: frozenset[int]
    """X: Affected(p), or Affected*(p) with ``closure``, as asp/retraction.lp computes it."""
    standing: frozenset[int] = field(repr=False)
    """S_t, as asp/retraction.lp rebuilds it from the recorded standing changes (shared per turn)."""
    conflicts: tuple[tuple[int, int], ...] = ()
    """Attacks between two members of S' (condition 1 fails when there is one)."""
    outside: tuple[int, ...] = ()
    """Members of S' outside the grounded extension of AF|X (2 and 3 are then decided exactly)."""
    in_some_preferred: bool = True
    in_every_preferred: bool = True

    @property
    def kept(self) -> frozenset[int]:
        """S' = S_t minus X."""
        return self.standing - self.removed

    @property
    def conflict_free(self) -> bool:
        return not self.conflicts

    @property
    def holds(self) -> bool:
        return self.conflict_free and self.in_some_preferred and self.in_every_preferred

    @property
    def name(self) -> str:
        return f"Affected{'*' if self.closure else ''}({self.literal})"

    @property
    def proposition(self) -> str:
        return "Corollary 2.6" if self.closure else "Proposition 2.5"

    def failures(self, claim: Callable[[int], str] = str) -> list[str]:
        """What fails, in words; ``claim`` names an argument id."""
        out = []
        if self.conflicts:
            pairs = ", ".join(f"{claim(a)} attacks {claim(b)}" for a, b in self.conflicts[:3])
            out.append(f"S' = S_t \\ X is not conflict-free in AF|X ({pairs})")
        if not self.in_some_preferred:
            out.append("no preferred extension of AF|X contains S'"
                       + (f" ({', '.join(map(claim, self.outside[:3]))} cannot be defended)"
                          if self.outside and not self.conflicts else ""))
        if not self.in_every_preferred:
            out.append("some preferred extension of AF|X drops an argument of S'")
        return out


@dataclass
class RetractionReport:
    """Every retraction decided over a history, with what the decision rests on."""

    turns: list[int] = field(default_factory=list)
    """The turns decided at: every turn whose state differs from the turn before."""
    accepted_turns: int = 0
    """How many accepted turns those stand for (the others repeat the state before them)."""
    pairs: int = 0
    """(turn, literal) pairs in the whole history; ``decided`` holds those checked."""
    sampled: bool = False
    seed: int | None = None
    literals_given: bool = False
    """Only the literals asked for were retracted (at the turns where the state holds them)."""
    results: list[Retraction] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    """Where the engine and asp/retraction.lp disagree on X or S_t."""
    seconds: float = 0.0
    claims: dict[int, str] = field(default_factory=dict, repr=False)
    _history: _History | None = field(default=None, repr=False)
    _answer: _Answer = field(default_factory=lambda: _Answer(), repr=False)

    @property
    def failed(self) -> list[Retraction]:
        return [r for r in self.results if not r.holds]

    @property
    def ok(self) -> bool:
        return not self.failed and not self.mismatches

    def label(self, arg: int) -> str:
        return f"{self.claims.get(arg, '?')} #{arg}"

    def extensions(self, r: Retraction) -> list[frozenset[int]]:
        """Every preferred extension of AF|X at r's turn (on an acyclic AF_t, the grounded one).

        With an acyclic AF_t this is the grounded extension asp/retraction.lp
        computed; with a cyclic one, clingo enumerates them (af_preferred.lp).
        """
        answer = self._answer
        if r.turn not in answer.cyclic:
            touched, inside = answer.touched.get((r.turn, r.literal, r.closure), (frozenset(), frozenset()))
            return [(answer.ground[r.turn] - r.removed - touched) | inside]
        assert self._history is not None
        return dung_extensions(self._history.framework(r.turn).restrict(r.removed), "preferred")

    def containing(self, r: Retraction) -> list[frozenset[int]]:
        """The preferred extensions of AF|X that contain S'."""
        return [e for e in self.extensions(r) if r.kept <= e]

    def summary(self) -> str:
        which = "the given literals" if self.literals_given else "every literal"
        scope = (f"{which} at {len(self.turns)} turns" if not self.sampled else
                 f"a sample of {len(self.results) // 2} of {self.pairs} (turn, literal) pairs, every one of "
                 f"{len(self.turns)} turns (seed {self.seed}; --seed {self.seed} repeats it, --every-turn "
                 "decides all)")
        turns = (f" ({self.accepted_turns} accepted turns; the others repeat the state before them)"
                 if self.accepted_turns > len(self.turns) else "")
        failed = self.failed
        if not failed:
            return (f"Proposition 2.5 and Corollary 2.6 hold for {len(self.results)} retractions: "
                    f"{scope}{turns}")
        first = min(failed, key=lambda r: (r.turn, r.literal, r.closure))
        return (f"Proposition 2.5 or Corollary 2.6 fails for {len(failed)} of {len(self.results)} retractions, "
                f"first at turn {first.turn} retracting {first.literal}: {scope}{turns}")

    def failure_lines(self, details: int = 1) -> list[str]:
        """The failures by turn and cause: which literals, what breaks, and the work for the first ones."""
        groups: dict[tuple[int, tuple[str, ...]], list[Retraction]] = defaultdict(list)
        for r in self.failed:
            groups[(r.turn, tuple(r.failures(self.label)))].append(r)
        lines = []
        for (turn, causes), rs in sorted(groups.items(), key=lambda kv: kv[0][0]):
            literals = list(dict.fromkeys(r.literal for r in rs))
            modes = [m for m in ("Proposition 2.5", "Corollary 2.6") if any(r.proposition == m for r in rs)]
            shown = ", ".join(literals[:8]) + (f" and {len(literals) - 8} more" if len(literals) > 8 else "")
            lines.append(f"turn {turn}: {' and '.join(modes)} fail retracting {shown}: " + "; ".join(causes))
            lines.extend("  " + line for r in rs[:details] for line in self.describe(r))
        return lines

    def describe(self, r: Retraction) -> list[str]:
        """The work behind one retraction: X, S' and the preferred extensions of AF|X."""
        def names(ids: Iterable[int]) -> str:
            return "{" + ", ".join(self.label(a) for a in sorted(ids)) + "}"

        exts = self.extensions(r)
        containing = [e for e in exts if r.kept <= e]
        verdict = "holds" if r.holds else "fails: " + "; ".join(r.failures(self.label))
        lines = [f"turn {r.turn}, retracting {r.literal} ({r.proposition}): {verdict}",
                 f"  X = {r.name} = {names(r.removed)}",
                 f"  S' = S_t \\ X = {names(r.kept)}",
                 f"  preferred extensions of AF|X containing S': {len(containing)} of {len(exts)}"]
        lines.extend(f"    {names(e)}" for e in containing)
        if not r.holds:
            lines.extend(f"    not containing S': {names(e)} (misses {names(r.kept - e)})"
                         for e in exts if e not in containing)
        return lines

    def record(self, r: Retraction) -> dict:
        """One retraction as JSON: with ``preferred_extensions`` (how many AF|X has) and, when condition 3
        fails, ``counterexample``: a preferred extension of AF|X that drops an argument of S'."""
        exts = self.extensions(r)
        dropping = [e for e in exts if not r.kept <= e]
        return {"turn": r.turn, "literal": r.literal, "closure": r.closure, "proposition": r.proposition,
                "holds": r.holds, "affected": sorted(r.removed), "kept": sorted(r.kept),
                "conflict_free": r.conflict_free, "in_some_preferred": r.in_some_preferred,
                "in_every_preferred": r.in_every_preferred, "conflicts": [list(c) for c in r.conflicts],
                "preferred_extensions": len(exts),
                "extensions": [sorted(e) for e in exts if r.kept <= e],
                "counterexample": sorted(dropping[0]) if dropping else None,
                "failures": r.failures(self.label)}

    def to_json(self, records: bool = True) -> dict:
        data = {"ok": self.ok, "decided": len(self.results), "failed": len(self.failed),
                "turns": self.turns, "accepted_turns": self.accepted_turns, "pairs": self.pairs,
                "sampled": self.sampled, "seed": self.seed, "seconds": round(self.seconds, 3),
                "mismatches": self.mismatches}
        if records:
            data["arguments"] = {str(a): c for a, c in sorted(self.claims.items())}
            data["retractions"] = [self.record(r) for r in self.results]
        return data


@dataclass
class _Answer:
    """What asp/retraction.lp found besides the decisions: S_t, and the pieces of each extension."""

    standing: dict[int, frozenset[int]] = field(default_factory=dict)
    """S_t per turn, from the recorded standing changes."""
    literals: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))
    """The literals retracted per turn."""
    ground: dict[int, frozenset[int]] = field(default_factory=dict)
    """The grounded extension of AF_t per turn."""
    touched: dict[tuple[int, str, bool], tuple[frozenset[int], frozenset[int]]] = field(default_factory=dict)
    """Per retraction, the arguments an attack path from X reaches, and those of them in the grounded
    extension of AF|X (every other argument has its AF_t status there)."""
    cyclic: frozenset[int] = frozenset()
    """The turns at which the attacks of AF_t have a cycle."""


class _History:
    """The raw events of an engine's history, as recorded (no standing read back)."""

    def __init__(self, dm: DependencyMap, upto: int | None):
        def seen(turn: int) -> bool:
            return upto is None or turn <= upto

        self.dm = dm
        self.args = [r for r in dm.args if seen(r.turn)]
        self.attacks = [(a, b, t) for a, b, t in dm.attacks if seen(t)]
        self.turns = sorted({t for r in self.args for t in (r.turn, *(h[0] for h in r.history), *r.dep_turns)
                             if seen(t)} | {t for _, _, t in self.attacks})

    @property
    def plain(self) -> bool:
        """No literal needs quoting inside a clingo string (true of every valid literal)."""
        return all(_PLAIN.fullmatch(r.claim) and all(_PLAIN.fullmatch(d) for d in r.deps) for r in self.args)

    def symbols(self) -> list[clingo.Symbol]:
        out = []
        for r in self.args:
            out.append(_F("h_arg", [_N(r.id), _N(r.turn), _S(r.claim)]))
            out.extend(_F("h_st", [_N(r.id), _N(i), _N(t), _F(s)]) for i, (t, s, _) in enumerate(r.history))
            out.extend(_F("h_dep", [_N(r.id), _S(d), _N(t)]) for d, t in zip(r.deps, r.dep_turns, strict=True))
        out.extend(_F("h_att", [_N(a), _N(b), _N(t)]) for a, b, t in self.attacks)
        return out

    def literals(self, turns: Iterable[int]) -> dict[int, list[str]]:
        """Python's own list of the literals of the state (claims and Dep) at each of ``turns``,
        in one pass over the events in turn order."""
        events = sorted([(r.turn, r.claim) for r in self.args]
                        + [(t, d) for r in self.args for d, t in zip(r.deps, r.dep_turns, strict=True)])
        out: dict[int, list[str]] = {}
        found: set[str] = set()
        i = 0
        for turn in sorted(turns):
            while i < len(events) and events[i][0] <= turn:
                found.add(events[i][1])
                i += 1
            out[turn] = sorted(found)
        return out

    def created(self, turns: Iterable[int]) -> dict[int, frozenset[int]]:
        """The arguments made by each of ``turns`` (AF_t's arguments), in one pass (ids come in turn order)."""
        out: dict[int, frozenset[int]] = {}
        made: set[int] = set()
        i = 0
        for turn in sorted(turns):
            while i < len(self.args) and self.args[i].turn <= turn:
                made.add(self.args[i].id)
                i += 1
            out[turn] = frozenset(made)
        return out

    def framework(self, turn: int) -> Framework:
        return Framework.of([r.id for r in self.args if r.turn <= turn],
                            [(a, b) for a, b, t in self.attacks if t <= turn])


def check_retractions(dm: DependencyMap, *, at: int | None = None, turns: Iterable[int] | None = None,
                      literals: Iterable[str] | None = None, every_turn: bool | None = None,
                      seed: int | None = None, accepted_turns: int | None = None) -> RetractionReport:
    """Decide Proposition 2.5 and Corollary 2.6 over the history of ``dm`` (an engine's state) up to ``at``.

    ``turns`` restricts the turns (default: every turn with an event) and
    ``literals`` the literals (default: every literal of the state).  With
    ``every_turn`` None, every pair is decided up to ``EVERY_TURN_LIMIT``
    pairs and a seeded sample above it; True decides all, False samples.
    """
    start = time.perf_counter()
    history = _History(dm, at)
    chosen = history.turns if turns is None else sorted(set(turns))
    report = RetractionReport(turns=chosen, claims={r.id: r.claim for r in history.args},
                              accepted_turns=accepted_turns or len(chosen), literals_given=literals is not None,
                              _history=history)
    pool = history.literals(chosen)
    explicit = literals is not None
    if literals is not None:
        # the given literals, at the turns where the state holds them (at the last turn if at none:
        # there X is empty and S' is S_t)
        wanted = sorted(set(literals))
        pool = {t: [p for p in wanted if p in held] for t, held in ((t, set(ls)) for t, ls in pool.items())}
        if chosen:
            for p in wanted:
                if not any(p in ls for ls in pool.values()):
                    pool[chosen[-1]].append(p)
    report.pairs = sum(len(ls) for ls in pool.values())
    if every_turn is None:
        every_turn = report.pairs <= EVERY_TURN_LIMIT
    asks: list[tuple[int, str]] | None = None
    if explicit or not every_turn:
        asks = [(t, p) for t, ls in pool.items() for p in ls]
        if not every_turn:
            report.sampled = True
            report.seed = secrets.randbelow(10**9) if seed is None else seed
            asks = _sample(pool, report.seed)
    _decide(report, history, chosen, asks, explicit)
    _compare(report, dm, pool if asks is None else None)
    report.seconds = time.perf_counter() - start
    return report


def _sample(pool: dict[int, list[str]], seed: int) -> list[tuple[int, str]]:
    """Every turn, and a seeded share of its literals: about SAMPLE_SIZE pairs in all."""
    rng = random.Random(seed)
    share = max(1, SAMPLE_SIZE // max(1, len(pool)))
    return [(t, p) for t, ls in pool.items() for p in (rng.sample(ls, share) if len(ls) > share else ls)]


def _decide(report: RetractionReport, history: _History, turns: list[int],
            asks: list[tuple[int, str]] | None, explicit: bool) -> None:
    if not turns:
        return
    symbols = history.symbols() + [_F("check", [_N(t)]) for t in turns]
    symbols += [_F("after", [_N(t), _N(p)]) for p, t in zip(turns, turns[1:], strict=False)]
    if asks is not None:
        symbols.append(_F("sampled", []))
        symbols.extend(_F("ask", [_N(t), _S(p)]) for t, p in asks)
    ctl = new_control()
    ctl.load(encoding("retraction.lp"))
    ctl.load(encoding("standing.lp"))
    with ctl.backend() as backend:
        for symbol in symbols:
            backend.add_rule([backend.add_atom(symbol)])
    ctl.ground([("base", [])])
    shown: list[clingo.Symbol] = []
    ctl.solve(on_model=lambda m: shown.extend(m.symbols(shown=True)))

    removed, conflicts, outside = defaultdict(set), defaultdict(list), defaultdict(list)
    touched, inside = defaultdict(set), defaultdict(set)
    changes: dict[str, dict[int, list[int]]] = {name: defaultdict(list) for name in ("s_in", "s_out", "g_in", "g_out")}
    retract, unknown, cyclic = [], [], set()
    for name, a in _decoded(shown, history.plain):
        if len(a) >= 3:
            k = (int(a[0]), a[1], MODES[a[2]])
            if name == "x":
                removed[k].add(int(a[3]))
            elif name == "conflict":
                conflicts[k].append((int(a[3]), int(a[4])))
            elif name == "outside":
                outside[k].append(int(a[3]))
            elif name == "touched":
                touched[k].add(int(a[3]))
            elif name == "gx":
                inside[k].add(int(a[3]))
        elif name in changes:
            changes[name][int(a[0])].append(int(a[1]))
        elif name == "retract":
            retract.append((int(a[0]), a[1]))
        elif name == "unknown":
            unknown.append((int(a[0]), a[1]))
        elif name == "cyclic":
            cyclic.add(int(a[0]))
    answer = report._answer
    standing: set[int] = set()
    not_ground: set[int] = set()
    made = history.created(turns)
    for t in turns:  # S_t and the grounded extension of AF_t, from the changes asp/retraction.lp reports
        standing = (standing - set(changes["s_out"][t])) | set(changes["s_in"][t])
        not_ground = (not_ground - set(changes["g_in"][t])) | set(changes["g_out"][t])
        answer.standing[t] = frozenset(standing)
        answer.ground[t] = made[t] - not_ground
    answer.cyclic = frozenset(cyclic)
    answer.touched = {k: (frozenset(v), frozenset(inside[k] & v)) for k, v in touched.items()}
    if not explicit:  # a sample is drawn from Python's lists of literals: ASP must know each
        report.mismatches.extend(f"literal {p} at turn {t}: Python lists it but asp/retraction.lp finds "
                                 "no argument claiming it or resting on it" for t, p in sorted(unknown))
    none: frozenset[int] = frozenset()
    for t, p in sorted(retract):
        answer.literals[t].add(p)
        for closure in (False, True):
            k = (t, p, closure)
            r = Retraction(t, p, closure, frozenset(removed[k]) if k in removed else none, answer.standing[t])
            if k in conflicts or k in outside:
                r.conflicts, r.outside = tuple(sorted(conflicts.get(k, ()))), tuple(sorted(outside.get(k, ())))
                _exact(history, r, t in cyclic)
            report.results.append(r)


def _decoded(shown: list[clingo.Symbol], plain: bool) -> Iterable[tuple[str, list[str]]]:
    """Each shown atom as its name and its arguments as text (strings unquoted).

    Reading a clingo symbol's parts costs a foreign call each; when no literal
    holds a quote, comma or parenthesis (the literal syntax allows none) one
    call per atom, ``str``, is enough, and a long history decodes 3x faster.
    """
    if plain:
        for text in map(str, shown):
            name, _, rest = text.partition("(")
            yield name, [part.strip('"') for part in rest[:-1].split(",")] if rest else []
        return
    for symbol in shown:
        yield symbol.name, [str(x.number) if x.type == clingo.SymbolType.Number else
                            x.string if x.type == clingo.SymbolType.String else x.name for x in symbol.arguments]


def _exact(history: _History, r: Retraction, cyclic: bool) -> None:
    """Conditions 2 and 3 where the grounded extension does not settle them.

    With a conflict inside S', no admissible set contains S' (2 fails) and no
    preferred extension does either (3 fails: there is always one).  With S'
    conflict-free but partly outside the grounded extension, on an acyclic
    AF|X that extension is the only preferred one, so both fail; on a cyclic
    one clingo decides them (brave reasoning for 2, the preferred extensions
    for 3).
    """
    if r.conflicts or (r.outside and not cyclic):
        r.in_some_preferred = r.in_every_preferred = False
    elif r.outside:
        af = history.framework(r.turn).restrict(r.removed)
        r.in_some_preferred = credulous(af, "preferred", r.kept)
        r.in_every_preferred = all(r.kept <= e for e in dung_extensions(af, "preferred"))


def _compare(report: RetractionReport, dm: DependencyMap, pool: dict[int, list[str]] | None) -> None:
    """Python = ASP: X against the reverse index, S_t against the engine, and the literal lists."""
    asp_standing, asp_literals = report._answer.standing, report._answer.literals
    for t in report.turns:
        python = frozenset(r.id for r in dm.args if r.turn <= t and dm.in_standing(r.id, t))
        if python != asp_standing[t]:
            report.mismatches.append(f"S_t at turn {t}: engine {sorted(python)} but asp/retraction.lp "
                                     f"{sorted(asp_standing[t])} from the recorded standing changes")
        if pool is not None and set(pool[t]) != asp_literals[t]:
            report.mismatches.append(f"literals of the state at turn {t}: Python {pool[t]} but "
                                     f"asp/retraction.lp {sorted(asp_literals[t])}")
    view = StateView(dm)
    for r in report.results:
        python_x = frozenset(view.affected(r.literal, r.closure, r.turn).arguments)
        if python_x != r.removed:
            report.mismatches.append(f"{r.name} at turn {r.turn}: Python {sorted(python_x)} but "
                                     f"asp/retraction.lp {sorted(r.removed)}")


def check_retraction(engine: Engine, literal: str, closure: bool = False, at: int | None = None) -> Retraction:
    """Decide Proposition 2.5 (``closure=False``) or Corollary 2.6 (``closure=True``) for one literal at one turn."""
    turn = (engine.state.last_turn or 0) if at is None else at
    report = check_retractions(engine.state, at=turn, turns=[turn], literals=[literal], every_turn=True)
    return next(r for r in report.results if r.closure == closure)
