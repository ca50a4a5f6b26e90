"""The direct verifier test (paper, App. E2): Verify scored item by item on Phase 2.

The items (``data/verifier_phase2.yaml``) are candidate continuations of the
Phase 2 conversation, each with the turn it follows, the literal it asserts
and the expected verdict: ``grounded`` (accept), ``ungrounded`` (reject: it
rests on something out of standing) or ``no_anchor`` (abstain: nothing in the
conversation claims it).  Verify is scored two ways:

* by claim: Verify(item.claim) on the gold Phase 2 state as of ``at``;
* by text: the Interpreter's anchoring, ``grounded.interpreter.anchor.anchor(engine,
  text) -> (claim, score) | None``, picks the claim from the continuation's
  text, then Verify as above (None means abstain).  When that function is not
  importable the report says so; nothing stands in for it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from grounded import Engine
from grounded.errors import InputError
from grounded.literals import Lit
from grounded.scenario import Scenario
from grounded.state import DependencyMap

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


def states_at(turns: set[int]) -> dict[int, Engine]:
    """One engine per turn t holding the gold Phase 2 state after turn t (turns after it not applied)."""
    scenario = phase2()
    engines = {}
    for t in sorted(turns):
        engine = Engine(scenario.header)
        for turn in scenario.turns:
            if turn.turn <= t:
                engine.apply(turn.utterance())
        engines[t] = engine
    return engines


def text_anchor() -> tuple[Callable | None, str]:
    """The Interpreter's anchor function, or None with the reason it is unavailable."""
    try:
        from grounded.interpreter.anchor import anchor  # type: ignore[import-not-found]
    except ImportError as exc:
        return None, f"grounded.interpreter.anchor.anchor is not importable ({exc})"
    return anchor, "grounded.interpreter.anchor.anchor"


def verdict_of(dm: DependencyMap, claim: str) -> str:
    from grounded.verify import verify

    return verify(dm, claim, None).status


def score(items: list[Item], verdicts: list[str]) -> dict:
    per = {c: [0, 0] for c in CATEGORIES}
    for item, v in zip(items, verdicts, strict=True):
        per[item.category][0] += v == item.expected
        per[item.category][1] += 1
    return {c: {"correct": ok, "n": n} for c, (ok, n) in per.items()}


def run(items: list[Item]) -> dict:
    engines = states_at({i.at for i in items})
    try:
        by_claim = [verdict_of(engines[i.at].state, i.claim) for i in items]
        anchor, source = text_anchor()
        by_text = None
        if anchor is not None:
            by_text = []
            for i in items:
                found = anchor(engines[i.at], i.text)
                by_text.append("no_anchor" if found is None else verdict_of(engines[i.at].state, found[0]))
    finally:
        for e in engines.values():
            e.close()
    return {
        "items": len(items),
        "by_claim": score(items, by_claim),
        "by_text": score(items, by_text) if by_text is not None else None,
        "by_text_source": source,
        "paper_verifier": {c: {"correct": a, "n": b} for c, (a, b) in PAPER_VERIFIER.items()},
        "item_verdicts": [{"id": i.id, "category": i.category, "claim": i.claim, "expected": i.expected,
                           "by_claim": v, **({"by_text": by_text[k]} if by_text else {})}
                          for k, (i, v) in enumerate(zip(items, by_claim, strict=True))],
    }


def markdown(result: dict) -> str:
    from .report import markdown_table

    def cell(s: dict | None) -> str:
        return f"{s['correct']}/{s['n']}" if s else "-"

    rows = []
    for c in CATEGORIES:
        rows.append([c, result["by_claim"][c]["n"], cell(result["by_claim"][c]),
                     cell(result["by_text"][c]) if result["by_text"] else "not available",
                     cell(result["paper_verifier"][c])])
    def pooled(scores: dict | None) -> dict | None:
        if scores is None:
            return None
        return {k: sum(scores[c][k] for c in ("stale", "counterfactual")) for k in ("correct", "n")}

    by_claim = pooled(result["by_claim"])
    rows.append(["stale + counterfactual (pooled)", by_claim["n"], cell(by_claim),
                 cell(pooled(result["by_text"])) if result["by_text"] else "not available", "25/25"])
    lines = ["# Direct verifier test (Phase 2)", "",
             f"{result['items']} items authored for this project (bench/data/verifier_phase2.yaml); the paper's "
             "column is its own 50 items.", "",
             markdown_table(["category", "n", "Verify by claim", "Verify by text", "paper: Verify"], rows), ""]
    if result["by_text"] is None:
        lines.append(f"By text: not available: {result['by_text_source']}.")
    return "\n".join(lines)
