"""The plain copies of pydantic models that a query answered from a snapshot reads instead of the models (it
imports no pydantic: tests/test_startup.py) say what their models say: the same fields, the same defaults,
and what a model makes of a value is what its copy makes of it."""

from __future__ import annotations

import types
import typing

import pytest
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from grounded.dmap.model import Agent, Header, Proposition
from grounded.dmap.notes import AgentRecord, PlainHeader, PropDecl
from grounded.dmap.operations import UtteranceBase
from grounded.engine.recorded import RecordedLine
from grounded.io.format import ORIGIN_KEYS, PlainOrigin, split_header
from grounded.io.origin import LogOrigin
from grounded.queries import models
from grounded.queries.registry import PLAIN_FIELDS, REQUIRED, PlainParams


def defaults(model: type[BaseModel]) -> dict[str, object]:
    """Each field's default (``REQUIRED`` when the model has none), a default factory called."""
    out: dict[str, object] = {}
    for name, field in model.model_fields.items():
        if field.is_required():
            out[name] = REQUIRED
        elif field.default_factory is not None:
            out[name] = field.default_factory()  # type: ignore[call-arg]
        else:
            out[name] = field.default
    assert PydanticUndefined not in out.values()
    return out


def exact_types(annotation: object) -> set[type]:
    """The types a strict field takes, its annotation's union spelled out (``str | None``: str and NoneType)."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return set().union(*(exact_types(a) for a in typing.get_args(annotation)))
    assert isinstance(annotation, type), annotation
    return {annotation}


PARAMETER_MODELS = sorted(name for name, value in vars(models).items()
                          if isinstance(value, type) and issubclass(value, models.Params))


def test_every_parameter_model_has_its_plain_field_list():
    assert sorted(PLAIN_FIELDS) == PARAMETER_MODELS


@pytest.mark.parametrize("name", PARAMETER_MODELS)
def test_plain_parameter_fields_are_the_models(name):
    model = getattr(models, name)
    plain = PLAIN_FIELDS[name]
    assert plain.keys() == model.model_fields.keys()
    assert {k: d for k, (_, d) in plain.items()} == defaults(model)
    for field, (accepted, _) in plain.items():
        assert set(accepted) == exact_types(model.model_fields[field].annotation), (name, field)
        assert field in PlainParams._fields
        default = plain[field][1]
        if default is not REQUIRED:
            assert PlainParams._field_defaults[field] == default, (name, field)


@pytest.mark.parametrize(("copy", "model"), [(AgentRecord, Agent), (PropDecl, Proposition), (PlainOrigin, LogOrigin)])
def test_a_plain_record_has_its_models_fields_and_defaults(copy, model):
    assert copy._fields == tuple(model.model_fields)
    assert copy._field_defaults == {k: d for k, d in defaults(model).items() if d is not REQUIRED}
    assert ORIGIN_KEYS == tuple(LogOrigin.model_fields)


HEADERS = [
    {},
    {"grounded": 1, "acyclic": False},
    {"agents": {"alice": {}, "bob": {"role": "lead", "authority": True}},
     "props": [{"id": "o1"}, {"id": "h2", "text": "the cache", "kind": "hypothesis", "aware": False}]},
]


@pytest.mark.parametrize("line", HEADERS)
def test_a_plain_header_reads_what_the_header_model_reads(line):
    fields, _ = split_header(line)
    plain, header = PlainHeader(fields), Header.model_validate(fields)
    # the header's fields a plain header stands for; ``grounded`` is the format version, read by the reader
    assert set(Header.model_fields) - {"grounded"} == {*PlainHeader.__slots__, "world"} - {"fields"}
    assert plain.world is header.world is None and plain.acyclic == header.acyclic
    assert plain.agents == {n: AgentRecord(**a.model_dump()) for n, a in header.agents.items()}
    assert plain.props == [PropDecl(**p.model_dump()) for p in header.props]


def test_a_recorded_line_has_the_utterances_fields_the_rules_read():
    """Every field of an utterance but ``labels`` (kept for scoring; the rules read only ``ops``), with the
    model's defaults when a line leaves one out."""
    assert set(RecordedLine.__slots__) == set(UtteranceBase.model_fields) - {"labels"}
    (line,) = RecordedLine.read_all([b'{"speaker": "alice"}']) or []
    model = UtteranceBase.model_validate({"speaker": "alice"})
    assert [getattr(line, f) for f in RecordedLine.__slots__] == [getattr(model, f) for f in RecordedLine.__slots__]
