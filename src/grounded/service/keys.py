"""API keys: ``gk_<id>_<secret>``; the store keeps the id and a hash of the secret, never the secret.

The secret is 32 random bytes, so a plain SHA-256 is enough (no password
stretching: nothing to brute-force).  The id lets the store find the row
without comparing hashes across tenants; the comparison itself is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from grounded.core.bounds import preview
from grounded.core.literals import check_atom
from grounded.service.errors import Invalid

PREFIX = "gk"
_KEY = re.compile(r"gk_([0-9a-f]{16})_([A-Za-z0-9_\-]{43})")


def new_key() -> tuple[str, str, str]:
    """(key id, the key to hand out once, the hash to store)."""
    key_id = secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    return key_id, f"{PREFIX}_{key_id}_{secret}", digest(secret)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def parse(key: str) -> tuple[str, str] | None:
    """(key id, secret) of a well-formed key, else None."""
    m = _KEY.fullmatch(key)
    return (m.group(1), m.group(2)) if m else None


def matches(secret: str, stored_hash: str) -> bool:
    return hmac.compare_digest(digest(secret), stored_hash)


def check_name(kind: str, name: str) -> str:
    """A tenant or conversation id, spelt and bounded as the library's proposition ids."""
    try:
        if not isinstance(name, str):
            raise ValueError(f"{preview(str(name))} is not a string")
        return check_atom(name)
    except ValueError as exc:
        raise Invalid(f"{kind} id {exc}", field=kind) from None
