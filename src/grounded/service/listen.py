"""Serve an app with uvicorn on a socket bound first, so the command can say which port it got.

``uvicorn.run(port=0)`` binds any free port but, at the ``warning`` log level the
commands run at, says nothing of which one.  A caller that picked a free port
itself and passed it on loses a race: another process may take the port before
the server binds it, seconds later.  ``serve_bound`` binds (``--port 0``: the
kernel's pick) and listens, hands the bound port to ``announce`` (the command's start-up line,
which a supervisor or test reads), then runs uvicorn on that very socket, as
``uvicorn.run`` does for its worker processes (since uvicorn 0.51, whose
``Multiprocess`` takes the config and the sockets: the pin in pyproject.toml).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


def serve_bound(app: Any, host: str, port: int, announce: Callable[[int], None], **options: Any) -> None:
    """``uvicorn.run(app, host=host, port=port, **options)``, with ``announce(bound_port)`` once bound."""
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE  # the status uvicorn.run ends with when the app did not start
    from uvicorn.supervisors import Multiprocess

    config = uvicorn.Config(app, host=host, port=port, **options)
    try:
        sock = config.bind_socket()
    except SystemExit:  # it cannot bind: uvicorn logged why (not where); the status uvicorn.run gives it
        print(f"grounded: cannot listen on {host}:{port} (the error above says why)", file=sys.stderr, flush=True)
        sys.exit(STARTUP_FAILURE)
    # Listening before the announcement: a client that connects as soon as it reads the start-up line is
    # queued by the kernel until the server accepts it; a port bound but not yet listening refuses it.
    sock.listen(config.backlog)
    announce(int(sock.getsockname()[1]))
    server = None if config.workers > 1 else uvicorn.Server(config)
    try:
        if server is None:
            Multiprocess(config, sockets=[sock]).run()
        else:
            server.run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C: uvicorn re-raises it once shut down
        pass
    if server is not None and not server.started:
        sys.exit(STARTUP_FAILURE)
    print("grounded: stopped", file=sys.stderr, flush=True)
