"""The ``grounded`` command line.

Errors are one line on stderr and exit status 2; a failed expectation in
``run`` exits 1.  Each command group lives in its own module here.
"""

from __future__ import annotations

import os
import sys

import typer

from grounded.bench.cli import bench_app
from grounded.cli import check, demo, interpret, query, replay, schema, serve, views  # noqa: F401 - they register commands
from grounded.cli.app import app
from grounded.core.errors import GroundedError

app.add_typer(bench_app, name="bench")

def main() -> None:
    """Entry point: run the app, turning every error into one line on stderr (exit 2)."""
    try:
        status = app(standalone_mode=False)
    except typer.Abort:
        sys.exit(130)
    except typer.TyperException as exc:  # usage errors: bad option, missing argument
        print(f"error: {_one_line(exc.format_message())}", file=sys.stderr)
        sys.exit(2)
    except (GroundedError, OSError) as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        sys.exit(2)
    except Exception as exc:  # noqa: BLE001 - the promise is: no traceback, ever
        if os.environ.get("GROUNDED_DEBUG"):
            raise
        print(f"internal error: {type(exc).__name__}: {_one_line(exc)} "
              "(set GROUNDED_DEBUG=1 for a traceback)", file=sys.stderr)
        sys.exit(2)
    sys.exit(status if isinstance(status, int) else 0)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


if __name__ == "__main__":  # pragma: no cover
    main()

