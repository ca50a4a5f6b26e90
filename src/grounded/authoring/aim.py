"""Histories that aim at the states where an operation's bugs live.

A uniform draw of operations and literals rarely builds the states that
matter to a rule: three hypotheses competing on one question, a target in
each standing, an attack cycle, a world model.  A history here is drawn in
two parts:

* a **scene**, a few utterances of the built-in operations that build such
  states (each part in about half the histories, so that histories differ):
  observations, a question with one to four competing hypotheses, one of
  them weakened, a claim abandoned, a hypothesis resolved, and, under a
  header that opts out of restriction A2, an attack cycle;
* **moves**, each an operation drawn from those the engine knows (the
  author's about half the time), its fields drawn from the operation's JSON
  Schema (what a log line of it must hold) and each literal from what the
  current state holds, by kind: a claim in each standing, an open problem,
  a hypothesis competing on a question, a question, a negation, a fresh id.

Half the headers declare a world model (so a rule's effects on M, and the
verdicts read in it, are drawn too) and a quarter opt out of A2.  Every
utterance drawn, rejected ones included, is part of the history.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from grounded.core.errors import InputError, PreconditionError
from grounded.dmap.model import Header
from grounded.dmap.operations import OperationSpec, model_from_spec
from grounded.engine import Engine, Update

AGENTS = {"alice": {"authority": True}, "bob": {}, "carol": {}}
SPEAKERS = tuple(AGENTS)
OBSERVED = ("o1", "o2", "o3")
HYPOTHESES = ("h1", "h2", "h3", "h4")
WORLD = {
    # one atom per observation and two the hypotheses combine: each hypothesis entails o1 (so it
    # explains it) and says more than o1 (so it does not restate it), and the four differ
    "atoms": ["w1", "w2", "w3", "w4", "w5"],
    "formulas": {"o1": "w1", "o2": "w2", "o3": "w3",
                 "h1": "w1 & w4", "h2": "w1 & w5", "h3": "w1 & -w4", "h4": "w1 & w4 & w5"},
}
EXTENSION_SHARE = 0.5


def header(rng: random.Random) -> Header:
    """With a world model in half the histories, without restriction A2 in a quarter."""
    data: dict[str, Any] = {"agents": AGENTS, "props": [{"id": "latent", "aware": False}]}
    if rng.random() < 0.5:
        data["world"] = WORLD
    if rng.random() < 0.25:
        data["acyclic"] = False
    return Header.model_validate(data)


@dataclass
class Drawn:
    """One utterance of a history, and what the engine made of it."""

    utterance: dict
    update: Update | None
    """None: rejected."""
    rejected_by: tuple[tuple[int, str], ...] = ()
    """(op index, code) for each violation of a rejected utterance."""


class Aim:
    """Draws one history against a live engine: the scene, then moves."""

    def __init__(self, rng: random.Random, engine: Engine, ours: Sequence[str]):
        self.rng = rng
        self.engine = engine
        self.ours = list(ours)
        registry = engine.registry
        self.builtins = sorted(n for n in registry.specs if n in registry.builtins)
        self.fresh = 0

    # -- the scene ----------------------------------------------------------------------------------------

    def scene(self) -> list[list[dict]]:
        """The scene's utterances (as op lists), parts drawn at random."""
        rng = self.rng
        parts: list[list[dict]] = []
        observed = list(OBSERVED[:rng.randint(1, 3)])
        parts += [[{"op": "observe", "claim": o}] for o in observed]
        if rng.random() < 0.7:  # competing hypotheses on one question (and on o1)
            parts.append([{"op": "question", "claim": "q1"}])
            for h in HYPOTHESES[:rng.choice((1, 2, 3, 3, 4))]:
                parts.append([{"op": "hypothesize", "claim": h, "deps": [rng.choice(observed)],
                               "explains": rng.sample(["q1", "o1"], rng.randint(1, 2))}])
        if rng.random() < 0.5:
            parts.append([{"op": "undermine", "target": rng.choice(HYPOTHESES[:2]), "by": rng.choice(observed)}])
        if rng.random() < 0.4:
            parts.append([{"op": "revise", "target": rng.choice(observed + list(HYPOTHESES[:3]))}])
        if rng.random() < 0.4:
            parts.append([{"op": "resolve", "target": rng.choice(HYPOTHESES[:3])}])
        if not self.engine.state.acyclic and rng.random() < 0.8:
            a, b = rng.sample(HYPOTHESES[:3], 2)
            parts += [[{"op": "undermine", "target": a, "by": b}], [{"op": "undermine", "target": b, "by": a}]]
        return parts

    # -- moves --------------------------------------------------------------------------------------------

    def move(self) -> list[dict]:
        rng = self.rng
        n = rng.choice((1, 1, 1, 2))
        names = [rng.choice(self.ours) if self.ours and rng.random() < EXTENSION_SHARE else rng.choice(self.builtins)
                 for _ in range(n)]
        return [self.operation(self.engine.registry.specs[name]) for name in names]

    def operation(self, spec: OperationSpec) -> dict:
        """An operation drawn from its JSON Schema: every required property, some optional ones."""
        schema = _schema(spec)
        types = {f.name: f.type for f in spec.fields}
        required = set(schema.get("required", ()))
        pools = self.pools()
        # one kind of literal for most of the operation's references: two hypotheses in good standing
        # (say) come up together far more often than drawn apart
        # (the scene is built around hypotheses: those kinds come up twice as often)
        kinds = sorted(pools) + [k for k in ("competing", "hypothesis") if k in pools]
        theme = self.rng.choice(kinds) if pools else None
        op: dict = {"op": spec.name}
        for name, prop in schema["properties"].items():
            if name == "op" or types.get(name) == "text" or (name not in required and self.rng.random() < 0.5):
                continue
            if prop.get("type") == "array" or "items" in prop or any(
                    p.get("type") == "array" for p in prop.get("anyOf", ())):
                k = self.rng.randint(1 if name in required else 0, 3)
                op[name] = list(dict.fromkeys(self.literal(name, pools, theme) for _ in range(k)))
            else:
                op[name] = self.literal(name, pools, theme)
        return op

    def pools(self) -> dict[str, list[str]]:
        """The literals the state holds, by what they are now."""
        dm = self.engine.state
        out: dict[str, list[str]] = {"active": [], "weakened": [], "abandoned": [], "resolved": [],
                                     "hypothesis": [], "question": [], "competing": []}
        explainers: dict[str, list[str]] = {}
        for literal, ids in sorted(dm.claimants.items()):
            ids = (ids,) if isinstance(ids, int) else ids
            newest = dm.arg(ids[-1])
            out[newest.standing].append(literal)
            if newest.kind in ("hypothesis", "question"):
                out[newest.kind].append(literal)
            for x in newest.explains:
                explainers.setdefault(x, []).append(literal)
        out["competing"] = sorted({h for hs in explainers.values() if len(hs) > 1 for h in hs})
        out["problem"] = sorted(dm.open_problems)
        return {k: v for k, v in out.items() if v}

    def literal(self, field: str, pools: dict[str, list[str]], theme: str | None) -> str:
        rng = self.rng
        if field == "claim" and rng.random() < 0.6 or not pools:
            self.fresh += 1
            return rng.choice((f"n{self.fresh}", f"n{self.fresh}", rng.choice(OBSERVED + HYPOTHESES), "latent"))
        if field == "explains" and "problem" in pools and rng.random() < 0.6:
            return rng.choice(pools["problem"])
        kind = theme if theme is not None and field != "claim" and rng.random() < 0.6 else rng.choice(sorted(pools))
        value = rng.choice(pools[kind])
        return f"-{value}" if rng.random() < 0.08 and not value.startswith("-") else value

    # -- applying -----------------------------------------------------------------------------------------

    def say(self, ops: list[dict]) -> Drawn:
        u = {"speaker": self.rng.choice(SPEAKERS), "ops": ops}
        try:
            update = self.engine.apply(u)
        except PreconditionError as exc:
            return Drawn(u, None, rejected_by=tuple((v.index, v.code) for v in exc.violations))
        except InputError:
            return Drawn(u, None)
        return Drawn(u, update)


@cache
def _schema(spec: OperationSpec) -> dict[str, Any]:
    """The JSON Schema of an operation's log form (generated once per declaration)."""
    return model_from_spec(spec).model_json_schema()


def draw(rng: random.Random, extensions: Sequence[str | Path], length: int,
         focus: Sequence[str] = ()) -> tuple[Header, list[Drawn]]:
    """One history: a header, the scene (its rejected utterances kept too), then ``length`` moves, about
    half of them the ``focus`` operations (by default, the extensions')."""
    head = header(rng)
    engine = Engine(head, extensions=extensions)
    try:
        ours = list(focus) or sorted(n for n in engine.registry.specs if n not in engine.registry.builtins)
        aim = Aim(rng, engine, ours)
        drawn = [aim.say(ops) for ops in aim.scene()]
        drawn += [aim.say(aim.move()) for _ in range(length)]
    finally:
        engine.close()
    return head, drawn
