"""One picture per turn, on one layout: slides that do not jump (``grounded show --all-turns -o DIR``), and
16:9 slides for a projector (``grounded show --slides -o DIR``).

Drawn one at a time (``grounded show --at 10``, ``--at 19``, ``--at 20``) each
picture is laid out afresh, and a node moves from slide to slide as others
appear.  Here the conversation is replayed once, every turn's graph derived by
the view program (with what the turn changed highlighted, as in the page), and
all of them drawn on the layout of their union (``picture.stable_render``), so
a node stands at the same point in every file.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, replace
from io import BytesIO
from pathlib import Path

from grounded.core.extras import require
from grounded.engine import Engine
from grounded.present.book import Frame, collect
from grounded.present.picture import WRAP, facts, large_type, run_view, stable_render
from grounded.present.summary import argument_rows


def write_turns(path: Path, out: Path, fmt: str = "svg", *, extensions: list[Path] | None = None,
                view: Path | None = None, labels: str = "short", wrap: int = WRAP) -> list[Path]:
    """Write ``out/turn-NN.<fmt>`` for every turn of the scenario or log at ``path``; the files written.

    Everything is drawn before the first file is written, so a view program that fails leaves the
    folder as it was.
    """
    conv = collect(path, extensions)
    frames = [f for f in conv.frames if f.status != "start"]
    try:
        graphs = [run_view(facts(conv.engine, f.turn, changed=f.changed, new=f.new, labels=labels, wrap=wrap),
                           view) for f in frames]
        drawn = stable_render(graphs, fmt)
    finally:
        conv.engine.close()
    digits = max(2, len(str(max((f.turn for f in frames), default=0))))
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for f, data in zip(frames, drawn, strict=True):
        target = out / f"turn-{f.turn:0{digits}d}.{fmt}"
        target.write_bytes(data)
        written.append(target)
    return written


SLIDE = (1920, 1080)
"""A slide's size in px: 16:9 at full HD (16 x 9 inches at 120 dpi)."""
SLIDE_DPI = 120
PICTURE_DPI = 144
"""Graphviz's resolution for the picture on a slide: fine enough for the ids when it is scaled down."""
HEAD_PT = 22
TEXT_PT = 17
"""The slide's type, in points at SLIDE_DPI (22 pt: 37 px on a 1080-line slide, 17 pt: 28 px)."""
WIDE = 2.6
"""A picture wider than this (width over height) takes the slide's whole width, its texts under it."""


@dataclass
class Slide:
    """One slide written, and the smallest type on its picture in px of the slide (ids and edge labels)."""

    path: Path
    smallest: float


def write_slides(path: Path, out: Path, *, extensions: list[Path] | None = None,
                 view: Path | None = None) -> list[Slide]:
    """Write ``out/slide-NN.png`` for every turn: 16:9, the utterance and the turn's note across the top, the
    picture in large type with the ids alone on the left (every turn on one layout, as ``write_turns``), and on
    the right what the rules did and the full texts of the arguments the turn changed.

    Everything is drawn before the first file is written, so a view program that fails leaves the folder as
    it was.
    """
    conv = collect(path, extensions)
    frames = [f for f in conv.frames if f.status != "start"]
    try:
        graphs = [replace(g, graph={**g.graph, "dpi": str(PICTURE_DPI)}) for g in (
            large_type(run_view(facts(conv.engine, f.turn, changed=f.changed, new=f.new, labels="id"), view))
            for f in frames)]
        pictures = stable_render(graphs, "png")
        texts = [_texts(conv.engine, f) for f in frames]
        least = min((float(a.get("fontsize", g.node_defaults.get("fontsize", 14)))
                     for g in graphs for a in [*g.nodes.values(), *g.edges.values()]), default=14.0)
        slides = [_slide(conv.title, f, png, lines, least) for f, png, lines in zip(frames, pictures, texts,
                                                                                     strict=True)]
    finally:
        conv.engine.close()
    digits = max(2, len(str(max((f.turn for f in frames), default=0))))
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for f, (data, smallest) in zip(frames, slides, strict=True):
        target = out / f"slide-{f.turn:0{digits}d}.png"
        target.write_bytes(data)
        written.append(Slide(target, smallest))
    return written


def _texts(engine: Engine, frame: Frame) -> list[tuple[str, str]]:
    """What the slide says beside the picture: what the rules did, then each changed argument and its text."""
    if frame.status == "rejected":
        return [("rejected", f"{v['code']}: {v['message']}") for v in frame.violations]
    changed = set(frame.changed)
    rows = [r for r in argument_rows(engine, frame.turn) if r["id"] in changed]
    return [("did", c) for c in frame.changes] + [
        ("claim", f"{r['claim']} ({r['kind']}, {r['standing']}{', grounded' if r['grounded'] else ''})")
        if not r["text"] else ("claim", f"{r['claim']}: {r['text']}") for r in rows]


def _slide(title: str, frame: Frame, png: bytes, lines: list[tuple[str, str]], least_pt: float) -> tuple[bytes, float]:
    """The slide as PNG bytes, and the smallest picture type on it in px."""
    require("views", "matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    import matplotlib.pyplot as plt

    w, h = SLIDE[0] / SLIDE_DPI, SLIDE[1] / SLIDE_DPI
    fig = plt.figure(figsize=(w, h), dpi=SLIDE_DPI)
    try:
        rejected = " (rejected: nothing of it applies)" if frame.status == "rejected" else ""
        head = f"T{frame.turn} {frame.speaker}{rejected}: {frame.text}"
        wrapped = textwrap.wrap(head, 95)
        if len(wrapped) > 3:  # a long utterance: its start, said to go on (its whole text is on the page)
            wrapped = [*wrapped[:2], textwrap.shorten(" ".join(wrapped[2:]), 93, placeholder=" \u2026")]
        fig.text(0.02, 0.97, "\n".join(wrapped), fontsize=HEAD_PT, va="top", ha="left", wrap=False)
        top = 0.97 - 0.06 * len(wrapped)
        if frame.note:
            note = textwrap.wrap(frame.note, 110)[:2]
            fig.text(0.02, top, "\n".join(note), fontsize=TEXT_PT, style="italic", va="top", color="#6b5a00")
            top -= 0.05 * len(note)
        fig.text(0.98, 0.015, title, fontsize=12, ha="right", va="bottom", color="#777777")
        image = mpimg.imread(BytesIO(png), format="png")
        aspect = image.shape[1] / image.shape[0]
        if aspect > WIDE:  # a wide map (a row of observations): the whole width, the texts under it in two columns
            height = min(top - 0.36, 0.98 * SLIDE[0] / aspect / SLIDE[1])
            box = (0.01, top - 0.02 - height, 0.98, height)
            columns, y0, chars = [0.02, 0.51], box[1] - 0.03, 58
        else:  # the picture on the left, the texts on the right
            box = (0.01, 0.04, 0.60, top - 0.06)
            columns, y0, chars = [0.63], top - 0.02, 40
        ax = fig.add_axes(box)
        ax.imshow(image, interpolation="antialiased")
        ax.set_axis_off()
        scale = min(box[2] * SLIDE[0] / image.shape[1], box[3] * SLIDE[1] / image.shape[0])
        column, y = 0, y0
        for kind, line in lines:
            parts = textwrap.wrap(line, chars)  # characters of 17 pt type in a column (0.35 or 0.47 of 1920 px)
            if y - 0.037 * len(parts) < 0.05 and column + 1 < len(columns):
                column, y = column + 1, y0
            for k, part in enumerate(parts):
                if y < 0.05:  # no room left: said so (everything is on the page, a click away)
                    fig.text(0.02, 0.015, "\u2026 more in the page: grounded book", fontsize=12, color="#777777")
                    break
                fig.text(columns[column] + (0.015 if k else 0), y, part, fontsize=TEXT_PT, va="top",
                         family="monospace" if kind == "did" else "sans-serif",
                         weight="bold" if kind == "claim" and k == 0 else "normal",
                         color="#b03a2e" if kind == "rejected" else "#222222")
                y -= 0.037
            y -= 0.012
        buffer = BytesIO()
        fig.savefig(buffer, format="png", dpi=SLIDE_DPI)
    finally:
        plt.close(fig)
    return buffer.getvalue(), least_pt * PICTURE_DPI / 72 * scale
