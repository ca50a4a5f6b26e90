"""The offline rules interpreter on the held-out corpus: what ``grounded interpret -i rules`` then
``grounded score`` give on each conversation, pooled over a split.

Each conversation's texts (its scenario's speakers and utterances, nothing of
its gold operations) go through the rules interpreter into an event log; the
log is scored against the gold as ``grounded score`` does:

* **classification**: the corpus's turns carry no ``labels`` (the paper's
  hand classification, which Phases 1-3 have), so a turn's gold labels are the
  distinct names of its gold operations, which is also how an interpreter's
  prediction is read (``Proposal.labels``); multi-label F1 per utterance, its
  mean over every turn of the split, and per operation precision and recall
  (counts pooled over the conversations);
* **Dep edges**: the extracted claims aligned to the gold ones by content
  (``src/grounded/interpreter/dependencies.py``), the edges of both at the last turn,
  precision and recall pooled over the conversations.

The issue's targets: F1 >= 0.7; Hypothesize precision >= 0.8 with recall >=
0.5; Dep-edge precision >= 0.7 with recall >= 0.4.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from bench import heldout
from grounded.engine import Engine
from grounded.interpreter.dependencies import score_dependencies
from grounded.interpreter.rules import RuleInterpreter
from grounded.interpreter.runner import interpret_file
from grounded.interpreter.scoring import score_classification
from grounded.scenario import Scenario

TARGETS = {"f1": 0.7, "hypothesize_precision": 0.8, "hypothesize_recall": 0.5, "dep_precision": 0.7,
           "dep_recall": 0.4}


def labelled(scenario: Scenario) -> Scenario:
    """The scenario with each turn's gold labels: the distinct names of its gold operations."""
    turns = [dataclasses.replace(t, labels=list(dict.fromkeys(op["op"] for op in t.ops))) for t in scenario.turns]
    return dataclasses.replace(scenario, turns=turns)


def score_conversation(root: Path, name: str, workdir: Path) -> dict:
    """Interpret one conversation's texts with the rules and score the log against its gold."""
    path = root / f"{name}.yaml"
    log = workdir / f"{name}.rules.jsonl"
    interpret_file(path, RuleInterpreter(), log, overwrite=True)
    gold = labelled(heldout.scenario(root, name))
    classification = score_classification(log, gold)
    with heldout.gold_engine(root, name) as reference, Engine.load(log) as extracted:
        last = reference.turn or 0
        deps = score_dependencies(extracted, reference, at_extracted=last, at_gold=last)
    return {"turns": classification.overall.n, "f1_sum": sum(t.f1 for t in classification.turns),
            "exact": sum(t.exact for t in classification.turns),
            "per_operation": {k: {"tp": tp, "fp": fp, "fn": fn}
                              for k, (tp, fp, fn) in classification.per_operation().items()},
            "dep": {"tp": deps.tp, "extracted": len(deps.extracted_edges), "gold": len(deps.gold_edges)}}


def _div(a: float, b: float) -> float:
    return a / b if b else 0.0


def pooled(per: dict[str, dict]) -> dict:
    """Mean F1 over every turn, per-operation P/R and Dep-edge P/R from the summed counts."""
    turns = sum(c["turns"] for c in per.values())
    ops: dict[str, dict[str, int]] = {}
    for c in per.values():
        for op, counts in c["per_operation"].items():
            acc = ops.setdefault(op, {"tp": 0, "fp": 0, "fn": 0})
            for k in acc:
                acc[k] += counts[k]
    dep = {k: sum(c["dep"][k] for c in per.values()) for k in ("tp", "extracted", "gold")}
    out = {"turns": turns, "f1": _div(sum(c["f1_sum"] for c in per.values()), turns),
           "exact": _div(sum(c["exact"] for c in per.values()), turns),
           "per_operation": {op: {**c, "precision": _div(c["tp"], c["tp"] + c["fp"]),
                                  "recall": _div(c["tp"], c["tp"] + c["fn"])} for op, c in sorted(ops.items())},
           "dep": {**dep, "precision": _div(dep["tp"], dep["extracted"]), "recall": _div(dep["tp"], dep["gold"])}}
    hyp = out["per_operation"].get("hypothesize", {"precision": 0.0, "recall": 0.0})
    figures = {"f1": out["f1"], "hypothesize_precision": hyp["precision"], "hypothesize_recall": hyp["recall"],
               "dep_precision": out["dep"]["precision"], "dep_recall": out["dep"]["recall"]}
    out["targets"] = {k: {"value": v, "target": TARGETS[k], "met": v >= TARGETS[k]} for k, v in figures.items()}
    return out


def run(root: Path, split: str, workdir: Path, only: list[str] | None = None) -> dict:
    """Score the rules interpreter on ``split``'s conversations (or the ``only`` ones of them)."""
    table = heldout.load_split(root)
    names = heldout.conversations(root, split)
    if only:
        names = [n for n in names if n in only]
    workdir.mkdir(parents=True, exist_ok=True)
    per = {n: score_conversation(root, n, workdir) for n in names}
    return {"corpus": str(root), "split": split, "interpreter": "rules",
            "conversations": {n: table[n].split for n in names},
            "per_conversation": {n: {**c, "f1": _div(c["f1_sum"], c["turns"])} for n, c in per.items()},
            "pooled": pooled(per)}


def record(result: dict, path: Path) -> None:
    """Write the small baseline file ``grounded interpret`` quotes: the pooled F1 and what it was measured on."""
    p = result["pooled"]
    data = {"interpreter": "rules", "corpus": "bench/corpus", "split": result["split"],
            "conversations": list(result["conversations"]), "turns": p["turns"], "f1": round(p["f1"], 4),
            "hypothesize_precision": round(p["targets"]["hypothesize_precision"]["value"], 4),
            "hypothesize_recall": round(p["targets"]["hypothesize_recall"]["value"], 4),
            "dep_precision": round(p["dep"]["precision"], 4), "dep_recall": round(p["dep"]["recall"], 4),
            "command": f"python -m bench interpret --split {result['split']} --record"}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def markdown(result: dict) -> str:
    from bench.report import markdown_table

    p = result["pooled"]
    lines = [f"# Rules interpreter on the held-out corpus ({result['split']} split)", "",
             f"`grounded interpret -i rules` then `grounded score`, over {len(result['conversations'])} "
             f"conversations ({', '.join(result['conversations'])}), {p['turns']} turns. Gold labels of a turn: "
             "the distinct names of its gold operations.", "",
             markdown_table(["figure", "value", "target", "met"],
                            [[k.replace("_", " "), f"{t['value']:.3f}", f">= {t['target']}",
                              "yes" if t["met"] else "no"] for k, t in p["targets"].items()]), "",
             f"Dep edges: {p['dep']['tp']} right of {p['dep']['extracted']} extracted, {p['dep']['gold']} gold.", "",
             "## Per operation (pooled)", "",
             markdown_table(["operation", "tp", "fp", "fn", "precision", "recall"],
                            [[op, c["tp"], c["fp"], c["fn"], f"{c['precision']:.3f}", f"{c['recall']:.3f}"]
                             for op, c in p["per_operation"].items()]), "",
             "## Per conversation", "",
             markdown_table(["conversation", "split", "turns", "F1", "Dep tp/extracted/gold"],
                            [[n, result["conversations"][n], c["turns"], f"{c['f1']:.3f}",
                              f"{c['dep']['tp']}/{c['dep']['extracted']}/{c['dep']['gold']}"]
                             for n, c in result["per_conversation"].items()]), ""]
    return "\n".join(lines)
