"""The service's settings in one place: the store, and every bound against a client taking the service.

``grounded serve`` takes each as an option of the same name (``--max-text``...);
docs/serve.md lists them with their values and the tests that hold them.
Kept apart from ``api.py`` (FastAPI) so the CLI reads the defaults without
importing the web stack.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from grounded.core.bounds import MAX_LINE_BYTES

if TYPE_CHECKING:
    from grounded.service.connections import ConnectionLimits
    from grounded.service.reading import ReadingLimits
    from grounded.service.tenantlimits import TenantLimits

MAX_BODY = MAX_LINE_BYTES
"""A request body may be as long as an event-log line (docs/reliability.md): no utterance needs a larger body."""


@dataclass
class Settings:
    """What one ``grounded serve`` runs with; each process of ``--workers N`` applies every bound on its own but
    the tenants' readings (in flight, per minute), counted in the store."""

    db: str | None = None
    extensions: list[str] = field(default_factory=list)
    cache: int = 1000
    cache_per_tenant: int = 100
    """Conversations of one tenant kept in memory (per server process): its least recently used go past it."""
    cache_mb_per_tenant: int = 512
    """Megabytes of world models one tenant's cached conversations may hold (per server process)."""
    cold_rows: int = 2000
    """A conversation not cached with at least this many utterances is built off the event loop (per server
    process): the others' requests go on meanwhile."""
    cold_wait: float = 1.0
    """Seconds a request waits for such a build before it is answered 503 with Retry-After (the build goes on)."""
    max_body: int = MAX_BODY
    quiet: bool = False
    """No request log lines (read by the worker processes of ``--workers N``)."""
    # The service's bounds against one client taking it (docs/serve.md lists each with its test).
    max_text: int = 20_000
    """Characters in a text to verify (about 3,000 words): 413 past it."""
    read_workers: int = max(1, min(4, (os.cpu_count() or 2) - 1))
    """Reader processes (per server process) that verify texts off the event loop: a core left to the loop."""
    reads_per_tenant: int = 2
    """Text readings one tenant may have in flight at once, across every server process on the store (counted in
    it: grounded.service.tenantlimits): 429 with Retry-After past it."""
    reads_per_minute: int = 0
    """Text readings one tenant may start per minute, across every server process on the store (0: no bound):
    429 with Retry-After past it."""
    read_deadline: float = 15.0
    """Seconds a text reading may take, queue included: 504 naming it past it."""
    header_timeout: float = 10.0
    """Seconds from a connection (or the end of its last response) to a request's complete header: closed past it."""
    body_timeout: float = 60.0
    """Seconds from a request's header to the end of its body: closed past it (max_body fits at 0.6 Mbit/s)."""
    keep_alive: float = 5.0
    """Seconds an idle keep-alive connection is kept between requests."""
    max_connections: int = 512
    """Open connections per server process: one more is answered 503 and closed."""
    max_head: int = 65_536
    """Bytes of a request line and header: 431 and closed past it (a long text goes in a POST body)."""

    def reading_limits(self) -> ReadingLimits:
        from grounded.service.reading import ReadingLimits

        return ReadingLimits(self.max_text, self.read_workers, self.reads_per_tenant, self.read_deadline,
                             self.reads_per_minute)

    def tenant_counts(self) -> TenantLimits:
        """Where the tenants' bounds are counted: the store, so that every process on it counts against one
        bound; a slot's lease outlasts any reading (twice its deadline and a minute)."""
        from grounded.service.tenantlimits import open_limits

        return open_limits(self.db, lease=2 * self.read_deadline + 60)

    def connection_limits(self) -> ConnectionLimits:
        from grounded.service.connections import ConnectionLimits

        return ConnectionLimits(self.header_timeout, self.body_timeout, self.max_connections, self.max_head)
