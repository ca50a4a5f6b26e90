"""Every fact the ASP encodings read and every answer they give, as typed clorm predicates.

One module for all of them: asp/history.lp (and its vocabulary and ops),
asp/queries.lp, asp/retraction.lp.  Facts are built from validated data and
handed to clingo as symbols (``control_add_facts``), never as program text, so
no id or text can change the program that runs.

Strings cross through ``Text``: an injective escape of backslash, NUL and lone
surrogates (clingo stores strings as NUL-terminated UTF-8), undone on the way
back.  The escape leaves ``decide_`` prefixes and ``_N`` suffixes alone, so the
decision-name helpers of ``history.lp`` work on the escaped form.
"""

from __future__ import annotations

import re
from collections import defaultdict, namedtuple
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import clingo
from clorm import BaseField, ConstantField, IntegerField, Predicate, Raw, RawField, StringField

from grounded.dmap.effects import KINDS

_ESCAPES = re.compile(r"[\\\x00\ud800-\udfff]")
_UNESCAPES = re.compile(r"\\(\\|0|u[0-9a-f]{4})")


def encode(text: str) -> str:
    """``text`` as a clingo string: backslash, NUL and lone surrogates escaped."""
    def one(m: re.Match[str]) -> str:
        c = m.group()
        return "\\\\" if c == "\\" else "\\0" if c == "\x00" else f"\\u{ord(c):04x}"
    return _ESCAPES.sub(one, text)


def decode(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        e = m.group(1)
        return "\\" if e == "\\" else "\x00" if e == "0" else chr(int(e[1:], 16))
    return _UNESCAPES.sub(one, text)


class Text(StringField):
    """A literal, id or name: any string, escaped for clingo."""

    # clorm's way of deriving a field: convert, then hand on to StringField (its stubs
    # type these as attributes without arguments)
    pytocl = staticmethod(encode)  # type: ignore[assignment]
    cltopy = staticmethod(decode)  # type: ignore[assignment]


class Cause(BaseField):
    """Why a standing changed: ``none`` (None) or ``by(L)`` (the literal L)."""

    @staticmethod
    def cltopy(raw: Any) -> Any:
        if raw.type == clingo.SymbolType.Function and raw.name == "by" and len(raw.arguments) == 1:
            return decode(raw.arguments[0].string)
        if raw.type == clingo.SymbolType.Function and raw.name == "none" and not raw.arguments:
            return None
        raise TypeError(f"not a cause: {raw}")

    @staticmethod
    def pytocl(value: Any) -> Any:
        return clingo.Function("none") if value is None else clingo.Function("by", [clingo.String(encode(value))])


# -- effect terms ------------------------------------------------------------------
# The effects rules may state, generated from their one declaration (effect_kind/4 in
# prolog/vocabulary.pl, read by grounded.dmap.effects), position by position: arg (an
# argument id, or "new"), text (a literal, atom or agent), const (a kind, standing or
# mode), cause.  The driver's own effects and the id it gives a new argument are not
# stated by rules, so they are not here.
TERM_KINDS: dict[str, str] = {
    "arg": "arg", "atom": "text", "agent": "text", "literal": "text",
    "kind": "const", "standing": "const", "mode": "const", "cause": "cause",
}
"""How each declared field type is written as a clingo term."""

EFFECTS: dict[str, tuple[str, ...]] = {
    kind.name: tuple(TERM_KINDS[t] for _, t in kind.emitted) for kind in KINDS if kind.group != "driver"
}


def effect_symbol(name: str, *args: Any) -> clingo.Symbol:
    """An effect as the term ASP rules state it, built from typed values."""
    kinds = EFFECTS[name]
    if len(args) != len(kinds):
        raise ValueError(f"{name} takes {len(kinds)} arguments, not {len(args)}")
    out = []
    for kind, value in zip(kinds, args, strict=True):
        if kind == "arg":
            out.append(clingo.Function("new") if value == "new" else clingo.Number(int(value)))
        elif kind == "text":
            out.append(clingo.String(encode(value)))
        elif kind == "const":
            out.append(clingo.Function(str(value)))
        else:
            out.append(Cause.pytocl(value))
    return clingo.Function(name, out)


def effect_value(term: clingo.Symbol | Raw) -> tuple[Any, ...]:
    """An effect term read back: (name, values...) with ids as ints, literals decoded."""
    symbol: clingo.Symbol = term.symbol if isinstance(term, Raw) else term
    values: list[Any] = [symbol.name]
    for kind, arg in zip(EFFECTS[symbol.name], symbol.arguments, strict=True):
        if kind == "arg":
            values.append("new" if arg.type == clingo.SymbolType.Function else arg.number)
        elif kind == "text":
            values.append(decode(arg.string))
        elif kind == "const":
            values.append(arg.name)
        else:
            values.append(Cause.cltopy(arg))
    return tuple(values)


# -- the header ------------------------------------------------------------------

class Agent(Predicate):
    name = Text
    authority = ConstantField  # true | false


class OpenAgents(Predicate):
    class Meta:
        name = "open_agents"


class Acyclic(Predicate):
    class Meta:
        name = "acyclic"


class WorldModel(Predicate):
    """The header declares a world model: operations announce and may carry verdicts."""

    class Meta:
        name = "world_model"


class Prop0(Predicate):
    atom = Text
    kind = ConstantField


class Aware0(Predicate):
    atom = Text


class OperationField(Predicate):
    """The operation table (``operation/3`` in Prolog): one field of one operation."""

    op = ConstantField
    key = ConstantField
    type = ConstantField  # literal | literals | text
    required = ConstantField  # required | optional

    class Meta:
        name = "operation_field"


# -- the candidate utterances ---------------------------------------------------------

class Utterance(Predicate):
    u = IntegerField
    turn = IntegerField
    speaker = Text


class Step(Predicate):
    s = IntegerField
    u = IntegerField
    i = IntegerField
    op = ConstantField


class Close(Predicate):
    """The step number after the last operation of utterance u."""

    u = IntegerField
    c = IntegerField


class Field(Predicate):
    """A literal-valued operation field (claim, target, by)."""

    s = IntegerField
    key = ConstantField
    value = Text


class Item(Predicate):
    """One element of a list-valued field (deps, explains, supersedes, ...)."""

    s = IntegerField
    key = ConstantField
    value = Text


class AtomOf(Predicate):
    """A literal and its proposition: ``o5`` -> ``o5``, ``-a3`` -> ``a3``."""

    lit = Text
    atom = Text

    class Meta:
        name = "atom_of"


class Negated(Predicate):
    """A negative literal (``-a3``)."""

    lit = Text


class Negation(Predicate):
    lit = Text
    neg = Text


class Builtin(Predicate):
    """One of the eight operations of the paper (their rule files are trusted to emit known effects)."""

    op = ConstantField


class DecideName(Predicate):
    """``name`` reads as the n-th decision id for ``atom`` (decide_P, decide_P_2, ...).

    The readings of a string, spelled by ``history.DecisionNames``; which id a
    Resolve takes is decided by the rules (asp/ops/resolve.lp).
    """

    atom = Text
    name = Text
    n = IntegerField

    class Meta:
        name = "decide_name"


class EpAgent(Predicate):
    """The agent whose Definition A.2 checks the verdicts of step s report (src/grounded/epistemic/verdicts.py)."""

    s = IntegerField
    agent = Text

    class Meta:
        name = "ep_agent"


class EpFlag(Predicate):
    """consistent / novel / contingent, true or false, for the hypothesis of step s."""

    s = IntegerField
    flag = ConstantField
    value = ConstantField

    class Meta:
        name = "ep_flag"


class EpProblem(Predicate):
    """An observation the hypothesis of step s would explain: surprising, explanatory, distinct."""

    s = IntegerField
    lit = Text
    surprising = ConstantField
    explanatory = ConstantField
    distinct = ConstantField

    class Meta:
        name = "ep_problem"


class EpLit(Predicate):
    """An announcement of step s that leaves no world (impossible) or is false in the actual world."""

    s = IntegerField
    kind = ConstantField
    lit = Text

    class Meta:
        name = "ep_lit"


class GivenEffect(Predicate):
    """An effect the engine recorded for an operation that has no ASP twin (``effect_symbol``)."""

    s = IntegerField
    effect = RawField

    class Meta:
        name = "given_effect"


class GivenViolation(Predicate):
    """A violation the engine found for an operation that has no ASP twin."""

    s = IntegerField
    code = ConstantField

    class Meta:
        name = "given_violation"


class OkStep(Predicate):
    """Step s belongs to an accepted utterance (derived by close(u); given to a fresh control)."""

    s = IntegerField

    class Meta:
        name = "ok_step"


class StepTurn(Predicate):
    """The turn of step s (derived by step(s); given to a fresh control)."""

    s = IntegerField
    turn = IntegerField

    class Meta:
        name = "step_turn"


class CarriedTurn(Predicate):
    """The last accepted turn as of utterance u (-1: none), given to a fresh control."""

    u = IntegerField
    turn = IntegerField

    class Meta:
        name = "carried_turn"


class Ahead(Predicate):
    """Utterance u's turn is above the turn of every candidate before it (no turn-order check needed)."""

    u = IntegerField


class TakesOut(Predicate):
    """Utterance u set some argument to a standing outside S_t (so its flagged set is read)."""

    u = IntegerField

    class Meta:
        name = "takes_out"


class TheView(Predicate):
    """The point whose state one-shot grounding is asked about (asp/oneshot.lp)."""

    x = IntegerField

    class Meta:
        name = "the_view"


# -- the answer: acceptance, violations, events ------------------------------------------

class Accepted(Predicate):
    u = IntegerField


class Uviol(Predicate):
    u = IntegerField
    code = ConstantField


class Pviol(Predicate):
    s = IntegerField
    code = ConstantField


class Iviol(Predicate):
    s = IntegerField
    code = ConstantField


class FArg(Predicate):
    """The argument created at step a."""

    a = IntegerField
    claim = Text
    kind = ConstantField
    speaker = Text
    turn = IntegerField

    class Meta:
        name = "f_arg"


class StEvent(Predicate):
    """A standing change of argument a at step s (order 0: created active, 1: changed)."""

    a = IntegerField
    standing = ConstantField
    s = IntegerField
    order = IntegerField
    cause = Cause

    class Meta:
        name = "st_event"


class FDep(Predicate):
    a = IntegerField
    lit = Text
    s = IntegerField

    class Meta:
        name = "f_dep"


class FExpl(Predicate):
    a = IntegerField
    lit = Text
    s = IntegerField

    class Meta:
        name = "f_expl"


class FAtt(Predicate):
    b = IntegerField
    a = IntegerField
    s = IntegerField

    class Meta:
        name = "f_att"


class FCom(Predicate):
    agent = Text
    a = IntegerField
    s = IntegerField
    kind = ConstantField  # add | del

    class Meta:
        name = "f_com"


class FDis(Predicate):
    a = IntegerField
    agent = Text
    s = IntegerField

    class Meta:
        name = "f_dis"


class FProp(Predicate):
    atom = Text
    kind = ConstantField
    s = IntegerField

    class Meta:
        name = "f_prop"


class FAware(Predicate):
    atom = Text
    s = IntegerField

    class Meta:
        name = "f_aware"


class FModel(Predicate):
    """What step s does to the world model (announce, upgrade, withdraw, refine, abduce)."""

    s = IntegerField
    effect = RawField

    class Meta:
        name = "f_model"


class Prob(Predicate):
    lit = Text
    s = IntegerField
    status = ConstantField  # open | closed


class Joined(Predicate):
    agent = Text
    u = IntegerField


class TakenOut(Predicate):
    """A claim accepted utterance u took out of S_t."""

    u = IntegerField
    lit = Text

    class Meta:
        name = "taken_out"


class Flagged(Predicate):
    """A claim in S_t resting, through Dep, on a claim utterance u took out of S_t."""

    u = IntegerField
    lit = Text
    claim = Text


class NowGrounded(Predicate):
    x = IntegerField
    a = IntegerField

    class Meta:
        name = "now_grounded"


class NowAffectedOne(Predicate):
    x = IntegerField
    lit = Text
    a = IntegerField

    class Meta:
        name = "now_affected_one"


class NowHop(Predicate):
    x = IntegerField
    lit = Text
    a = IntegerField
    hop = IntegerField

    class Meta:
        name = "now_hop"


class NowNote(Predicate):
    """The standing note of a literal: the newest argument's standing, since which turn, why."""

    x = IntegerField
    lit = Text
    standing = ConstantField
    turn = IntegerField
    cause = Cause

    class Meta:
        name = "now_note"


class NowReinstatable(Predicate):
    x = IntegerField
    a = IntegerField

    class Meta:
        name = "now_reinstatable"


ANSWER = [Accepted, Uviol, Pviol, Iviol, FArg, StEvent, FDep, FExpl, FAtt, FCom, FDis, FProp, FAware, FModel,
          Prob, Joined, TakenOut, Flagged, NowGrounded, NowAffectedOne, NowHop, NowNote, NowReinstatable]


# -- a view of the dependency map, as asp/queries.lp reads it ------------------------
# history.lp's view(x) derives these; tests write them directly from an engine.

class ViewArg(Predicate):
    x = IntegerField
    a = IntegerField

    class Meta:
        name = "v_arg"


class ViewClaim(Predicate):
    x = IntegerField
    a = IntegerField
    lit = Text

    class Meta:
        name = "v_claim"


class ViewDep(Predicate):
    x = IntegerField
    a = IntegerField
    lit = Text

    class Meta:
        name = "v_dep"


class ViewStanding(Predicate):
    x = IntegerField
    a = IntegerField
    standing = ConstantField

    class Meta:
        name = "v_standing"


class ViewQuery(Predicate):
    x = IntegerField
    lit = Text

    class Meta:
        name = "v_query"


# -- reading an answer ------------------------------------------------------------------
# clorm's unify builds a Predicate object per atom (tens of microseconds each: seconds
# for a long history).  Answers are read instead with the same declarations, field by
# field, into one named tuple type per predicate.

def _reader(defn: BaseField) -> Callable[[clingo.Symbol], Any]:
    if isinstance(defn, Text):
        return lambda s: decode(s.string)
    if isinstance(defn, IntegerField):
        return lambda s: s.number
    if isinstance(defn, StringField):
        return lambda s: s.string
    if isinstance(defn, ConstantField):
        return lambda s: s.name
    if isinstance(defn, Cause):
        return Cause.cltopy
    if isinstance(defn, RawField):
        return lambda s: s
    raise TypeError(f"no reader for {defn!r}")


class Answer:
    """The atoms of one answer set, grouped by the predicate declared for them.

    ``query(P).all()`` gives the atoms of predicate class ``P`` as named tuples
    with ``P``'s field names and Python values (as ``clorm.unify`` would, but
    without building a Predicate object per atom); iterating gives the symbols.
    """

    def __init__(self, symbols: Iterable[clingo.Symbol], predicates: Iterable[type[Predicate]]):
        self._symbols = list(symbols)
        self._types: dict[tuple[str, int], tuple[type, list[Callable[[clingo.Symbol], Any]]]] = {}
        self._classes: dict[type[Predicate], tuple[str, int]] = {}
        for cls in predicates:
            key = (cls.meta.name, cls.meta.arity)
            self._types[key] = (namedtuple(cls.__name__, [f.name for f in cls.meta]),  # noqa: PYI024
                                [_reader(f.defn) for f in cls.meta])
            self._classes[cls] = key
        self._rows: dict[tuple[str, int], list[Any]] = defaultdict(list)
        for sym in self._symbols:
            key = (sym.name, len(sym.arguments))
            if key in self._types:
                make, readers = self._types[key]
                self._rows[key].append(make(*(r(a) for r, a in zip(readers, sym.arguments, strict=True))))

    def query(self, cls: type[Predicate]) -> _Rows:
        return _Rows(self._rows.get(self._classes[cls], []))

    def __iter__(self) -> Iterator[clingo.Symbol]:
        return iter(self._symbols)

    def __len__(self) -> int:
        return len(self._symbols)


class _Rows:
    def __init__(self, rows: list[Any]):
        self._rows = rows

    def all(self) -> list[Any]:
        return list(self._rows)


__all__ = [name for name, value in globals().items()
           if isinstance(value, type) and issubclass(value, Predicate) and value is not Predicate]
__all__ += ["EFFECTS", "Answer", "Cause", "Text", "decode", "effect_symbol", "effect_value",
            "encode"]
