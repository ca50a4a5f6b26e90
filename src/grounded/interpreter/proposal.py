"""From proposed operations to an utterance the engine can apply, with ids it assigns.

Interpreters link to existing claims by the ids the rendered state shows; a
claim they *introduce* gets its id here, never from the model:

* the ``claim`` of an operation that names an id the state does not know
  (``#1``, or an invented ``h7``) is a new claim: it gets the next free id for
  the operation (o<n> for Observe, h<n> Hypothesize, q<n> Question, x<n>
  Expand-Awareness, d<n> a Resolve decision, c<n> an extension operation),
  and every mention of the same name in the utterance is renamed with it;
* a ``claim`` naming a known id stays as it is (a second speaker's
  observation of o8, the re-establishment of an abandoned hypothesis);
* any other field naming an unknown id goes to the engine unchanged, which
  rejects it by name ("dep h9 is not a known proposition"), and that message
  is what the Interpreter is re-prompted with; a ``#`` reference that no
  operation introduces is reported the same way before the engine is asked;
* ``evidence`` text in place of ``by`` becomes a new observation, inserted
  before the operation it supports and marked auxiliary: it is not part of
  the classification (``labels``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from grounded.core.literals import atom_of
from grounded.engine import Engine
from grounded.interpreter.schema import InterpreterError, ResponseOp, is_new_ref

PREFIX = {"observe": "o", "hypothesize": "h", "question": "q", "expand_awareness": "x", "resolve": "d"}
EXTENSION_PREFIX = "c"


@dataclass
class Proposal:
    """Operations for one utterance (event-log dicts) and which of them are auxiliary."""

    ops: list[dict]
    aux: list[bool] = field(default_factory=list)
    classification: list[str] | None = None
    """Labels given outright (a scenario's gold); otherwise derived from the operations."""

    def __post_init__(self) -> None:
        if not self.aux:
            self.aux = [False] * len(self.ops)

    @property
    def labels(self) -> list[str]:
        """The classification: the distinct operation names, auxiliary ones left out."""
        if self.classification is not None:
            return list(self.classification)
        return list(dict.fromkeys(op["op"] for op, aux in zip(self.ops, self.aux, strict=True) if not aux))

    def without(self, indices: Iterable[int]) -> Proposal:
        drop = set(indices)
        kept = [(op, aux) for i, (op, aux) in enumerate(zip(self.ops, self.aux, strict=True)) if i not in drop]
        return Proposal([op for op, _ in kept], [aux for _, aux in kept])


class IdAllocator:
    """Fresh ids by prefix: one more than the largest <prefix><n> known or already given out."""

    def __init__(self, known: Iterable[str]):
        self.taken = set(known)
        self._next: dict[str, int] = {}

    def fresh(self, prefix: str) -> str:
        if prefix not in self._next:
            pattern = re.compile(rf"{re.escape(prefix)}(\d+)")
            numbers = [int(m.group(1)) for a in self.taken if (m := pattern.fullmatch(a))]
            self._next[prefix] = max(numbers, default=0) + 1
        while f"{prefix}{self._next[prefix]}" in self.taken:
            self._next[prefix] += 1
        ident = f"{prefix}{self._next[prefix]}"
        self.taken.add(ident)
        self._next[prefix] += 1
        return ident


def id_allocator(engine: Engine) -> IdAllocator:
    """Fresh ids for new claims: none the state knows, and none the world model gives
    a meaning to (a defined formula or an atom), which the new claim would silently
    stand for."""
    taken = set(engine.state.props)
    if engine.world is not None:
        taken |= set(engine.world.defs) | engine.world.declaration.all_atoms()
    return IdAllocator(taken)


def assign_ids(engine: Engine, ops: list[ResponseOp]) -> Proposal:
    """Give introduced claims fresh ids and expand ``evidence``; see the module docstring."""
    known = set(engine.state.props)
    alloc = id_allocator(engine)
    rename: dict[str, str] = {}
    for op in ops:
        claim = getattr(op, "claim", None)
        if claim is None:
            continue
        atom = atom_of(claim)
        if atom not in known and atom not in rename:
            rename[atom] = alloc.fresh(PREFIX.get(op.op, EXTENSION_PREFIX))

    def ident(value: str, where: str) -> str:
        negated = value.startswith("-")
        atom = atom_of(value)
        if atom in rename:
            return ("-" if negated else "") + rename[atom]
        if is_new_ref(value):
            raise InterpreterError(f"{where} refers to {value}, but no operation introduces {atom} "
                                   f"(introduce it with the `claim` of an operation, or use an id of the state)")
        return value

    result: list[dict] = []
    aux: list[bool] = []
    for i, op in enumerate(ops):
        data = {"op": op.op, **op.model_dump(exclude_defaults=True, exclude={"op", "evidence"})}
        for f in engine.registry.specs[op.op].fields:
            where = f"operation {i} ({op.op}) field {f.name}"
            if f.type == "literal" and data.get(f.name) is not None:
                data[f.name] = ident(data[f.name], where)
            elif f.type == "literals" and f.name in data:
                data[f.name] = [ident(v, where) for v in data[f.name]]
        evidence = getattr(op, "evidence", "")
        if evidence and data.get("by") is None:
            claim = alloc.fresh(PREFIX["observe"])
            result.append({"op": "observe", "claim": claim, "text": evidence})
            aux.append(True)
            data["by"] = claim
        result.append(data)
        aux.append(False)
    return Proposal(result, aux)
