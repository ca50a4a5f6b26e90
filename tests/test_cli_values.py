"""grounded.cli.values: the command line's plain values converted without pydantic, as typer converts them.

Each parameter of every command that gets a ``PlainValue`` is given values good and bad of its kind; what
``PlainValue`` makes of each (the value, or the error and its message) is what typer's own ``process_value`` (a
pydantic ``TypeAdapter``) makes of it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import typer.main
from typer import Context

from grounded.cli.app import COMMANDS, app
from grounded.cli.values import PlainValue

SAMPLES: dict[object, list[object]] = {
    str: ["o1", "", "-a3", "ü ", "x\x00"],
    bool: [True, False, "true", "no", "x", 1],
    int: ["3", "-1", "+2", "007", " 4", "4.0", "4.5", "x", "", "1_000", "9" * 18, "9" * 30, "٣", 5, 2.0],
    float: ["0.5", "1", "-.5", "1.", "+3.25", "1e3", "nan", "inf", "x", "", " 0.5", "1_0.5", "٣", 0.25, 2],
    Path: ["talk.jsonl", "", ".", "a b/ü", Path("p"), 3],
}


def _outcome(process_value, value, ctx):
    try:
        done = process_value(ctx, value)
        return "value", type(done), repr(done)  # repr: nan is not equal to itself
    except Exception as exc:  # noqa: BLE001 - the error itself is what is compared
        return "error", type(exc).__name__, exc.format_message() if hasattr(exc, "format_message") else str(exc)


def _commands():
    group = typer.main.get_command(app)
    ctx = Context(group)
    for name in COMMANDS:
        command = group.get_command(ctx, name)
        yield from getattr(command, "commands", {name: command}).values()


def test_every_plain_value_converts_as_typer_converts_it(monkeypatch, tmp_path):
    """Both with the parameter's callback set aside (a callback sees the value either makes: ``--version``'s
    would print and exit), and paths that exist, a file and a directory, among the samples."""
    (tmp_path / "f").write_text("x")
    paths = [str(tmp_path / "f"), str(tmp_path), str(tmp_path / "missing")]
    compared = 0
    for command in _commands():
        ctx = Context(command)
        for param in [*command.params, command.get_help_option(ctx)]:
            ours = param.process_value
            if not isinstance(ours, PlainValue):
                continue
            monkeypatch.setattr(param, "callback", None)
            kind = param.type_descriptor.annotation
            many = param.multiple or param.nargs == -1
            kind = kind.__args__[0] if many else kind
            for sample in [None, *SAMPLES[kind], *(paths if kind is Path else [])]:
                value = [sample, sample] if many and sample is not None else sample
                assert _outcome(ours, value, ctx) == _outcome(ours.typer, value, ctx), (
                    command.name, param.name, value)
                compared += 1
    assert compared > 500  # every command's parameters, not a few


@pytest.mark.parametrize("name", ["verify", "affected", "query"])
def test_a_query_command_converts_every_parameter_without_pydantic(name):
    group = typer.main.get_command(app)
    command = group.get_command(Context(group), name)
    params = [*command.params, command.get_help_option(Context(command)), *group.params]
    assert all(isinstance(p.process_value, PlainValue) for p in params), [
        p.name for p in params if not isinstance(p.process_value, PlainValue)]
