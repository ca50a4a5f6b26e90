"""The paper authors' engine, re-implemented as the baseline of ``python -m bench compare``.

The authors' reference implementation (github.com/memory009/Grounded-Continuation)
keeps the dependency map in plain Python dicts and checks no precondition:

* the engine: ``symbolic_engine.py`` at commit 811f711c9bf6b002add0a4c85020b15be3a0aca8
  (class ``EpistemicEngine``): observations and hypotheses as dataclasses in
  dicts keyed by id, a status enum, an awareness set, ``dependencies`` (Dep as
  id -> set of ids) with a reverse index ``_dependents`` kept by
  ``set_dependencies``, and a list of history events, one per operation;
  Affected*(p) is ``get_affected_closure``: a depth-first search over the
  reverse index, returned sorted;
* Verify: ``verify_experiment.py`` at commit ad57887ea0d06e82425888e51ffd5e8d97b64e33
  (``verifier_judgement`` and ``walk_deps``): an observation is grounded as a
  leaf; a hypothesis is grounded when it is neither abandoned nor weakened and
  a recursive walk down Dep finds every node to be an observation, an
  awareness entry, or a hypothesis in good standing; the answer is the list
  of nodes walked.

This module is written from those descriptions, not copied: the same data
per operation (so ingestion and memory compare like for like), the same walks
(so the per-query figures do).  One deliberate difference: our rules put the
evidence of a Support into the target's Dep; the authors' ``support`` only
records it, so ``ReferenceEngine.support`` also calls ``set_dependencies``
(their API for Dep writes) and both engines answer over the same graph.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Status(Enum):
    ACTIVE = "active"
    WEAKENED = "weakened"
    ABANDONED = "abandoned"
    RESOLVED = "resolved"


FAILING = (Status.ABANDONED, Status.WEAKENED)


@dataclass
class Observation:
    id: str
    content: str
    turn: str
    speaker: str
    explained_by: str | None = None


@dataclass
class Hypothesis:
    id: str
    content: str
    turn: str
    speaker: str
    status: Status = Status.ACTIVE
    plausibility: str = "medium"
    explains: list = field(default_factory=list)
    supports: list = field(default_factory=list)
    undermines: list = field(default_factory=list)
    abandoned_reason: str | None = None
    abandoned_turn: str | None = None


@dataclass
class Event:
    operation: str
    turn: str
    details: dict = field(default_factory=dict)


class ReferenceEngine:
    """Dicts, no rules: each operation writes its records; queries walk the dicts."""

    def __init__(self) -> None:
        self.observations: dict[str, Observation] = {}
        self.hypotheses: dict[str, Hypothesis] = {}
        self.awareness: set[str] = set()
        self.dependencies: dict[str, set[str]] = {}
        self.dependents: dict[str, set[str]] = {}
        self.open_questions: list[dict] = []
        self.history: list[Event] = []

    # -- operations ------------------------------------------------------------------

    def observe(self, oid: str, content: str, turn: str, speaker: str) -> None:
        self.observations[oid] = Observation(oid, content, turn, speaker)
        self.awareness.add(oid)
        self.history.append(Event("Observe", turn, {"id": oid, "content": content}))

    def hypothesize(self, hid: str, content: str, turn: str, speaker: str,
                    explains: list[str] | None = None, depends_on: list[str] | None = None) -> None:
        explains, depends_on = explains or [], depends_on or []
        self.hypotheses[hid] = Hypothesis(hid, content, turn, speaker, explains=explains)
        self.awareness.add(hid)
        if depends_on:
            self.set_dependencies(hid, depends_on)
        for oid in explains:
            obs = self.observations.get(oid)
            if obs is not None:
                obs.explained_by = hid
        self.history.append(Event("Hypothesize", turn, {"id": hid, "content": content, "explains": explains,
                                                        "depends_on": depends_on}))

    def support(self, hid: str, evidence: str, turn: str, speaker: str) -> None:
        h = self.hypotheses.get(hid)
        if h is not None:
            h.supports.append({"evidence": evidence, "turn": turn, "speaker": speaker})
            if h.status is Status.ACTIVE:
                h.plausibility = "high"
            # not in the authors' support: our rules add the evidence to Dep (see the module docstring)
            self.set_dependencies(hid, self.dependencies.get(hid, set()) | {evidence})
        self.history.append(Event("Support", turn, {"target": hid, "evidence": evidence}))

    def undermine(self, hid: str, evidence: str, turn: str, speaker: str) -> None:
        h = self.hypotheses.get(hid)
        if h is not None:
            h.undermines.append({"evidence": evidence, "turn": turn, "speaker": speaker})
            if h.status is Status.ACTIVE:
                h.status, h.plausibility = Status.WEAKENED, "low"
        self.history.append(Event("Undermine", turn, {"target": hid, "evidence": evidence}))

    def revise(self, hid: str, reason: str, turn: str, speaker: str) -> None:
        h = self.hypotheses.get(hid)
        if h is not None:
            h.status, h.plausibility = Status.ABANDONED, "none"
            h.abandoned_reason, h.abandoned_turn = reason, turn
            for oid in h.explains:
                obs = self.observations.get(oid)
                if obs is not None and obs.explained_by == hid:
                    obs.explained_by = None
        self.history.append(Event("Revise", turn, {"target": hid, "reason": reason}))

    def resolve(self, hid: str, turn: str, speaker: str) -> None:
        h = self.hypotheses.get(hid)
        if h is not None:
            h.status, h.plausibility = Status.RESOLVED, "certain"
        self.history.append(Event("Resolve", turn, {"target": hid}))

    def question(self, content: str, turn: str, speaker: str) -> None:
        self.open_questions.append({"content": content, "turn": turn, "speaker": speaker, "resolved": False})
        self.history.append(Event("Question", turn, {"content": content}))

    def set_dependencies(self, hid: str, deps) -> None:
        for d in self.dependencies.get(hid, ()):
            self.dependents.get(d, set()).discard(hid)
        self.dependencies[hid] = set(deps)
        for d in deps:
            self.dependents.setdefault(d, set()).add(hid)

    # -- queries ---------------------------------------------------------------------

    def affected_closure(self, p: str) -> list[str]:
        """Affected*(p): depth-first over the reverse index, sorted (``get_affected_closure``)."""
        dependents = self.dependents
        seen: set[str] = set()
        stack = [p]
        while stack:
            for a in dependents.get(stack.pop(), ()):
                if a not in seen:
                    seen.add(a)
                    stack.append(a)
        return sorted(seen)

    def verify(self, claim: str) -> tuple[str, list[str]]:
        """Verify(c): ('grounded' | 'ungrounded', the walked chain or a reason) (``verifier_judgement``)."""
        if claim in self.observations:
            return "grounded", [f"{claim} (observation) - leaf in D_t"]
        h = self.hypotheses.get(claim)
        if h is not None:
            if h.status in FAILING:
                return "ungrounded", [f"{claim} status={h.status.value} (hypothesis no longer in good standing)"]
            chain = self.walk(claim, set())
            if chain is None:
                return "ungrounded", [f"{claim} dep chain reaches an abandoned entity"]
            return "grounded", chain
        if claim in self.awareness:
            return "grounded", [f"{claim} (awareness) - present in D_t"]
        return "ungrounded", [f"asserted entity '{claim}' not present in D_t"]

    def walk(self, node: str, visited: set[str]) -> list[str] | None:
        """The nodes under ``node`` down Dep, or None at a failing one (``walk_deps``: recursive)."""
        if node in visited:
            return []
        visited.add(node)
        if node in self.observations:
            return [node]
        h = self.hypotheses.get(node)
        if h is not None:
            if h.status in FAILING:
                return None
            chain = [node]
            for dep in self.dependencies.get(node, ()):
                below = self.walk(dep, visited)
                if below is None:
                    return None
                chain.extend(below)
            return chain
        return [node] if node in self.awareness else None

    # -- feeding it the benchmark's utterances ---------------------------------------

    def apply(self, utterance: dict) -> None:
        """One utterance of ``tests/synthetic.py`` (our operation format), as the authors' calls."""
        turn, speaker, text = f"T{utterance['turn']}", utterance["speaker"], utterance.get("text", "")
        for op in utterance["ops"]:
            kind = op["op"]
            if kind == "observe":
                self.observe(op["claim"], op.get("text", text), turn, speaker)
            elif kind == "hypothesize":
                self.hypothesize(op["claim"], op.get("text", text), turn, speaker,
                                 list(op.get("explains", ())), list(op.get("deps", ())))
            elif kind == "support":
                self.support(op["target"], op["by"], turn, speaker)
            elif kind == "undermine":
                self.undermine(op["target"], op["by"], turn, speaker)
            elif kind == "revise":
                self.revise(op["target"], op.get("text", text), turn, speaker)
            elif kind == "resolve":
                self.resolve(op["target"], turn, speaker)
            elif kind == "question":
                self.question(op["claim"], turn, speaker)
            elif kind == "expand_awareness":  # the realistic stream: a literal new to everyone, in D_t
                self.awareness.add(op["claim"])
                self.history.append(Event("ExpandAwareness", turn, {"id": op["claim"]}))
            else:
                raise ValueError(f"the reference engine has no operation {kind!r}")
