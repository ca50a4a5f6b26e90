"""Where two answers first differ: the element, not two long identical prefixes.

``first_difference`` walks dicts key by key (in sorted order), lists and tuples
position by position, and sets and multisets (Counter) by membership, and names
the first place where the two sides part: its path, and the value on each side
(for a set, the first element only one side has, and the other side's).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

ABSENT = "absent"


def _sort_key(value: Any) -> tuple[str, str]:
    return (type(value).__name__, repr(value))


def _ordered(keys: set[Any]) -> list[Any]:
    try:
        return sorted(keys)
    except TypeError:
        return sorted(keys, key=_sort_key)


def short(value: Any, limit: int = 160) -> str:
    text = ABSENT if value is _MISSING else repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


class _Missing:
    def __repr__(self) -> str:
        return ABSENT


_MISSING = _Missing()
_CONTAINERS = (dict, set, frozenset)  # Counter is a dict


def first_difference(a: Any, b: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """(path, value in a, value in b) at the first place a and b differ, or None if equal.

    A value absent on one side is reported as ``absent``; for sets, the path
    says which element is in one side only.
    """
    if a == b:
        return None
    if isinstance(a, Counter) and isinstance(b, Counter):
        # a multiset: the first element either side has more of, and the other side's first
        return _first_only(path, sorted_elements(a - b), sorted_elements(b - a))
    if isinstance(a, dict) and isinstance(b, dict):
        for key in _ordered(set(a) | set(b)):
            av, bv = a.get(key, _MISSING), b.get(key, _MISSING)
            if av is _MISSING and isinstance(bv, _CONTAINERS):
                av = type(bv)()  # an absent table reads as an empty one: name its first element
            if bv is _MISSING and isinstance(av, _CONTAINERS):
                bv = type(av)()
            if av != bv:
                return first_difference(av, bv, f"{path}[{key!r}]")
    if isinstance(a, (set, frozenset)) and isinstance(b, (set, frozenset)):
        return _first_only(path, _ordered(set(a - b)), _ordered(set(b - a)))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b):
        for i, (av, bv) in enumerate(zip(a, b, strict=False)):
            if av != bv:
                return first_difference(av, bv, f"{path}[{i}]")
        i = min(len(a), len(b))
        return (f"{path}[{i}]", a[i] if i < len(a) else _MISSING, b[i] if i < len(b) else _MISSING)
    return (path, a, b)


def sorted_elements(counts: Counter) -> list[Any]:
    return _ordered(set(counts))


def _first_only(path: str, only_a: list[Any], only_b: list[Any]) -> tuple[str, Any, Any]:
    return (f"{path} element", only_a[0] if only_a else _MISSING, only_b[0] if only_b else _MISSING)


def describe(what: str, left: str, a: Any, right: str, b: Any) -> str | None:
    """One line naming the first differing element of ``what``, or None if equal."""
    found = first_difference(a, b)
    if found is None:
        return None
    where, av, bv = found
    return f"{what}{where}: {left} {short(av)} but {right} {short(bv)}"
