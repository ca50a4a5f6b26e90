"""Printing scores: the per-utterance table, the summaries, the Dep extraction figures."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grounded.interpreter.dependencies import DependencyScore
from grounded.interpreter.scoring import ClassificationScore, Summary


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def summary_line(name: str, s: Summary) -> str:
    return f"{name}: F1 {s.f1:.2f}, exact {_pct(s.exact)} ({s.n} utterances)"


def print_classification(console: Console, score: ClassificationScore) -> None:
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for name in ("T", "gold", "predicted", "F1", "exact", "key shift"):
        table.add_column(name)
    for t in score.turns:
        table.add_row(str(t.turn), ", ".join(t.gold), ", ".join(t.predicted) or "(none)", f"{t.f1:.2f}",
                      Text("yes" if t.exact else "no", style="green" if t.exact else "red"),
                      "*" if t.key_shift else "")
    console.print(table)
    console.print(summary_line("overall", score.overall), style="bold")
    console.print(summary_line("key shifts", score.key_shifts), style="bold")
    ops = "; ".join(f"{name} {tp}/{fp}/{fn}" for name, (tp, fp, fn) in score.per_operation().items())
    console.print(f"per operation (TP/FP/FN): {ops}", markup=False)
    if score.missing:
        console.print(f"turns missing from the log (scored as empty): {score.missing}", style="yellow")


def print_dependencies(console: Console, d: DependencyScore) -> None:
    console.print(f"dependency extraction: precision {d.precision:.2f}, recall {d.recall:.2f}, F1 {d.f1:.2f} "
                  f"(TP {d.tp} of {len(d.extracted_edges)} extracted, {len(d.gold_edges)} gold edges); "
                  f"hypotheses extracted {d.hypotheses_extracted}, gold hypotheses matched "
                  f"{d.gold_hypotheses_matched}/{d.gold_hypotheses}", style="bold", markup=False)
    pairs = ", ".join(f"{k}->{g} ({s:.2f})" for k, (g, s) in d.alignment.items() if k != g)
    if pairs:
        console.print(f"alignment (extracted->gold, similarity): {pairs}", markup=False)
