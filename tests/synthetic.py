"""Synthetic conversations for the benchmarks, fed through the real engine.

Three regimes, the first two following App. E4 of the paper:

* naive: about 0.3 K of the K turns create an argument (observations, and
  hypotheses resting on recent claims); the rest are questions, supports,
  undermines and chatter;
* bounded: at most 50 arguments, as in a Phase-2-like working set; the other
  turns are questions, supports, undermines, resolutions and chatter;
* realistic (``realistic``): topic after topic, as a conversation goes, with
  every operation: a question, observations (some negative, some new to
  everyone's awareness, some superseding an earlier one), competing
  hypotheses explaining the question (and one long-lived question every
  topic adds a proposal to), support and undermining among them, revisions,
  and a resolution, consensual or by authority over dissent;
* deep (``realistic`` with ``depth``): the realistic stream where nearly
  every answer rests on the answer the previous topic settled, in lines of
  ``depth`` topics: long support chains, so Verify's witnesses reach 5 to
  dozens of claims and Affected* of a line's first evidence dozens of
  arguments (the other streams make few or none of either).

Every utterance goes through ``Engine.apply`` (and so through the Prolog
rules); the accepted ones are returned as the history a replay baseline reads.
Evidence is an observation bearing on a newer hypothesis (support adds it to
the hypothesis's Dep, undermine attacks it), so dependencies and attacks stay
acyclic and Dep* stays local, as in the paper's scenarios.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from grounded.core.errors import PreconditionError
from grounded.engine import Engine

SPEAKERS = ("alice", "bob", "carol")
HEADER = {"agents": {"alice": {"authority": True}, "bob": {}, "carol": {}}}


@dataclass
class Conversation:
    engine: Engine
    history: list[dict] = field(default_factory=list)
    claims: list[str] = field(default_factory=list)
    ingest_seconds: float = 0.0
    rejected: int = 0
    op_utterances: int = 0  # accepted utterances that carry operations ...
    op_seconds: float = 0.0  # ... and the time spent applying them

    def say(self, turn: int, rng: random.Random, ops: list[dict]) -> bool:
        utterance = {"turn": turn, "speaker": rng.choice(SPEAKERS), "text": "", "ops": ops}
        start = time.perf_counter()
        try:
            self.engine.apply(utterance)
        except PreconditionError:
            self.rejected += 1
            self.ingest_seconds += time.perf_counter() - start
            return False
        elapsed = time.perf_counter() - start
        self.ingest_seconds += elapsed
        self.history.append(utterance)
        if ops:
            self.op_utterances += 1
            self.op_seconds += elapsed
        return True


def _new_argument(conv: Conversation, t: int, rng: random.Random) -> list[dict]:
    dm = conv.engine.state
    if len(conv.claims) < 2 or rng.random() < 0.6:
        return [{"op": "observe", "claim": f"o{t}"}]
    window = conv.claims[-30:]
    observations = [c for c in window if c.startswith("o")] or window
    deps = rng.sample(observations, min(len(observations), rng.choice((1, 1, 2))))
    if rng.random() < 0.2:  # now and then a hypothesis rests on another one
        hypotheses = [c for c in window if c.startswith("h")]
        if hypotheses:
            deps.append(rng.choice(hypotheses))
    problems = list(islice(reversed(dm.open_problems), 5))  # the newest, without copying them all
    explains = [rng.choice(problems)] if problems else []
    return [{"op": "hypothesize", "claim": f"h{t}", "deps": sorted(set(deps)), "explains": explains}]


def _evidence_for(conv: Conversation, rng: random.Random) -> tuple[str, str] | None:
    """(older observation, newer hypothesis) among recent claims: evidence and what it bears on."""
    window = conv.claims[-30:]
    for _ in range(3):
        i, j = sorted(rng.sample(range(len(window)), 2)) if len(window) >= 2 else (0, 0)
        if i != j and window[i].startswith("o") and window[j].startswith("h"):
            return window[i], window[j]
    return None


def _other_turn(conv: Conversation, t: int, rng: random.Random, bounded: bool) -> list[dict]:
    r = rng.random()
    pair = _evidence_for(conv, rng)
    if r < 0.15:
        return [{"op": "question", "claim": f"q{t}"}]
    if r < 0.25 and pair:
        return [{"op": "support", "target": pair[1], "by": pair[0]}]
    if r < 0.30 and pair:
        return [{"op": "undermine", "target": pair[1], "by": pair[0]}]
    if bounded and r < 0.33 and conv.claims:
        target = rng.choice(conv.claims)
        if conv.engine.standing(target) == "active":  # consensual: creates no decision argument
            return [{"op": "resolve", "target": target}]
    return []  # chatter: an utterance with no operation


def build(k: int, regime: str, seed: int, log: Path | None = None) -> Conversation:
    """A conversation of k turns in the given regime ('naive' or 'bounded').

    With ``log`` the engine writes its event log there as it goes (header and
    accepted utterances: the log ``grounded check`` reads).
    """
    rng = random.Random(seed)
    conv = Conversation(Engine(HEADER, log=log))
    bounded = regime == "bounded"
    for t in range(1, k + 1):
        room = not bounded or len(conv.engine.state.args) < 50
        creating = room and (rng.random() < 0.3 or not conv.claims)
        ops = _new_argument(conv, t, rng) if creating else _other_turn(conv, t, rng, bounded)
        if conv.say(t, rng, ops) and creating:
            conv.claims.append(ops[0]["claim"])
    return conv


def replay_affected(history: list[dict], literal: str) -> set[str]:
    """The baseline: answer Affected*(p) from the raw history, with no maintained index."""
    dependents: dict[str, set[str]] = {}
    for utterance in history:
        for op in utterance["ops"]:
            kind = op["op"]
            if kind == "hypothesize":
                for d in op["deps"]:
                    dependents.setdefault(d, set()).add(op["claim"])
            elif kind == "support":
                dependents.setdefault(op["by"], set()).add(op["target"])
            elif kind == "resolve":
                for b in op.get("subsumes", ()):
                    dependents.setdefault(op["target"], set()).add(b)
    seen: set[str] = set()
    stack = [literal]
    while stack:
        for c in dependents.get(stack.pop(), ()):
            if c not in seen:
                seen.add(c)
                stack.append(c)
    return seen


# -- the realistic regime ------------------------------------------------------------------

SHARED_QUESTION = "q0"
"""The long-lived question: asked first, every topic proposes an answer to it, none is resolved."""


class _Talk:
    """One realistic conversation being written: turns in order, chatter between operations."""

    def __init__(self, conv: Conversation, k: int, rng: random.Random):
        self.conv, self.k, self.rng, self.turn = conv, k, rng, 0

    def full(self) -> bool:
        return self.turn >= self.k

    def say(self, speaker: str, *ops: dict) -> bool:
        """One utterance by ``speaker`` (after chatter now and then); False once the K turns are used."""
        while not self.full() and self.rng.random() < 0.3:
            self.turn += 1
            self.conv.say(self.turn, self.rng, [])
        if self.full():
            return False
        self.turn += 1
        utterance = {"turn": self.turn, "speaker": speaker, "text": "", "ops": list(ops)}
        start = time.perf_counter()
        try:
            self.conv.engine.apply(utterance)
        except PreconditionError:
            self.conv.rejected += 1
            return False
        finally:
            self.conv.ingest_seconds += time.perf_counter() - start
        self.conv.history.append(utterance)
        self.conv.op_utterances += 1
        return True


def _topic(talk: _Talk, i: int, earlier: list[str], deep: bool = False) -> str | None:
    """Topic ``i``: its question, evidence, 2-4 competing answers and how they fare; the answer
    it resolves (None if none), which later topics may rest on (``deep``: nearly always, on the newest)."""
    rng, who = talk.rng, rng_speaker(talk.rng)
    q, oa, ob = f"q{i}", f"o{i}a", f"-o{i}b" if rng.random() < 0.3 else f"o{i}b"
    talk.say(who(), {"op": "question", "claim": q})
    talk.say(who(), {"op": "observe", "claim": oa})
    talk.say(who(), {"op": "observe", "claim": ob})
    if rng.random() < 0.1:  # something nobody had considered
        talk.say(who(), {"op": "expand_awareness", "claim": f"e{i}"})
    answers = []
    for j in range(rng.choice((2, 2, 3, 4))):
        h = f"-h{i}_{j}" if rng.random() < 0.15 else f"h{i}_{j}"
        deps = rng.sample([oa, ob], rng.choice((1, 2)))
        if earlier and rng.random() < (0.9 if deep else 0.3):  # resting on what an earlier topic settled
            deps.append(earlier[-1] if deep else rng.choice(earlier[-5:]))
        explains = [q, SHARED_QUESTION] if j == 0 and i % 3 == 0 else [q]
        if talk.say(who(), {"op": "hypothesize", "claim": h, "deps": deps, "explains": explains}):
            answers.append(h)
    if not answers:
        return None
    for h in answers:
        if rng.random() < 0.5:
            talk.say(who(), {"op": "support", "target": h, "by": oa})
    # evidence against one answer: bob brings it, so he is committed to what attacks it
    against, contested = f"o{i}c", rng.choice(answers)
    if rng.random() < 0.6 and talk.say(who(), {"op": "observe", "claim": against}):
        talk.say("bob", {"op": "undermine", "target": contested, "by": against})
        if rng.random() < 0.3:
            talk.say(who(), {"op": "revise", "target": contested, "by": against})
    if rng.random() < 0.15:  # a fact updated: the old reading is superseded
        talk.say(who(), {"op": "observe", "claim": f"o{i}a2", "supersedes": [oa]})
    r = rng.random()
    if r < 0.3 and talk.conv.engine.standing(contested) == "weakened":  # by authority, over bob's dissent
        chosen = contested
        talk.say("alice", {"op": "resolve", "target": chosen, "assumptions": [ob]})
    elif r < 0.8:
        chosen = rng.choice(answers)
        others = [h for h in answers if h != chosen and rng.random() < 0.2]
        if talk.conv.engine.standing(chosen) != "active":
            return None
        talk.say(who(), {"op": "resolve", "target": chosen, "subsumes": others})
    else:
        return None  # left open
    if rng.random() < 0.05:  # a decision taken back later
        talk.say(who(), {"op": "revise", "target": chosen})
        return None
    return chosen


def rng_speaker(rng: random.Random) -> Callable[[], str]:
    return lambda: rng.choice(SPEAKERS)


def realistic(k: int, seed: int, depth: int = 0) -> Conversation:
    """A conversation of k turns in the realistic regime, or the deep one with lines of ``depth`` topics
    (see the module's docstring)."""
    rng = random.Random(seed)
    talk = _Talk(Conversation(Engine(HEADER)), k, rng)
    talk.say("alice", {"op": "question", "claim": SHARED_QUESTION})
    settled: list[str] = []
    i = 1
    while not talk.full():
        if depth and i % depth == 0:  # a new line of topics: its chain starts afresh
            settled.clear()
        chosen = _topic(talk, i, settled, deep=depth > 0)
        if chosen is not None:
            settled.append(chosen)
            del settled[:-5]
        i += 1
    return talk.conv


def argument_heavy(k: int, seed: int, path: Path) -> int:
    """A log where every turn creates an argument: an observation (40%, and the first
    three), else a hypothesis resting on 2 of the 20 most recent claims.  Returns its
    utterances."""
    rng = random.Random(seed)
    claims: list[str] = []
    op: dict[str, str | list[str]]
    with Engine(HEADER, log=path) as engine:
        for t in range(1, k + 1):
            if len(claims) < 3 or rng.random() < 0.4:
                claim, op = f"o{t}", {"op": "observe", "claim": f"o{t}"}
            else:
                claim = f"h{t}"
                op = {"op": "hypothesize", "claim": claim, "deps": rng.sample(claims[-20:], 2)}
            engine.apply({"turn": t, "speaker": rng.choice(("alice", "bob", "carol")), "text": "", "ops": [op]})
            claims.append(claim)
    return k
