"""The ``grounded`` command line.

Errors are one line on stderr and exit status 2; a failed expectation in
``run`` exits 1.  Each command group lives in its own module here, imported
when one of its commands is invoked (grounded.cli.app.COMMANDS).
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from grounded.cli.app import STARTUP, app
from grounded.core.errors import GroundedError


def _version(value: bool) -> None:
    if value:
        from grounded.solvers.ruleset import package_version, rules_version

        print(f"grounded {package_version()} (rules {rules_version()})")
        raise typer.Exit(0)


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version (and the rules version logs record) and exit.")
                       ] = False,
) -> None:
    """Check whether a continuation still rests on what a conversation has established.

    Query commands exit 0 when answered (verify: and grounded), 1 when answered
    and not grounded or with no anchor (affected: the literal is unknown), 2 on
    an input error, named on one line of stderr (file:line: field).
    """


def main(cli: typer.Typer = app, checks: tuple[type[Exception], ...] = ()) -> None:
    """Entry point: run the app (or another typer app: ``python -m bench``), turning every error into one line on
    stderr (exit 2).  An exception of ``checks`` is a check the command made of its own results that did not
    hold (a benchmark's target missed): one line saying so, exit 1."""
    try:
        with STARTUP:  # no garbage collection while the command's modules are imported
            status = cli(standalone_mode=False)
    except (typer.Abort, KeyboardInterrupt):
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except typer.TyperException as exc:  # usage errors: bad option, missing argument
        print(f"error: {_one_line(exc.format_message())}", file=sys.stderr)
        sys.exit(2)
    except (GroundedError, OSError) as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        sys.exit(2)
    except checks as exc:
        print(f"check failed: {_one_line(exc)}", file=sys.stderr)
        sys.exit(1)
    except Exception as exc:  # noqa: BLE001 - the promise is: no traceback, ever
        if os.environ.get("GROUNDED_DEBUG"):
            raise
        print(f"internal error: {type(exc).__name__}: {_one_line(exc)} "
              "(set GROUNDED_DEBUG=1 for a traceback)", file=sys.stderr)
        sys.exit(2)
    sys.exit(status if isinstance(status, int) else 0)


def _one_line(exc: BaseException | str) -> str:
    """The message on one line, its control characters visible (it may quote a file's text: present.visible)."""
    from grounded.present.visible import visible

    return visible(" ".join(str(exc).split()))


if __name__ == "__main__":  # pragma: no cover
    main()

