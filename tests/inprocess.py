"""Running the ``grounded`` entry point in this process, for tests that call it many times.

The real ``main`` runs (argument parsing, every command, the error handling
that turns exceptions into one line and an exit status); only the process
start-up is saved.  A few tests still run real processes (test_cli.py).
"""

from __future__ import annotations

import contextlib
import io
import sys

from grounded.cli import main


def run_cli(*args: object) -> tuple[int, str, str]:
    """``grounded ARGS``: (exit status, stdout, stderr)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["grounded", *map(str, args)]
    code = 0
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else int(bool(exc.code))
    finally:
        sys.argv = argv
    return code, stdout.getvalue(), stderr.getvalue()
