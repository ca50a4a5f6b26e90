"""Plain-data summaries of the state, shared by the notebook display and the step-through page.

Each function reads the engine (or a model) as of a turn and returns lists and
dicts that both HTML views render: the table of arguments, an update's
changes, a Verify or Affected* answer, and the plausibility model's worlds,
information cells and plausibility orders.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.effects import (
    AddAttack,
    AddDep,
    AddExplains,
    Commit,
    Dissent,
    NewArg,
    RetractCommitment,
    SetStanding,
    fields_of,
)
from grounded.engine import Engine, Update
from grounded.engine.whatif import WhatIf
from grounded.epistemic.model import PlausibilityModel
from grounded.present import render
from grounded.queries import registry
from grounded.queries.verify import grounded_arguments

WORLD_LIMIT = 64
"""At most this many worlds are listed one by one; the rest are counted (and said to be left out)."""


def argument_rows(engine: Engine, at: int | None = None) -> list[dict[str, Any]]:
    """Every argument as of turn ``at``: id, claim, kind, speaker, turn, standing, grounded, Dep, explains."""
    dm = engine.state
    grounded = grounded_arguments(dm, at)
    rows = []
    for r in dm.args:
        standing = r.standing_at(at)
        if standing is None:
            continue
        turn, _, cause = r.change_at(at)
        rows.append({"id": r.id, "claim": r.claim, "kind": r.kind, "speaker": r.speaker, "turn": r.turn,
                     "standing": standing, "since": turn, "cause": cause, "grounded": r.id in grounded,
                     "in_standing": standing in GOOD_STANDING, "deps": list(r.deps_at(at)),
                     "explains": list(r.explains_at(at)), "text": r.text})
    return rows


def state_summary(engine: Engine, at: int | None = None) -> dict[str, Any]:
    """Open problems, commitments, dissent and what is reinstatable, as of turn ``at`` (the registry's answers)."""
    return registry.summary(engine, at)


def update_summary(engine: Engine, update: Update) -> dict[str, Any]:
    """What an update did: its operations, its changes as short phrases, the arguments it touched, flags.

    Read right after the update, while the engine's state is the one it made.
    """
    return {
        "turn": update.turn,
        "speaker": update.speaker,
        "text": update.utterance.text,
        "ops": [render.describe_op(op) for op in update.utterance.ops],
        "changes": render.describe_changes(engine, update),
        "changed": sorted(touched_arguments(update)),
        "new": sorted(e.arg for e in update.of(NewArg)),
        "flagged": dict(update.flagged),
    }


def whatif_json(w: WhatIf) -> dict[str, Any]:
    """A what-if answer as JSON (``grounded whatif --json``, the try-it page): the transitions and the
    changes in words when the rules accept, every violation's code and message when they reject."""
    summary = update_summary(w.engine, w.update) if w.accepted else None
    return {"at": w.at, "turn": w.turn, "speaker": w.speaker, "accepted": w.accepted,
            "ops": [render.describe_op(op) for op in w.utterance.ops],
            "transitions": [[e.index, e.name, *fields_of(e)] for e in w.update.effects] if w.accepted else [],
            "changes": summary["changes"] if summary else [], "flagged": w.flagged,
            "violations": [v.to_json() for v in w.violations]}


def touched_arguments(update: Update) -> set[int]:
    """The arguments an update created or changed (standing, Dep, explains, attacks, commitments, dissent)."""
    out: set[int] = set()
    for e in update.effects:
        if isinstance(e, (NewArg, SetStanding, AddDep, AddExplains, Dissent, Commit, RetractCommitment)):
            out.add(e.arg)
        elif isinstance(e, AddAttack):
            out.update((e.attacker, e.target))
    return out


def world_name(model: PlausibilityModel, w: int) -> str:
    """A world by the atoms true in it: '{m_a, m_b}' ('{}' when none is)."""
    return "{" + ", ".join(a for a in model.atoms if model.val[model.atom_index[a], w]) + "}"


def model_summary(model: PlausibilityModel, limit: int = WORLD_LIMIT) -> dict[str, Any]:
    """W, and for each agent its information cells among the live worlds, each cell as its
    plausibility levels (most plausible first), every world named by its true atoms.

    At most ``limit`` worlds are listed; ``shown`` says how many were.
    """
    live = model.world_ids()
    listed = [int(w) for w in live[:limit]]
    names = {w: world_name(model, w) for w in listed}
    agents: dict[str, list[list[list[str]]]] = {}
    for agent in model.agents:
        cells = model.cells[agent][listed] if listed else np.zeros(0, np.int32)
        ranks = model.ranks[agent][listed] if listed else np.zeros(0, np.int32)
        by_cell: dict[int, dict[int, list[str]]] = {}
        for w, c, r in zip(listed, cells.tolist(), ranks.tolist(), strict=True):
            by_cell.setdefault(c, {}).setdefault(r, []).append(names[w])
        agents[agent] = [[levels[r] for r in sorted(levels)] for levels in by_cell.values()]
    return {
        "size": model.size,
        "universe": model.universe,
        "atoms": list(model.atoms),
        "worlds": [names[w] for w in listed],
        "actual": None if (actual := model.alive_actual()) is None else names.get(actual),
        "agents": agents,
        "cells": {agent: int(np.unique(model.cells[agent][live]).size) for agent in model.agents},
        "shown": len(listed),
    }
