"""Proposition 2.5 and Corollary 2.6, decided by clingo for one retraction.

For a state D_t and a retracted literal p, with X = Affected(p) (or
Affected*(p) for the corollary) and S' = S_t \\ X:

* S' is conflict-free in AF|X;
* some preferred extension of AF|X contains S' (brave reasoning: an admissible
  set containing S' exists, and every admissible set lies in a preferred one);
* every preferred extension of AF|X contains every argument of S'
  (cautious reasoning over complete extensions, which include the preferred).

asp/retraction.lp computes X from Dep and the claims on its own, so the
engine's reverse-index answer is held against the declarative fixpoint too.
Users run this on their own conversations with ``grounded check --retraction``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from clorm import FactBase, IntegerField, Predicate, StringField
from clorm.clingo import control_add_facts

from grounded.core.vocabulary import GOOD_STANDING
from grounded.engine import Engine
from grounded.solvers.asp import encoding, new_control


class _DArg(Predicate):
    a = IntegerField

    class Meta:
        name = "d_arg"


class _DAtt(Predicate):
    attacker = IntegerField
    target = IntegerField

    class Meta:
        name = "d_att"


class _Good(Predicate):
    a = IntegerField

    class Meta:
        name = "good"


class _Claim(Predicate):
    a = IntegerField
    lit = StringField

    class Meta:
        name = "r_claim"


class _Dep(Predicate):
    a = IntegerField
    lit = StringField

    class Meta:
        name = "r_dep"


class _Retract(Predicate):
    lit = StringField

    class Meta:
        name = "retract"


class _Closure(Predicate):
    class Meta:
        name = "closure"


@dataclass
class RetractionCheck:
    literal: str
    closure: bool
    removed: frozenset[int]
    """X as the ASP fixpoint computes it."""
    kept: frozenset[int]
    """S' = S_t minus X."""
    conflicts: list[tuple[int, int]] = field(default_factory=list)
    in_some_preferred: bool = False
    in_every_preferred: bool = False

    @property
    def holds(self) -> bool:
        return not self.conflicts and self.in_some_preferred and self.in_every_preferred

    def failures(self) -> list[str]:
        name = f"Affected{'*' if self.closure else ''}({self.literal})"
        out = []
        if self.conflicts:
            out.append(f"S_t \\ {name} is not conflict-free: attacks {self.conflicts[:3]}")
        if not self.in_some_preferred:
            out.append(f"no preferred extension of AF|{name} contains S_t \\ {name}")
        if not self.in_every_preferred:
            out.append(f"some preferred extension of AF|{name} drops an argument of S_t \\ {name}")
        return out


def state_facts(engine: Engine, literal: str, closure: bool, at: int | None) -> FactBase:
    dm = engine.state
    facts = FactBase([_Retract(literal)])
    if closure:
        facts.add(_Closure())
    for r in dm.args:
        if not dm.visible(r.id, at):
            continue
        facts.add(_DArg(r.id))
        facts.add(_Claim(r.id, r.claim))
        facts.update(_Dep(r.id, d) for d in r.deps_at(at))
        if r.standing_at(at) in GOOD_STANDING:
            facts.add(_Good(r.id))
    facts.update(_DAtt(a, b) for a, b, turn in dm.attacks if at is None or turn <= at)
    return facts


def _solve(facts: FactBase, semantics: str, options: tuple[str, ...] = (), extra: str = "") -> list[list]:
    ctl = new_control(options)
    ctl.load(encoding("retraction.lp"))
    ctl.load(encoding(semantics))
    control_add_facts(ctl, facts)
    if extra:
        ctl.add("base", [], extra)
    ctl.ground([("base", [])])
    models: list[list] = []
    ctl.configuration.solve.models = 0 if "--enum-mode=cautious" in options else 1
    ctl.solve(on_model=lambda m: models.append(list(m.symbols(shown=True))))
    return models


def check_retraction(engine: Engine, literal: str, closure: bool = False, at: int | None = None) -> RetractionCheck:
    """Decide Proposition 2.5 (``closure=False``) or Corollary 2.6 (``closure=True``) for ``literal``."""
    return decide(state_facts(engine, literal, closure, at), literal, closure)


def decide(facts: FactBase, literal: str, closure: bool) -> RetractionCheck:
    """The three conditions for the state and retraction that ``facts`` describe."""
    # brave: an admissible set of AF|X containing S' (hence a preferred extension containing it)
    brave = _solve(facts, "af_admissible.lp", extra=":- kept(X), not in(X).")
    # cautious: what every complete extension of AF|X contains (the last model of the enumeration)
    cautious = _solve(facts, "af_complete.lp", ("--enum-mode=cautious",))
    base = cautious[-1] if cautious else (brave[0] if brave else [])
    removed = frozenset(s.arguments[0].number for s in base if s.name == "removed")
    kept = frozenset(s.arguments[0].number for s in base if s.name == "kept")
    conflicts = sorted((s.arguments[0].number, s.arguments[1].number) for s in base if s.name == "conflict")
    every = {s.arguments[0].number for s in cautious[-1] if s.name == "in"} if cautious else set()
    return RetractionCheck(literal, closure, removed, kept, conflicts,
                           in_some_preferred=bool(brave), in_every_preferred=bool(cautious) and kept <= every)
