"""Weakened is told apart from active without colour: checked through a colour-vision simulation.

The default view program fills a weakened argument pale yellow and an active one pale green.  Simulated as a
reader with deuteranopia or protanopia sees them (Machado, Oliveira and Fernandes 2009, severity 1, in linear
RGB) and in greyscale (a black-and-white handout: relative luminance), the two fills come within a few CIELAB
units of each other, too close to tell on a projector.  So every weakened argument must carry a mark of its
own that no active argument carries (the glyph ◐ after its claim), in the view program's drawing and in the
SVG Graphviz draws from it, large type included.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from grounded.engine import Engine
from grounded.present.picture import facts, inline_svg, large_type, render, run_view
from grounded.scenario import Scenario, run

ROOT = Path(__file__).resolve().parents[1]

MACHADO = {  # severity 1.0, applied to linear RGB
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
}
LUMINANCE = np.array([0.2126, 0.7152, 0.0722])
MERGE = 12.0
"""CIELAB distance (CIE76) under which two fills are taken as one colour on a projector."""


def linear(hex_colour: str) -> np.ndarray:
    c = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(rgb_linear: np.ndarray) -> np.ndarray:
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ rgb_linear
    f = np.cbrt(xyz / np.array([0.95047, 1.0, 1.08883]))
    f = np.where(xyz / np.array([0.95047, 1.0, 1.08883]) > 0.008856, f,
                 7.787 * xyz / np.array([0.95047, 1.0, 1.08883]) + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def seen(hex_colour: str, how: str) -> np.ndarray:
    c = linear(hex_colour)
    c = np.clip(MACHADO[how] @ c, 0, 1) if how in MACHADO else np.full(3, LUMINANCE @ c)
    return lab(c)


def phase3_graphs():
    scenario = Scenario.load(ROOT / "scenarios" / "phase3.yaml")
    engine = Engine(scenario.header)
    for _ in run(scenario, engine):
        pass
    return [run_view(facts(engine, turn, labels="id")) for turn in (14, 20)]


def by_standing(graph, standing: str) -> list[dict[str, str]]:
    return [a for a in graph.nodes.values() if standing in a.get("class", "").split()
            and "argument" in a.get("class", "").split()]


def first_line(attrs: dict[str, str]) -> list[str]:
    return attrs.get("label", "").split("\n")[0].split()


def test_weakened_and_active_merge_without_colour_so_weakened_has_a_mark_of_its_own():
    graphs = phase3_graphs()
    weakened = [a for g in graphs for a in by_standing(g, "weakened")]
    active = [a for g in graphs for a in by_standing(g, "active")]
    assert weakened and active
    fills = {(w["fillcolor"].split(":")[0], a["fillcolor"].split(":")[0]) for w in weakened for a in active
             if "fillcolor" in w and "fillcolor" in a}
    assert fills
    for w_fill, a_fill in fills:
        normal = float(np.linalg.norm(lab(linear(w_fill)) - lab(linear(a_fill))))
        merged = {how: float(np.linalg.norm(seen(w_fill, how) - seen(a_fill, how)))
                  for how in ("deuteranopia", "protanopia", "greyscale")}
        # the premise: told apart in colour, hardly at all without it
        assert normal > MERGE and min(merged.values()) < MERGE, (w_fill, a_fill, normal, merged)
    # so a mark of its own: on every weakened node, on no active one
    marks = {tuple(first_line(w)[1:]) for w in weakened}
    assert marks == {("\u25d0",)}, marks
    assert all("\u25d0" not in first_line(a) for a in active)


def test_the_mark_is_in_the_drawing_graphviz_makes_large_type_included():
    graph = phase3_graphs()[1]
    for g in (graph, large_type(graph)):
        svg = inline_svg(render([g.to_dot()], "svg")[0].decode("utf-8"))
        weakened = len(by_standing(g, "weakened"))
        assert weakened > 0 and svg.count("\u25d0") == weakened
