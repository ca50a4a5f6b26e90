"""Every string a YAML document holds: what the lexicon tests compare with scenario and item texts."""

from __future__ import annotations


def strings(node: object, keys: bool = False) -> list[str]:
    """The strings of ``node`` (nested mappings and lists), the mappings' keys too when ``keys``."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in (strings(k, keys) if keys else []) + strings(v, keys)]
    if isinstance(node, list):
        return [s for v in node for s in strings(v, keys)]
    return []
