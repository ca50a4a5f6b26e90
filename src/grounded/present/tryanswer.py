"""What the try-it form's answer draws: the hypothetical map, and its world model.

``grounded try`` answers the page's form with ``Engine.whatif``; the page shows what the rules would do in
words and, with this, in pictures: the map after the utterance (its scratch engine's state; as of the turn
tried when the rules reject it) in presentation mode's large type with the ids alone, what the utterance
would change outlined as the page outlines a turn's changes, drawn where the page's picture is; and, with a
world model small enough to draw, the worlds after it with those it would eliminate ghosted.  The map is laid
out afresh (it has nodes the conversation's layout does not), so a node may stand elsewhere than on the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grounded.engine.whatif import WhatIf
from grounded.present.picture import facts, inline_svg, large_type, prefixed_ids, render, run_view
from grounded.present.summary import update_summary
from grounded.present.worldgraph import to_dot, world_graph


def whatif_pictures(w: WhatIf, view: Path | None = None) -> dict[str, Any]:
    """``svg``: the hypothetical map (None before anything is on it); ``worlds_svg``: its world model drawn
    (None without one, or when it is too large to draw).  Ids are prefixed ``try-``, so that the page's own
    picture keeps its ids."""
    engine = w.engine
    turn = w.turn if w.accepted else w.at
    changed = update_summary(engine, w.update) if w.accepted else {"changed": [], "new": []}
    out: dict[str, Any] = {"svg": None, "worlds_svg": None}
    if engine.state.args:
        graph = large_type(run_view(facts(engine, turn, changed=changed["changed"], new=changed["new"],
                                          labels="id"), view))
        out["svg"] = prefixed_ids(inline_svg(render([graph.to_dot()], "svg")[0].decode("utf-8")), "try-")
    if engine.world is not None:
        model = engine.model_at(turn)
        before = engine.model_at(w.at) if w.accepted else None
        g = world_graph(model, before=before if before is not model else None)
        if g["drawn"]:
            out["worlds_svg"] = prefixed_ids(inline_svg(render([to_dot(g)], "svg")[0].decode("utf-8")),
                                             "try-kripke-")
    return out
