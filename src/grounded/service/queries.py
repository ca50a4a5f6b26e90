"""The query registry's entries as HTTP routes and MCP tools, generated (``queries/registry.py``).

Both frameworks read a handler's parameters from its signature, so each entry
gets one: its parameters model's fields (a ``claim``, ``closure``...), then
``at``.  FastAPI takes them as query parameters (``GET
/v1/conversations/{cid}/<path>``), the MCP SDK as the tool's arguments; both
hand them to ``Conversations.query``, which validates them again with the
entry's model and answers in its one JSON shape.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Query as QueryParam
from pydantic.fields import FieldInfo

from grounded.core.bounds import MAX_TURN
from grounded.core.fields import Turn
from grounded.queries.registry import QUERIES, Query

KW = inspect.Parameter.KEYWORD_ONLY

HAND_WRITTEN = frozenset({"verify"})
"""Entries whose HTTP route is written by hand: GET .../verify also reads a text (by the registry for a claim)."""


def served() -> list[Query]:
    """The registered queries, in the registry's order."""
    return list(QUERIES.values())


def _annotation(field: FieldInfo, strict: bool) -> Any:
    """A field's type; with ``strict``, with its constraints (StrictBool stays strict for a JSON tool argument;
    a query string's 'true' must be parsed first, and the registry checks the bool it became)."""
    if strict and field.metadata:
        return Annotated[(field.annotation, *field.metadata)]
    return field.annotation


def route_parameters(q: Query) -> list[inspect.Parameter]:
    """The entry's parameters and ``at``, as FastAPI query parameters."""
    params = []
    for name, field in q.params.model_fields.items():
        default = inspect.Parameter.empty if field.is_required() else field.default
        params.append(inspect.Parameter(name, KW, default=default, annotation=Annotated[
            _annotation(field, False), QueryParam(description=field.description)]))
    params.append(inspect.Parameter("at", KW, default=None, annotation=Annotated[
        int | None, QueryParam(ge=0, le=MAX_TURN, description="Answer as of this earlier turn.")]))
    return params


def tool_parameters(q: Query) -> list[inspect.Parameter]:
    """``conversation``, the entry's parameters and ``at``, as an MCP tool's arguments."""
    params = [inspect.Parameter("conversation", KW, annotation=str)]
    for name, field in q.params.model_fields.items():
        default = inspect.Parameter.empty if field.is_required() else field.default
        params.append(inspect.Parameter(name, KW, default=default, annotation=_annotation(field, True)))
    params.append(inspect.Parameter("at", KW, default=None, annotation=Turn | None))
    return params


def with_signature(fn: Callable[..., Any], params: list[inspect.Parameter], name: str, doc: str,
                   returns: Any = inspect.Signature.empty) -> Callable[..., Any]:
    """``fn`` (taking ``**kwargs``) presented with ``params``: what the frameworks read to build its schema."""
    fn.__signature__ = inspect.Signature(params, return_annotation=returns)  # type: ignore[attr-defined]
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


__all__ = ["HAND_WRITTEN", "route_parameters", "served", "tool_parameters", "with_signature"]
