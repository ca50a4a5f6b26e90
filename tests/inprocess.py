"""Running the ``grounded`` entry point in this process, for tests that call it many times.

The real ``main`` runs (argument parsing, every command, the error handling
that turns exceptions into one line and an exit status); only the process
start-up is saved.  A few tests still run real processes (test_cli.py).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from dataclasses import dataclass

import typer

from grounded.cli import main
from grounded.core import collector


def run_cli(*args: object, app: typer.Typer | None = None) -> tuple[int, str, str]:
    """``grounded ARGS`` (or another app's, e.g. ``python -m bench``'s): (exit status, stdout, stderr)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["grounded", *map(str, args)]
    code = 0
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            main() if app is None else main(app)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else int(bool(exc.code))
    finally:
        sys.argv = argv
        collector.unfreeze()  # what main froze at start-up (cli.app.StartupCollector) is this process's to collect
    return code, stdout.getvalue(), stderr.getvalue()


@dataclass
class Completed:
    """What ``subprocess.run`` returns, for tests written against a real process."""

    returncode: int
    stdout: str
    stderr: str


def grounded(*args: object, cwd: str | os.PathLike | None = None, env: dict[str, str] | None = None,
             drop_env: tuple[str, ...] = (), app: typer.Typer | None = None) -> Completed:
    """``grounded ARGS`` in this process, as ``subprocess.run`` would report it.

    ``env`` sets variables and ``drop_env`` removes those starting with any of
    the prefixes, for the call only; ``cwd`` changes directory for the call.
    """
    saved = dict(os.environ)
    here = os.getcwd()
    try:
        for name in [n for n in os.environ if n.startswith(drop_env)] if drop_env else []:
            del os.environ[name]
        os.environ.update(env or {})
        if cwd is not None:
            os.chdir(cwd)
        return Completed(*run_cli(*args, app=app))
    finally:
        os.chdir(here)
        os.environ.clear()
        os.environ.update(saved)
