"""The verifier on the held-out corpus: per conversation and per category, unsafe accepts and coverage.

The same judges as ``verifier.py`` (by claim, offline text by coverage, the LLM
when configured), over the corpus's items, one
engine per conversation holding its gold run.  Besides accuracy, two figures
say whether the reader can be trusted (the issue "Verify from text that never
gives false assurance"):

* **unsafe accepts**: items that must not be accepted (stale, counterfactual,
  cross_conversation, new_fact) that were; target: at most 2% of them, and no
  one category above 1 in 12;
* **coverage**: the share of the items whose gold verdict is accept that were
  accepted (an abstain is not); target: at least 50% (what the coverage check
  trades for safety; an application that needs more cites its claims).

And the same items *cited* (``verify_cited``): each gold-accept item with its
gold literals as its citation (target: every one accepted), and each
counterfactual item citing as asserted the claim its text contradicts, as a
model that garbled what it cites would (target: none accepted).

Item verdicts are kept in the JSON for dev conversations only: the test
conversations are reported as totals (per conversation, per category).
"""

from __future__ import annotations

from pathlib import Path

from bench import heldout, verifier
from bench.heldout import CORPUS_CATEGORIES, CorpusItem
from grounded.engine import Engine
from grounded.interpreter.anchor import AnchorIndex
from grounded.interpreter.cited import CitedContinuation, verify_cited
from grounded.interpreter.verdict import ACCEPT

UNSAFE: tuple[str, ...] = ("stale", "counterfactual", "cross_conversation", "new_fact")
UNSAFE_SHARE_TARGET = 0.02
UNSAFE_CATEGORY_TARGET = 1 / 12
COVERAGE_TARGET = 0.50


def _counts(pairs: list[tuple[CorpusItem, str]]) -> dict[str, int]:
    return {"n": len(pairs),
            "correct": sum(v == i.expected for i, v in pairs),
            "accepted": sum(v == ACCEPT for _, v in pairs),
            "unsafe_n": sum(i.category in UNSAFE for i, _ in pairs),
            "unsafe_accepted": sum(i.category in UNSAFE and v == ACCEPT for i, v in pairs),
            "gold_accept": sum(i.expected == ACCEPT for i, _ in pairs),
            "covered": sum(i.expected == ACCEPT and v == ACCEPT for i, v in pairs)}


def tally(items: list[CorpusItem], verdicts: list[str]) -> dict:
    """Counts overall, per conversation and per category, and whether each target is met."""
    pairs = list(zip(items, verdicts, strict=True))
    overall = _counts(pairs)
    per_category = {c: _counts([p for p in pairs if p[0].category == c]) for c in CORPUS_CATEGORIES}
    worst = max(UNSAFE, key=lambda c: _share(per_category[c]["accepted"], per_category[c]["n"]))
    return {
        "overall": overall,
        "per_conversation": {n: _counts([p for p in pairs if p[0].conversation == n])
                             for n in dict.fromkeys(i.conversation for i in items)},
        "per_category": per_category,
        "targets": {
            "unsafe_share": _share(overall["unsafe_accepted"], overall["unsafe_n"]),
            "unsafe_share_met": _share(overall["unsafe_accepted"], overall["unsafe_n"]) <= UNSAFE_SHARE_TARGET,
            "worst_unsafe_category": worst,
            "unsafe_categories_met": all(_share(per_category[c]["accepted"], per_category[c]["n"])
                                         <= UNSAFE_CATEGORY_TARGET for c in UNSAFE),
            "coverage": _share(overall["covered"], overall["gold_accept"]),
            "coverage_met": _share(overall["covered"], overall["gold_accept"]) >= COVERAGE_TARGET,
        },
    }


def _share(k: int, n: int) -> float:
    return k / n if n else 0.0


def run(root: Path, split: str, limit: int | None = None, llm: verifier.Judge | None = None,
        note_llm: str | None = None) -> dict:
    """Judge the items of ``split``'s conversations (the first ``limit`` of each category in each, when given)."""
    table = heldout.load_split(root)
    names = heldout.conversations(root, split)
    items = {n: _first(heldout.load_items(root, n), limit) for n in names}
    chosen = verifier.methods(llm)
    engines = {n: heldout.gold_engine(root, n) for n in names}
    flat = [i for n in names for i in items[n]]
    try:
        verdicts = {m: [judge(engines[i.conversation], i) for i in flat] for m, (_, judge) in chosen.items()}
        cited = cited_scores(engines, flat)
    finally:
        for e in engines.values():
            e.close()
    return {
        "corpus": str(root), "split": split, "limit": limit,
        "conversations": {n: table[n].split for n in names},
        "items": len(flat),
        "methods": {m: label for m, (label, _) in chosen.items()},
        "scores": {m: tally(flat, v) for m, v in verdicts.items()},
        "cited": cited,
        "llm": note_llm,
        "item_verdicts": [{"id": i.id, "conversation": i.conversation, "category": i.category,
                           "expected": i.expected, **{m: verdicts[m][k] for m in chosen}}
                          for k, i in enumerate(flat) if table[i.conversation].split == "dev"],
    }


def cited_scores(engines: dict[str, Engine], items: list[CorpusItem]) -> dict:
    """The items as cited continuations: gold-accept ones citing their gold reading (accepted?), counterfactual
    ones citing as asserted the claim their text contradicts (accepted: a contradiction the citation carried)."""
    readers: dict[tuple[str, int], AnchorIndex] = {}

    def accepted(item: CorpusItem, asserts: tuple[str, ...], denies: tuple[str, ...]) -> bool:
        key = (item.conversation, item.at)
        engine = engines[item.conversation]
        reader = readers.get(key) or readers.setdefault(key, AnchorIndex(engine, item.at))
        cited = CitedContinuation(text=item.text, asserts=list(asserts), denies=list(denies))
        return verify_cited(engine, cited, item.at, reader=reader).verdict == ACCEPT

    gold = [i for i in items if i.expected == ACCEPT and (i.asserts or i.denies)]
    contra = [i for i in items if i.category == "counterfactual" and i.denies]
    return {"gold_accept_n": len(gold), "gold_accept_accepted": sum(accepted(i, i.asserts, i.denies) for i in gold),
            "contradicting_n": len(contra),
            "contradicting_accepted": sum(accepted(i, i.denies, ()) for i in contra)}


def _first(items: list[CorpusItem], limit: int | None) -> list[CorpusItem]:
    """The first ``limit`` items of each category (all when None), in file order."""
    if limit is None:
        return items
    return [i for k, i in enumerate(items) if sum(j.category == i.category for j in items[:k]) < limit]


def _ratio(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.1f}%)" if n else "-"


def summary_lines(result: dict) -> list[str]:
    """One line per method: unsafe accepts and coverage with their counts, against their targets."""
    lines = []
    for m, label in result["methods"].items():
        s = result["scores"][m]
        o, t = s["overall"], s["targets"]
        worst = s["per_category"][t["worst_unsafe_category"]]
        lines.append(
            f"- **{label}**: accuracy {_ratio(o['correct'], o['n'])}; "
            f"unsafe accepts {_ratio(o['unsafe_accepted'], o['unsafe_n'])} "
            f"(target <= 2%: {'met' if t['unsafe_share_met'] else 'missed'}; worst category "
            f"{t['worst_unsafe_category']} {worst['accepted']}/{worst['n']}, target <= 1 in 12: "
            f"{'met' if t['unsafe_categories_met'] else 'missed'}); "
            f"coverage {_ratio(o['covered'], o['gold_accept'])} "
            f"(target >= 50%: {'met' if t['coverage_met'] else 'missed'})")
    return lines


def markdown(result: dict) -> str:
    from bench.report import markdown_table

    names = list(result["methods"])
    labels = [result["methods"][m] for m in names]
    limit = f", the first {result['limit']} of each category in each" if result["limit"] else ""
    lines = [f"# Verifier on the held-out corpus ({result['split']} split)", "",
             f"{result['items']} items of bench/corpus over {len(result['conversations'])} conversations "
             f"({', '.join(f'{n} ({s})' for n, s in result['conversations'].items())}){limit}. "
             "Unsafe accepts: stale, counterfactual, cross_conversation and new_fact items accepted. "
             "Coverage: gold-accept items accepted (an abstain is not).", ""]
    if result.get("llm"):
        lines += [f"LLM text: {result['llm']}", ""]
    lines += summary_lines(result) + [""]
    if result.get("cited"):
        c = result["cited"]
        lines += [f"- **cited** (offline text against its citation): gold-accept items citing their gold reading "
                  f"accepted {_ratio(c['gold_accept_accepted'], c['gold_accept_n'])} (target: all); "
                  f"counterfactual items citing as asserted the claim they contradict accepted "
                  f"{_ratio(c['contradicting_accepted'], c['contradicting_n'])} (target: none)", ""]
    rows = []
    for conv in result["conversations"]:
        for m in names:
            c = result["scores"][m]["per_conversation"].get(conv)
            if c is None:
                continue
            rows.append([conv, result["methods"][m], c["n"], _ratio(c["correct"], c["n"]),
                         _ratio(c["unsafe_accepted"], c["unsafe_n"]), _ratio(c["covered"], c["gold_accept"])])
    lines += ["## Per conversation", "",
              markdown_table(["conversation", "method", "n", "correct", "unsafe accepts", "coverage"], rows,
                             align="llrrrr"), ""]
    rows = []
    for cat in CORPUS_CATEGORIES:
        first = result["scores"][names[0]]["per_category"][cat]
        rows.append([cat + (" (unsafe)" if cat in UNSAFE else ""), first["n"],
                     *(f"{s['correct']}/{s['n']}, {s['accepted']} accepted" if s["n"] else "-"
                       for s in (result["scores"][m]["per_category"][cat] for m in names))])
    overall = [result["scores"][m]["overall"] for m in names]
    rows.append(["unsafe accepts (all four)", overall[0]["unsafe_n"],
                 *(_ratio(s["unsafe_accepted"], s["unsafe_n"]) for s in overall)])
    rows.append(["coverage (gold accept)", overall[0]["gold_accept"], *(_ratio(s["covered"], s["gold_accept"])
                                                                      for s in overall)])
    lines += ["## Per category", "", "Cells: correct/n, and how many were accepted.", "",
              markdown_table(["category", "n", *labels], rows), ""]
    return "\n".join(lines)
