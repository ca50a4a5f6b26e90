"""The world model drawn as the textbooks draw a Kripke model, or summarised when it is too large.

A plausibility model (``epistemic/model.py``) keeps, per agent, an information
partition and a rank.  Drawn, every live world is a node; two worlds an agent
cannot tell apart are joined by an edge labelled with that agent (all the
agents that confuse the pair on one edge, no reflexive loops: every world is
indistinguishable from itself); when the agent finds one of the two strictly
more plausible, the edge is an arrow to the more plausible world.  As in the
textbooks, what transitivity implies is left out (``_reduced``): equally
plausible worlds of a cell are joined in a path, and arrows go only to the next
more plausible level.  That is the picture of Baltag and Smets' plausibility
models, and of the muddy children's cube.

Each agent's edges have a colour and a dash style of their own (``AGENT_STYLES``), so that the agents are
told apart in greyscale and by a reader who does not see colours.  A model of at most three atoms is the
textbooks' cube (``CUBE_ATOMS``): each world placed by its atoms, so that an agent's edges are the cube's
edges along the atom the agent does not observe.  The worlds an announcement eliminates are drawn as ghosts
(dashed, pale) at the turn they leave (``before``: the model before the turn); on the cube every world that
has left stays a faint ghost, so that the cube keeps its shape.

Drawn with one edge per pair, a model of n worlds has up to n(n-1)/2 edges, and
Phase 2's worlds are sets of ten atoms: past ``DRAW_LIMIT`` worlds the page and
``grounded world`` give counts instead (cells by size per agent, plausibility
levels) and name worlds by the atoms that differ among them only.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np

from grounded.epistemic.model import PlausibilityModel

DRAW_LIMIT = 16
"""Models with at most this many live worlds are drawn world by world; larger ones are summarised."""

CUBE_ATOMS = 3
"""Models of at most this many atoms are drawn as a cube (a square, a segment): each world where its atoms put it."""

AGENT_STYLES = [("#1f5fd6", "solid"), ("#d35400", "dashed"), ("#2e7d32", "dotted"), ("#7b2cbf", "bold"),
                ("#b8860b", "dashed,bold"), ("#c2185b", "dotted,bold")]
"""Per agent, in the model's order: a colour and a Graphviz line style, both different from every other's."""

FULL_NAMES = 5
"""Worlds of models with at most this many atoms are named by all their true atoms; beyond that, by the
atoms that differ among the live worlds (the rest are listed once as true or false everywhere)."""


def differing_atoms(model: PlausibilityModel) -> list[str]:
    """The atoms whose value is not the same in every live world."""
    out = []
    for i, a in enumerate(model.atoms):  # one atom's row at a time: a 2^22-world model copies 4 MB, not 92
        row = model.val[i][model.alive]
        if row.any() and not row.all():
            out.append(a)
    return out


def _true_in(model: PlausibilityModel, w: int, atoms: list[str]) -> list[str]:
    return [a for a in atoms if model.val[model.atom_index[a], w]]


def world_graph(model: PlausibilityModel, limit: int = DRAW_LIMIT,
                before: PlausibilityModel | None = None) -> dict[str, Any]:
    """The model as JSON-ready data: ``drawn`` with nodes and edges when |W| <= ``limit``, else a summary.

    Every node is ``{id, label, atoms, actual}`` (``atoms``: all true atoms); every edge is
    ``{a, b, agents, directed}``, an arrow from ``a`` to the more plausible ``b`` when ``directed``.
    ``ghosts`` are the worlds no longer in W drawn pale (``leaving``: eliminated by this turn, alive in
    ``before``), ``styles`` each agent's colour and line style, ``positions`` (on the cube) each world's
    place in points.
    """
    live = model.world_ids()
    varying = differing_atoms(model)
    shown = list(model.atoms) if len(model.atoms) <= FULL_NAMES else varying
    constant = [a for a in model.atoms if a not in varying]
    actual = model.alive_actual()
    out: dict[str, Any] = {
        "size": model.size,
        "universe": model.universe,
        "agents": list(model.agents),
        "named_by": shown,
        "constant_true": [a for a in constant if live.size and model.val[model.atom_index[a], live[0]]],
        "constant_false": [a for a in constant if not live.size or not model.val[model.atom_index[a], live[0]]],
        "cells": {g: _cell_sizes(model, g, live) for g in model.agents},
        "levels": {g: int(np.unique(model.ranks[g][live]).size) for g in model.agents},
        "limit": limit,
        "drawn": live.size <= limit,
        "styles": {g: dict(zip(("color", "style"), AGENT_STYLES[k % len(AGENT_STYLES)], strict=True))
                   for k, g in enumerate(model.agents)},
    }
    if not out["drawn"]:
        return out
    worlds = [int(w) for w in live]
    out["nodes"] = [{"id": f"w{w}", "label": "{" + ", ".join(_true_in(model, w, shown)) + "}",
                     "atoms": _true_in(model, w, list(model.atoms)), "actual": w == actual} for w in worlds]
    out["ghosts"] = _ghosts(model, before, shown, limit)
    if len(model.atoms) <= CUBE_ATOMS:
        out["positions"] = {f"w{w}": _corner(model, w) for w in range(model.universe)}
    edges: dict[tuple[int, int, bool], list[str]] = {}
    for g in model.agents:
        for a, b, directed in _reduced(model, g, worlds):
            edges.setdefault((a, b, directed), []).append(g)
    out["edges"] = [{"a": f"w{a}", "b": f"w{b}", "agents": agents, "directed": directed}
                    for (a, b, directed), agents in edges.items()]
    return out


def _ghosts(model: PlausibilityModel, before: PlausibilityModel | None, shown: list[str],
            limit: int) -> list[dict[str, Any]]:
    """The worlds no longer in W that the drawing shows pale: those ``before`` had (leaving at this turn), and
    on the cube every world already gone; none when more than ``limit`` leave (a drawing of 16 worlds after
    a model of thousands: the counts say it)."""
    gone = ~model.alive
    leaving = gone & before.alive if before is not None and before.universe == model.universe else gone & False
    keep = gone if len(model.atoms) <= CUBE_ATOMS else leaving
    if int(np.count_nonzero(keep)) > limit:
        return []
    names = shown or list(model.atoms)
    return [{"id": f"w{w}", "label": "{" + ", ".join(_true_in(model, int(w), names)) + "}",
             "leaving": bool(leaving[w])} for w in np.flatnonzero(keep)]


CUBE_STEP = (320.0, 230.0, (170.0, 115.0))
"""The cube drawn in oblique projection, in points: the first atom along x, the second along y, the third
along the diagonal."""


def _corner(model: PlausibilityModel, w: int) -> list[float]:
    """World ``w``'s corner of the cube: where its true atoms put it."""
    bits = [bool(model.val[i, w]) for i in range(len(model.atoms))] + [False] * CUBE_ATOMS
    dx, dy = CUBE_STEP[2]
    return [CUBE_STEP[0] * bits[0] + dx * bits[2], CUBE_STEP[1] * bits[1] + dy * bits[2]]


def _reduced(model: PlausibilityModel, agent: str, live: list[int]) -> list[tuple[int, int, bool]]:
    """The agent's relation with what transitivity implies left out, as the textbooks draw it: inside a
    cell, the equally plausible worlds of each level joined in a path, and an arrow from every world of
    a level to every world of the next more plausible level (lower rank)."""
    cells: dict[int, dict[int, list[int]]] = {}
    for w in live:
        cells.setdefault(int(model.cells[agent][w]), {}).setdefault(int(model.ranks[agent][w]), []).append(w)
    out: list[tuple[int, int, bool]] = []
    for levels in cells.values():
        ranks = sorted(levels)
        for r in ranks:
            out += [(v, w, False) for v, w in pairwise(levels[r])]
        for more, less in pairwise(ranks):
            out += [(v, w, True) for v in levels[less] for w in levels[more]]
    return out


def _cell_sizes(model: PlausibilityModel, agent: str, live: np.ndarray) -> dict[str, int]:
    """How many of the agent's cells among the live worlds have each size: {'2': 3} is three cells of two."""
    _, per_cell = np.unique(model.cells[agent][live], return_counts=True)
    sizes, counts = np.unique(per_cell, return_counts=True)
    return {str(int(k)): int(n) for k, n in zip(sizes, counts, strict=True)}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(graph: dict[str, Any], title: str = "") -> str:
    """DOT for a drawn model: one edge per agent in the agent's colour and line style, undirected between
    equally plausible worlds and an arrow to the more plausible; ghosts pale and dashed (red when they leave
    at this turn); on the cube every world pinned to its corner."""
    if not graph["drawn"]:
        raise ValueError("a summarised model has no drawing")
    cube = "positions" in graph
    size = 20 if cube else 12
    lines = ["graph M {", '  graph [layout=neato, overlap=false, sep="+12", splines=true, fontname="Helvetica"'
             + (f", label={_quote(title)}, labelloc=t" if title else "") + "];",
             f'  node [shape=ellipse, fontname="Helvetica", fontsize={size}, style=filled, fillcolor="#fcfcff"];',
             f'  edge [fontname="Helvetica", fontsize={size - 1}, penwidth=2];']

    def pin(node_id: str) -> str:
        x, y = graph["positions"][node_id] if cube else (0, 0)
        return f', pos="{x:g},{y:g}!"' if cube else ""

    for n in graph["nodes"]:
        extra = ', peripheries=2, penwidth=2, fillcolor="#fff4d6"' if n["actual"] else ""
        tooltip = "{" + ", ".join(n["atoms"]) + "}" + (" (the actual world)" if n["actual"] else "")
        lines.append(f'  {n["id"]} [id={_quote(n["id"])}, label={_quote(n["label"])}, '
                     f"tooltip={_quote(tooltip)}{extra}{pin(n['id'])}];")
    for n in graph.get("ghosts", []):
        colour = "#c0392b" if n["leaving"] else "#bbbbbb"
        note = "eliminated at this turn" if n["leaving"] else "eliminated before"
        lines.append(f'  {n["id"]} [id={_quote(n["id"])}, class="ghost{" leaving" if n["leaving"] else ""}", '
                     f'label={_quote(n["label"])}, tooltip={_quote(n["label"] + " (" + note + ")")}, '
                     f'style="dashed,filled", fillcolor="#ffffff", color="{colour}", fontcolor="{colour}"'
                     f"{pin(n['id'])}];")
    if cube:  # the cube's own edges where a world has left, thin and pale: the cube keeps its shape
        alive = {n["id"] for n in graph["nodes"]}
        corners = {n_id: pos for n_id, pos in graph["positions"].items()
                   if n_id in alive or any(g["id"] == n_id for g in graph.get("ghosts", []))}
        for a, b in _cube_edges(graph["positions"]):
            if a in corners and b in corners and not (a in alive and b in alive):
                lines.append(f'  {a} -- {b} [class="frame", color="#dddddd", penwidth=1];')
    k = 0
    for e in graph["edges"]:
        for agent in e["agents"]:
            look = graph["styles"][agent]
            arrow = ", dir=forward" if e["directed"] else ""
            label = "" if cube else f', label={_quote(agent)}, fontcolor="{look["color"]}"'
            lines.append(f'  {e["a"]} -- {e["b"]} [id="e{k}", class={_quote("agent_" + agent)}, '
                         f'color="{look["color"]}", style="{look["style"]}"{arrow}{label}];')
            k += 1
    lines.append("}")
    return "\n".join(lines)


def _cube_edges(positions: dict[str, list[float]]) -> list[tuple[str, str]]:
    """The pairs of corners one atom apart (one step along one axis of the projection)."""
    steps = {(CUBE_STEP[0], 0.0), (0.0, CUBE_STEP[1]), CUBE_STEP[2]}
    ids = sorted(positions)
    return [(a, b) for i, a in enumerate(ids) for b in ids[i + 1:]
            if (abs(positions[a][0] - positions[b][0]), abs(positions[a][1] - positions[b][1])) in steps]


class WorldDrawing:
    """The world model of a turn drawn (the cube for the muddy children), as a notebook displays it."""

    def __init__(self, svg: str):
        self.svg = svg

    def _repr_svg_(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return "WorldDrawing (an SVG: shown as a picture by Jupyter)"


def draw_worlds(engine: Any, at: int | None = None, limit: int = DRAW_LIMIT) -> WorldDrawing:
    """The engine's world model at turn ``at`` drawn, the worlds that turn eliminated ghosted (``world_graph``
    with the model of the turn before); a model too large to draw raises ValueError, saying its size."""
    from grounded.present.picture import inline_svg, render  # Graphviz and clingo: only when drawing

    model = engine.model_at(at)
    before = engine.model_at(at - 1) if at is not None and at >= 0 else None
    graph = world_graph(model, limit, before=before if before is not model else None)
    if not graph["drawn"]:
        raise ValueError(f"M at T{at} has {graph['size']} worlds, more than the {limit} drawn")
    return WorldDrawing(inline_svg(render([to_dot(graph, f"M at T{at}: |W| = {graph['size']}")], "svg")[0]
                                   .decode("utf-8")))


def _cells_phrase(sizes: dict[str, int]) -> str:
    n = sum(sizes.values())
    parts = [f"{count} of {size} world{'s' if size != '1' else ''}" for size, count in sorted(
        sizes.items(), key=lambda kv: -int(kv[0]))]
    return f"{n} cell{'s' if n != 1 else ''}" + (f" ({', '.join(parts)})" if parts else "")


def summary_lines(graph: dict[str, Any]) -> list[str]:
    """The model in a few lines of text: sizes, atoms, each agent's cells by size and plausibility levels,
    and the worlds and edges when it is drawn."""
    lines = [f"|W| = {graph['size']} of {graph['universe']} worlds"
             + ("" if graph["drawn"] else f" (more than the {graph['limit']} drawn: summarised)")]
    if graph["constant_true"] or graph["constant_false"]:
        lines.append(f"true in every world: {', '.join(graph['constant_true']) or 'none'}; "
                     f"false in every world: {', '.join(graph['constant_false']) or 'none'}")
    lines.append(f"worlds named by: {', '.join(graph['named_by']) or 'none (one world)'}")
    for g in graph["agents"]:
        levels = graph["levels"][g]
        plural = "s" if levels != 1 else ""
        lines.append(f"{g}: {_cells_phrase(graph['cells'][g])}; {levels} plausibility level{plural}")
    if graph["drawn"]:
        names = {n["id"]: n["label"] + (" (actual)" if n["actual"] else "") for n in graph["nodes"]}
        lines.append("worlds: " + ", ".join(names.values()))
        for e in graph["edges"]:
            link = "->" if e["directed"] else "--"
            lines.append(f"{names[e['a']]} {link} {names[e['b']]}: {', '.join(e['agents'])}")
    return lines
