"""The offline rule-based interpreter: cue phrases classify, lexical similarity links, precision first.

It needs no model and no network, so it is the default when no endpoint is
configured, and a baseline for the LLM.  A cue only says what a sentence could
be; an operation is proposed only when it can also name what it is about, so a
conversation it was not written on is under-read rather than misread.  For
each utterance:

1. **classify** each sentence by cue phrases (``cues.py``, general English
   kept in ``lexicon/interpreter_cues.yaml``); sentences with no cue are
   observations if nothing else in the utterance has a cue; beside a
   hypothesis, an objection or a question they are its grounds (one Observe
   per run of such sentences), else elaboration;
2. **link** each operation to the state by TF-IDF similarity
   (``similarity.py``) of the utterance to the claims' texts: the target of
   Support/Undermine/Resolve is the most similar claim under discussion
   (hypotheses, positions, decisions), with a bonus for recent ones; Revise
   takes back a claim of the speaker's own (the most similar, weakened ones
   first, else their latest), never someone else's; a Resolve names no
   decision: whether it is consensual or an authoritative decision, and the
   decision's id, are the rules' to decide (``consensual/1``,
   ``decision_claim/2``); Hypothesize rests on the grounds said with it, or on
   the claims its sentence overlaps by ``DEP_THRESHOLD`` -- and is not
   proposed when it names none -- and explains the most similar open
   problems; an Observe that matches a declared but unclaimed proposition
   claims it, and so does "I'm assuming ..."; an Expand-Awareness that
   matches a proposition outside everyone's awareness brings that one in; a
   hypothesis that restates one already standing is a Support of it instead;
3. on **rejection**, drop the operations the rules refused and try again
   (each round drops at least one, so it ends).

Measured figures, in-sample and held out, are in docs/interpreter.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grounded.core.errors import Violation
from grounded.core.literals import atom_of
from grounded.core.vocabulary import GOOD_STANDING
from grounded.engine import Engine
from grounded.interpreter.base import Exchange, Interpreter
from grounded.interpreter.cues import cues, sentences
from grounded.interpreter.proposal import PREFIX, Proposal, id_allocator
from grounded.interpreter.similarity import TextIndex
from grounded.interpreter.texts import claim_texts
from grounded.interpreter.transcript import Said

LINK_THRESHOLD = 0.08
"""Least similarity for an explains link."""
DEP_THRESHOLD = 0.2
"""Least similarity of a hypothesis to an earlier claim for it to rest on that claim (a Dep edge)."""
TARGET_THRESHOLD = 0.08
"""Least similarity (with bonuses) for the target of a Support, Undermine, Revise or Resolve."""
ASSUMPTION_THRESHOLD = 0.2
"""Least similarity for "I'm assuming ..." to claim a declared proposition."""
DECLARED_THRESHOLD = 0.35
"""Least similarity for an observation to claim a declared proposition."""
LATENT_THRESHOLD = 0.12
"""Least similarity for Expand-Awareness to bring in a proposition outside everyone's awareness."""
RESTATE_THRESHOLD = 0.45
"""Similarity above which a 'new' hypothesis restates a standing one (a Support of it)."""
RECENCY_BONUS = 0.05
WEAKENED_BONUS = 0.1
MAX_DEPS = 2
MAX_EXPLAINS = 2

_ORDER = ("expand_awareness", "observe", "question", "hypothesize", "support", "undermine", "revise", "resolve")
_UNDER_DISCUSSION = frozenset({"hypothesis", "position", "decision"})
_GROUNDED_BY_REPORTS = frozenset({"hypothesize", "support", "undermine"})
"""Operations whose utterance's uncued reports before them are their grounds (Observe)."""


@dataclass
class _Claim:
    id: str
    text: str
    kind: str
    standing: str | None  # best standing among its arguments (None: declared, no argument)
    turn: int
    speakers: set[str]


class RuleInterpreter(Interpreter):
    name = "rules"

    def begin(self, engine: Engine, said: Said) -> Exchange:
        return _RuleExchange(_propose(engine, said))


class _RuleExchange(Exchange):
    def __init__(self, proposal: Proposal):
        self.proposal = proposal

    def propose(self, feedback: list[Violation] | None) -> Proposal | None:
        if feedback is not None:
            failing = {v.index for v in feedback if v.index >= 0}
            if not failing or not self.proposal.ops:
                return None
            self.proposal = self.proposal.without(failing)
        return self.proposal


# -- reading the state --------------------------------------------------------------

_RANK = {"resolved": 3, "active": 3, "weakened": 2, "abandoned": 1}


def _claims(engine: Engine) -> dict[str, _Claim]:
    dm = engine.state
    texts = claim_texts(engine)
    out: dict[str, _Claim] = {}
    for r in dm.args:
        c = out.get(r.claim)
        if c is None:
            out[r.claim] = _Claim(r.claim, " ".join(texts[r.claim]), r.kind, r.standing, r.turn, {r.speaker})
        else:
            c.speakers.add(r.speaker)
            if _RANK[r.standing] >= _RANK.get(c.standing or "", 0):
                c.standing = r.standing
            c.turn = max(c.turn, r.turn)
    for p in dm.props.values():
        if p.id not in out and p.aware_turn is not None and p.kind != "question":
            out[p.id] = _Claim(p.id, p.text, p.kind, None, p.turn or 0, set())
    return out


# -- proposing ------------------------------------------------------------------------


@dataclass
class _View:
    """The state an utterance is linked against, indexed once for every proposal made from it."""

    claims: dict[str, _Claim]
    index: TextIndex
    """The claims' texts."""
    problems: TextIndex
    """The open problems' texts."""
    latent: TextIndex
    """The texts of propositions outside everyone's awareness."""
    last_turn: int


def _view(engine: Engine) -> _View:
    claims = _claims(engine)
    problem_texts = {p: _problem_text(engine, p, claims) for p in engine.open_problems()}
    latent = {p.id: p.text for p in engine.state.props.values() if p.aware_turn is None}
    return _View(claims, TextIndex(list(claims), [c.text for c in claims.values()]),
                 TextIndex(list(problem_texts), list(problem_texts.values())),
                 TextIndex(list(latent), list(latent.values())), engine.turn or 0)


def _propose(engine: Engine, said: Said) -> Proposal:
    parts = sentences(said.text)
    tagged = [(s, cues(s)) for s in parts]
    view = _view(engine)
    if any(labels for _, labels in tagged):
        proposal = _build(engine, view, said, tagged)
        if proposal.ops:
            return proposal
    # no cue, or nothing the cues named could be linked: report what was said, less the hedges
    # (a guess that names nothing it rests on is neither a hypothesis nor an observation)
    return _build(engine, view, said, [(s, {"question"} if s.endswith("?") else
                                        set() if "hypothesize" in labels else {"observe"}) for s, labels in tagged])


def _build(engine: Engine, view: _View, said: Said, tagged: list[tuple[str, set[str]]]) -> Proposal:
    claims, index, problems, last_turn = view.claims, view.index, view.problems, view.last_turn
    latent = set(view.latent.keys)  # brought into awareness at most once per utterance
    alloc = id_allocator(engine)

    def target(text: str, *, allow: set[str], prefer_weakened: bool = False) -> str | None:
        best, best_score = None, TARGET_THRESHOLD
        for key, score in index.ranked(text, allow):
            c = claims[key]
            score += RECENCY_BONUS if c.turn >= last_turn - 1 else 0.0
            score += WEAKENED_BONUS if prefer_weakened and c.standing == "weakened" else 0.0
            if score > best_score:
                best, best_score = key, score
        return best

    discussed = {k for k, c in claims.items() if c.kind in _UNDER_DISCUSSION and c.standing is not None}
    live = {k for k in discussed if claims[k].standing != "abandoned"}
    standing = {k for k, c in claims.items() if c.standing in GOOD_STANDING}
    declared = {k for k, c in claims.items() if c.standing is None}
    own = {k for k in live if said.speaker in claims[k].speakers}

    ops: dict[str, list[dict]] = {name: [] for name in _ORDER}
    aux: list[dict] = []
    new_observations: list[str] = []
    new_hypotheses: list[str] = []
    whole = said.text
    tagged = _with_grounds(tagged)
    for sentence, labels in tagged:  # first what is reported, so that a hypothesis can rest on all of it
        if "expand_awareness" in labels:
            hit = view.latent.best(sentence, latent)
            claim = hit[0] if hit and hit[1] >= LATENT_THRESHOLD else alloc.fresh(PREFIX["expand_awareness"])
            latent.discard(claim)
            ops["expand_awareness"].append({"op": "expand_awareness", "claim": claim, "text": sentence})
        if "assume" in labels:  # the claim of a declared assumption, when the sentence names one
            hit = index.best(sentence, declared)
            if hit and hit[1] >= ASSUMPTION_THRESHOLD:
                declared.discard(hit[0])
                ops["observe"].append({"op": "observe", "claim": hit[0], "text": sentence})
        if "observe" in labels:
            hit = index.best(sentence, declared)
            claim = hit[0] if hit and hit[1] >= DECLARED_THRESHOLD else alloc.fresh(PREFIX["observe"])
            declared.discard(claim)
            ops["observe"].append({"op": "observe", "claim": claim, "text": sentence})
            new_observations.append(claim)
        if "question" in labels:
            ops["question"].append({"op": "question", "claim": alloc.fresh(PREFIX["question"]), "text": sentence})
    for sentence, labels in tagged:
        if "hypothesize" in labels:
            restated = index.best(sentence, standing & discussed)
            if restated and restated[1] >= RESTATE_THRESHOLD:
                labels = labels | {"support"}
            else:
                deps = (_references(index, sentence, standing & discussed, new_observations)
                        or _references(index, sentence, standing, []))
                if deps:  # a hypothesis names what it rests on, or is not proposed
                    claim = alloc.fresh(PREFIX["hypothesize"])
                    explains = [k for k, s in problems.ranked(sentence)[:MAX_EXPLAINS] if s >= LINK_THRESHOLD]
                    ops["hypothesize"].append({"op": "hypothesize", "claim": claim,
                                               "text": _spelled_out(sentence, whole), "deps": deps,
                                               "explains": explains})
                    new_hypotheses.append(claim)
        for op in ("support", "undermine", "revise", "resolve"):
            if op not in labels:
                continue
            if op == "revise":  # a speaker retracts a claim of their own
                goal = target(f"{sentence} {whole}", allow=own, prefer_weakened=True) or _latest(claims, own)
            else:
                allow = (standing & discussed) if op == "support" else live
                goal = target(f"{sentence} {whole}", allow=allow)
            if goal is None or any(o["target"] == goal for o in ops[op]):
                continue
            entry: dict = {"op": op, "target": goal}
            if op in ("support", "undermine"):
                if new_observations:
                    entry["by"] = new_observations[-1]
                else:
                    evidence = alloc.fresh(PREFIX["observe"])
                    aux.append({"op": "observe", "claim": evidence, "text": sentence})
                    entry["by"] = evidence
            elif op == "revise":
                recent: list[str] = list(new_hypotheses or new_observations)
                by = recent[-1] if recent else None
                if by is not None:
                    entry["by"] = by
            elif op == "resolve":  # consensual or a decision: the rules decide, and name the decision
                assumptions = [k for k, c in claims.items() if c.kind == "assumption" and k in standing]
                entry.update(text=sentence, assumptions=assumptions)
            ops[op].append(entry)
    result = [op for name in _ORDER[:3] for op in ops[name]]
    flags = [False] * len(result)
    result += aux
    flags += [True] * len(aux)
    rest = [op for name in _ORDER[3:] for op in ops[name]]
    return Proposal(result + rest, flags + [False] * len(rest))


def _with_grounds(tagged: list[tuple[str, set[str]]]) -> list[tuple[str, set[str]]]:
    """Uncued reports that are the grounds of a hypothesis or an objection become Observe.

    A report is a declarative sentence with no cue; in an utterance that proposes a hypothesis every
    report is its ground ("X happened. I think Y.", "Could it be Y? X happened."), and so is an
    objection's ("X happened, but Y"): the rival hypothesis carries the objection, so its sentences
    are not Undermine as well.  In an utterance that supports or undermines, the reports before the
    cued sentence are its evidence.  Any other uncued sentence elaborates.
    """
    proposes = any("hypothesize" in labels for _, labels in tagged)
    out: list[tuple[str, set[str]]] = []
    for i, (sentence, labels) in enumerate(tagged):
        if proposes and "undermine" in labels:
            labels = (labels - {"undermine"}) | ({"observe"} if labels == {"undermine"} else set())
        if not labels and not sentence.endswith("?"):
            if proposes or any(lab & _GROUNDED_BY_REPORTS for _, lab in tagged[i + 1:]):
                labels = {"observe"}
        if labels == {"observe"} and out and out[-1][1] == {"observe"}:  # one report, said in several sentences
            out[-1] = (f"{out[-1][0]} {sentence}", labels)
        else:
            out.append((sentence, labels))
    return out


def _references(index: TextIndex, sentence: str, among: set[str], said_before: list[str]) -> list[str]:
    """What a hypothesis rests on, at most ``MAX_DEPS``: the reports of its own utterance (the speaker's stated
    grounds), then the claims of ``among`` whose texts it overlaps by at least ``DEP_THRESHOLD``.

    The caller asks first among the hypotheses, positions and decisions (a plan rests on the explanation it
    acts on), and only when that names nothing among every standing claim."""
    deps = list(dict.fromkeys(said_before))
    deps += [k for k, s in index.ranked(sentence, among) if s >= DEP_THRESHOLD and k not in deps]
    return deps[:MAX_DEPS]


def _latest(claims: dict[str, _Claim], among: set[str]) -> str | None:
    """The most recent of ``among`` (a weakened one first): what "that" in "I withdraw that" refers to."""
    ranked = sorted(among, key=lambda k: (claims[k].standing == "weakened", claims[k].turn))
    return ranked[-1] if ranked else None


def _problem_text(engine: Engine, literal: str, claims: dict[str, _Claim]) -> str:
    if literal in claims:
        return claims[literal].text
    prop = engine.state.props.get(atom_of(literal))
    return prop.text if prop is not None else literal


_ANAPHORIC = re.compile(r"\b(?:this|that|these|those|it|they|them|there)\b", re.IGNORECASE)


def _spelled_out(sentence: str, utterance: str) -> str:
    """A hypothesis's text: its sentence, or the whole utterance when the sentence points back ("I think
    they got in there") and so says what it claims only with the sentences before it."""
    return utterance if _ANAPHORIC.search(sentence) else sentence
