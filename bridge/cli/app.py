"""The ``grounded`` Typer application and what its commands share.

Every command reads an event log (``.jsonl``) or a scenario (``.yaml``).
Command modules (one per group, beside this one) register themselves on ``app``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from grounded.engine import Engine
from grounded.scenario import SCENARIO_SUFFIXES, Scenario, run

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True,
                  help="Check whether a continuation still rests on what a conversation has established.")
out = Console(highlight=False, soft_wrap=True)

File = Annotated[Path, typer.Argument(help="Scenario (.yaml) or event log (.jsonl).")]
Extensions = Annotated[list[Path] | None,
                       typer.Option("--extension", "-x", help="Rule file adding operations (repeatable).")]
At = Annotated[int | None, typer.Option("--at", help="Answer as of this earlier turn.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def load_engine(path: Path, extensions: list[Path] | None) -> Engine:
    """An engine holding a log's state, or a scenario's after all its gold turns."""
    if path.suffix in SCENARIO_SUFFIXES:
        scenario = Scenario.load(path)
        engine = Engine(scenario.header, extensions=extensions or ())
        for _ in run(scenario, engine):
            pass
        return engine
    engine = Engine.load(path, extensions=extensions or (), strict=False)
    if engine.load_error is not None:
        print(f"warning: {engine.load_error}; answering from the lines before it (up to turn "
              f"{engine.turn})", file=sys.stderr)
    return engine


