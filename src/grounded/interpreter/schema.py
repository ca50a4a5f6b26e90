"""What an Interpreter answers: operations as pydantic response models.

The models are generated from the operation declarations the engine's rules
make (``OperationRegistry.specs``), by the same generator as the event-log
models (``grounded.dmap.operations.field_definitions``), so an operation added
by a rule file is understood here too.  They differ from the event-log models in three ways:

* ids may be *new-claim references* (``#1``, ``#2``): the Interpreter names a
  claim it introduces, and ``proposal.py`` gives it a fresh id;
* an operation with a ``by`` field may give ``evidence`` (text) instead: a
  new observation carrying that text is created for it;
* fields an operation does not have are ignored (models add commentary).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator

from grounded.core.literals import is_literal
from grounded.dmap.model import class_name
from grounded.dmap.operations import OperationRegistry, OperationSpec, field_definitions
from grounded.io.eventlog import describe_validation_error

NEW_REF = re.compile(r"-?#[A-Za-z0-9_]+")


def is_new_ref(value: str) -> bool:
    return NEW_REF.fullmatch(value) is not None


def _check_ref(value: str) -> str:
    if not (is_literal(value) or is_new_ref(value)):
        raise ValueError(f"{value!r} is neither an id of the state (o5, -a3) nor a new-claim reference (#1)")
    return value


Ref = Annotated[str, AfterValidator(_check_ref)]


class ResponseOp(BaseModel):
    """One proposed operation."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    op: str

    @model_validator(mode="after")
    def _by_or_evidence(self) -> ResponseOp:
        fields = type(self).model_fields
        if "evidence" in fields and self.__class__.by_required() and self.by is None and not self.evidence:  # type: ignore[attr-defined]
            raise ValueError("give `by` (the id of the evidence) or `evidence` (its text, for new evidence)")
        return self

    @classmethod
    def by_required(cls) -> bool:
        return False


class InterpreterError(Exception):
    """An answer that cannot be used; ``str()`` is the text the model is re-asked with."""


ANSWER_TYPES: dict[str, tuple[Any, Any]] = {
    # field type -> (annotation, default when optional), as in grounded.dmap.operations.LOG_TYPES
    "literal": (Ref, None),
    "literals": (list[Ref], Field(default_factory=list)),
    "text": (str, ""),
}


def _op_model(spec: OperationSpec) -> type[ResponseOp]:
    """The answer model of one operation: its declared fields (the same generator as the
    event-log models, with references allowed), ``by`` always optional and ``evidence``
    beside it."""
    fields: dict[str, Any] = {"op": (Literal[spec.name], ...)}
    fields.update(field_definitions(spec, ANSWER_TYPES))
    by_required = any(f.name == "by" and f.required for f in spec.fields)
    if "by" in fields:
        fields["by"] = (Ref | None, None)
        fields["evidence"] = (str, "")
    model = create_model("Proposed" + class_name(spec.name), __base__=ResponseOp, __doc__=spec.doc, **fields)
    setattr(model, "by_required", classmethod(lambda cls: by_required))  # noqa: B010 - a class built at run time
    return model


@lru_cache(maxsize=32)
def _response_model(specs: tuple[OperationSpec, ...]) -> type[BaseModel]:
    union: Any = Union[tuple(_op_model(s) for s in specs)]  # noqa: UP007 - a union built at run time
    operations: Any = list[Annotated[union, Field(discriminator="op")]]
    return create_model("InterpreterResponse", __config__=ConfigDict(extra="ignore"), operations=(operations, ...))


def response_model(registry: OperationRegistry) -> type[BaseModel]:
    """``{"operations": [...]}`` for the operations ``registry`` knows."""
    return _response_model(tuple(registry.specs.values()))


def parse_response(registry: OperationRegistry, content: str | None) -> list[ResponseOp]:
    """The operations of a model's answer; InterpreterError says what is wrong with it."""
    if not content or not content.strip():
        raise InterpreterError("the answer was empty")
    data = parse_json(content)
    if isinstance(data, list):
        data = {"operations": data}
    if not isinstance(data, dict):
        raise InterpreterError('the answer must be a JSON object {"operations": [...]}')
    try:
        return list(response_model(registry).model_validate(data).operations)  # type: ignore[attr-defined]
    except ValidationError as exc:
        raise InterpreterError("the JSON does not match the schema: "
                               + describe_validation_error(exc, frozenset(registry.specs))
                               + f" (operations are {', '.join(registry.specs)})") from exc


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_json(content: str) -> Any:
    """Parse JSON, tolerating a Markdown code fence or prose around one object."""
    candidates = [content.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(content)]
    if "{" in content and "}" in content:
        candidates.append(content[content.index("{"): content.rindex("}") + 1])
    error: json.JSONDecodeError | None = None
    for text in candidates:
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            error = error or exc
        except RecursionError:  # brackets nested past the parser's depth: not an answer
            raise InterpreterError("the answer is nested too deeply to be read as JSON") from None
    assert error is not None
    raise InterpreterError(f"the answer is not valid JSON ({error.msg} at line {error.lineno} column {error.colno})")


def describe_schema(registry: OperationRegistry) -> str:
    """The answer format, one line per operation, for prompts."""
    lines = []
    for spec in registry.specs.values():
        parts = []
        for f in spec.fields:
            kind = {"literal": "id", "literals": "list of ids", "text": "text"}[f.type]
            optional = f.required is False or f.name == "by"
            parts.append(f'"{f.name}": {kind}{"" if not optional else " (optional)"}')
            if f.name == "by":
                parts.append('"evidence": text (optional: new evidence instead of `by`)')
        lines.append(f'- {{"op": "{spec.name}", {", ".join(parts)}}}')
    return "\n".join(lines)
