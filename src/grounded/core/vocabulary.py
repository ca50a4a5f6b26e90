"""The words the dependency map is written in: standings and kinds.

The rules (prolog/vocabulary.pl, asp/vocabulary.lp) use the same words; a test
holds the three lists equal.
"""

from __future__ import annotations

from typing import Literal

Standing = Literal["active", "weakened", "abandoned", "resolved"]
"""The paper's four standing labels; S_t holds the active and resolved arguments."""

STANDINGS: tuple[str, ...] = ("active", "weakened", "abandoned", "resolved")
GOOD_STANDING = frozenset({"active", "resolved"})
"""Good standing: the standings that keep an argument in S_t.  The one Python reading of the rules'
good_standing/1 (prolog/vocabulary.pl, asp/standing.lp); tests/test_vocabulary.py holds the three equal."""

PropKind = Literal[
    "observation", "hypothesis", "assumption", "decision", "position", "constraint", "question"
]
PROP_KINDS: tuple[str, ...] = ("observation", "hypothesis", "assumption", "decision", "position", "constraint",
                               "question")

SCENARIO_SUFFIXES: tuple[str, ...] = (".yaml", ".yml")
"""How a scenario file is told from an event log (``.jsonl``) by every command that reads either
(here, not in grounded.scenario, so that telling them apart imports no scenario machinery)."""
