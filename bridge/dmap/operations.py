"""The eight operations as typed models, and the registry that adds new ones.

The Prolog rules are the semantics: each rule file declares its operation with
``operation(Name, Doc, Fields)``.  The eight built-in operations also have
hand-written pydantic models here (for typing and documentation; a test holds
them equal to the rule files' declarations).  An operation added by a rule
file alone gets its model generated from its declaration, so adding one needs
no change to this module: see docs/extending.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter, create_model, model_validator
from pydantic_core import PydanticCustomError

from grounded.core.bounds import MAX_OPS_PER_UTTERANCE, Turn
from grounded.core.literals import Atom, Lit, Name, Text, prolog_atom, prolog_literal
from grounded.dmap.model import Strict


class Operation(Strict):
    """Base of every operation; ``op`` names it in the event log."""

    op: str


class Observe(Operation):
    """Report a fact: a hard public announcement; the claim gets an argument with empty Dep.

    ``supersedes`` retracts older literals in the same step (fact supersession).
    """

    op: Literal["observe"] = "observe"
    claim: Lit
    text: Text = ""
    supersedes: list[Lit] = Field(default_factory=list)


class Hypothesize(Operation):
    """Propose an explanation resting on ``deps``; needs an open problem (Definition A.2)."""

    op: Literal["hypothesize"] = "hypothesize"
    claim: Lit
    text: Text = ""
    deps: list[Lit]
    explains: list[Lit] = Field(default_factory=list)


class Support(Operation):
    """Bring evidence ``by`` for ``target``; ``by`` joins the target's Dep."""

    op: Literal["support"] = "support"
    target: Lit
    by: Lit
    text: Text = ""


class Undermine(Operation):
    """Bring evidence ``by`` against ``target``: an attack; the target is weakened."""

    op: Literal["undermine"] = "undermine"
    target: Lit
    by: Lit
    text: Text = ""


class Revise(Operation):
    """Explicitly retract or contradict ``target``; its arguments are abandoned."""

    op: Literal["revise"] = "revise"
    target: Lit
    by: Lit | None = None
    text: Text = ""


class ExpandAwareness(Operation):
    """A proposition nobody was aware of enters every agent's awareness."""

    op: Literal["expand_awareness"] = "expand_awareness"
    claim: Lit
    text: Text = ""


class Resolve(Operation):
    """Settle ``target``: by consensus, or by an agent with authority as a decision.

    With ``claim`` a decision argument is recorded whose Dep is ``assumptions``;
    ``subsumes`` adds the target to the Dep of each subsumed claim.
    """

    op: Literal["resolve"] = "resolve"
    target: Lit
    subsumes: list[Lit] = Field(default_factory=list)
    claim: Lit | None = None
    text: Text = ""
    assumptions: list[Lit] = Field(default_factory=list)


class Question(Operation):
    """Ask; the question is an open problem until an argument explaining it is resolved."""

    op: Literal["question"] = "question"
    claim: Lit
    text: Text = ""


BUILTIN_OPERATIONS: dict[str, type[Operation]] = {
    model.model_fields["op"].default: model
    for model in (Observe, Hypothesize, Support, Undermine, Revise, ExpandAwareness, Resolve, Question)
}

AnyBuiltinOperation = Annotated[
    Observe | Hypothesize | Support | Undermine | Revise | ExpandAwareness | Resolve | Question,
    Field(discriminator="op"),
]


class UtteranceBase(Strict):
    turn: Turn | None = Field(default=None, description="Strictly increasing; assigned when omitted.")
    speaker: Atom
    text: Text = ""
    labels: list[Name] = Field(
        default_factory=list,
        description="The Interpreter's classification of the utterance (operation names), kept for scoring; "
                    "the rules read only `ops`.")

    @model_validator(mode="before")
    @classmethod
    def _bounded_ops(cls, data: Any) -> Any:
        """Refuse an utterance of too many operations before validating any of them."""
        ops = data.get("ops") if isinstance(data, dict) else None
        if isinstance(ops, list) and len(ops) > MAX_OPS_PER_UTTERANCE:
            raise PydanticCustomError("too_many_ops", "ops: {count} operations in one utterance (at most {limit})",
                                      {"count": len(ops), "limit": MAX_OPS_PER_UTTERANCE})
        return data


class Utterance(UtteranceBase):
    """One line of the event log: who spoke, what they said, and its operations."""

    ops: list[AnyBuiltinOperation] = Field(default_factory=list)


FieldType = Literal["literal", "literals", "text"]


@dataclass(frozen=True, slots=True)
class FieldSpec:
    name: str
    type: FieldType
    required: bool


@dataclass(frozen=True, slots=True)
class OperationSpec:
    """An operation as its rule file declares it with ``operation/3``."""

    name: str
    doc: str
    fields: tuple[FieldSpec, ...]

    @classmethod
    def parse(cls, line: str) -> OperationSpec:
        name, doc, fields = line.split("\t")
        specs = []
        for item in filter(None, fields.split(",")):
            fname, ftype, req = item.split(":")
            if ftype not in ("literal", "literals", "text"):
                raise ValueError(f"operation {name}: field {fname} has unknown type {ftype}")
            specs.append(FieldSpec(fname, ftype, req == "required"))  # type: ignore[arg-type]
        return cls(name, doc, tuple(specs))


_PYTHON_TYPES: dict[str, tuple[Any, Any]] = {
    # field type -> (annotation, default when optional)
    "literal": (Lit, None),
    "literals": (list[Lit], Field(default_factory=list)),
    "text": (Text, ""),
}


def model_from_spec(spec: OperationSpec) -> type[Operation]:
    """Generate the pydantic model of an operation declared only in Prolog."""
    fields: dict[str, Any] = {"op": (Literal[spec.name], spec.name)}  # type: ignore[valid-type]
    for f in spec.fields:
        annotation, default = _PYTHON_TYPES[f.type]
        if f.required:
            fields[f.name] = (annotation, ...)
        elif f.type == "literal":
            fields[f.name] = (annotation | None, None)
        else:
            fields[f.name] = (annotation, default)
    name = "".join(part.title() for part in spec.name.split("_"))
    return create_model(name, __base__=Operation, __doc__=spec.doc, **fields)


class OperationRegistry:
    """The operations one engine understands: how to validate and encode each."""

    def __init__(self, specs: list[OperationSpec]):
        self.specs = {s.name: s for s in specs}
        self.models: dict[str, type[Operation]] = {
            s.name: BUILTIN_OPERATIONS.get(s.name) or model_from_spec(s) for s in specs
        }
        # per operation: (field, type, required) for the fields the rules read
        self._plan = {
            s.name: tuple((f.name, f.type, f.required) for f in s.fields if f.type != "text")
            for s in specs
        }

    @property
    def extension_names(self) -> list[str]:
        return [n for n in self.specs if n not in BUILTIN_OPERATIONS]

    @cached_property
    def _op_union(self) -> Any:
        """Any one of this registry's operations, told apart by ``op``."""
        return Annotated[Union[tuple(self.models.values())], Field(discriminator="op")]  # noqa: UP007

    @cached_property
    def utterance_model(self) -> type[UtteranceBase]:
        if not self.extension_names:
            return Utterance
        return create_model(
            "Utterance", __base__=UtteranceBase, __doc__=Utterance.__doc__,
            ops=(list[self._op_union], Field(default_factory=list)),  # type: ignore[name-defined]
        )

    @cached_property
    def _op_adapter(self) -> TypeAdapter:
        return TypeAdapter(self._op_union)

    def operation(self, data: Operation | dict) -> Operation:
        if isinstance(data, Operation) and data.op in self.models:
            return data
        return self._op_adapter.validate_python(data if isinstance(data, dict) else data.model_dump())

    def utterance(self, data: UtteranceBase | dict) -> UtteranceBase:
        if isinstance(data, UtteranceBase):
            if all(op.op in self.models for op in data.ops):  # type: ignore[attr-defined]
                return data
            data = data.model_dump()
        return self.utterance_model.model_validate(data)

    def encode(self, turn: int, utterance: UtteranceBase, annotations: dict[int, str] | None = None) -> str:
        """The utterance as the Prolog term ``utterance(Turn, Speaker, Ops)``.

        ``annotations`` adds ready-made ``Key=Term`` fields to some operations
        (by index): the epistemic verdicts the world model found for them.
        """
        notes = annotations or {}
        ops = ",".join(self._encode_op(op, notes.get(i))  # type: ignore[attr-defined]
                       for i, op in enumerate(utterance.ops))  # type: ignore[attr-defined]
        return f"utterance({turn},{prolog_atom(utterance.speaker)},[{ops}])"

    def _encode_op(self, op: Operation, note: str | None = None) -> str:
        parts = [] if note is None else [note]
        for name, ftype, required in self._plan[op.op]:
            value = getattr(op, name)
            if ftype == "literal":
                if value is not None:
                    parts.append(f"{name}={prolog_literal(value)}")
            elif value or required:
                parts.append(f"{name}=[{','.join(map(prolog_literal, value))}]")
        return f"op({op.op},[{','.join(parts)}])"


def op_to_json(op: BaseModel) -> dict[str, Any]:
    """An operation as written to the event log: ``op`` first, defaults left out."""
    body = op.model_dump(mode="json", exclude_defaults=True, exclude={"op"})
    return {"op": op.op, **body}  # type: ignore[attr-defined]
