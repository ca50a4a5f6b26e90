"""Questions a turn puts to the class: what one query asks, what the engine answers, and whether an answer matches.

A scenario turn may carry ``questions`` ({ask, query, answer}): the page shows
``ask`` and holds the engine's answer back until the student has answered,
``grounded run`` checks the lecturer's ``answer`` against the engine, and the
tutorial's exercises (present/notebook.py) compare a prediction the same way.
The engine's answer is always computed from ``query``, never written down:
a scenario edited later cannot leave a stale answer on the page.

Each query kind has one shape of answer, and that shape says how two answers
compare: ``yes_no`` and ``choice`` by equality, ``set`` as sets (the order in
which Affected* reaches its claims is shown, not asked).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from grounded.core.vocabulary import STANDINGS

if TYPE_CHECKING:
    from grounded.engine import Engine

QUERIES: dict[str, str] = {
    "verify": "yes_no",
    "standing": "choice",
    "affected*": "set",
    "affected": "set",
    "dep": "set",
}
"""The query kinds a question may ask, each with the shape of its answer."""

NO_STANDING = "none"
"""The answer to ``standing c`` when no argument claims c."""

QUESTION_KEYS = ("ask", "query", "answer")


@dataclass
class Question:
    ask: str
    kind: str
    literal: str
    answer: Any = None
    """The lecturer's expected answer, normalised to the query's shape (None: not given)."""
    line: int = 0

    @property
    def query(self) -> str:
        return f"{self.kind} {self.literal}"

    @property
    def shape(self) -> str:
        return QUERIES[self.kind]


def parse_query(text: Any) -> tuple[str, str]:
    """``"affected* o5"`` as (kind, literal); a ValueError saying what a query looks like."""
    parts = text.split() if isinstance(text, str) else []
    if len(parts) != 2 or parts[0].lower() not in QUERIES:
        raise ValueError(f"`query` is one of {', '.join(k + ' LITERAL' for k in QUERIES)}, not {text!r}")
    return parts[0].lower(), parts[1]


def normalise(shape: str, value: Any) -> Any:
    """An answer written by a lecturer or typed by a student, in the shape's comparable form:
    ``yes``/``no``, a standing, or a sorted list of literals.  ValueError when it cannot be one."""
    if shape == "yes_no":
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, str) and value.strip().lower() in ("yes", "no"):
            return value.strip().lower()
        raise ValueError(f"the answer to a verify question is yes or no, not {value!r}")
    if shape == "choice":
        if isinstance(value, str) and value.strip().lower() in (*STANDINGS, NO_STANDING):
            return value.strip().lower()
        raise ValueError(f"the answer to a standing question is one of {', '.join((*STANDINGS, NO_STANDING))}, "
                         f"not {value!r}")
    if isinstance(value, str):
        value = [v for v in re.split(r"[\s,;{}\[\]]+", value) if v]
    if isinstance(value, (list, tuple, set)) and all(isinstance(v, str) for v in value):
        return sorted(set(value))
    raise ValueError(f"the answer to an Affected or Dep question is a list of literals, not {value!r}")


def engine_answer(engine: Engine, question: Question, at: int | None = None) -> dict[str, Any]:
    """The engine's answer as of turn ``at``: ``value`` (comparable, see ``normalise``), ``shown``
    (in the engine's own order: Affected* in the order its walk reaches the claims) and ``detail``.
    Asked of the query registry (``Engine.ask``), as every front end asks it."""
    kind, lit = question.kind, question.literal
    if kind == "verify":
        v = engine.ask("verify", at, claim=lit)
        value = "yes" if v["grounded"] else "no"
        detail = f"Dep*: {', '.join(v['chain'])}" if v["grounded"] else (v["reason"] or v["status"])
        return {"value": value, "shown": [value], "detail": detail}
    if kind == "standing":
        value = engine.ask("standing", at, claim=lit)["standing"] or NO_STANDING
        return {"value": value, "shown": [value], "detail": "" if value != NO_STANDING else "no argument claims it"}
    if kind == "dep":
        shown = engine.ask("dep", at, claim=lit)["dep"]
        return {"value": sorted(set(shown)), "shown": shown, "detail": ""}
    a = engine.ask("affected", at, claim=lit, closure=kind == "affected*")
    return {"value": sorted(set(a["claims"])), "shown": a["claims"],
            "detail": "; ".join(f"{c} (hop {a['hops'][c]})" for c in a["claims"]) or "nothing rests on it"}


def matches(shape: str, expected: Any, got: Any) -> bool:
    """Whether two answers of one shape agree (both normalised)."""
    return normalise(shape, expected) == normalise(shape, got)


def choices(question: Question) -> list[str]:
    """What a student picks from (empty: the student types literals)."""
    return {"yes_no": ["yes", "no"], "choice": [*STANDINGS, NO_STANDING]}.get(question.shape, [])
