"""Command-line values converted without pydantic where the conversion is plain (issue 23, item 5: start-up).

Typer converts every parameter's value through a pydantic ``TypeAdapter`` it
builds on first use, so any command imports pydantic and builds one adapter per
parameter: about half of what a query answered from a snapshot spent beyond
``grounded --version``.  ``install`` gives each parameter of a command whose
type is plain (a string, a path, an integer, a number, a list of one of them) a
``PlainValue`` in the slot typer fills lazily (``_runtime_param``, typer >= 0.29).
It converts the values whose conversion is not in doubt (a string as it is, a
path as ``Path``, digits as an integer, a decimal as a float) exactly as
pydantic would, and hands every other value to typer's own converter, built
then: what a value converts to, and the error a bad one gets, are typer's
(tests/test_startup.py compares the two over a set of values, good and bad).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer._coercion import build_runtime_param
from typer._param_types import coerce_cli_path
from typer.core import _TyperParameter

_INTEGER = re.compile(r"[+-]?[0-9]{1,18}")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]{1,15}(?:\.[0-9]{0,15})?|\.[0-9]{1,15})")


class _NotPlain(Exception):
    """The value is not one this module converts: typer's converter does."""


Converter = Callable[[Any, _TyperParameter, Any], Any]


def _exactly(kind: type) -> Converter:
    """A value already of ``kind`` (a text, a flag), as is."""
    def convert(value: Any, param: _TyperParameter, ctx: Any) -> Any:
        if type(value) is not kind:
            raise _NotPlain
        return value
    return convert


def _read(kind: type, pattern: re.Pattern[str]) -> Converter:
    """A value of ``kind`` as is, or a text ``pattern`` matches whole (a number as pydantic reads it) made one."""
    def convert(value: Any, param: _TyperParameter, ctx: Any) -> Any:
        if type(value) is kind:
            return value
        if type(value) is str and pattern.fullmatch(value):
            return kind(value)
        raise _NotPlain
    return convert


def _path(value: Any, param: _TyperParameter, ctx: Any) -> Any:
    """A path's checks (exists, readable, ...) are typer's own, given the value pydantic would make: ``Path``."""
    if type(value) is not str or not value or "\0" in value:
        raise _NotPlain
    info = param.type_descriptor.parameter_info
    return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)


PLAIN: dict[Any, Converter] = {str: _exactly(str), bool: _exactly(bool), int: _read(int, _INTEGER),
                               float: _read(float, _DECIMAL), Path: _path}
"""The annotations converted here, each with its conversion (which raises _NotPlain for a value it leaves)."""


class PlainValue:
    """A parameter's converter (typer's ``RuntimeParam`` interface, ``coerce``) for a plain annotation."""

    def __init__(self, convert: Converter):
        self.convert = convert

    def coerce(self, value: Any, param: _TyperParameter, ctx: Any) -> Any:
        many = param.multiple or param.nargs == -1
        if value is None:
            return () if many else None  # as typer's RuntimeParam.coerce
        try:
            if not many:
                return self.convert(value, param, ctx)
            if not isinstance(value, list | tuple):
                raise _NotPlain
            return [self.convert(item, param, ctx) for item in value]
        except _NotPlain:
            return typer_converter(param).coerce(value, param=param, ctx=ctx)


def typer_converter(param: _TyperParameter) -> Any:
    """Typer's own converter of ``param`` (a pydantic ``TypeAdapter``'s, for the annotations here)."""
    return build_runtime_param(param.type_descriptor)


def plain_conversion(param: _TyperParameter) -> Callable[[Any, _TyperParameter, Any], Any] | None:
    """The conversion of ``param``'s values here, or None when its annotation or options are not plain."""
    descriptor = param.type_descriptor
    info = descriptor.parameter_info
    annotation = descriptor.annotation
    if descriptor.is_list:
        (annotation,) = descriptor.annotation.__args__
    elif getattr(annotation, "__args__", None):
        return None  # a tuple, a Literal: typer's
    if (info.parser is not None or descriptor.file_annotation is not None or descriptor.choices is not None
            or info.min is not None or info.max is not None or info.formats is not None
            or (annotation is Path and info.path_type not in (None, Path))):
        return None
    return PLAIN.get(annotation)


def install(command: Any) -> None:
    """Give each plain parameter of ``command`` (and of a group's commands) a ``PlainValue``, its ``--help``
    option included (made by click when first asked for); the others keep typer's converter."""
    for param in command.params:
        _give(param)
    make_help = command.get_help_option

    def get_help_option(ctx: Any) -> Any:
        option = make_help(ctx)
        _give(option)
        return option

    command.get_help_option = get_help_option
    for sub in getattr(command, "commands", {}).values():
        install(sub)


def _give(param: Any) -> None:
    if isinstance(param, _TyperParameter) and param._runtime_param is None:
        convert = plain_conversion(param)
        if convert is not None:
            param._runtime_param = PlainValue(convert)  # type: ignore[assignment]  # typer's interface
