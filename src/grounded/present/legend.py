"""The legend of a picture, drawn from what the view program drew.

A legend written by hand says what the default view program draws, and is wrong
as soon as a lecturer restyles it (``--view my.lp``) or a conversation uses a
shape the hand did not list.  This one is read off the drawings themselves: for
each meaning the view program marks with an SVG class (a kind, a standing,
grounded or not, an open problem, a change, where grounding fails, each kind of
arrow) it takes the first node or edge of the conversation that carries it,
copies the attributes that show that meaning (the shape for a kind, the fill
and border for a standing, ...) onto a sample labelled with the meaning, and
lets Graphviz draw the samples.  Meanings the conversation never shows are left
out; a restyled shape or colour is in the legend because it is in the drawing.
"""

from __future__ import annotations

import html
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from grounded.core.extras import require
from grounded.present.picture import Graph, inline_svg, prefixed_ids, render

KINDS = ("observation", "hypothesis", "decision", "assumption", "position", "constraint")
STANDINGS = ("active", "resolved", "weakened", "abandoned")
MARKED = {"changed", "failing", "lost_grounding", "ungrounded", "open", "focus", "affected"}
"""Classes of a node drawn with more than its standing: not the sample of a standing when another is."""

SHAPE = ("shape", "style", "peripheries")
LOOK = ("shape", "style", "fillcolor", "color", "penwidth", "fontcolor", "gradientangle", "peripheries")
BORDER = ("color", "penwidth", "peripheries")
ARROW = ("color", "style", "penwidth", "arrowhead", "arrowsize")


@dataclass
class Sample:
    """One entry: a meaning, and the attributes the view program gave a node or edge that has it."""

    channel: str
    meaning: str
    attrs: dict[str, str]
    edge: bool = False
    mark: str = ""
    """A glyph the view program writes after the claim for this meaning (weakened's ◐), drawn in the sample."""


def _mark(attrs: dict[str, str]) -> str:
    """The glyph after the claim on a node's first line ("h2 ◐" gives "◐"), or "" when there is none."""
    words = attrs.get("label", "").split("\n")[0].split()
    return words[-1] if len(words) > 1 and len(words[-1]) == 1 and not words[-1].isalnum() else ""


def _classes(attrs: dict[str, str]) -> set[str]:
    return set(attrs.get("class", "").split())


def _first_node(graphs: Sequence[Graph], has: str, avoid: Collection[str] = ()) -> dict[str, str] | None:
    """The attributes of the first node carrying class ``has``, preferring one with none of ``avoid``."""
    found = None
    for g in graphs:
        for attrs in g.nodes.values():
            cls = _classes(attrs)
            if has in cls:
                if not cls & (set(avoid) - {has}):
                    return attrs
                found = found or attrs
    return found


def _pick(attrs: dict[str, str], names: Sequence[str], drop: Collection[str] = (), **given: str) -> dict[str, str]:
    """The attributes ``names`` of ``attrs`` (without the ``drop`` parts of its style), then ``given``."""
    out = {k: attrs[k] for k in names if k in attrs}
    if "style" in out:
        out["style"] = ",".join(t for t in out["style"].split(",") if t and t not in drop)
    return {**out, **given}


def samples(graphs: Sequence[Graph]) -> list[Sample]:
    """What the drawings of a conversation show, one sample per meaning, in the legend's order."""
    out: list[Sample] = []
    white = {"fillcolor": "white", "color": "#555555"}
    for kind in KINDS:
        if (a := _first_node(graphs, kind)) is not None:
            out.append(Sample("kind (shape)", kind, _pick(a, SHAPE, ("dashed", "dotted", "bold"),
                                                         peripheries="1", **white)))
    for cls, meaning in (("question", "question"), ("literal", "literal no argument claims")):
        a = _first_node(graphs, cls, {"failing", "open", "question"} - {cls})
        if a is not None and (cls == "question" or "question" not in _classes(a)):
            out.append(Sample("kind (shape)", meaning, _pick(a, LOOK, peripheries="1")))
    for standing in STANDINGS:
        if (a := _first_node(graphs, standing, MARKED)) is not None:
            out.append(Sample("standing (fill)", standing, _pick(a, LOOK, ("rounded",), shape="box",
                                                                  peripheries="1"),
                              mark=_mark(a) if standing == "weakened" else ""))
    for cls, meaning in (("grounded", "grounded \u2713"), ("ungrounded", "not grounded \u2717"),
                         ("failing", "where grounding fails")):
        if (a := _first_node(graphs, cls, MARKED)) is not None:
            out.append(Sample("grounding (a channel of its own)", meaning, _pick(a, LOOK, peripheries="1")))
    for cls, meaning in (("changed", "changed this turn"), ("lost_grounding", "lost its grounding this turn"),
                         ("open", "open problem")):
        if (a := _first_node(graphs, cls, (MARKED | {"literal"}) - {cls})) is None:
            continue
        if cls == "lost_grounding":  # the whole look: the washed-out fill and dotted border with the mark
            out.append(Sample("marks", meaning, _pick(a, LOOK, peripheries="1")))
        else:  # the border alone, on a white box
            out.append(Sample("marks", meaning, _pick(a, BORDER, shape="box", style="filled", fillcolor="white")))
    for cls, meaning in (("dep", "Dep: from a premise to what rests on it"), ("attack", "attack"),
                         ("explains", "explains"), ("dissent", "an agent dissents from a decision"),
                         ("failing", "the Dep step where grounding fails")):
        edge = next((e for g in graphs for e in g.edges.values()
                     if cls in _classes(e) and (cls == "failing" or "failing" not in _classes(e))), None)
        if edge is not None:
            out.append(Sample("arrows", meaning, _pick(edge, ARROW), edge=True))
    return out


def _dot(sample: Sample, base: Graph) -> str:
    """A small drawing of one sample, in the view program's fonts."""
    graphviz = require("views", "graphviz")  # the 'views' extra, imported on first drawing
    g = graphviz.Digraph("legend", graph_attr={"bgcolor": "transparent", "rankdir": "LR", "margin": "0",
                                               "nodesep": "0.1", "ranksep": "0.3", "pad": "0.02"},
                         node_attr=base.node_defaults, edge_attr=base.edge_defaults)
    if sample.edge:
        for end in ("a", "b"):
            g.node(end, label="", shape="point", width="0.06", style="filled", color="#555555")
        g.edge("a", "b", minlen="1", **sample.attrs)
    else:  # a small sample of the shape, fill and border; the meaning is written beside it, legible at any size
        label = "a1" if sample.attrs.get("shape") in ("plaintext", "plain", "none") else sample.mark
        g.node("n", **{**sample.attrs, "label": label, "width": "0.5", "height": "0.3", "fixedsize": "true"})
    return g.source


def legend_html(graphs: Sequence[Graph]) -> str:
    """The legend as HTML: a line per channel, each sample drawn by Graphviz (ids prefixed ``lg<i>-``,
    so they are not the picture's) inside a span naming its meaning and the attributes it shows."""
    found = samples(graphs)
    if not found:
        return ""
    base = graphs[-1]
    drawn = render([_dot(s, base) for s in found], "svg")
    lines: dict[str, list[str]] = {}
    for i, (s, svg) in enumerate(zip(found, drawn, strict=True)):
        data = " ".join(f'data-{k}="{html.escape(v)}"' for k, v in sorted(s.attrs.items()))
        words = f"<span class=\"lg-words\">{html.escape(s.meaning)}</span>"
        lines.setdefault(s.channel, []).append(
            f'<span class="lg-entry{" lg-edge" if s.edge else ""}" data-channel="{html.escape(s.channel)}" '
            f'data-meaning="{html.escape(s.meaning)}" {data} title="{html.escape(s.meaning)}">'
            f"{prefixed_ids(inline_svg(svg.decode('utf-8')), f'lg{i}-')}{words}</span>")
    return "\n".join(f'<p class="lg-line"><b>{html.escape(channel)}</b> {" ".join(entries)}</p>'
                     for channel, entries in lines.items())
