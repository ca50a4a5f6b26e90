"""The step-through page: one self-contained HTML file that walks through a conversation.

``grounded book FILE -o talk.html`` replays a scenario or an event log and
writes everything a reader needs into one file, scripts and styles inlined,
nothing fetched: per turn the utterance and its operations, what the rules did
(or the violations that rejected it), the picture with the changed arguments
highlighted, the table of standings, the answers to Verify for every claim and
to Affected* for every literal (the page shows them when the reader clicks),
and, with a world model, the worlds and each agent's information cells and
plausibility order.

Answers are computed here, in Python, by the same code as the engine's queries;
the page only looks them up.  Each answer is stored from the turn it takes its
value until it changes, so the file grows with the changes, not with
turns x claims.  Every turn is drawn on the layout of the whole conversation
(``picture.stable_svgs``), so nothing moves as the reader steps.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from grounded.core.errors import LogError, PreconditionError
from grounded.engine import Engine, Update
from grounded.present.legend import legend_html
from grounded.present.picture import (
    WRAP,
    Graph,
    dep_star,
    inline_svg,
    label_text,
    large_type,
    lost_grounding,
    prefixed_ids,
    render,
    run_view,
    stable_svgs,
)
from grounded.present.picture import facts as picture_facts
from grounded.present.render import describe_op
from grounded.present.sealed import seal
from grounded.present.summary import (
    argument_rows,
    model_summary,
    state_summary,
    update_summary,
)
from grounded.present.tryform import operation_forms
from grounded.present.worldgraph import to_dot, world_graph
from grounded.scenario import SCENARIO_SUFFIXES, Scenario, run
from grounded.scenario.questions import Question, choices

ASSETS = "grounded.present"


@dataclass
class Frame:
    """One step of the page: the start, or one utterance (accepted or rejected)."""

    turn: int
    speaker: str = ""
    text: str = ""
    ops: list[str] = field(default_factory=list)
    status: str = "start"  # start, accepted or rejected
    changes: list[str] = field(default_factory=list)
    changed: list[int] = field(default_factory=list)
    new: list[int] = field(default_factory=list)
    flagged: dict[str, list[str]] = field(default_factory=dict)
    violations: list[dict[str, Any]] = field(default_factory=list)
    model_updates: list[str] = field(default_factory=list)
    note: str = ""
    """The scenario's note on this turn, for the lecturer and the class."""
    questions: list[dict[str, Any]] = field(default_factory=list)
    """The turn's questions with the engine's answers, which the page reveals only when the student checks."""


@dataclass
class Conversation:
    title: str
    engine: Engine
    frames: list[Frame]
    note: str | None = None
    """Set when the page shows less than the whole input (a log cut short), saying where it stops."""


def collect(path: Path, extensions: list[Path] | None = None, partial: bool = False) -> Conversation:
    """Replay a scenario or a log, keeping a frame per utterance.

    A log is read as every command reads it: strictly (a bad line raises LogError
    naming ``file:line``) unless ``partial``, which shows the lines before a bad one
    and says so in ``note``.
    """
    frames: list[Frame] = []
    if path.suffix in SCENARIO_SUFFIXES:
        scenario = Scenario.load(path)
        engine = Engine(scenario.header, extensions=extensions or ())
        for outcome in run(scenario, engine):
            if outcome.turn is None:
                break
            if outcome.update is not None:
                frames.append(_accepted(engine, outcome.update))
            elif outcome.rejection is not None:
                frames.append(_rejected(engine, outcome.turn.utterance(), outcome.rejection))
            frames[-1].note = outcome.turn.note
            frames[-1].questions = [_question(q, a, f"{outcome.turn.turn}:{k}:{q.query}")
                                    for k, (q, a) in enumerate(outcome.answers)]
        title, note = scenario.title or path.name, None
    else:
        def keep(engine: Engine, update: Update) -> None:
            frames.append(_accepted(engine, update))

        engine = Engine.load(path, extensions=extensions or (), strict=not partial, on_update=keep)
        title = path.name
        note = None if engine.load_error is None else _cut_note(engine.load_error)
    first = frames[0].turn if frames else 1
    frames.insert(0, Frame(turn=0 if first > 0 else -1))
    return Conversation(title, engine, frames, note)


def _question(question: Question, answer: dict[str, Any], key: str) -> dict[str, Any]:
    """A question as the page needs it: what to ask, what the student picks from (none: types literals),
    and the engine's answer sealed with ``key`` (``sealed``: not in the page's source as such; unsealed and
    put in the DOM only when the student checks)."""
    return {"ask": question.ask, "query": question.query, "shape": question.shape, "choices": choices(question),
            "sealed": seal(answer, key), "key": key}


def _cut_note(error: LogError) -> str:
    return f"The log is cut short at line {error.line} ({error.detail}); this page shows the lines before it."


def _accepted(engine: Engine, update: Update) -> Frame:
    s = update_summary(engine, update)
    return Frame(update.turn, update.speaker, update.utterance.text, s["ops"], "accepted", s["changes"],
                 s["changed"], s["new"], s["flagged"], [], list(update.model_updates))


def _rejected(engine: Engine, utterance: dict[str, Any], rejection: PreconditionError) -> Frame:
    u = engine.registry.utterance(utterance)
    ops = [describe_op(op) for op in u.ops]
    violations = [v.to_json() for v in rejection.violations]
    return Frame(rejection.turn, rejection.speaker, u.text, ops, "rejected", violations=violations)


# -- what the page needs, per frame -----------------------------------------------------------------


def page_data(conv: Conversation, view: Path | None = None, labels: str = "short", wrap: int = WRAP) -> dict[str, Any]:
    """Everything the page shows, as JSON-ready data (the pictures as SVG text); ``labels`` and
    ``wrap`` as for ``grounded show``."""
    engine = conv.engine
    dm = engine.state
    frames = conv.frames
    graphs = [run_view(picture_facts(engine, f.turn, changed=f.changed, new=f.new, labels=labels, wrap=wrap), view)
              for f in frames]
    svgs = [inline_svg(s) for s in stable_svgs(graphs)]
    # presentation mode: the same turns on their own stable layout, ids alone in large type, so that the
    # whole picture fits a projector's screen legibly (the texts are in the utterance and on click)
    large = [large_type(run_view(picture_facts(engine, f.turn, changed=f.changed, new=f.new, labels="id"), view))
             for f in frames]
    present_svgs = [inline_svg(s) for s in stable_svgs(large)]
    verify: dict[str, list[list[Any]]] = {}
    affected: dict[str, list[list[Any]]] = {}
    subpictures: list[tuple[dict[str, Any], Graph]] = []
    out_frames = []
    for i, (f, svg, present_svg) in enumerate(zip(frames, svgs, present_svgs, strict=True)):
        at = max(f.turn, 0)
        rows = argument_rows(engine, at) if f.status != "start" else []
        literals = dict.fromkeys(lit for r in rows for lit in [r["claim"], *r["deps"], *r["explains"]])
        for claim in dict.fromkeys(r["claim"] for r in rows):
            kept = _keep(verify, claim, i, engine.ask("verify", at, claim=claim))
            if kept is not None and kept["status"] != "no_anchor":
                subpictures.append((kept, dep_star(engine, claim, at, view)))
        for lit in literals:
            _keep(affected, lit, i, engine.ask("affected", at, claim=lit))
        # losing grounding is a change of this turn, even when no standing changed
        changed = sorted(set(f.changed) | (lost_grounding(dm, at) if f.status != "start" else set()))
        entry: dict[str, Any] = {**f.__dict__, "changed": changed, "svg": svg, "present_svg": present_svg, "rows": rows,
                                 "summary": state_summary(engine, at) if f.status != "start" else None}
        if engine.world is not None:
            entry["model"] = model_summary(engine.model_at(f.turn if f.status != "start" else -1))
        out_frames.append(entry)
    kripke = _draw_worlds(engine, frames, out_frames) if engine.world is not None else []
    # each Verify answer's Dep* as a small picture of its own (drawn when the answer takes its value),
    # all in one Graphviz run; its SVG ids are prefixed, so the page's picture keeps its own
    drawn = render([g.to_dot() for _, g in subpictures], "svg") if subpictures else []
    for (answer, _), sub in zip(subpictures, drawn, strict=True):
        answer["svg"] = prefixed_ids(inline_svg(sub.decode("utf-8")), "dep-")
    return {
        "title": conv.title,
        "note": conv.note,
        "agents": list(dm.agents),
        "args": {r.id: r.claim for r in dm.args},
        "world": engine.world is not None,
        "frames": out_frames,
        "kripke": kripke,
        "verify": verify,
        "affected": affected,
        "legend_html": legend_html(graphs),
        "present_labels": present_labels(svgs, labels),
    }


PRESENT_AREA = (1246, 500)
"""The picture's room in presentation mode at 1280x720 with the query column closed under a short turn (one line
of utterance, two of changes), in CSS px: a longer turn leaves less, since the panel above the picture is as tall
as the turn needs (measured in Chromium: ``test_book_present::test_the_labels_rule_is_what_chromium_draws``)."""
PRESENT_LEAST = 18
"""The smallest node type, in px, that presentation mode shows texts in by default."""
_VIEWBOX = re.compile(r'<svg\b[^>]*\bviewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"')
_NODE_FONT = re.compile(r'<g id="[^"]*" class="node[^"]*">.*?</g>', re.S)


def present_labels(svgs: list[str], labels: str) -> str:
    """What presentation mode starts with: ``short`` (the page's drawings, with their texts) when every turn's
    texts fit at least ``PRESENT_LEAST`` px at 1280x720, else ``id`` (the large-type drawings of ids alone); a
    page written with ``--labels id`` has no texts to show."""
    fits = labels != "id" and min(type_size(s, PRESENT_AREA) for s in svgs) >= PRESENT_LEAST
    return "short" if fits else "id"


def type_size(svg: str, area: tuple[int, int]) -> float:
    """The smallest node type, in px, of a drawing fitted into ``area`` (w, h px) as presentation mode fits it
    (``width: 100%; height: 100%``: scaled by the smaller of the two ratios); infinite when no node has text.

    Every turn is drawn on one canvas (``stable_svgs``), so one drawing tells for the whole conversation:
    the rule that picks presentation mode's labels (ids, or texts when they are at least ``PRESENT_LEAST`` px).
    """
    box = _VIEWBOX.search(svg)
    sizes = [float(v) for g in _NODE_FONT.findall(svg) for v in re.findall(r'font-size="([\d.]+)"', g)]
    if box is None or not sizes:
        return float("inf")
    scale = min(area[0] / float(box.group(1)), area[1] / float(box.group(2)))
    return min(sizes) * scale


def _draw_worlds(engine: Engine, frames: list[Frame], out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each turn's world model as a Kripke drawing (``worldgraph``: the worlds this turn eliminates drawn as
    ghosts, the formulas it announced boxed), or its summary when it is large, all drawn in one Graphviz
    run; each frame gets the index of its drawing (``kripke``), shared by the turns that change nothing."""
    graphs: list[dict[str, Any]] = []
    index: dict[tuple[int, int], int] = {}
    before = None
    for f, entry in zip(frames, out, strict=True):
        model = engine.model_at(f.turn if f.status != "start" else -1)
        key = (id(before), id(model)) if before is not model else (id(model), id(model))
        if key not in index:  # the models a world keeps live as long as it does
            index[key] = len(graphs)
            g = world_graph(model, before=before if before is not model else None)
            g["announced"] = _announced(engine, f.model_updates) if before is not model else []
            graphs.append(g)
        entry["kripke"] = index[key]
        before = model
    drawn = [g for g in graphs if g["drawn"]]
    for g, svg in zip(drawn, render([to_dot(g) for g in drawn], "svg") if drawn else [], strict=True):
        g["svg"] = prefixed_ids(inline_svg(svg.decode("utf-8")), "kripke-")
    return graphs


def _announced(engine: Engine, updates: list[str]) -> list[str]:
    """A turn's announcements with the formula each names (``!some_muddy: m_a | m_b | m_c``), for the box
    over the worlds; other updates of the model (upgrades, withdrawals) as they are written."""
    defs = engine.world.defs if engine.world is not None else {}
    out = []
    for u in dict.fromkeys(updates):  # an observation settled in the same turn announces its formula twice
        name = u[1:].lstrip("-") if u.startswith("!") else ""
        formula = f"~({defs[name]})" if name in defs and u.startswith("!-") else defs.get(name)
        out.append(f"{u}: {formula}" if formula is not None else u)
    return out


def _keep(store: dict[str, list[list[Any]]], key: str, frame: int, answer: dict[str, Any]) -> dict[str, Any] | None:
    """Store ``answer`` (the registry's shape, less ``at``: the frame says the turn) from this frame on, unless it
    is the one already in force; the answer stored, or None."""
    answer = {k: v for k, v in answer.items() if k != "at"}
    history = store.setdefault(key, [])
    if not history or history[-1][1] != answer:
        history.append([frame, answer])
        return answer
    return None


# -- the page --------------------------------------------------------------------------------------------


def _asset(name: str) -> str:
    return (resources.files(ASSETS) / "assets" / name).read_text(encoding="utf-8")


_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                              "\u2029": "\\u2029"})


def _script_json(data: Any) -> str:
    """JSON to embed in a ``<script type="application/json">`` element, still JSON, that every text
    survives.

    The HTML parser ends a script at ``</script`` and reads ``<!--`` and ``<script`` inside it as
    changes of state; the only safe spelling is none at all.  ``<``, ``>`` and ``&`` can only occur
    inside JSON strings, so they are written as ``\\u`` escapes there (as Jinja's ``tojson`` and
    Django's ``json_script`` do), and so are U+2028 and U+2029, which older JavaScript did not
    allow in a string.  Control characters are escaped by ``json.dumps`` itself, so the HTML parser
    (which turns NUL into U+FFFD and CR LF into LF) changes nothing.
    """
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).translate(_SCRIPT_SAFE)


def html(data: dict[str, Any]) -> str:
    page = string.Template(_asset("book.html"))
    embedded = {k: v for k, v in data.items() if k != "legend_html"}  # HTML already, written once
    return page.substitute(title=_escape(data["title"]), css=_asset("book.css"), js=_asset("book.js"),
                           legend=data.get("legend_html", ""), data=_script_json(embedded))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def book(path: Path, extensions: list[Path] | None = None, view: Path | None = None,
         progress: Callable[[str], None] | None = None, partial: bool = False, labels: str = "short",
         wrap: int = WRAP, tryit: str | None = None) -> tuple[str, Conversation]:
    """The page for a scenario or a log (``partial``: see ``collect``), and the conversation it shows.

    ``tryit``: the what-if endpoint the page posts to (``grounded try``); without one the page's
    try-it form says how to start the server.
    """
    label_text("", labels, wrap)  # a bad label mode or width before the replay, not after it
    conv = collect(path, extensions, partial)
    if progress is not None:
        progress(f"{len(conv.frames) - 1} turns replayed; drawing")
    data = page_data(conv, view, labels, wrap)
    data["tryit"] = {"endpoint": tryit, "source": str(path),
                     "operations": operation_forms(conv.engine.registry.utterance_model.model_json_schema())}
    return html(data), conv
