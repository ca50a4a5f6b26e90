"""Operations as typed models, generated from the rules' own declarations.

The Prolog rules are the semantics, and each rule file declares its operation
once, with ``operation(Name, Doc, Fields)`` (prolog/ops/<op>.pl).  That
declaration is the single source of an operation's fields: this module turns
it into an ``OperationSpec`` and generates the operation's pydantic model
from it (the eight built-ins exactly as an operation added by an extension).
``grounded.Observe``, ``grounded.Utterance`` and the others are those
generated models (``grounded/__init__.py`` generates them on first access,
since generating needs the rules).

The registry also writes an utterance as the term the rules read,
``utterance(Turn, Speaker, [op(Name, [Field=Value, ...]), ...])``, as term
data (grounded.solvers.terms puts it into Prolog: nothing is spliced into text).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter, create_model, model_validator
from pydantic_core import PydanticCustomError

from grounded.core.bounds import MAX_OPS_PER_UTTERANCE
from grounded.core.fields import Atom, Lit, Name, Text, Turn
from grounded.core.literals import literal_term
from grounded.dmap.model import Strict, class_name


class Operation(Strict):
    """Base of every operation; ``op`` names it in the event log."""

    op: str


FieldType = Literal["literal", "literals", "text"]
FIELD_TYPES: tuple[str, ...] = ("literal", "literals", "text")


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
    def from_term(cls, term: Any) -> OperationSpec:
        """``operation(Name, Doc, [field(F, Type, required|optional), ...])`` read as term data."""
        try:
            _, name, doc, fields = term
            specs = []
            for item in fields:
                tag, fname, ftype, req = item
                if tag != "field" or req not in ("required", "optional"):
                    raise ValueError(f"operation {name}: {item!r} is not field(Name, Type, required|optional)")
                if ftype not in FIELD_TYPES:
                    raise ValueError(f"operation {name}: field {fname} has unknown type {ftype} "
                                     f"(one of {', '.join(FIELD_TYPES)})")
                specs.append(FieldSpec(fname, ftype, req == "required"))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"bad operation/3 declaration {term!r:.200}: {exc}") from None
        if not isinstance(name, str) or not isinstance(doc, str):
            raise ValueError(f"bad operation/3 declaration {term!r:.200}: name and doc must be text")
        return cls(name, doc, tuple(specs))


FieldDefinitions = dict[str, tuple[Any, Any]]

LOG_TYPES: Mapping[str, tuple[Any, Any]] = {
    # field type -> (annotation, default when optional)
    "literal": (Lit, None),
    "literals": (list[Lit], Field(default_factory=list)),
    "text": (Text, ""),
}


def field_definitions(spec: OperationSpec, types: Mapping[str, tuple[Any, Any]] = LOG_TYPES) -> FieldDefinitions:
    """The pydantic field definitions of an operation's declared fields, in order.

    ``types`` maps each field type to (annotation, default when optional); the
    event-log models use ``LOG_TYPES``, the Interpreter's answers their own
    (grounded.interpreter.schema).  An optional ``literal`` may be None.
    """
    fields: FieldDefinitions = {}
    for f in spec.fields:
        annotation, default = types[f.type]
        if f.required:
            fields[f.name] = (annotation, ...)
        elif f.type == "literal":
            fields[f.name] = (annotation | None, None)
        else:
            fields[f.name] = (annotation, default)
    return fields


@cache
def model_from_spec(spec: OperationSpec) -> type[Operation]:
    """The pydantic model of an operation: generated once per declaration."""
    fields: FieldDefinitions = {"op": (Literal[spec.name], spec.name)}
    fields.update(field_definitions(spec))
    return create_model(class_name(spec.name), __base__=Operation, __doc__=spec.doc, **fields)  # type: ignore[call-overload]  # field definitions built at run time


class UtteranceBase(Strict):
    turn: Turn | None = Field(default=None, description="Strictly increasing; assigned when omitted.")
    speaker: Atom
    text: Text = ""
    labels: list[Name] = Field(
        default_factory=list,
        description="The Interpreter's classification of the utterance (operation names), kept for scoring; "
                    "the rules read only `ops`.")
    ops: list[Operation] = Field(default_factory=list)
    """Narrowed by each registry's generated model to the union of its operations, told apart by ``op``."""

    @model_validator(mode="before")
    @classmethod
    def _bounded_ops(cls, data: Any) -> Any:
        """Refuse an utterance of too many operations before validating any of them."""
        ops = data.get("ops") if isinstance(data, dict) else None
        if isinstance(ops, list) and len(ops) > MAX_OPS_PER_UTTERANCE:
            raise PydanticCustomError("too_many_ops", "ops: {count} operations in one utterance (at most {limit})",
                                      {"count": len(ops), "limit": MAX_OPS_PER_UTTERANCE})
        return data


UTTERANCE_DOC = "One line of the event log: who spoke, what they said, and its operations."


@cache
def utterance_model(specs: tuple[OperationSpec, ...]) -> type[UtteranceBase]:
    """The utterance model whose ``ops`` are these operations, told apart by ``op``."""
    union = Annotated[Union[tuple(model_from_spec(s) for s in specs)], Field(discriminator="op")]  # type: ignore[valid-type]  # noqa: UP007
    return create_model(
        "Utterance", __base__=UtteranceBase, __doc__=UTTERANCE_DOC,
        ops=(list[union], Field(default_factory=list)),  # type: ignore[valid-type]
    )


class OperationRegistry:
    """The operations one engine understands: how to validate and encode each."""

    def __init__(self, specs: list[OperationSpec], builtins: frozenset[str] = frozenset()):
        self.specs = {s.name: s for s in specs}
        self.builtins = builtins
        """The names of the operations the package ships (prolog/ops); the others come from extensions."""
        self.models: dict[str, type[Operation]] = {s.name: model_from_spec(s) for s in specs}
        # per operation: (field, type, required) for the fields the rules read
        self._plan = {
            s.name: tuple((f.name, f.type, f.required) for f in s.fields if f.type != "text")
            for s in specs
        }

    @property
    def extension_names(self) -> list[str]:
        return [n for n in self.specs if n not in self.builtins]

    @cached_property
    def utterance_model(self) -> type[UtteranceBase]:
        return utterance_model(tuple(self.specs.values()))

    @cached_property
    def _op_adapter(self) -> TypeAdapter:
        union = Annotated[Union[tuple(self.models.values())], Field(discriminator="op")]  # type: ignore[valid-type]  # noqa: UP007
        return TypeAdapter(union)  # type: ignore[arg-type]  # a union built at run time is a valid type form

    def operation(self, data: Operation | dict) -> Operation:
        if isinstance(data, Operation) and data.op in self.models:
            return data
        return self._op_adapter.validate_python(data if isinstance(data, dict) else data.model_dump())

    def utterance(self, data: UtteranceBase | dict) -> UtteranceBase:
        if isinstance(data, UtteranceBase):
            if all(op.op in self.models for op in data.ops):
                return data
            data = data.model_dump()
        return self.utterance_model.model_validate(data)

    def encode(self, turn: int, utterance: UtteranceBase) -> tuple:
        """The utterance as the term ``utterance(Turn, Speaker, Ops)``, as term data.

        Only the fields the rules read go in (not the text), literals as
        ``-(a3)``, optional fields left out when empty.
        """
        ops = [self._encode_op(op) for op in utterance.ops]
        return ("utterance", turn, utterance.speaker, ops)

    def _encode_op(self, op: Operation) -> tuple:
        fields: list[tuple] = []
        for name, ftype, required in self._plan[op.op]:
            value = getattr(op, name)
            if ftype == "literal":
                if value is not None:
                    fields.append(("=", name, literal_term(value)))
            elif value or required:
                fields.append(("=", name, [literal_term(v) for v in value]))
        return ("op", op.op, fields)


ModelFactory = Callable[[OperationSpec], type[BaseModel]]


def op_to_json(op: Operation) -> dict[str, Any]:
    """An operation as written to the event log: ``op`` first, defaults left out."""
    body = op.model_dump(mode="json", exclude_defaults=True, exclude={"op"})
    return {"op": op.op, **body}
