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

WORLD_LIMIT = 64
"""At most this many worlds are listed one by one; the rest are counted (and said to be left out)."""


ROW_KEYS = ("id", "claim", "kind", "speaker", "turn", "standing", "grounded", "deps", "explains", "text")
"""What the pages show of an argument of the state's one shape (``registry.state_arguments``)."""


def argument_rows(engine: Engine, at: int | None = None) -> list[dict[str, Any]]:
    """Every argument as of turn ``at`` as the pages read it: the state's own fields (``ROW_KEYS``), and when
    and by what it reached its standing (``since``, ``cause``: its history's last change) and whether that
    standing keeps it in S_t (``in_standing``)."""
    rows = []
    for a in registry.state_arguments(engine, at):
        change = a["history"][-1]
        rows.append({**{k: a[k] for k in ROW_KEYS}, "since": change["turn"], "cause": change["cause"],
                     "in_standing": a["standing"] in GOOD_STANDING})
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
