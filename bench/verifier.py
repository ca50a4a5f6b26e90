"""The direct verifier test (paper, App. E2): Verify scored item by item on Phase 2.

The items (``data/verifier_phase2.yaml``) are candidate continuations of the
Phase 2 conversation, each with the turn it follows, the literal it asserts
and the expected verdict: ``grounded`` (accept), ``ungrounded`` (reject: it
rests on something out of standing) or ``no_anchor`` (abstain: nothing in the
conversation claims it).  Verify is scored two ways:

* by claim: Verify(item.claim) as of turn ``at``;
* by text: ``grounded.interpreter.anchor.verify_text``, the Interpreter's
  anchoring: the continuation's text is matched to the most similar
  proposition (or abstains: no anchor), then Verify as above.

Both read one engine holding the whole gold Phase 2 conversation: its
histories answer every query as of the item's turn.
"""

from __future__ import annotations

from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from grounded.core.errors import InputError
from grounded.core.literals import Lit
from grounded.engine import Engine
from grounded.interpreter.anchor import verify_text
from grounded.scenario import Scenario

Category = Literal["actual", "stale", "cross_conversation", "counterfactual"]
CATEGORIES: tuple[str, ...] = ("actual", "stale", "cross_conversation", "counterfactual")
Verdict = Literal["grounded", "ungrounded", "no_anchor"]

# Paper, tab:e2-verify: the verifier's per-category score on its own 50 items.
PAPER_VERIFIER = {"actual": (14, 15), "stale": (15, 15), "cross_conversation": (10, 10), "counterfactual": (10, 10)}


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    category: Category
    at: int
    text: str
    claim: Lit
    expected: Verdict


def items_path() -> Path:
    return Path(str(resources.files("grounded.bench") / "data" / "verifier_phase2.yaml"))


def load_items(path: Path | None = None) -> list[Item]:
    path = path or items_path()
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"cannot read the verifier items: {exc}", path=str(path)) from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("items"), list):
        raise InputError("expected a mapping with a list `items`", path=str(path))
    items = []
    for k, entry in enumerate(raw["items"]):
        try:
            items.append(Item.model_validate(entry))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(x) for x in first["loc"])
            raise InputError(f"items[{k}].{field}: {first['msg']}", path=str(path)) from exc
    ids = Counter(i.id for i in items)
    if any(n > 1 for n in ids.values()):
        raise InputError(f"duplicate item ids: {sorted(i for i, n in ids.items() if n > 1)}", path=str(path))
    return items


def phase2() -> Scenario:
    return Scenario.load(Path(str(resources.files("grounded.scenarios") / "phase2.yaml")))


def phase2_engine(until: int | None = None) -> Engine:
    """An engine holding the gold Phase 2 conversation up to turn ``until`` (all of it when None)."""
    scenario = phase2()
    engine = Engine(scenario.header)
    for turn in scenario.turns:
        if until is None or turn.turn <= until:
            engine.apply(turn.utterance())
    return engine


def score(items: list[Item], verdicts: list[str]) -> dict:
    per = {c: [0, 0] for c in CATEGORIES}
    for item, v in zip(items, verdicts, strict=True):
        per[item.category][0] += v == item.expected
        per[item.category][1] += 1
    return {c: {"correct": ok, "n": n} for c, (ok, n) in per.items()}


def run(items: list[Item]) -> dict:
    with phase2_engine() as engine:
        by_claim = [engine.verify(i.claim, at=i.at).status for i in items]
        by_text = [verify_text(engine, i.text, at=i.at).status for i in items]
    return {
        "items": len(items),
        "by_claim": score(items, by_claim),
        "by_text": score(items, by_text),
        "paper_verifier": {c: {"correct": a, "n": b} for c, (a, b) in PAPER_VERIFIER.items()},
        "item_verdicts": [{"id": i.id, "category": i.category, "claim": i.claim, "expected": i.expected,
                           "by_claim": c, "by_text": t} for i, c, t in zip(items, by_claim, by_text, strict=True)],
    }


def markdown(result: dict) -> str:
    from grounded.bench.report import markdown_table

    def cell(s: dict) -> str:
        return f"{s['correct']}/{s['n']}"

    rows = []
    for c in CATEGORIES:
        rows.append([c, result["by_claim"][c]["n"], cell(result["by_claim"][c]),
                     cell(result["by_text"][c]), cell(result["paper_verifier"][c])])

    def pooled(scores: dict) -> dict:
        return {k: sum(scores[c][k] for c in ("stale", "counterfactual")) for k in ("correct", "n")}

    by_claim = pooled(result["by_claim"])
    rows.append(["stale + counterfactual (pooled)", by_claim["n"], cell(by_claim),
                 cell(pooled(result["by_text"])), "25/25"])
    lines = ["# Direct verifier test (Phase 2)", "",
             f"{result['items']} items authored for this project (bench/data/verifier_phase2.yaml); the paper's "
             "column is its own 50 items.", "",
             markdown_table(["category", "n", "Verify by claim", "Verify by text", "paper: Verify"], rows), ""]
    return "\n".join(lines)
