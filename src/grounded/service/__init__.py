"""``grounded serve``: the verifier as a service (``grounded.service``).

The store (SQLite by default, PostgreSQL for several workers) is the event
log: one row per accepted utterance, beside each conversation's header and
extensions.  Engines in memory are caches rebuilt from it.  One thread per
process owns every Engine, the event loop's (SWI-Prolog is single-threaded
and the rules hold one engine's state at a time): reads run inline, writes
are committed in groups (``host.py``).  The HTTP API (FastAPI) and the MCP
tools are thin front-ends over ``Conversations``.  See docs/serve.md.
"""

from grounded.service.errors import ServiceError
from grounded.service.store import Store, open_store

__all__ = ["ServiceError", "Store", "open_store"]
