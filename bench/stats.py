"""Exact McNemar test for paired binary outcomes (paper, App. "Statistics").

Only the discordant pairs carry information: under the null hypothesis each
is equally likely to favour either arm, so the two-sided p value is that of a
binomial test of ``wins`` successes in ``wins + losses`` trials at 1/2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scipy.stats import binomtest


@dataclass(frozen=True)
class McNemar:
    wins: int  # pairs where arm A is right and arm B wrong
    losses: int  # pairs where arm A is wrong and arm B right
    p: float

    def __str__(self) -> str:
        return f"{self.wins}:{self.losses}, p={self.p:.2g}"

    def as_dict(self) -> dict:
        return {"wins": self.wins, "losses": self.losses, "p": self.p}


def mcnemar(a: Sequence[bool], b: Sequence[bool]) -> McNemar:
    """Exact McNemar test of arm ``a`` against arm ``b`` over the same items."""
    if len(a) != len(b):
        raise ValueError(f"paired outcomes of different lengths: {len(a)} and {len(b)}")
    wins = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    losses = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    if wins + losses == 0:
        return McNemar(0, 0, 1.0)
    return McNemar(wins, losses, float(binomtest(wins, wins + losses, 0.5).pvalue))
