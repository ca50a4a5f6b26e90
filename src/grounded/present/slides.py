"""One picture per turn, on one layout: slides that do not jump (``grounded show --all-turns -o DIR``).

Drawn one at a time (``grounded show --at 10``, ``--at 19``, ``--at 20``) each
picture is laid out afresh, and a node moves from slide to slide as others
appear.  Here the conversation is replayed once, every turn's graph derived by
the view program (with what the turn changed highlighted, as in the page), and
all of them drawn on the layout of their union (``picture.stable_render``), so
a node stands at the same point in every file.
"""

from __future__ import annotations

from pathlib import Path

from grounded.present.book import collect
from grounded.present.picture import WRAP, facts, run_view, stable_render


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
