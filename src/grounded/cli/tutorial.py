"""`grounded tutorial`: put the tutorial notebook where the reader can open it, and say how."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from grounded.cli.app import app, out
from grounded.core.errors import InputError

NOTEBOOK = "tutorial.ipynb"
"""Shipped beside the scenarios it reads (package data of grounded.scenarios)."""


def how_to_open(path: Path) -> str:
    """The command that opens ``path``: Jupyter Notebook or JupyterLab when installed, else how to get it."""
    for program, command in (("jupyter-notebook", "jupyter notebook"), ("jupyter-lab", "jupyter lab")):
        if shutil.which(program):
            return f"{command} {path}"
    return f"pip install 'grounded[notebook]' (the kernel and Jupyter Notebook), then: jupyter notebook {path}"


@app.command()
def tutorial(
    directory: Annotated[Path, typer.Option("--dir", "-d", help="Where to copy the notebook.")] = Path("."),
    force: Annotated[bool, typer.Option("--force", help="Overwrite a tutorial.ipynb already there.")] = False,
) -> None:
    """Copy the tutorial notebook (Phase 2 by hand, exercises whose answers stay hidden until you reveal them)
    into the current folder, or --dir, and print the command that opens it."""
    if not directory.is_dir():
        raise InputError("no such folder", path=str(directory))
    target = directory / NOTEBOOK
    if target.exists() and not force:
        raise InputError("already exists (your answers may be in it): --force overwrites it", path=str(target))
    target.write_bytes((resources.files("grounded.scenarios") / NOTEBOOK).read_bytes())
    out.print(f"wrote {target}; open it with:", markup=False)
    out.print(f"  {how_to_open(target)}", markup=False)
