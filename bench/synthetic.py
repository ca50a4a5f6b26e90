"""Synthetic conversations for the benchmarks, fed through the real engine.

Two regimes, following App. E4 of the paper:

* naive: about 0.3 K of the K turns create an argument (observations, and
  hypotheses resting on recent claims); the rest are questions, supports,
  undermines and chatter;
* bounded: at most 50 arguments, as in a Phase-2-like working set; the other
  turns are questions, supports, undermines, resolutions and chatter.

Every utterance goes through ``Engine.apply`` (and so through the Prolog
rules); the accepted ones are returned as the history a replay baseline reads.
Evidence is an observation bearing on a newer hypothesis (support adds it to
the hypothesis's Dep, undermine attacks it), so dependencies and attacks stay
acyclic and Dep* stays local, as in the paper's scenarios.
"""

from __future__ import annotations

import random
import time
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
