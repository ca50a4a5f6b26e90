"""An exercise's answers kept out of the page's source until the student checks.

The page holds everything it shows, answers included (it opens from a USB stick, with no server behind it).
A question's answer is written *sealed*: its JSON XORed with a keystream seeded by the question (a 32-bit
FNV-1a hash of ``key``, then xorshift32), in base64, so that neither the source nor a search through it shows
the answer; the page's script unseals it on Check (``unseal`` in book.js computes the same stream).  This
keeps an answer from being read by accident or at a glance; it is no secret from a student who reads the
script (the page's pictures of later turns tell as much): a handout without answers is the worksheet print.
"""

from __future__ import annotations

import base64
import json
from typing import Any


def _stream(key: str, n: int) -> bytes:
    h = 2166136261
    for byte in key.encode("utf-8"):
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    x = h or 1
    out = bytearray()
    for _ in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out.append(x & 0xFF)
    return bytes(out)


def seal(value: Any, key: str) -> str:
    """``value`` as JSON, sealed with ``key`` (base64 text)."""
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(bytes(a ^ b for a, b in zip(raw, _stream(key, len(raw)), strict=True))).decode("ascii")


def unseal(text: str, key: str) -> Any:
    """What ``seal`` sealed with ``key``."""
    raw = base64.b64decode(text)
    return json.loads(bytes(a ^ b for a, b in zip(raw, _stream(key, len(raw)), strict=True)).decode("utf-8"))
