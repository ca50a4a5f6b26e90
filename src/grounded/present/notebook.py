"""How the engine's objects show in a notebook (Jupyter's ``_repr_html_``, ``_repr_markdown_``, ``_repr_svg_``).

The classes (Engine, Update, Verification, Affected, PlausibilityModel,
WhatIf) inherit ``grounded.core.display.Displayable``; this module registers
the renderers they look up, and the ``picture`` view behind ``Engine.show``.
It is imported by the package's facade, so the registrations are in place as
soon as anything of ``grounded`` is imported.
"""

from __future__ import annotations

import weakref
from html import escape
from typing import Any

from grounded.core import display
from grounded.dmap.effects import fields_of
from grounded.engine import Engine, Update, WhatIf
from grounded.epistemic.model import PlausibilityModel
from grounded.present.picture import Picture, picture
from grounded.present.summary import (
    argument_rows,
    model_summary,
    state_summary,
    update_summary,
)
from grounded.queries import registry
from grounded.queries.affected import Affected
from grounded.queries.verify import Verification

STYLE = """<style>
.grounded-view table{border-collapse:collapse;font-size:12px}
.grounded-view th,.grounded-view td{border-bottom:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top}
.grounded-view .active{color:#2e7d32}.grounded-view .resolved{color:#1b5e20;font-weight:bold}
.grounded-view .weakened{color:#b8860b}.grounded-view .abandoned{color:#b03a2e}
.grounded-view .yes{color:#2e7d32}.grounded-view .no{color:#b03a2e}
.grounded-view .cell{display:inline-block;border:1px solid #999;border-radius:4px;padding:1px 6px;margin:2px}
</style>"""


def _when(at: int | None) -> str:
    return "now" if at is None else f"as of T{at}"


def _wrap(body: str) -> str:
    return f'{STYLE}<div class="grounded-view">{body}</div>'


# -- Engine ---------------------------------------------------------------------------------------


def engine_html(engine: Engine, at: int | None = None) -> str:
    rows = argument_rows(engine, at)
    summary = state_summary(engine, at)
    turn = engine.turn if at is None else at
    head = (f"<b>Dependency map at T{turn if turn is not None else 0}</b>: {len(rows)} arguments, "
            f"{sum(r['in_standing'] for r in rows)} in S_t, {sum(r['grounded'] for r in rows)} grounded")
    if engine.world is not None:
        head += f"; |W| = {engine.model_at(at).size}"
    parts = [f"<p>{head}</p>"]
    if rows:
        parts.append(_svg(engine, at))
    parts.append(_rows_table(rows))
    parts.append(_summary_html(summary))
    return _wrap("".join(parts))


def _rows_table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "<p>No arguments yet.</p>"
    out = ["<table><tr><th>#</th><th>claim</th><th>text</th><th>kind</th><th>by</th><th>T</th><th>standing</th>"
           "<th>grounded</th><th>Dep</th></tr>"]
    for r in rows:
        ok = "yes" if r["grounded"] else "no"
        since = f" (T{r['since']}" + (f" by {escape(r['cause'])}" if r["cause"] else "") + ")" \
            if r["standing"] != "active" else ""
        out.append(f"<tr><td>{r['id']}</td><td><b>{escape(r['claim'])}</b></td>"
                   f"<td class=\"text\">{escape(r['text'] or '')}</td><td>{escape(r['kind'])}</td>"
                   f"<td>{escape(r['speaker'])}</td><td>{r['turn']}</td>"
                   f"<td class=\"{r['standing']}\">{r['standing']}{since}</td><td class=\"{ok}\">{ok}</td>"
                   f"<td>{escape(', '.join(r['deps']))}</td></tr>")
    out.append("</table>")
    return "".join(out)


def _summary_html(summary: dict[str, Any]) -> str:
    items = [("open problems", ", ".join(summary["open_problems"]) or "none"),
             ("commitments", "; ".join(f"{a}: {', '.join(c)}" for a, c in summary["commitments"].items()) or "none"),
             ("dissent", "; ".join(f"{d}: {', '.join(a)}" for d, a in summary["dissent"].items()) or "none")]
    return "<p>" + "<br>".join(f"<b>{k}</b>: {escape(v)}" for k, v in items) + "</p>"


def engine_markdown(engine: Engine, at: int | None = None) -> str:
    rows = argument_rows(engine, at)
    summary = state_summary(engine, at)
    turn = engine.turn if at is None else at
    lines = [f"**Dependency map at T{turn if turn is not None else 0}**: {len(rows)} arguments", ""]
    if rows:
        lines += ["| # | claim | text | kind | by | T | standing | grounded | Dep |",
                  "|---|---|---|---|---|---|---|---|---|"]
        lines += [f"| {r['id']} | {r['claim']} | {_cell(r['text'])} | {r['kind']} | {r['speaker']} | {r['turn']} | "
                  f"{r['standing']} | "
                  f"{'yes' if r['grounded'] else 'no'} | {', '.join(r['deps'])} |" for r in rows]
        lines.append("")
    lines.append(f"Open problems: {', '.join(summary['open_problems']) or 'none'}")
    return "\n".join(lines)


def _cell(text: str | None) -> str:
    """A text as one Markdown table cell: on one line, its pipes escaped."""
    return " ".join((text or "").split()).replace("\\", "\\\\").replace("|", "\\|")


# -- Update and WhatIf ------------------------------------------------------------------------------


def update_html(update: Update) -> str:
    # an Update does not know its engine; its own fields say what it did
    ops = [op.op + " " + " ".join(f"{k}={v}" for k, v in op.model_dump(exclude_defaults=True,
                                                                         exclude={"op", "text"}).items())
           for op in update.utterance.ops]
    body = [f"<p><b>T{update.turn} {escape(update.speaker)}</b> {escape(update.utterance.text)}</p>",
            "<p><b>operations</b>: " + escape("; ".join(ops) or "(none)") + "</p>",
            _transitions_html(update)]
    return _wrap("".join(body))


def _transitions_html(update: Update) -> str:
    lines = [f"{e.name}({', '.join(map(str, fields_of(e)))})" for e in update.effects if e.name != "turn"]
    body = "<p><b>transitions</b>:</p><ul>" + "".join(f"<li><code>{escape(x)}</code></li>" for x in lines) + "</ul>"
    if update.flagged:
        body += "<p><b>flagged for re-evaluation</b>: " + escape("; ".join(
            f"{', '.join(v)} (rest on {k})" for k, v in update.flagged.items())) + "</p>"
    if update.worlds is not None:
        body += f"<p><b>M</b>: |W| {update.worlds[0]} &rarr; {update.worlds[1]}"
        body += (" (" + escape("; ".join(update.model_updates)) + ")" if update.model_updates else "") + "</p>"
    return body


def update_markdown(update: Update) -> str:
    lines = [f"**T{update.turn} {update.speaker}**: {update.utterance.text}", ""]
    lines += [f"- `{e.name}({', '.join(map(str, fields_of(e)))})`" for e in update.effects if e.name != "turn"]
    lines += [f"- flagged: {', '.join(v)} (rest on {k})" for k, v in update.flagged.items()]
    return "\n".join(lines)


def whatif_html(w: WhatIf) -> str:
    head = f"<p><b>What if</b> {escape(w.speaker)} said this at T{w.turn} ({_when(w.at)}): "
    if not w.accepted:
        items = "".join(f"<li><code>{escape(v.code)}</code> {escape(str(v.op))} #{v.index}: {escape(v.message)}</li>"
                        for v in w.violations)
        return _wrap(head + "<b class=\"no\">rejected</b></p><ul>" + items + "</ul>")
    summary = update_summary(w.engine, w.update)
    changes = "".join(f"<li>{escape(c)}</li>" for c in summary["changes"])
    return _wrap(head + "<b class=\"yes\">accepted</b></p><ul>" + changes + "</ul>"
                 + picture(w.engine, changed=summary["changed"], new=summary["new"]).svg())


def whatif_markdown(w: WhatIf) -> str:
    if not w.accepted:
        return "\n".join([f"**What if** T{w.turn} {w.speaker}: rejected", ""]
                         + [f"- `{v.code}`: {v.message}" for v in w.violations])
    summary = update_summary(w.engine, w.update)
    return "\n".join([f"**What if** T{w.turn} {w.speaker}: accepted", ""] + [f"- {c}" for c in summary["changes"]])


# -- Verify and Affected* ------------------------------------------------------------------------------


def verification_html(v: Verification) -> str:
    data = registry.verify_json(v)
    if v.grounded:
        body = (f"<b>{escape(v.claim)}</b>: <b class=\"yes\">grounded</b> {_when(v.at)}; Dep*: "
                + ", ".join(escape(c) for c in v.chain))  # a set of premises, not a line: engine.show(focus=...)
    elif v.status == "no_anchor":
        body = f"<b>{escape(v.claim)}</b>: no anchor (abstain): {escape(v.reason or '')}"
    else:
        body = (f"<b>{escape(v.claim)}</b>: <b class=\"no\">not grounded</b> {_when(v.at)}: "
                f"{escape(v.reason or '')}" + (f" (fails at <code>{escape(data['failing'])}</code>)"
                                               if data["failing"] else ""))
    return _wrap(f"<p>{body}</p>")


def verification_markdown(v: Verification) -> str:
    if v.grounded:
        return f"**{v.claim}**: grounded; Dep*: {', '.join(v.chain)}"
    return f"**{v.claim}**: {'no anchor' if v.status == 'no_anchor' else 'not grounded'}: {v.reason}"


def affected_html(a: Affected) -> str:
    data = registry.affected_json(a, bool(a.arguments))
    name = f"Affected{'*' if a.closure else ''}({escape(a.literal)})"
    if not data["claims"]:
        return _wrap(f"<p><b>{name}</b> {_when(a.at)}: nothing rests on it</p>")
    rows = "".join(f"<tr><td>{escape(c)}</td><td>{h}</td><td class=\"{'no' if c in data['lose_support'] else ''}\">"
                   f"{'yes' if c in data['lose_support'] else 'no'}</td></tr>"
                   for c, h in data["hops"].items())
    return _wrap(f"<p><b>{name}</b> {_when(a.at)}</p><table><tr><th>claim</th><th>hop</th>"
                 f"<th>loses support</th></tr>{rows}</table>")


def affected_markdown(a: Affected) -> str:
    hops = a.claim_hops
    name = f"Affected{'*' if a.closure else ''}({a.literal})"
    return f"**{name}**: " + (", ".join(f"{c} (hop {hops[c]})" for c in a.claims) or "nothing") + \
        (f"; lose support: {', '.join(a.lose_support)}" if a.lose_support else "")


# -- the plausibility model ---------------------------------------------------------------------------


def model_html(model: PlausibilityModel) -> str:
    m = model_summary(model)
    head = f"<p><b>|W| = {m['size']}</b> of {m['universe']} worlds over {', '.join(m['atoms'])}"
    if m["actual"]:
        head += f"; actual world {escape(m['actual'])}"
    head += "</p>"
    if m["shown"] < m["size"]:
        head += f"<p><i>showing {m['shown']} of {m['size']} worlds</i></p>"
    rows = []
    for agent, cells in m["agents"].items():
        shown = " ".join('<span class="cell">' + " &lt; ".join(", ".join(escape(w) for w in level)
                                                                for level in cell) + "</span>" for cell in cells)
        rows.append(f"<tr><td><b>{escape(agent)}</b></td><td>{m['cells'][agent]}</td><td>{shown}</td></tr>")
    table = ("<table><tr><th>agent</th><th>cells</th><th>information cells (most plausible first, "
             "&lt;: less plausible)</th></tr>" + "".join(rows) + "</table>")
    return _wrap(head + table)


def model_markdown(model: PlausibilityModel) -> str:
    m = model_summary(model)
    lines = [f"**|W| = {m['size']}** of {m['universe']} worlds over {', '.join(m['atoms'])}", ""]
    for agent, cells in m["agents"].items():
        lines.append(f"- {agent}: " + " | ".join(" < ".join(", ".join(level) for level in cell) for cell in cells))
    if m["shown"] < m["size"]:
        lines.append(f"- (showing {m['shown']} of {m['size']} worlds)")
    return "\n".join(lines)


# -- registration ------------------------------------------------------------------------------------------


_DRAWN: weakref.WeakKeyDictionary[Engine, tuple[tuple, str]] = weakref.WeakKeyDictionary()
"""The last picture drawn of each engine: a notebook asks for every format of one object it
shows (the HTML embeds the picture, the SVG is the picture), so it is drawn once, not twice."""


def _svg(engine: Engine, at: int | None = None) -> str:
    key = (at, engine.turn, len(engine.state.args))  # an engine changes only by a new turn
    drawn = _DRAWN.get(engine)
    if drawn is None or drawn[0] != key:
        drawn = (key, picture(engine, at).svg())
        _DRAWN[engine] = drawn
    return drawn[1]


def _engine_picture(engine: Engine) -> str | None:
    return _svg(engine) if engine.state.args else None


def show(engine: Engine, at: int | None = None, focus: str | None = None, affected: str | None = None) -> Picture:
    return picture(engine, at, focus=focus, affected=affected)


display.register(Engine, "html", engine_html)
display.register(Engine, "markdown", engine_markdown)
display.register(Engine, "svg", _engine_picture)
display.register(Update, "html", update_html)
display.register(Update, "markdown", update_markdown)
display.register(WhatIf, "html", whatif_html)
display.register(WhatIf, "markdown", whatif_markdown)
display.register(Verification, "html", verification_html)
display.register(Verification, "markdown", verification_markdown)
display.register(Affected, "html", affected_html)
display.register(Affected, "markdown", affected_markdown)
display.register(PlausibilityModel, "html", model_html)
display.register(PlausibilityModel, "markdown", model_markdown)
display.register_view("picture", show)
