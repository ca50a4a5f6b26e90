"""A ReviseQA scenario file, read into premises, steps and deltas.

Step 0 is the original context; step k (1..7) the context after edit k,
with its gold answer.  A premise is identified by its parsed formula (the
canonical spelling of ``fol.show``), so re-bracketing a formula, which the
dataset's edits sometimes do, is not a removal plus an addition.  Each premise
gets a claim id ``r<N>`` in order of first appearance.

Three formulas in the release do not parse (unbalanced parentheses); where
the step's Prover9 translation of the same premise parses, it is used instead
and the repair is listed in ``Scenario.repairs``; otherwise loading fails with
an error naming the file and field.

The delta of an edit is computed from the full contexts before and after it:
the files' ``edits_made`` lists are incomplete (an edit that rewrites a rule
often lists only the new one), so the contexts are authoritative and the
disagreement is counted (``delta_disagrees``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from bench.reviseqa.fol import FOLSyntaxError, Formula, free_constants, parse, show
from grounded.core.errors import InputError

ANSWERS = ("True", "False", "Uncertain")


@dataclass
class Premise:
    pid: str
    fol: str  # the first spelling seen
    nl: str
    formula: Formula


@dataclass
class Step:
    index: int  # 0: the original context; k: after edit k
    premises: list[str]  # premise ids, in context order
    answer: str
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    delta_disagrees: bool = False  # the file's edits_made differs from the context diff
    prover9: list[str] = field(default_factory=list)  # the step's Prover9 assumptions ...
    raw_ids: list[str] = field(default_factory=list)  # ... and the premise id of each context entry, aligned


@dataclass
class Scenario:
    name: str
    path: Path
    truncated: bool
    conclusion: Formula
    conclusion_text: str
    premises: dict[str, Premise]
    steps: list[Step]
    repairs: list[str] = field(default_factory=list)  # fields read from their Prover9 twin

    @property
    def edits(self) -> int:
        return len(self.steps) - 1

    def constants(self) -> list[str]:
        found = free_constants(self.conclusion)
        for p in self.premises.values():
            found |= free_constants(p.formula)
        return sorted(found)


class _Builder:
    def __init__(self, path: Path):
        self.path = path
        self.by_form: dict[str, str] = {}
        self.premises: dict[str, Premise] = {}
        self.repairs: list[str] = []

    def formula(self, text: object, field_: str, twin: str | None = None) -> Formula:
        if not isinstance(text, str):
            raise InputError(f"{field_}: expected a formula string, found {type(text).__name__}", path=str(self.path))
        try:
            return parse(text, where=field_)
        except FOLSyntaxError as exc:
            if twin is not None:
                try:
                    repaired = parse(twin, dialect="prover9")
                except FOLSyntaxError:
                    pass
                else:
                    self.repairs.append(f"{field_}: {text!r} read as its Prover9 twin {twin!r}")
                    return repaired
            raise InputError(str(exc), path=str(self.path)) from exc

    def premise(self, fol: str, nl: str, field_: str, twin: str | None = None) -> str:
        f = self.formula(fol, field_, twin)
        key = show(f)
        pid = self.by_form.get(key)
        if pid is None:
            pid = f"r{len(self.by_form) + 1}"
            self.by_form[key] = pid
            self.premises[pid] = Premise(pid, fol, nl, f)
        return pid

    def context(self, fols: list, nls: list, field_: str, twins: list | None = None) -> list[str]:
        if not isinstance(fols, list):
            raise InputError(f"{field_}: expected a list of formulas", path=str(self.path))
        nls = nls if isinstance(nls, list) and len(nls) == len(fols) else [""] * len(fols)
        twins = twins if isinstance(twins, list) and len(twins) == len(fols) else [None] * len(fols)
        return [self.premise(t, n, f"{field_}[{i}]", w)
                for i, (t, n, w) in enumerate(zip(fols, nls, twins, strict=True))]

    def forms(self, items: list, field_: str) -> set[str]:
        return {show(self.formula(x.get("fol") if isinstance(x, dict) else x, f"{field_}[{i}].fol"))
                for i, x in enumerate(items or [])}


def load_scenario(path: Path) -> Scenario:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the scenario: {exc}", path=str(path)) from exc
    b = _Builder(path)
    try:
        conclusion = b.formula(data["conclusion_fol"], "conclusion_fol")
        original = b.context(data["original_context_fol"], data.get("original_context"), "original_context_fol")
        answer = _answer(data["answer"], path, "answer")
        steps = [Step(0, list(dict.fromkeys(original)), answer, raw_ids=original)]
        for k, edit in enumerate(data["edits"]):
            where = f"edits[{k}]"
            restated = edit.get("conclusion_fol")
            if restated is not None and show(b.formula(restated, f"{where}.conclusion_fol")) != show(conclusion):
                raise InputError(f"{where}.conclusion_fol: the conclusion changes within the scenario", path=str(path))
            prover9 = (edit.get("prover9_input") or {}).get("formulas(assumptions)") or []
            raw = b.context(edit["edited_context_fol"], edit.get("edited_natural_language_context"),
                            f"{where}.edited_context_fol", prover9)
            current = list(dict.fromkeys(raw))
            before = steps[-1].premises
            removed = [p for p in before if p not in current]
            added = [p for p in current if p not in before]
            made = edit.get("edits_made") or {}
            listed_removed = b.forms((made.get("removed_facts") or []) + (made.get("removed_rules") or []),
                                     f"{where}.edits_made.removed")
            listed_added = b.forms((made.get("added_facts") or []) + (made.get("added_rules") or []),
                                   f"{where}.edits_made.added")
            forms = {pid: show(b.premises[pid].formula) for pid in set(removed) | set(added)}
            disagrees = ({forms[p] for p in removed} != listed_removed) or ({forms[p] for p in added} != listed_added)
            steps.append(Step(k + 1, current, _answer(edit["answer"], path, f"{where}.answer"), removed, added,
                              disagrees, prover9 if len(prover9) == len(raw) else [], raw))
    except KeyError as exc:
        raise InputError(f"missing field {exc.args[0]!r}", path=str(path)) from exc
    return Scenario(path.stem, path, path.stem.endswith("_truncated"), conclusion, data.get("conclusion", ""),
                    b.premises, steps, b.repairs)


def _answer(value: object, path: Path, field_: str) -> str:
    if value not in ANSWERS:
        raise InputError(f"{field_}: expected one of {', '.join(ANSWERS)}, found {value!r}", path=str(path))
    return str(value)
