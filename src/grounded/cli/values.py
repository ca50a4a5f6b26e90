"""Command-line values converted without pydantic where the conversion is plain.

Typer converts every parameter's value through a pydantic ``TypeAdapter`` it
builds on first use, so any command would import pydantic and build one adapter
per parameter: about half of what a query answered from a snapshot costs beyond
``grounded --version`` (the figures: docs/benchmarks.md, start-up).  ``install``
gives each parameter of a command whose type is plain (a string, a path, an
integer, a number, a list of one of them) a ``PlainValue`` as its
``process_value`` (click's public hook for turning what was typed into the
value a command gets).  It converts the values whose conversion is not in doubt
(a string as it is, a path as ``Path``, digits as an integer, a decimal as a
float) exactly as pydantic would, and hands every other value to typer's own
``process_value``: what a value converts to, and the error a bad one gets, are
typer's (tests/test_cli_values.py compares the two over a set of values, good
and bad).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

_INTEGER = re.compile(r"[+-]?[0-9]{1,18}")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]{1,15}(?:\.[0-9]{0,15})?|\.[0-9]{1,15})")


class _NotPlain(Exception):
    """The value is not one this module converts: typer's ``process_value`` does."""


Converter = Callable[[Any, Any], Any]
"""A plain conversion of (value, parameter): the value, or _NotPlain."""


def _exactly(kind: type) -> Converter:
    """A value already of ``kind`` (a text, a flag), as is."""
    def convert(value: Any, param: Any) -> Any:
        if type(value) is not kind:
            raise _NotPlain
        return value
    return convert


def _read(kind: type, pattern: re.Pattern[str]) -> Converter:
    """A value of ``kind`` as is, or a text ``pattern`` matches whole (a number as pydantic reads it) made one."""
    def convert(value: Any, param: Any) -> Any:
        if type(value) is kind:
            return value
        if type(value) is str and pattern.fullmatch(value):
            return kind(value)
        raise _NotPlain
    return convert


def _path(value: Any, param: Any) -> Any:
    """A text made the ``Path`` pydantic would make, when it passes the parameter's checks (exists, a file, a
    directory, readable, writable) as typer makes them; one that fails one is typer's, which says which."""
    if type(value) is not str or not value or "\0" in value:
        raise _NotPlain
    info = param.type_descriptor.parameter_info
    if info.resolve_path or (info.allow_dash and value == "-"):
        raise _NotPlain
    try:
        mode = os.stat(value).st_mode
    except OSError:
        if info.exists:
            raise _NotPlain from None
        return Path(value)
    if ((not info.file_okay and stat.S_ISREG(mode)) or (not info.dir_okay and stat.S_ISDIR(mode))
            or (info.readable and not os.access(value, os.R_OK)) or (info.writable and not os.access(value, os.W_OK))):
        raise _NotPlain
    return Path(value)


PLAIN: dict[Any, Converter] = {str: _exactly(str), bool: _exactly(bool), int: _read(int, _INTEGER),
                               float: _read(float, _DECIMAL), Path: _path}
"""The annotations converted here, each with its conversion (which raises _NotPlain for a value it leaves)."""


class PlainValue:
    """A typer parameter's ``process_value`` for a plain annotation: the value converted here, then, as click's
    ``process_value`` does, checked for a required one missing and handed to the parameter's callback; a value
    this module does not convert, or a required one missing, goes to typer's own (``typer``)."""

    def __init__(self, param: Any, convert: Converter):
        self.param = param
        self.convert = convert
        self.typer: Callable[[Any, Any], Any] = param.process_value

    def coerce(self, value: Any) -> Any:
        """The value converted, or _NotPlain."""
        param = self.param
        many = param.multiple or param.nargs == -1
        if value is None:
            return () if many else None  # as typer's
        if not many:
            return self.convert(value, param)
        if not isinstance(value, list | tuple):
            raise _NotPlain
        return [self.convert(item, param) for item in value]

    def __call__(self, ctx: Any, value: Any) -> Any:
        param = self.param
        try:
            converted = self.coerce(value)
        except _NotPlain:
            return self.typer(ctx, value)
        if param.required and param.value_is_missing(converted):
            return self.typer(ctx, value)  # its error
        if param.callback is not None:
            return param.callback(ctx, param, converted)
        return converted


def plain_conversion(param: Any) -> Converter | None:
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
    option included (made by click when first asked for); the others keep typer's conversion."""
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
    """A typer parameter (one with a ``type_descriptor``) not yet given one gets its ``PlainValue``."""
    if getattr(param, "type_descriptor", None) is None or isinstance(param.process_value, PlainValue):
        return
    convert = plain_conversion(param)
    if convert is not None:
        param.process_value = PlainValue(param, convert)
