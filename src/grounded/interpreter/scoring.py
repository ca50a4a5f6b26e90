"""Classification scoring: multi-label F1 and exact match per utterance (the paper's Table 3).

The gold of an utterance is its scenario turn's ``labels`` (the paper's
classification); the prediction is the ``labels`` an Interpreter recorded in
the event log, or the names of the utterance's operations when it recorded
none.  Per utterance, F1 = 2|P n G| / (|P| + |G|) (1.0 when both are empty)
and exact match is P = G; a set of turns scores the mean F1 and the share of
exact matches.  Key shifts (the turns at which standing or awareness changes)
are scored on their own as well.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from grounded.io.eventlog import read_log
from grounded.scenario import Scenario


@dataclass(frozen=True, slots=True)
class TurnScore:
    turn: int
    gold: tuple[str, ...]
    predicted: tuple[str, ...]
    key_shift: bool

    @property
    def f1(self) -> float:
        return utterance_f1(set(self.predicted), set(self.gold))

    @property
    def exact(self) -> bool:
        return set(self.predicted) == set(self.gold)


@dataclass(frozen=True, slots=True)
class Summary:
    n: int
    f1: float
    exact: float


@dataclass
class ClassificationScore:
    turns: list[TurnScore]
    missing: list[int] = field(default_factory=list)
    """Gold turns the log does not have (scored as empty predictions)."""

    @property
    def overall(self) -> Summary:
        return summarize(self.turns)

    @property
    def key_shifts(self) -> Summary:
        return summarize([t for t in self.turns if t.key_shift])

    def per_operation(self) -> dict[str, tuple[int, int, int]]:
        """Operation -> (true positives, false positives, false negatives) over the turns."""
        names = sorted({x for t in self.turns for x in t.gold + t.predicted})
        out = {}
        for name in names:
            tp = sum(name in t.gold and name in t.predicted for t in self.turns)
            fp = sum(name not in t.gold and name in t.predicted for t in self.turns)
            fn = sum(name in t.gold and name not in t.predicted for t in self.turns)
            out[name] = (tp, fp, fn)
        return out

    def to_json(self) -> dict:
        def summary(s: Summary) -> dict:
            return {"n": s.n, "f1": round(s.f1, 4), "exact": round(s.exact, 4)}
        return {
            "overall": summary(self.overall), "key_shifts": summary(self.key_shifts),
            "turns": [{"turn": t.turn, "gold": list(t.gold), "predicted": list(t.predicted),
                       "f1": round(t.f1, 4), "exact": t.exact, "key_shift": t.key_shift} for t in self.turns],
            "per_operation": {k: {"tp": tp, "fp": fp, "fn": fn} for k, (tp, fp, fn) in self.per_operation().items()},
            "missing": self.missing,
        }


def utterance_f1(predicted: set[str], gold: set[str]) -> float:
    if not predicted and not gold:
        return 1.0
    return 2 * len(predicted & gold) / (len(predicted) + len(gold))


def summarize(turns: list[TurnScore]) -> Summary:
    if not turns:
        return Summary(0, 0.0, 0.0)
    return Summary(len(turns), sum(t.f1 for t in turns) / len(turns), sum(t.exact for t in turns) / len(turns))


def predicted_labels(line: dict) -> list[str]:
    """An event-log utterance's classification: its ``labels``, else its operation names."""
    if line.get("labels"):
        return list(dict.fromkeys(line["labels"]))
    return list(dict.fromkeys(op.get("op", "?") for op in line.get("ops", [])))


def score_classification(log: str | Path, scenario: Scenario, turns: Iterable[int] | None = None,
                         key_shifts: Iterable[int] | None = None) -> ClassificationScore:
    """Score an event log against a scenario's labels, on ``turns`` (default: every labelled turn)."""
    _, lines = read_log(log)
    predicted = {line.get("turn"): predicted_labels(line) for _, line in lines}
    wanted = set(turns) if turns is not None else None
    shifts = set(key_shifts if key_shifts is not None else scenario.key_shifts)
    scores, missing = [], []
    for t in scenario.turns:
        if (wanted is not None and t.turn not in wanted) or not t.labels:
            continue
        if t.turn not in predicted:
            missing.append(t.turn)
        scores.append(TurnScore(t.turn, tuple(dict.fromkeys(t.labels)), tuple(predicted.get(t.turn, [])),
                                t.turn in shifts))
    return ClassificationScore(scores, missing)


def parse_turns(spec: str) -> list[int]:
    """'1-19' or '4,7,9,12' or '1-3,7' as a list of turns."""
    out: list[int] = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        lo, sep, hi = part.partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()):
            raise ValueError(f"{part!r}: expected a turn (7) or a range (1-19)")
        out.extend(range(int(lo), int(hi) + 1) if sep else [int(lo)])
    return out
