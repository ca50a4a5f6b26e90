"""``grounded serve``: the verifier as a service (``grounded.service``).

The store (SQLite by default, PostgreSQL for several workers) is the event
log: one row per accepted utterance, beside each conversation's header and
extensions.  Engines in memory are caches rebuilt from it.  One thread per
process owns every Engine (SWI-Prolog is single-threaded and the rules hold
one engine's state at a time); the HTTP API (FastAPI) and the MCP tools send
it jobs and await the answers.  See docs/serve.md.
"""

from grounded.service.errors import ServiceError
from grounded.service.store import Store, open_store

__all__ = ["ServiceError", "Store", "open_store"]
