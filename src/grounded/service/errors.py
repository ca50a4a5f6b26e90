"""What the service answers when it does not answer the question: an HTTP status, a code, a message.

The library's own refusals (InputError, PreconditionError) are not wrapped
here: the API reports them as they are (422), with the rules' codes and
messages unchanged.
"""

from __future__ import annotations

from grounded.core.errors import GroundedError


class ServiceError(GroundedError):
    """An error with the HTTP status it maps to and a stable ``code``.

    A GroundedError, so the command line (``grounded keys``, ``export``, ``mcp``)
    says it as every refusal: one line, ``error: ...``, exit 2.
    """

    status = 500
    code = "internal"
    headers: dict[str, str] | None = None
    """HTTP headers the answer carries (Retry-After)."""
    public: str | None = None
    """What a client is told instead of ``message`` when that names the server's own parts (a store's path, a
    database's user, host and name, a driver's error): those go to the server's log (``to_json`` callers)."""

    def __init__(self, message: str, **detail: object):
        super().__init__(message)
        self.message = message
        self.detail = detail

    def to_json(self) -> dict:
        return {"error": self.code, "message": self.public or self.message, **self.detail}


class Unauthorized(ServiceError):
    status, code = 401, "unauthorized"


class NotFound(ServiceError):
    status, code = 404, "not_found"


class Conflict(ServiceError):
    """An append that named the turn it expected and found another (optimistic concurrency)."""

    status, code = 409, "conflict"


class Exists(ServiceError):
    status, code = 409, "exists"


class Invalid(ServiceError):
    """Bad input the library does not see (an id in a path, an unknown extension or interpreter)."""

    status, code = 422, "invalid"


class TooLarge(ServiceError):
    status, code = 413, "too_large"


class Busy(ServiceError):
    """The tenant already has as many text readings in flight as it may: retry after ``retry_after`` seconds."""

    status, code = 429, "too_many_requests"

    def __init__(self, message: str, retry_after: int, **detail: object):
        super().__init__(message, retry_after=retry_after, **detail)
        self.headers = {"Retry-After": str(retry_after)}


class DeadlineExceeded(ServiceError):
    """A request's work went past the service's deadline for it; nothing was changed."""

    status, code = 504, "deadline_exceeded"


class ServiceUnavailable(ServiceError):
    """A part of the service stopped (a reader process); nothing was changed: retry."""

    status, code = 503, "unavailable"


class Loading(ServiceError):
    """The conversation's engine is being built from the store off the event loop and was not ready within the
    wait a request gives it: retry after ``retry_after`` seconds (nothing was changed)."""

    status, code = 503, "loading"

    def __init__(self, message: str, retry_after: int, **detail: object):
        super().__init__(message, retry_after=retry_after, **detail)
        self.headers = {"Retry-After": str(retry_after)}


class StoreUnavailable(ServiceError):
    """The store failed to commit: nothing was acknowledged, the cached engine is dropped."""

    status, code = 503, "store_unavailable"
    public = "the store did not answer or did not commit: nothing was changed; retry (the server's log says why)"


class StoreLocked(StoreUnavailable):
    """Another process holds the store's write lock: a transaction asked not to wait for it did not begin.

    The server waits for the lock off its event loop (``host.py``) and tries again; a client sees it only as
    the 503 of a lock held past ``Store.LOCK_TIMEOUT``."""


class Inconsistent(ServiceError):
    """A stored conversation cannot be rebuilt as recorded (rules or extensions changed)."""

    status, code = 500, "inconsistent_store"
