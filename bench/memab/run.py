"""``python -m bench memab``: MemAB-FC through the engine, per stream length.

For each length: ingest the stream natively (stream.py), check the engine's
active set against larger-serial-wins, then for every question of both hops

* retrieve the top 50 facts twice with one TF-IDF retriever: over the active
  set (verifier arm) and over the whole stream (transcript-RAG);
* score, with no LLM, answer recall@50 (the gold answer is contained in a
  retrieved fact) and the stale-fact rate (share of retrieved facts already
  superseded), and compare the arms' recall with an exact McNemar test;
* count the prompt tokens each arm would send, and full context's;
* answer with the symbolic reader from the active store;
* if an endpoint is configured, answer with the LLM from each arm's prompt
  and compare the arms with exact McNemar tests.

Also measured: how many gold answers agree with larger-serial-wins (a gold
answer that only a superseded fact supports caps every reader), and the
time of ingestion plus 100 questions (target: <= 10 s at 262K).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench import llm as llm_mod
from bench.datasets import MEMAB_LENGTHS
from bench.memab import prompts
from bench.memab.facts import normalise
from bench.memab.reader import ActiveStore
from bench.memab.stream import HOPS, Question, Stream, ingest, larger_serial_wins, load_stream
from bench.retrieval import TfidfRetriever
from bench.stats import mcnemar
from grounded.interpreter.endpoint import Endpoint
from grounded.present.tokens import NAME as TOKENIZER
from grounded.present.tokens import count_tokens

K = 50
TIMED_QUESTIONS = 100

# Paper, App. "MemoryAgentBench-CR" (tab:cr-perlength): verifier and transcript-RAG accuracy of its
# best QA model (GPT-4o), and App. "Experimental Details" for the supersession counts.
PAPER_GPT4O = {
    "sh": {"6k": (0.99, 0.96), "32k": (0.98, 0.93), "64k": (0.98, 0.97), "262k": (0.95, 0.94)},
    "mh": {"6k": (0.48, 0.16), "32k": (0.27, 0.15), "64k": (0.32, 0.15), "262k": (0.15, 0.06)},
}
PAPER_SUPERSEDED = {"6k": (161, 455), "262k": (7237, 18332)}
PAPER_TOKENS = "verifier and transcript-RAG 742-823 tokens per query; full context 6.0k (6K) to 114.5k (262K)"


@dataclass
class Settings:
    lengths: tuple[str, ...] = MEMAB_LENGTHS
    questions: int | None = None  # per hop; None: all 100
    llm: Endpoint | None = None
    workers: int = 4


@dataclass
class QuestionResult:
    question: Question
    recall: dict[str, bool] = field(default_factory=dict)
    stale: dict[str, float] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    prompts: dict[str, str] = field(default_factory=dict)  # per retrieval arm, what the LLM reader sends
    symbolic: str | None = None
    symbolic_correct: bool = False
    gold_consistent: bool = False
    llm: dict[str, str] = field(default_factory=dict)
    llm_correct: dict[str, bool] = field(default_factory=dict)


def correct(answer: str | None, gold: str) -> bool:
    """Normalised containment of the gold answer (the paper's scoring)."""
    return answer is not None and normalise(gold) in normalise(answer)


def run(data: Path, settings: Settings, prog=None) -> dict:
    lengths = {}
    for length in settings.lengths:
        lengths[length] = run_length(data, length, settings, prog)
    return {"benchmark": "memab-fc", "k": K, "tokenizer": TOKENIZER,
            "llm": settings.llm.describe() if settings.llm else None,
            "questions_per_hop": settings.questions, "lengths": lengths, "pooled": pooled(lengths)}


def run_length(data: Path, length: str, settings: Settings, prog=None) -> dict:
    stream = load_stream(data, length)
    task = prog.add_task(f"MemAB-FC {length}: ingest", total=len(stream.facts)) if prog else None
    advance: Callable[[int], None] | None = (lambda _: prog.advance(task)) if prog else None
    start = time.perf_counter()
    ingested = ingest(stream, advance)
    active = ingested.active_serials()
    store = ActiveStore(stream.facts[i] for i in sorted(active))
    retriever = TfidfRetriever([f.text for f in stream.facts])
    active_index = np.array(sorted(active))
    questions = {hop: stream.questions[hop][: settings.questions] for hop in HOPS}
    if prog:
        prog.update(task, description=f"MemAB-FC {length}: questions", completed=0,
                    total=sum(len(q) for q in questions.values()))
    context = prompts.full_context_block(stream.facts)
    context_tokens = count_tokens(context)
    results: dict[str, list[QuestionResult]] = {}
    timed_seconds = None
    for hop in HOPS:
        results[hop] = []
        for q in questions[hop]:
            results[hop].append(_question(stream, store, retriever, active_index, active, q,
                                          context_tokens))
            if prog:
                prog.advance(task)
            if timed_seconds is None and hop == "sh" and len(results[hop]) == min(TIMED_QUESTIONS, len(questions[hop])):
                timed_seconds = time.perf_counter() - start
    if settings.llm is not None:
        _llm_answers(results, settings, prog, length)
    if prog:
        prog.remove_task(task)
    expected = larger_serial_wins(stream.facts)
    ingested.engine.close()
    return {
        "facts": len(stream.facts),
        "superseded": ingested.superseded,
        "superseded_share": ingested.superseded / len(stream.facts),
        "paper_superseded": PAPER_SUPERSEDED.get(length),
        "active": len(active),
        "active_equals_larger_serial_wins": active == expected,
        "active_differences": len(active ^ expected),
        "fallback_facts": sum(f.relation == "is" for f in stream.facts),
        "relations": len({f.relation for f in stream.facts}),
        "ingest_seconds": ingested.seconds,
        "ingest_facts_per_second": len(stream.facts) / ingested.seconds,
        "ingest_plus_questions_seconds": timed_seconds,
        "timed_questions": min(TIMED_QUESTIONS, len(questions["sh"])),
        "full_context_tokens": context_tokens,
        "hops": {hop: summarise(results[hop]) for hop in HOPS},
    }


def _question(stream: Stream, store: ActiveStore, retriever: TfidfRetriever, active_index: np.ndarray,
              active: set[int], q: Question, context_tokens: int) -> QuestionResult:
    r = QuestionResult(q)
    gold = normalise(q.gold)
    for arm, candidates in (("verifier", active_index), ("rag", None)):
        hits = [stream.facts[i] for i in retriever.top_k(q.plain, K, candidates)]
        r.recall[arm] = any(gold in normalise(f.text) for f in hits)
        r.stale[arm] = sum(f.serial not in active for f in hits) / len(hits)
        r.prompts[arm] = prompts.prompt(hits, q.text)
        r.tokens[arm] = count_tokens(r.prompts[arm])
    r.tokens["full"] = context_tokens + count_tokens(prompts.question_block(q.text))
    answer = store.answer_single_hop(q.text) if q.hop == "sh" else store.answer_multi_hop(q.text)
    r.symbolic = answer.text
    r.symbolic_correct = correct(answer.text, q.gold)
    r.gold_consistent = store.supports(q.hop, q.text, q.gold)
    return r


def _llm_answers(results: dict[str, list[QuestionResult]], settings: Settings, prog, length: str) -> None:
    """Each retrieval arm's prompt, as built for its token count, sent to the configured model."""
    assert settings.llm is not None, "the LLM reader runs only with an endpoint configured"
    reader = llm_mod.Reader(settings.llm, workers=settings.workers)
    items = [(r, arm) for hop in HOPS for r in results[hop] for arm in ("verifier", "rag")]
    task = prog.add_task(f"MemAB-FC {length}: LLM reader", total=len(items)) if prog else None
    answers = reader.answer_all([r.prompts[arm] for r, arm in items], (lambda: prog.advance(task)) if prog else None)
    for (r, arm), text in zip(items, answers, strict=True):
        r.llm[arm] = text
        r.llm_correct[arm] = correct(text, r.question.gold)
    if prog:
        prog.remove_task(task)


def summarise(rs: list[QuestionResult]) -> dict:
    n = len(rs)
    out: dict = {"questions": n}
    if not n:
        return out
    for arm in ("verifier", "rag"):
        out[f"recall_{arm}"] = sum(r.recall[arm] for r in rs) / n
        out[f"stale_{arm}"] = statistics.mean(r.stale[arm] for r in rs)
    out["recall_mcnemar"] = mcnemar([r.recall["verifier"] for r in rs], [r.recall["rag"] for r in rs]).as_dict()
    out["tokens"] = {arm: _spread([r.tokens[arm] for r in rs]) for arm in ("verifier", "rag", "full")}
    out["symbolic_accuracy"] = sum(r.symbolic_correct for r in rs) / n
    out["gold_consistent"] = sum(r.gold_consistent for r in rs)
    out["symbolic_accuracy_on_consistent"] = (
        sum(r.symbolic_correct for r in rs if r.gold_consistent) / max(1, out["gold_consistent"]))
    if rs[0].llm_correct:
        out["llm_verifier"] = sum(r.llm_correct["verifier"] for r in rs) / n
        out["llm_rag"] = sum(r.llm_correct["rag"] for r in rs) / n
        out["llm_mcnemar"] = mcnemar([r.llm_correct["verifier"] for r in rs],
                                     [r.llm_correct["rag"] for r in rs]).as_dict()
    out["items"] = [
        {"qid": r.question.qid, "gold": r.question.gold, "symbolic": r.symbolic,
         "symbolic_correct": r.symbolic_correct, "gold_consistent": r.gold_consistent,
         "recall": r.recall, "stale": r.stale, "tokens": r.tokens,
         **({"llm": r.llm, "llm_correct": r.llm_correct} if r.llm else {})}
        for r in rs
    ]
    return out


def _spread(values: list[int]) -> dict:
    q = np.percentile(values, [5, 25, 50, 75, 95])
    return {"mean": float(np.mean(values)), "p5": float(q[0]), "p25": float(q[1]), "median": float(q[2]),
            "p75": float(q[3]), "p95": float(q[4])}


def pooled(lengths: dict) -> dict:
    """Per hop, over all lengths run: accuracy, recall, and McNemar on the concatenated items."""
    out = {}
    for hop in HOPS:
        items = [item for res in lengths.values() for item in res["hops"][hop].get("items", [])]
        if not items:
            continue
        n = len(items)
        entry = {
            "questions": n,
            "symbolic_accuracy": sum(i["symbolic_correct"] for i in items) / n,
            "gold_consistent": sum(i["gold_consistent"] for i in items),
            "recall_verifier": sum(i["recall"]["verifier"] for i in items) / n,
            "recall_rag": sum(i["recall"]["rag"] for i in items) / n,
            "recall_mcnemar": mcnemar([i["recall"]["verifier"] for i in items],
                                      [i["recall"]["rag"] for i in items]).as_dict(),
        }
        if "llm_correct" in items[0]:
            entry["llm_verifier"] = sum(i["llm_correct"]["verifier"] for i in items) / n
            entry["llm_rag"] = sum(i["llm_correct"]["rag"] for i in items) / n
            entry["llm_mcnemar"] = mcnemar([i["llm_correct"]["verifier"] for i in items],
                                           [i["llm_correct"]["rag"] for i in items]).as_dict()
        out[hop] = entry
    return out


def _pm(m: dict) -> str:
    return f"{m['wins']}:{m['losses']}, p={m['p']:.1g}"


def markdown(result: dict) -> str:
    from bench.report import markdown_table

    lengths = result["lengths"]
    lines = ["# MemAB-FC (MemoryAgentBench FactConsolidation)", "",
             f"TF-IDF top-{result['k']} over the active set (verifier) and the whole stream (transcript-RAG). "
             f"Tokens: {result['tokenizer']}.", "", "## Native ingestion", ""]
    rows = []
    for length, r in lengths.items():
        paper = r["paper_superseded"]
        rows.append([length, f"{r['facts']:,}", f"{r['superseded']:,} ({r['superseded_share']:.1%})",
                     f"{paper[0]:,}/{paper[1]:,}" if paper else "-",
                     "yes" if r["active_equals_larger_serial_wins"] else f"NO ({r['active_differences']} differ)",
                     f"{r['fallback_facts']} ({r['fallback_facts'] / r['facts']:.1%})",
                     f"{r['ingest_seconds']:.2f}", f"{r['ingest_facts_per_second']:,.0f}",
                     f"{r['ingest_plus_questions_seconds']:.2f} ({r['timed_questions']} q)"
                     if r["ingest_plus_questions_seconds"] else "-"])
    lines.append(markdown_table(["length", "facts", "superseded", "paper", "active = larger-serial-wins",
                                 "last-'is' fallback", "ingest s", "facts/s", "ingest + questions s"], rows))
    lines += ["", "## Retrieval and the symbolic reader, per length", ""]
    rows = []
    for length, r in lengths.items():
        for hop, h in r["hops"].items():
            if not h.get("questions"):
                continue
            paper = PAPER_GPT4O[hop].get(length)
            t = h["tokens"]
            rows.append([f"{hop.upper()}-{length}", h["questions"], h["recall_verifier"], h["recall_rag"],
                         _pm(h["recall_mcnemar"]), h["stale_verifier"], h["stale_rag"],
                         f"{t['verifier']['median']:,.0f}", f"{t['rag']['median']:,.0f}", f"{t['full']['median']:,.0f}",
                         h["symbolic_accuracy"], f"{h['gold_consistent']}/{h['questions']}",
                         f"{paper[0]:.2f} / {paper[1]:.2f}" if paper else "-"])
    lines.append(markdown_table(
        ["variant", "n", "recall@50 verifier", "recall@50 RAG", "McNemar (verifier:RAG)", "stale verifier",
         "stale RAG", "tokens verifier", "tokens RAG", "tokens full", "symbolic reader", "gold = active store",
         "paper GPT-4o verifier / RAG"], rows))
    lines += ["", "Tokens are medians per query. 'gold = active store': questions whose gold answer the active "
              "store supports (single-hop: the newest fact of the key; multi-hop: a chain of active facts); "
              "the others have a gold answer only a superseded fact gives.", ""]
    pooled_ = result["pooled"]
    if pooled_:
        lines += ["## Pooled over the lengths run", ""]
        rows = [[hop.upper(), p["questions"], p["recall_verifier"], p["recall_rag"], _pm(p["recall_mcnemar"]),
                 p["symbolic_accuracy"], f"{p['gold_consistent']}/{p['questions']}"] for hop, p in pooled_.items()]
        lines.append(markdown_table(["hop", "n", "recall@50 verifier", "recall@50 RAG", "McNemar",
                                     "symbolic reader", "gold = active store"], rows))
    lines += ["", "## LLM reader", ""]
    if result["llm"] is None:
        lines.append(llm_mod.NOT_CONFIGURED + ".")
    else:
        rows = []
        for length, r in lengths.items():
            for hop, h in r["hops"].items():
                if "llm_verifier" in h:
                    rows.append([f"{hop.upper()}-{length}", h["llm_verifier"], h["llm_rag"], _pm(h["llm_mcnemar"])])
        for hop, p in pooled_.items():
            if "llm_verifier" in p:
                rows.append([f"{hop.upper()} pooled", p["llm_verifier"], p["llm_rag"], _pm(p["llm_mcnemar"])])
        lines += [f"Model: {result['llm']}.", "",
                  markdown_table(["variant", "verifier", "transcript-RAG", "exact McNemar"], rows)]
    lines += ["", f"Paper (App. E4): {PAPER_TOKENS}."]
    return "\n".join(lines)


def figures(result: dict, out: Path) -> list[Path]:
    from bench.report import pyplot, save_figure

    plt = pyplot()
    lengths = list(result["lengths"])
    paths = []
    # (a) prompt tokens per query, as the paper's Fig. cost (a)
    fig, ax = plt.subplots(figsize=(7, 4))
    arms = (("verifier", "verifier (active set)", "tab:blue"), ("rag", "transcript-RAG", "tab:gray"),
            ("full", "full context", "tab:red"))
    width = 0.25
    for j, (arm, label, colour) in enumerate(arms):
        data = [[item["tokens"][arm] for h in result["lengths"][L]["hops"].values()
                 for item in h.get("items", [])] for L in lengths]
        positions = [i + (j - 1) * width for i in range(len(lengths))]
        box = ax.boxplot(data, positions=positions, widths=width * 0.9, whis=(5, 95), showfliers=False,
                         patch_artist=True)
        for patch in box["boxes"]:
            patch.set_facecolor(colour)
            patch.set_alpha(0.6)
        ax.plot([], [], color=colour, linewidth=8, alpha=0.6, label=label)
    ax.set_yscale("log")
    ax.set_xticks(range(len(lengths)), [L.upper() for L in lengths])
    ax.set_xlabel("stream length")
    ax.set_ylabel("prompt tokens per query (estimated)")
    ax.set_title("MemAB-FC prompt cost per query")
    ax.legend(loc="upper left", fontsize=8)
    paths.append(save_figure(fig, out / "memab_tokens.png"))
    # accuracy and recall per length
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, hop in zip(axes, HOPS, strict=True):
        hs = [result["lengths"][L]["hops"][hop] for L in lengths]
        x = range(len(lengths))
        ax.plot(x, [h.get("symbolic_accuracy", 0) for h in hs], "o-", label="symbolic reader (active store)")
        ax.plot(x, [h.get("recall_verifier", 0) for h in hs], "s--", label="recall@50, verifier")
        ax.plot(x, [h.get("recall_rag", 0) for h in hs], "s:", color="tab:gray", label="recall@50, transcript-RAG")
        ax.plot(x, [h.get("gold_consistent", 0) / max(1, h.get("questions", 1)) for h in hs], "_", markersize=18,
                color="black", label="gold answers the active store supports")
        ax.plot(x, [PAPER_GPT4O[hop][L][0] for L in lengths], "^-", color="tab:green", alpha=0.6,
                label="paper: GPT-4o, verifier")
        if any("llm_verifier" in h for h in hs):
            ax.plot(x, [h.get("llm_verifier", np.nan) for h in hs], "D-", label="LLM reader, verifier")
            ax.plot(x, [h.get("llm_rag", np.nan) for h in hs], "D:", label="LLM reader, transcript-RAG")
        ax.set_xticks(list(x), [L.upper() for L in lengths])
        ax.set_title("single-hop" if hop == "sh" else "multi-hop")
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("stream length")
    axes[0].set_ylabel("share of questions")
    axes[1].legend(fontsize=7, loc="lower left")
    paths.append(save_figure(fig, out / "memab_accuracy.png"))
    return paths
