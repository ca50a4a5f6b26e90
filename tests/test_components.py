"""grounded.epistemic.semantics.least_joined, the components common knowledge reads, against a union-find
written as the definition reads: two items are joined when they share a cell of some partition."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from grounded.epistemic.semantics import least_joined


def _union_find(cells: list[list[int]], n: int) -> list[int]:
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for cell in cells:
        first: dict[int, int] = {}
        for item, c in enumerate(cell):
            a, b = root(item), root(first.setdefault(c, item))
            parent[max(a, b)] = min(a, b)
    return [root(i) for i in range(n)]


@st.composite
def partitions(draw):
    n = draw(st.integers(0, 40))
    sizes = draw(st.lists(st.integers(1, 12), max_size=4))
    return n, [draw(st.lists(st.integers(0, size - 1), min_size=n, max_size=n)) for size in sizes], sizes


@given(partitions())
def test_each_item_is_labelled_by_the_least_item_of_its_component(case):
    n, cells, sizes = case
    labels = least_joined([np.array(c, np.int64) for c in cells], sizes, n)
    assert labels.tolist() == _union_find(cells, n)


def test_a_long_chain_is_one_component():
    """Cells that overlap one item at a time along a chain of 5,000 items: the longest path there can be."""
    n = 5000
    odd, even = np.arange(n) // 2, (np.arange(n) + 1) // 2
    assert least_joined([odd, even], [n // 2 + 1, n // 2 + 1], n).tolist() == [0] * n
