"""Many utterances to the rules and what they did back, each as one flat text.

Term by term, a batch of utterances costs the bridge a foreign call per node
going in, and the reply several per effect coming back: for a log replayed
in bulk, most of the time spent outside the rules.  So a batch travels as
one text of tokens, each followed by the separator U+001F, split on the
other side in one call (``split`` here, split_string/4 in prolog/grounded.pl).

Going in (``flat_utterances``; batch_utterances//1 in the driver):

    <utterances>  per utterance: <turn> <speaker> <ops>
                  per op: <name> <fields>, per field: <key> = <literal> | <key> # <n> <literal>...

Coming back (``read_flat``; flat_reply/2 in the driver):

    per utterance:  <effects> (<op index> <name> <value>...)...  <left> <claim>...

A literal ``-(p)`` is spelled ``-p``, the bridge's own spelling (a validated
id never starts with ``-``).  A returned value is read by its effect's
declared shape (``SHAPES`` in grounded.dmap.effects): ``int`` as an integer,
``text`` and ``literal`` as spelled, ``cause`` as None for ``none`` and the
literal ``L`` for ``+L`` (``by(L)``).  The token count travels beside each
text: a value holding the separator would split into more tokens than were
written, so neither side reads it wrongly: the bridge refuses to send such an
utterance (``flat_utterances`` returns None; no validated utterance holds one),
and the rules reply with terms instead (``terms(...)``).  Nothing in
a text is ever parsed as Prolog: each token becomes one atom, integer or
negated atom.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import ClassVar, TypeVar

from grounded.core.errors import PrologError, Violation
from grounded.dmap.effects import CLASSES, SHAPES, TRANSITION_SHAPE, VIOLATION_SHAPE, Effect, transitions_of
from grounded.solvers.termdata import PlString, Shape

SEPARATOR = "\x1f"


class _NotFlat(Exception):
    """A value the flat text does not carry exactly: the request is refused, not sent (grounded.solvers.prolog)."""


def _literal(value: object) -> str:
    if isinstance(value, str) and not isinstance(value, PlString) and value[:1] != "-":
        return value
    if (isinstance(value, tuple) and len(value) == 2 and value[0] == "-" and isinstance(value[1], str)
            and not isinstance(value[1], PlString) and value[1][:1] != "-"):
        return "-" + value[1]
    raise _NotFlat


def _atom(value: object) -> str:
    if isinstance(value, str) and not isinstance(value, PlString):
        return value
    raise _NotFlat


def _int(value: object) -> str:
    if type(value) is int:
        return str(value)
    raise _NotFlat


def flat_utterances(utterances: list[tuple]) -> tuple[str, int] | None:
    """Utterance terms (``utterance(Turn, Speaker, [op(Name, [Key=Value, ...]), ...])`` as term data,
    grounded.dmap.operations) as one flat text and its token count; None if one does not fit.

    A value of the common kinds (an ``int`` turn, a ``str`` atom, a literal not starting with ``-``)
    is tested in line; only another goes through its checker (``_int``, ``_atom``, ``_literal``),
    which spells it or refuses it: no Python call per value on the bulk path."""
    tokens = [str(len(utterances))]
    add, extend = tokens.append, tokens.extend
    try:
        for tag, turn, speaker, ops in utterances:
            if tag != "utterance":
                raise _NotFlat
            extend((str(turn) if type(turn) is int else _int(turn),
                    speaker if type(speaker) is str else _atom(speaker), str(len(ops))))
            for op_tag, name, fields in ops:
                if op_tag != "op":
                    raise _NotFlat
                extend((name if type(name) is str else _atom(name), str(len(fields))))
                for eq, key, value in fields:
                    if eq != "=":
                        raise _NotFlat
                    add(key if type(key) is str else _atom(key))
                    if type(value) is str and value[:1] != "-":
                        extend(("=", value))
                    elif isinstance(value, list):
                        extend(("#", str(len(value))))
                        for v in value:
                            add(v if type(v) is str and v[:1] != "-" else _literal(v))
                    else:
                        extend(("=", _literal(value)))
    except (_NotFlat, TypeError, ValueError):
        return None
    text = SEPARATOR.join(tokens) + SEPARATOR
    if text.count(SEPARATOR) != len(tokens):
        return None
    return text, len(tokens)


def _value(value: object, out: list[str]) -> None:
    if type(value) is int:
        out.append(f"i{value}")
    elif isinstance(value, str) and not isinstance(value, PlString):
        out.append("a" + value)
    elif isinstance(value, tuple) and len(value) == 2 and value[0] == "-" and type(value[1]) is str:
        out.append("-" + value[1])
    elif isinstance(value, tuple) and len(value) == 2 and value[0] == "by":
        out.append("b")
        _value(value[1], out)
    else:
        raise _NotFlat


def flat_facts(facts: list[object]) -> tuple[str, int] | None:
    """State facts (term data: an atom, or a compound of integers, atoms, ``-(Atom)`` and ``by(...)``)
    as one flat text and its token count, for restoring a state (flat_facts/2 in the driver):
    per fact its name, its arity and its values, each tagged a (atom), i (integer), - (negated
    atom) or b (``by``, the value inside following).  None if one does not fit."""
    tokens: list[str] = []
    try:
        for fact in facts:
            if isinstance(fact, str) and not isinstance(fact, PlString):
                tokens += (fact, "0")
                continue
            if not isinstance(fact, tuple) or not fact or not isinstance(fact[0], str):
                raise _NotFlat
            tokens += (fact[0], str(len(fact) - 1))
            for value in fact[1:]:
                _value(value, tokens)
    except _NotFlat:
        return None
    text = SEPARATOR.join(tokens) + SEPARATOR
    if text.count(SEPARATOR) != len(tokens):
        return None
    return text, len(tokens)


@dataclass(frozen=True, slots=True)
class Accepted:
    accepted: ClassVar[bool] = True
    effects: list[Effect]
    """What the rules applied, in order (grounded.dmap.effects)."""
    left: list[str]
    """The claims the utterance took out of S_t (the rules' left_standing/2)."""


_SET_EFFECTS, _SET_LEFT = (getattr(Accepted, f.name).__set__ for f in fields(Accepted))
"""``Accepted``'s slots, set as its frozen ``__init__`` would (``read_flat`` makes one an utterance)."""


@dataclass(frozen=True, slots=True)
class Rejected:
    accepted: ClassVar[bool] = False
    violations: list[Violation]


ACCEPTED_SHAPE: Shape = {"flat": ("text", "int"),
                         "terms": (("list", {"-": (("list", TRANSITION_SHAPE), ("list", "literal"))}),)}
"""What the driver says about accepted utterances: ``flat(Text, N)`` or ``terms([Transitions-Left, ...])``."""

STOP_SHAPE: Shape = {"rejected": (("list", VIOLATION_SHAPE),), "refused": ("text",)}
"""An utterance the rules did not accept: its violations, or why it could not be recorded."""


def _cause(token: str) -> str | None:
    if token == "none":
        return None
    if token[:1] != "+":
        raise PrologError(f"expected a cause (none or +literal) from Prolog, got {token!r:.80}")
    return token[1:]


_READ: dict[str, Callable[[str], object]] = {"int": int, "text": str, "literal": str, "cause": _cause}

Maker = Callable[[int, list[str], int], Effect]
V = TypeVar("V")


def _maker(name: str) -> tuple[Maker, int]:
    """How to build effect ``name`` from the tokens at ``i``: (maker, number of values).

    The effect classes are frozen: their ``__init__`` sets each field through ``object.__setattr__``, a
    Python frame and a call a field.  The makers set the slots through their descriptors instead, the
    same values in the same fields (no ``__post_init__`` runs either way), on the hundreds of thousands
    of effects a long log's reading makes (docs/benchmarks.md has what it saves)."""
    cls = CLASSES[name]
    reads = [_READ[kind] for kind in SHAPES[name]]
    n = len(reads)
    new = object.__new__
    slots = [getattr(cls, f.name).__set__ for f in fields(cls)]
    if n == 1:
        (r0,), (s_ix, s0) = reads, slots

        def make1(ix: int, t: list[str], i: int) -> Effect:
            e = new(cls)
            s_ix(e, ix)
            s0(e, r0(t[i]))
            return e
        return make1, 1
    if n == 2:
        (r0, r1), (s_ix, s0, s1) = reads, slots

        def make2(ix: int, t: list[str], i: int) -> Effect:
            e = new(cls)
            s_ix(e, ix)
            s0(e, r0(t[i]))
            s1(e, r1(t[i + 1]))
            return e
        return make2, 2
    if n == 3:
        (r0, r1, r2), (s_ix, s0, s1, s2) = reads, slots

        def make3(ix: int, t: list[str], i: int) -> Effect:
            e = new(cls)
            s_ix(e, ix)
            s0(e, r0(t[i]))
            s1(e, r1(t[i + 1]))
            s2(e, r2(t[i + 2]))
            return e
        return make3, 3
    return (lambda ix, t, i: cls(ix, *(r(v) for r, v in zip(reads, t[i:i + n], strict=True)))), n


class _PerEffect(dict[str, V]):
    """A value per effect name, made when its first effect is read or written, with its class
    (grounded.dmap.effects): a query answered from a snapshot makes no effect class."""

    def __init__(self, make: Callable[[str], V]):
        super().__init__()
        self._make = make

    def __missing__(self, name: str) -> V:
        made = self[name] = self._make(name)
        return made


def _fields(name: str) -> tuple[tuple[str, str], ...]:
    """Effect ``name``'s value fields after ``index``, with their kinds, in the order its tokens go."""
    return tuple(zip((f.name for f in fields(CLASSES[name])[1:]), SHAPES[name], strict=True))


_MAKERS: _PerEffect[tuple[Maker, int]] = _PerEffect(_maker)
_FIELDS: _PerEffect[tuple[tuple[str, str], ...]] = _PerEffect(_fields)


def accepted_text(result: Accepted) -> str | None:
    """One accepted utterance as the rules' flat reply spells it (``read_flat`` reads it back the same),
    or None if a value would not read back (it holds the separator or a newline)."""
    tokens = [str(len(result.effects))]
    add = tokens.append
    for e in result.effects:
        add(str(e.index))
        add(e.name)
        for name, kind in _FIELDS[e.name]:
            value = getattr(e, name)
            add(("none" if value is None else "+" + value) if kind == "cause" else str(value))
    add(str(len(result.left)))
    tokens.extend(result.left)
    text = SEPARATOR.join(tokens) + SEPARATOR
    if text.count(SEPARATOR) != len(tokens) or "\n" in text:
        return None
    return text


def read_accepted(value: tuple) -> list[Accepted]:
    """The accepted utterances of a reply read by ``ACCEPTED_SHAPE``, in order."""
    if value[0] == "terms":
        return [Accepted(transitions_of(transitions), left) for _, transitions, left in value[1]]
    _, text, count = value
    return read_flat(text, count)


def read_flat(text: str, count: int | None = None) -> list[Accepted]:
    """The accepted utterances of a flat reply.  ``count``: the tokens the rules said they wrote, where
    they sent it (a text alone, with no count beside it, is read to its end: it must end in a separator)."""
    tokens = text.split(SEPARATOR)
    if count is None:
        count = len(tokens) - 1
    if len(tokens) != count + 1 or tokens[-1] != "":
        raise PrologError(f"the rules' reply splits into {len(tokens) - 1} tokens, not the {count} they wrote")
    makers = _MAKERS
    new, set_effects, set_left = object.__new__, _SET_EFFECTS, _SET_LEFT  # as the effects' makers: no frame
    out = []
    i = 0
    try:
        while i < count:
            effects = []
            n_effects = int(tokens[i])
            i += 1
            for _ in range(n_effects):
                make, n = makers[tokens[i + 1]]
                effects.append(make(int(tokens[i]), tokens, i + 2))
                i += 2 + n
            left_end = i + 1 + int(tokens[i])
            accepted = new(Accepted)
            set_effects(accepted, effects)
            set_left(accepted, tokens[i + 1:left_end])
            out.append(accepted)
            i = left_end
    except (KeyError, ValueError, IndexError) as exc:
        raise PrologError(f"a malformed reply from the rules at token {i}: {exc!r:.80}") from None
    if i != count:
        raise PrologError(f"the rules' reply ends at token {i} of {count}")
    return out
