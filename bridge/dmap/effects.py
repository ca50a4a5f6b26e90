"""What the rules report for one utterance, as typed values: effects and violations.

The driver (prolog/grounded.pl) reports each change it applied as a term
``t(Index, Effect)``; the bridge reads the term through the foreign interface
(grounded.solvers.terms) and this module turns it into one frozen dataclass
per effect kind, with ints for argument ids, ``None`` for the cause ``none``
and literals spelled as everywhere else (``-a3``).  ``index`` is the
operation's position in its utterance (-1: the utterance itself: a new
speaker, the turn).

The classes mirror ``effect_signature/2`` in prolog/vocabulary.pl, plus the
three the driver adds itself (``problem``, ``new_agent``, ``turn``); a test
holds the two lists equal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any, ClassVar, get_args

from grounded.core.errors import Violation


@dataclass(frozen=True, slots=True)
class NewProp:
    name: ClassVar[str] = "new_prop"
    index: int
    atom: str
    kind: str


@dataclass(frozen=True, slots=True)
class Aware:
    name: ClassVar[str] = "aware"
    index: int
    atom: str


@dataclass(frozen=True, slots=True)
class NewArg:
    name: ClassVar[str] = "new_arg"
    index: int
    arg: int
    claim: str
    kind: str


@dataclass(frozen=True, slots=True)
class SetStanding:
    name: ClassVar[str] = "set_standing"
    index: int
    arg: int
    standing: str
    cause: str | None
    """The literal whose argument caused the change (``by(L)``), or None (``none``)."""


@dataclass(frozen=True, slots=True)
class AddDep:
    name: ClassVar[str] = "add_dep"
    index: int
    arg: int
    literal: str


@dataclass(frozen=True, slots=True)
class AddExplains:
    name: ClassVar[str] = "add_explains"
    index: int
    arg: int
    literal: str


@dataclass(frozen=True, slots=True)
class AddAttack:
    name: ClassVar[str] = "add_attack"
    index: int
    attacker: int
    target: int


@dataclass(frozen=True, slots=True)
class Commit:
    name: ClassVar[str] = "commit"
    index: int
    agent: str
    arg: int


@dataclass(frozen=True, slots=True)
class RetractCommitment:
    name: ClassVar[str] = "retract_commitment"
    index: int
    agent: str
    arg: int


@dataclass(frozen=True, slots=True)
class Dissent:
    name: ClassVar[str] = "dissent"
    index: int
    arg: int
    agent: str


@dataclass(frozen=True, slots=True)
class Announce:
    """[!L]: a hard public announcement in the world model."""

    name: ClassVar[str] = "announce"
    index: int
    literal: str


@dataclass(frozen=True, slots=True)
class Upgrade:
    """[^L] (lexicographic) or [up L] (conservative)."""

    name: ClassVar[str] = "upgrade"
    index: int
    literal: str
    mode: str


@dataclass(frozen=True, slots=True)
class Withdraw:
    """Lift earlier announcements of L."""

    name: ClassVar[str] = "withdraw"
    index: int
    literal: str


@dataclass(frozen=True, slots=True)
class Refine:
    """Refine the worlds on a new atom (awareness)."""

    name: ClassVar[str] = "refine"
    index: int
    atom: str


@dataclass(frozen=True, slots=True)
class Abduce:
    """Read Definition A.2 for L in the world model, against what the operation explains."""

    name: ClassVar[str] = "abduce"
    index: int
    literal: str


@dataclass(frozen=True, slots=True)
class Problem:
    """An open problem opened or closed (the driver re-decides them)."""

    name: ClassVar[str] = "problem"
    index: int
    literal: str
    status: str
    """``open`` or ``closed``."""


@dataclass(frozen=True, slots=True)
class NewAgent:
    name: ClassVar[str] = "new_agent"
    index: int
    agent: str


@dataclass(frozen=True, slots=True)
class Turn:
    name: ClassVar[str] = "turn"
    index: int
    turn: int


Effect = (NewProp | Aware | NewArg | SetStanding | AddDep | AddExplains | AddAttack | Commit | RetractCommitment
          | Dissent | Announce | Upgrade | Withdraw | Refine | Abduce | Problem | NewAgent | Turn)

MODEL_EFFECTS: tuple[type, ...] = (Announce, Upgrade, Withdraw, Refine)
"""Effects that change the world model M."""

FOR_THE_MODEL: tuple[type, ...] = (*MODEL_EFFECTS, Abduce)
"""Effects addressed to M (``abduce``: read Definition A.2 there); the argumentation state ignores them."""


# -- reading terms ---------------------------------------------------------------------

SHAPES: dict[str, tuple[str, ...]] = {
    # effect name -> the kind of each value: int, text, literal (``-a3``), cause (None or a literal)
    NewProp.name: ("text", "text"),
    Aware.name: ("text",),
    NewArg.name: ("int", "literal", "text"),
    SetStanding.name: ("int", "text", "cause"),
    AddDep.name: ("int", "literal"),
    AddExplains.name: ("int", "literal"),
    AddAttack.name: ("int", "int"),
    Commit.name: ("text", "int"),
    RetractCommitment.name: ("text", "int"),
    Dissent.name: ("int", "text"),
    Announce.name: ("literal",),
    Upgrade.name: ("literal", "text"),
    Withdraw.name: ("literal",),
    Refine.name: ("text",),
    Abduce.name: ("literal",),
    Problem.name: ("literal", "text"),
    NewAgent.name: ("text",),
    Turn.name: ("int",),
}
"""The shape of every effect term: what grounded.solvers.terms reads them by."""

CLASSES: dict[str, type] = {cls.name: cls for cls in get_args(Effect)}
"""Each effect's class by its name in the rules."""

EFFECT_NAMES: frozenset[str] = frozenset(CLASSES)

TRANSITION_SHAPE: dict = {"o": ("int", ("list", SHAPES))}
"""``o(Index, Effects)``: the effects operation Index applied, in order, as the driver reports them."""

VIOLATION_SHAPE: dict = {"v": ("int", "text", "text", "text")}
"""``v(Index, Op, Code, Message)``."""


def effect(index: int, term: tuple) -> Effect:
    """An effect read by its shape (``("set_standing", 3, "weakened", "o2")``) as its dataclass."""
    name, *values = term
    return CLASSES[name](index, *values)


def transitions_of(records: list) -> list[Effect]:
    """The driver's ``o(Index, Effects)`` records, read by ``TRANSITION_SHAPE``, in order."""
    return [effect(index, term) for _, index, terms in records for term in terms]


def violations_of(records: list) -> list[Violation]:
    """The driver's ``v(Index, Op, Code, Message)`` records, read by ``VIOLATION_SHAPE``."""
    return [Violation(index, op, code, message) for _, index, op, code, message in records]


def fields_of(e: Effect) -> tuple:
    """An effect's values after its operation index, in declaration order (for display and JSON)."""
    read = _READERS.get(type(e))
    if read is None:
        read = _READERS[type(e)] = _reader(type(e))
    return read(e)


_READERS: dict[type, Callable[[Any], tuple]] = {}
"""Per effect class, what reads its values: the field names looked up once (``dataclasses.fields`` on every
effect was a tenth of a served append's CPU)."""


def _reader(cls: type) -> Callable[[Any], tuple]:
    names = [f.name for f in fields(cls) if f.name != "index"]  # every effect has a value after its index
    get = attrgetter(*names)
    return (lambda e: (get(e),)) if len(names) == 1 else get
