"""``python -m bench reviseqa``: ReviseQA's edits through the engine, read by clingo.

Per scenario, one engine and one clingo program (entail.py):

* step 0: the original premises are observed (claims ``r<N>``; each
  Observe's text carries the premise's sentence and its FOL, and a side table
  maps the claim to its parsed formula), with a Question ``q`` for the
  conclusion;
* the reader takes the premises in S_t (Verify grounds them), grounds their
  FOL and asks clingo: True if they entail the conclusion, False if they
  entail its negation, else Uncertain;
* the conclusion is held as a hypothesis (``c``, or ``-c`` when False) whose
  Dep is a minimal premise set entailing it (clingo's unsatisfiable core,
  minimised); Uncertain holds nothing;
* each edit is one utterance: Revise for every premise it removes, Observe for
  every premise it adds;
* when the premises in S_t contradict each other (the release has edits that
  add a premise without removing the one it contradicts: 118 of its 1,778
  steps), the reader keeps a consistent subset by priority, stated facts (a
  literal such as ``¬p_3(Ann)``) before rules, and within each the newer first
  (specificity, then recency, as supersession on MemAB-FC): each premise is
  kept if consistent with those kept before it (``Entailment.preferred_consistent``)
  and the rest are revised in the engine.  A premise so retracted is observed
  again at the next edit if the context still holds it, so the reader's choice
  never outlives the contradiction.  The gold
  answer of such a step is not fixed by its premises (Prover9 proves any goal
  from them), so these steps are reported apart.  When the engine flags the conclusion (a removed
  premise was in its Dep), or the verdict changes, the old conclusion is
  revised and a new one hypothesized with a recomputed Dep; otherwise the Dep
  stands as it is (added premises never break an entailment).

Checked at every step: Verify(c) is grounded exactly when the verdict is
True, Verify(-c) exactly when it is False.  Reported: accuracy@k for k = 1..7
over the 210 full scenarios (the 26 truncated ones separately), the share of
edits that remove a premise inside the conclusion's Dep (measured by the
engine's ``Update.flagged``), and the data's own inconsistencies.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.datasets import reviseqa_files
from bench.reviseqa.entail import FALSE, TRUE, Entailment
from bench.reviseqa.fol import Atom, FOLSyntaxError, Not, parse, show
from bench.reviseqa.ground import atoms, evaluate, ground
from bench.reviseqa.scenario import Scenario, load_scenario
from grounded.engine import Engine

MAX_K = 7
QUESTION, CONCLUSION = "q", "c"
# Paper, App. "ReviseQA: Full Per-Depth Results" (tab:reviseqa-appendix), GPT-4o, accuracy@2/@4/@7,
# over 930 scenarios (ours: the 210 full scenarios of the release in ../shared/data).
PAPER_GPT4O = {
    "LLM-only": {2: 0.476, 4: 0.299, 7: 0.161},
    "transcript-RAG (k=22)": {2: 0.508, 4: 0.352, 7: 0.242},
    "verifier (native)": {2: 0.628, 4: 0.475, 7: 0.348},
}
PAPER_DEP_SHARE = 0.670


@dataclass
class StepResult:
    index: int
    gold: str
    verdict: str
    dep: list[str] | None
    contradictory: bool = False  # the step's premises are inconsistent (newest-wins applied)
    removed_from_dep: bool = False  # this edit removed a premise of the conclusion's Dep
    dep_recomputed: bool = False
    verify_agrees: bool = True


@dataclass
class ScenarioResult:
    name: str
    truncated: bool
    steps: list[StepResult] = field(default_factory=list)
    delta_disagreements: int = 0
    repairs: list[str] = field(default_factory=list)
    solves: int = 0

    def correct(self, k: int) -> bool:
        """Are edit steps 1..k all answered correctly?"""
        return all(s.verdict == s.gold for s in self.steps[1:k + 1])


def run_scenario(sc: Scenario) -> ScenarioResult:
    constants = sc.constants()
    entail = Entailment({pid: ground(p.formula, constants) for pid, p in sc.premises.items()},
                        ground(sc.conclusion, constants))
    fol = {pid: p.formula for pid, p in sc.premises.items()}  # the side table: claim -> FOL
    result = ScenarioResult(sc.name, sc.truncated, repairs=list(sc.repairs))
    born: dict[str, tuple[int, int]] = {}  # premise -> (step, position) of its latest observation
    set_aside: list[str] = []  # premises the reader retracted at the last step (newest-wins)
    with Engine() as engine:
        held: tuple[str, list[str]] | None = None
        for step in sc.steps:
            turn = 3 * step.index + 1
            if step.index == 0:
                ops = [_observe(sc, pid) for pid in step.premises]
                ops.append({"op": "question", "claim": QUESTION, "text": f"Does it follow that: {sc.conclusion_text}"})
            else:
                # a premise the reader already retracted (newest-wins) needs no second Revise
                ops = [{"op": "revise", "target": pid} for pid in step.removed if engine.verify(pid).grounded]
                ops += [_observe(sc, pid) for pid in set_aside if pid in step.premises and pid not in step.added]
                ops += [_observe(sc, pid) for pid in step.added]
                set_aside = []
                result.delta_disagreements += step.delta_disagrees
            for pid in (step.premises if step.index == 0 else step.added):
                born[pid] = (step.index, step.premises.index(pid))
            update = engine.apply({"turn": turn, "speaker": "context", "ops": ops})
            edit_flagged = held is not None and any(held[0] in lost for lost in update.flagged.values())
            flagged = edit_flagged
            active = [pid for pid in fol if engine.verify(pid).grounded]
            contradictory = not entail.consistent(active)
            if contradictory:
                priority = sorted(active, key=lambda pid: (_is_literal(fol[pid]), born[pid]), reverse=True)
                kept = entail.preferred_consistent(priority)
                dropped = set_aside = [pid for pid in active if pid not in kept]
                update = engine.apply({"turn": turn + 1, "speaker": "reader",
                                       "ops": [{"op": "revise", "target": pid} for pid in dropped]})
                flagged = flagged or (held is not None and any(held[0] in lost for lost in update.flagged.values()))
                active = [pid for pid in active if pid in kept]
            verdict = entail.verdict(active)
            literal = {TRUE: CONCLUSION, FALSE: "-" + CONCLUSION}.get(verdict)
            recomputed = False
            if held is None or held[0] != literal or flagged:
                ops = []
                if held is not None:  # the rules decide whether it can be revised (apply raises if not)
                    ops.append({"op": "revise", "target": held[0]})
                held = None
                if literal is not None:
                    dep = entail.minimal_support(active, negated=verdict == FALSE)
                    assert dep is not None
                    recomputed = True
                    held = (literal, dep)
                    ops.append({"op": "hypothesize", "claim": literal, "deps": dep, "explains": [QUESTION],
                                "text": sc.conclusion_text})
                if ops:
                    engine.apply({"turn": turn + 2, "speaker": "reader", "ops": ops})
            agrees = (engine.verify(CONCLUSION).grounded == (verdict == TRUE)
                      and engine.verify("-" + CONCLUSION).grounded == (verdict == FALSE))
            result.steps.append(StepResult(step.index, step.answer, verdict, held[1] if held else None,
                                           contradictory=contradictory, removed_from_dep=edit_flagged,
                                           dep_recomputed=recomputed, verify_agrees=agrees))
    result.solves = entail.solves
    return result


def _is_literal(f) -> bool:
    """A stated fact: an atom or a negated atom (as opposed to a rule)."""
    return isinstance(f, Atom) or (isinstance(f, Not) and isinstance(f.body, Atom))


def _observe(sc: Scenario, pid: str) -> dict:
    p = sc.premises[pid]
    return {"op": "observe", "claim": pid, "text": f"{p.nl} [FOL: {p.fol}]".strip()}


def prover9_agreement(scenarios: Sequence[Scenario], max_atoms: int = 16) -> dict:
    """Check every parsed premise against the dataset's own Prover9 translation of it.

    Both are grounded over the scenario's constant and compared on every
    assignment of their atoms (formulas with more than ``max_atoms`` atoms
    are counted as unchecked).  Every occurrence in an edit's context is
    counted; a (premise, twin) pair recurs from step to step, so each is
    decided once per scenario.
    """
    counts = {"checked": 0, "agree": 0, "unchecked": 0, "unparsed": 0}
    disagreements: list[str] = []
    for sc in scenarios:
        constants = sc.constants()
        decided: dict[tuple[str, str], str] = {}
        for step in sc.steps[1:]:
            if not step.prover9:
                continue
            for pid, twin in zip(step.raw_ids, step.prover9, strict=True):
                outcome = decided.get((pid, twin))
                if outcome is None:
                    outcome = decided[pid, twin] = _twin_outcome(sc.premises[pid].formula, twin, constants, max_atoms)
                if outcome in ("agree", "disagree"):
                    counts["checked"] += 1
                    counts["agree"] += outcome == "agree"
                    if outcome == "disagree":
                        disagreements.append(f"{sc.name} step {step.index}: {sc.premises[pid].fol} vs {twin}")
                else:
                    counts[outcome] += 1
    return {"checked": counts["checked"], "agree": counts["agree"], "unchecked": counts["unchecked"],
            "twin_unparsed": counts["unparsed"], "disagreements": disagreements[:20]}


def _twin_outcome(formula, twin: str, constants: list[str], max_atoms: int) -> str:
    """agree / disagree / unchecked (too many atoms) / unparsed (the twin does not parse)."""
    mine = ground(formula, constants)
    try:
        theirs = ground(parse(twin, dialect="prover9"), constants)
    except FOLSyntaxError:
        return "unparsed"
    names = sorted(atoms(mine) | atoms(theirs), key=show)
    if len(names) > max_atoms:
        return "unchecked"
    return "agree" if all(evaluate(mine, s) == evaluate(theirs, s) for s in _assignments(names)) else "disagree"


def _assignments(names: list):
    for bits in range(1 << len(names)):
        yield {a for i, a in enumerate(names) if bits >> i & 1}


def accuracy_at(results: Sequence[ScenarioResult], k: int) -> float | None:
    eligible = [r for r in results if len(r.steps) - 1 >= k]
    return sum(r.correct(k) for r in eligible) / len(eligible) if eligible else None


def run(data: Path, quick: bool = False, prog=None, check_prover9: bool = True) -> dict:
    files = reviseqa_files(data)
    if quick:
        files = files[:12]
    task = prog.add_task("ReviseQA: load", total=len(files)) if prog else None
    scenarios = []
    for path in files:
        scenarios.append(load_scenario(path))
        if prog:
            prog.advance(task)
    if prog:
        prog.update(task, description="ReviseQA: scenarios", completed=0)
    start = time.perf_counter()
    results = []
    for sc in scenarios:
        results.append(run_scenario(sc))
        if prog:
            prog.advance(task)
    seconds = time.perf_counter() - start
    if prog:
        prog.remove_task(task)
    return summarise(results, seconds, prover9_agreement(scenarios) if check_prover9 else None, quick)


def summarise(results: list[ScenarioResult], seconds: float, prover9: dict | None, quick: bool) -> dict:
    full = [r for r in results if not r.truncated]
    truncated = [r for r in results if r.truncated]
    edits = [s for r in full for s in r.steps[1:]]
    all_steps = [s for r in results for s in r.steps]

    def group(rs: list[ScenarioResult]) -> dict:
        steps = [s for r in rs for s in r.steps[1:]]
        clean = [r for r in rs if not any(s.contradictory for s in r.steps)]
        odd = [s for r in rs for s in r.steps if s.contradictory]
        return {
            "consistent_scenarios": len(clean),
            "accuracy_at_consistent": {k: accuracy_at(clean, k) for k in range(1, MAX_K + 1)},
            "contradictory_steps": len(odd),
            "contradictory_steps_correct": sum(s.verdict == s.gold for s in odd),
            "scenarios": len(rs),
            "edit_steps": len(steps),
            "accuracy_at": {k: accuracy_at(rs, k) for k in range(1, MAX_K + 1)},
            "eligible_at": {k: sum(len(r.steps) - 1 >= k for r in rs) for k in range(1, MAX_K + 1)},
            "step_accuracy": sum(s.verdict == s.gold for s in steps) / len(steps) if steps else None,
            "original_accuracy": sum(r.steps[0].verdict == r.steps[0].gold for r in rs) / len(rs) if rs else None,
            "edits_removing_dep_premise": sum(s.removed_from_dep for s in steps),
        }

    out = {
        "benchmark": "reviseqa", "quick": quick, "seconds": seconds,
        "full": group(full), "truncated": group(truncated),
        "dep_share_full": (sum(s.removed_from_dep for s in edits) / len(edits)) if edits else None,
        "paper_dep_share": PAPER_DEP_SHARE,
        "paper_gpt4o": PAPER_GPT4O,
        "dep_recomputations": sum(s.dep_recomputed for s in all_steps),
        "dep_size_mean": (sum(len(s.dep) for s in all_steps if s.dep) / max(1, sum(1 for s in all_steps if s.dep))),
        "verify_agrees": sum(s.verify_agrees for s in all_steps),
        "steps": len(all_steps),
        "clingo_solves": sum(r.solves for r in results),
        "delta_disagreements": sum(r.delta_disagreements for r in results),
        "repairs": [f"{r.name}: {x}" for r in results for x in r.repairs],
        "prover9_agreement": prover9,
        "wrong": [{"scenario": r.name, "step": s.index, "gold": s.gold, "verdict": s.verdict,
                   "contradictory": s.contradictory}
                  for r in results for s in r.steps if s.verdict != s.gold],
    }
    return out


def markdown(result: dict) -> str:
    from bench.report import markdown_table

    full, trunc = result["full"], result["truncated"]
    ks = range(1, MAX_K + 1)

    def row(name: str, acc: dict, n) -> list:
        return [name, n, *(acc.get(k) for k in ks)]

    rows = [row("clingo entailment reader, full scenarios", full["accuracy_at"], full["scenarios"]),
            row("... of them, premises consistent at every step", full["accuracy_at_consistent"],
                full["consistent_scenarios"]),
            row("clingo entailment reader, truncated scenarios", trunc["accuracy_at"], trunc["scenarios"])]
    for arm, acc in result["paper_gpt4o"].items():
        rows.append([f"paper, GPT-4o, {arm} (930 scenarios)", 930, *(acc.get(k) for k in ks)])
    p9 = result["prover9_agreement"]
    lines = [
        "# ReviseQA", "",
        "Premises ingested as observations carrying their FOL; each edit's removals and additions as Revise and "
        "Observe; the conclusion held as a hypothesis whose Dep is a minimal entailing premise set (clingo "
        "unsatisfiable core, minimised). The reader answers True / False / Uncertain by clingo entailment over "
        "the premises in S_t.", "",
        "## accuracy@k", "",
        markdown_table(["reader", "n", *(f"@{k}" for k in ks)], rows), "",
        "Truncated scenarios: accuracy@k counts those with at least k edits ("
        + ", ".join(f"@{k}: {n}" for k, n in trunc["eligible_at"].items()) + ").",
        "",
        "## The dependency map", "",
        markdown_table(["measure", "ours", "paper"], [
            ["edits removing a premise inside the conclusion's Dep (full scenarios)",
             f"{full['edits_removing_dep_premise']}/{full['edit_steps']} = {result['dep_share_full']:.1%}",
             f"{result['paper_dep_share']:.1%} (6,510 steps)"],
            ["Dep recomputations (after such an edit or a verdict change)", result["dep_recomputations"], "-"],
            ["mean |Dep|", f"{result['dep_size_mean']:.2f}", "-"],
            ["steps where Verify(c) / Verify(-c) agree with the verdict",
             f"{result['verify_agrees']}/{result['steps']}", "-"],
            ["clingo solves", f"{result['clingo_solves']:,}", "-"],
            ["wall time (all scenarios, engine + clingo)", f"{result['seconds']:.1f} s", "-"],
        ]), "",
        "## The data", "",
        markdown_table(["finding", "count"], [
            ["edit steps whose premises contradict each other (full / truncated)",
             f"{full['contradictory_steps']} / {trunc['contradictory_steps']}"],
            ["... answered as gold (facts before rules, newer first)", f"{full['contradictory_steps_correct']} / "
                                                    f"{trunc['contradictory_steps_correct']}"],
            ["full scenarios with no contradictory step", f"{full['consistent_scenarios']}/{full['scenarios']}"],
            ["steps whose edits_made list disagrees with the context diff", result["delta_disagreements"]],
            ["premises whose FOL disagrees with the file's own Prover9 translation",
             f"{p9['checked'] - p9['agree']}/{p9['checked']}" if p9 else "not checked"],
            ["formulas that do not parse, read from their Prover9 twin", len(result["repairs"])],
        ]), "",
        "A step with contradictory premises has no determined answer: Prover9, which labelled the data, "
        "proves any goal from them. The reader keeps a consistent subset, stated facts before rules and newer "
        "before older, and retracts the rest (as supersession does on MemAB-FC).",
    ]
    return "\n".join(lines)


def figures(result: dict, out: Path) -> list[Path]:
    from bench.report import pyplot, save_figure

    plt = pyplot()
    ks = list(range(1, MAX_K + 1))
    fig, ax = plt.subplots(figsize=(6.5, 4))
    full = result["full"]
    ax.plot(ks, [full["accuracy_at"][k] for k in ks], "o-", label=f"clingo reader, {full['scenarios']} full scenarios")
    ax.plot(ks, [full["accuracy_at_consistent"][k] for k in ks], "o--",
            label=f"... {full['consistent_scenarios']} with consistent premises")
    styles = {"LLM-only": ("tab:red", "x:"), "transcript-RAG (k=22)": ("tab:gray", "s:"),
              "verifier (native)": ("tab:green", "^:")}
    for arm, acc in result["paper_gpt4o"].items():
        colour, style = styles[arm]
        ax.plot(sorted(acc), [acc[k] for k in sorted(acc)], style, color=colour, label=f"paper: GPT-4o, {arm}")
    ax.set_xlabel("k (edit steps)")
    ax.set_ylabel("accuracy@k")
    ax.set_ylim(0, 1.05)
    ax.set_title("ReviseQA")
    ax.legend(fontsize=7, loc="lower left")
    return [save_figure(fig, out / "reviseqa_accuracy.png")]
