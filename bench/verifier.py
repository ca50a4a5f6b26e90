"""The direct verifier test (paper, App. E2, extended): verdicts on continuations of Phases 2 and 3.

The items (``data/verifier.yaml``) are candidate continuations of the two
scenario conversations, each with the turn it follows, the literals it
asserts and denies (the gold reading) and the expected verdict: ``accept``,
``reject`` or ``abstain``.  A third of them form a test split that no cue
list or threshold was tuned on.  Each item is judged by:

* **by claim**: the verdict rule (``grounded.interpreter.verdict``) on the
  gold literals, Verify on each as of turn ``at``: the walk and the rule
  alone, the reading taken as given;
* **offline text**: ``AnchorIndex.verify``, which reads the text itself by
  coverage (``coverage.py``: every clause covered by the claims' words through
  WordNet, numbers, polarity, causal direction);
* **LLM text**: ``LLMAnchor`` through the configured endpoint, when there is one.

One engine per scenario holds its whole gold conversation; its histories
answer every query as of the item's turn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grounded.core.errors import InputError
from grounded.core.fields import Lit
from grounded.engine import Engine
from grounded.interpreter.anchor import AnchorIndex
from grounded.interpreter.verdict import ACCEPT, by_claim
from grounded.scenario.file import NoAliasLoader
from tests.phases import scenario_engine

Category = Literal["actual", "stale", "cross_conversation", "counterfactual", "negated_stale", "paraphrase"]
CATEGORIES: tuple[str, ...] = ("actual", "stale", "cross_conversation", "counterfactual", "negated_stale",
                               "paraphrase")
SPLITS: tuple[str, ...] = ("dev", "test")
Verdict = Literal["accept", "reject", "abstain"]
MUST_NOT_ACCEPT = ("stale", "counterfactual")
"""Categories whose acceptance rate is a target of its own (issue 14: at most 1 in 10 on the test split)."""

# Paper, tab:e2-verify: the verifier's per-category score on its own 50 Phase 2 items.
PAPER_VERIFIER = {"actual": (14, 15), "stale": (15, 15), "cross_conversation": (10, 10), "counterfactual": (10, 10)}


class ItemBase(BaseModel):
    """What every judge reads of an item: its turn, text, gold reading and expected verdict."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(max_length=200)
    at: int = Field(ge=1)
    text: str = Field(min_length=1, max_length=100_000)
    asserts: tuple[Lit, ...] = ()
    denies: tuple[Lit, ...] = ()
    expected: Verdict


class Item(ItemBase):
    """An item of ``data/verifier.yaml``: a continuation of Phase 2 or 3, with its split."""

    phase: Literal[2, 3]
    category: Category
    split: Literal["dev", "test"]


ItemT = TypeVar("ItemT", bound=ItemBase)


def items_path() -> Path:
    return Path(__file__).resolve().parent / "data" / "verifier.yaml"


def load_items(path: Path | None = None) -> list[Item]:
    path = path or items_path()
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=NoAliasLoader)  # noqa: S506 - a SafeLoader
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"cannot read the verifier items: {exc}", path=str(path)) from exc
    return parse_items(raw, Item, path)


def parse_items(raw: object, model: type[ItemT], path: Path) -> list[ItemT]:
    """The ``items`` of a YAML mapping as ``model``s, unique by id; an error names the item and field."""
    if not isinstance(raw, dict) or not isinstance(raw.get("items"), list):
        raise InputError("expected a mapping with a list `items`", path=str(path))
    items = []
    for k, entry in enumerate(raw["items"]):
        try:
            items.append(model.model_validate(entry))
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(x) for x in first["loc"])
            raise InputError(f"items[{k}].{field}: {first['msg']}", path=str(path)) from exc
    ids = Counter(i.id for i in items)
    if any(n > 1 for n in ids.values()):
        raise InputError(f"duplicate item ids: {sorted(i for i, n in ids.items() if n > 1)}", path=str(path))
    return items


def phase2_engine(until: int | None = None) -> Engine:
    return scenario_engine(2, until)


Judge = Callable[[Engine, ItemBase], str]


def judge_by_claim(engine: Engine, item: ItemBase) -> str:
    return by_claim(engine, item.asserts, item.denies, item.at).verdict


def offline_judge() -> Judge:
    """The offline reader (coverage); one index per (engine, turn), built once."""
    indexes: dict[tuple[int, int], AnchorIndex] = {}

    def judge(engine: Engine, item: ItemBase) -> str:
        key = (id(engine), item.at)
        if key not in indexes:
            indexes[key] = AnchorIndex(engine, item.at)
        return indexes[key].verify(item.text).verdict

    return judge


class _LLMJudge:
    """The LLM anchoring through the configured endpoint, with its call log."""

    def __init__(self, call_log: Path):
        from grounded.interpreter.calllog import CallLog
        from grounded.interpreter.llm import LLMConfig
        from grounded.interpreter.llm_anchor import LLMAnchor

        self.reader = LLMAnchor(LLMConfig.from_env(), CallLog(call_log))

    def __call__(self, engine: Engine, item: ItemBase) -> str:
        return self.reader.verify(engine, item.text, item.at).verdict

    def close(self) -> None:
        self.reader.close()


def llm_judge(call_log: Path) -> _LLMJudge:
    return _LLMJudge(call_log)


def methods(llm: Judge | None = None) -> dict[str, tuple[str, Judge]]:
    """The methods to score: name -> (label, judge); the LLM one only when available."""
    out: dict[str, tuple[str, Judge]] = {"by_claim": ("by claim", judge_by_claim),
                                         "offline": ("offline text (coverage, WordNet 3.0)", offline_judge())}
    if llm is not None:
        out["llm"] = ("LLM text", llm)
    return out


def _tally(items: list[Item], verdicts: list[str]) -> dict:
    table: dict[str, dict[str, dict[str, int]]] = {}
    for split in (*SPLITS, "all"):
        chosen = [(i, v) for i, v in zip(items, verdicts, strict=True) if split in ("all", i.split)]
        per = {c: {"correct": 0, "n": 0, "accepted": 0} for c in (*CATEGORIES, "overall")}
        for item, v in chosen:
            for key in (item.category, "overall"):
                per[key]["correct"] += v == item.expected
                per[key]["n"] += 1
                per[key]["accepted"] += v == ACCEPT
        table[split] = per
    return table


def run(items: list[Item], llm: Judge | None = None, note_llm: str | None = None) -> dict:
    chosen = methods(llm)
    engines: dict[int, Engine] = {phase: scenario_engine(phase) for phase in sorted({i.phase for i in items})}
    try:
        verdicts = {name: [judge(engines[i.phase], i) for i in items] for name, (_, judge) in chosen.items()}
    finally:
        for e in engines.values():
            e.close()
    return {
        "items": len(items),
        "splits": {s: sum(i.split == s for i in items) for s in SPLITS},
        "methods": {name: label for name, (label, _) in chosen.items()},
        "scores": {name: _tally(items, v) for name, v in verdicts.items()},
        "llm": note_llm,
        "paper_verifier": {c: {"correct": a, "n": b} for c, (a, b) in PAPER_VERIFIER.items()},
        "item_verdicts": [{"id": i.id, "phase": i.phase, "split": i.split, "category": i.category,
                           "expected": i.expected, **{name: verdicts[name][k] for name in chosen}}
                          for k, i in enumerate(items)],
    }


def _cell(s: dict) -> str:
    return f"{s['correct']}/{s['n']}" if s["n"] else "-"


def markdown(result: dict) -> str:
    from bench.report import markdown_table

    names = list(result["methods"])
    lines = ["# Direct verifier test (Phases 2 and 3)", "",
             f"{result['items']} items authored for this project (bench/data/verifier.yaml): "
             f"{result['splits']['dev']} dev, {result['splits']['test']} test (never tuned on). "
             "Cells: correct/n; 'accepted' rows count stale and counterfactual items accepted (lower is better).",
             ""]
    if result.get("llm"):
        lines += [f"LLM text: {result['llm']}", ""]
    for split in SPLITS:
        if not result["splits"][split]:
            continue  # a run of one split (--split) says nothing of the other
        rows = []
        for c in (*CATEGORIES, "overall"):
            rows.append([c, result["scores"][names[0]][split][c]["n"],
                         *(_cell(result["scores"][n][split][c]) for n in names)])
        for c in MUST_NOT_ACCEPT:
            rows.append([f"{c}: accepted", result["scores"][names[0]][split][c]["n"],
                         *(f"{result['scores'][n][split][c]['accepted']}" for n in names)])
        lines += [f"## {split} split", "",
                  markdown_table(["category", "n", *(result["methods"][n] for n in names)], rows), ""]
    paper = result["paper_verifier"]
    lines += ["Paper (tab:e2-verify, its own 50 Phase 2 items): "
              + ", ".join(f"{c} {v['correct']}/{v['n']}" for c, v in paper.items()) + ".", ""]
    return "\n".join(lines)
