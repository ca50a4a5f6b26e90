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

    def __init__(self, message: str, **detail: object):
        super().__init__(message)
        self.message = message
        self.detail = detail

    def to_json(self) -> dict:
        return {"error": self.code, "message": self.message, **self.detail}


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


class StoreUnavailable(ServiceError):
    """The store failed to commit: nothing was acknowledged, the cached engine is dropped."""

    status, code = 503, "store_unavailable"


class Inconsistent(ServiceError):
    """A stored conversation cannot be rebuilt as recorded (rules or extensions changed)."""

    status, code = 500, "inconsistent_store"
