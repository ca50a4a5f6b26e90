"""What the rules report for one utterance, as typed values: effects and violations.

The rules declare every effect once, with ``effect_kind(Name, Group, Doc,
Fields)`` in prolog/vocabulary.pl; this module reads those facts from the rule
file at import and generates one frozen, slotted dataclass per effect kind
(``NewArg``, ``SetStanding``, ...), exactly as grounded.dmap.operations
generates the operation models from ``operation/3``.  There is no hand-kept
copy: an effect added to the declaration is a class here, a term shape for
grounded.solvers.flat and an ASP term in grounded.solvers.facts.  (The rule
file is read as text, not through Prolog, since this layer sits below the
Prolog bridge; a test holds this reading equal to Prolog's own.  It is the
shipped file: a rules copy named by ``GROUNDED_RULES_DIR`` may change rules,
not the effect vocabulary.)

The driver (prolog/grounded.pl) reports the changes it applied per operation,
as flat text (read by grounded.solvers.flat) or as ``o(Index, Effects)`` terms
(``TRANSITION_SHAPE``, read through grounded.solvers.terms); either way each
effect becomes one of these classes: the operation's position in its utterance
(``index``; -1: the utterance itself: a new speaker, the turn), then the
declared fields, with ints for argument ids, ``None`` for the cause ``none``
and literals spelled as everywhere else (``-a3``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields, make_dataclass
from importlib import resources
from operator import attrgetter
from typing import Any, ClassVar

from grounded.core.errors import Violation
from grounded.dmap.notes import class_name

VOCABULARY = "vocabulary.pl"
"""The rule file (in package grounded.prolog) that declares ``effect_kind/4``."""

GROUPS = ("map", "model", "reading", "driver")
"""Who emits an effect and what it changes (see ``effect_kind/4``)."""

VALUE_KINDS: dict[str, str] = {
    # a declared field type -> how its value is read: int, text, literal (``-a3``), cause (None or a literal)
    "created": "int", "arg": "int", "turn": "int",
    "atom": "text", "agent": "text", "kind": "text", "standing": "text", "mode": "text", "status": "text",
    "literal": "literal", "cause": "cause",
}
_ANNOTATIONS = {"int": int, "text": str, "literal": str, "cause": str | None}


@dataclass(frozen=True, slots=True)
class EffectKind:
    """One ``effect_kind(Name, Group, Doc, [Field:Type, ...])`` fact."""

    name: str
    group: str
    doc: str
    fields: tuple[tuple[str, str], ...]

    @property
    def emitted(self) -> tuple[tuple[str, str], ...]:
        """The fields a rule writes (the driver fills in a ``created`` one)."""
        return tuple((f, t) for f, t in self.fields if t != "created")


_FACT = re.compile(r'^effect_kind\(\s*(\w+)\s*,\s*(\w+)\s*,\s*"((?:[^"\\\n]|\\.)*)"\s*,\s*\[([^\]\n]*)\]\s*\)\.',
                   re.M)
_FIELD = re.compile(r"\s*(\w+)\s*:\s*(\w+)\s*")


def declared_kinds(text: str, where: str = VOCABULARY) -> tuple[EffectKind, ...]:
    """The ``effect_kind/4`` facts of a rule file's text, in order; a fact this cannot read is an error."""
    kinds = []
    for m in _FACT.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        name, group, doc, body = m.groups()
        if group not in GROUPS:
            raise ValueError(f"{where}:{line}: effect {name} has group {group} (one of {', '.join(GROUPS)})")
        pairs = []
        for item in body.split(","):
            fm = _FIELD.fullmatch(item)
            if fm is None or fm.group(2) not in VALUE_KINDS:
                raise ValueError(f"{where}:{line}: effect {name}: {item.strip()!r} is not Field:Type "
                                 f"with Type one of {', '.join(VALUE_KINDS)}")
            pairs.append((fm.group(1), fm.group(2)))
        kinds.append(EffectKind(name, group, doc, tuple(pairs)))
    starts = len(re.findall(r"^effect_kind\(", text, re.M))
    if starts != len(kinds):
        raise ValueError(f"{where}: {starts} effect_kind/4 facts, {len(kinds)} of them in the form "
                         "effect_kind(Name, Group, \"Doc\", [Field:Type, ...]).")
    return tuple(kinds)


KINDS: tuple[EffectKind, ...] = declared_kinds(resources.files("grounded.prolog").joinpath(VOCABULARY).read_text())
"""Every effect kind, as the rules declare it."""


@dataclass(frozen=True, slots=True)
class Effect:
    """Base of the generated effect classes: ``name`` is the effect's name in the rules."""

    name: ClassVar[str]
    index: int


def _generate(kind: EffectKind) -> type[Effect]:
    cls = make_dataclass(class_name(kind.name),
                         [(f, _ANNOTATIONS[VALUE_KINDS[t]]) for f, t in kind.fields],
                         bases=(Effect,), namespace={"name": kind.name, "__doc__": kind.doc},
                         frozen=True, slots=True)
    cls.__module__ = __name__  # found again by name when a state is pickled
    return cls


class _Classes(Mapping[str, type[Any]]):
    """Each effect's class by its name in the rules, generated when first asked for: a query answered from a
    snapshot applies no effect, and would otherwise make all of them at start-up (docs/benchmarks.md)."""

    def __init__(self) -> None:
        self._kinds = {kind.name: kind for kind in KINDS}
        self._made: dict[str, type[Any]] = {}

    def __getitem__(self, name: str) -> type[Any]:
        cls = self._made.get(name)
        if cls is None:
            cls = self._made[name] = _generate(self._kinds[name])
            globals()[cls.__name__] = cls
        return cls

    def __iter__(self) -> Iterator[str]:
        return iter(self._kinds)

    def __len__(self) -> int:
        return len(self._kinds)


CLASSES = _Classes()
"""Each effect's class by its name in the rules (in the order declared)."""

_BY_CLASS_NAME = {class_name(kind.name): kind.name for kind in KINDS}

_GROUPS = {"MODEL_EFFECTS": ("model",), "FOR_THE_MODEL": ("model", "reading")}
"""``MODEL_EFFECTS``: the effects that change the world model M.  ``FOR_THE_MODEL``: the effects addressed to M
(``abduce``: read Definition A.2 there); the argumentation state ignores them.  Tuples of classes, made when
first read."""


def __getattr__(name: str) -> Any:
    """A generated class by its class name (``NewArg``), or a group of them (``_GROUPS``): made when first asked
    for, then a module attribute (pickle finds a class of a pickled state again by name here)."""
    if name in _BY_CLASS_NAME:
        return CLASSES[_BY_CLASS_NAME[name]]
    if name in _GROUPS:
        found = globals()[name] = tuple(CLASSES[k.name] for k in KINDS if k.group in _GROUPS[name])
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


EFFECT_NAMES: frozenset[str] = frozenset(CLASSES)

SHAPES: dict[str, tuple[str, ...]] = {k.name: tuple(VALUE_KINDS[t] for _, t in k.fields) for k in KINDS}
"""The shape of every effect term, the kind of each value: what grounded.solvers.terms reads them by."""


# -- reading terms ---------------------------------------------------------------------

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
