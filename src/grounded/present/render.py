"""Rendering the dependency map for people: what changed, what stands, what a check found.

Used by the CLI (``demo``, ``run``, ``state``); it reads the engine and never
changes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from grounded.queries.registry import Query, summary, verify_json
from grounded.queries.verify import Verification, grounded_arguments

if TYPE_CHECKING:  # a one-line answer (a query's) needs none of them (nor the engine: one from an index has none)
    from rich.table import Table

    from grounded.dmap.operations import Operation
    from grounded.engine import Engine, Update
    from grounded.present import context

STANDING_STYLE = {"active": "green", "resolved": "bold green", "weakened": "yellow", "abandoned": "red"}


def describe_op(op: Operation) -> str:
    """An operation in one short phrase: 'undermine h2 by o9'."""
    data = op.model_dump(exclude_defaults=True, exclude={"op", "text"})
    head = data.pop("claim", None) or data.pop("target", None) or ""
    rest = " ".join(f"{k} {', '.join(v) if isinstance(v, list) else v}" for k, v in data.items())
    return " ".join(x for x in (op.op, head, rest) if x)


def describe_changes(engine: Engine, update: Update) -> list[str]:
    """One update as terse phrases, one per change ('h2 weakened by o9'); sentences are in context.py."""
    from grounded.present import context

    lines = [_terse(c) for c in context.changes(engine, update)]
    if update.worlds is not None:
        lines.append(world_line(engine, update))
    return lines


def _terse(c: context.Change) -> str:
    if c.kind == "added":
        extra = f"; rests on {', '.join(c.items)}" if c.items else ""
        extra += f"; explains {', '.join(c.explains)}" if c.explains else ""
        return f"+ {c.claim} ({c.value}, {c.speaker}){extra}"
    if c.kind == "standing":
        return f"{c.claim} {c.value}" + (f" by {c.cause}" if c.cause else "")
    if c.kind == "dep":
        return f"Dep({c.claim}) + {c.value}"
    if c.kind == "attack":
        return f"{c.claim} attacks {c.value}"
    if c.kind == "withdrawn":
        return f"{c.value} withdraws from {c.claim}"
    if c.kind == "dissent":
        return f"{c.value} dissents from {c.claim}"
    if c.kind == "aware":
        return f"awareness + {c.claim}"
    if c.kind == "opened":
        return f"open problems + {', '.join(c.items)}"
    if c.kind == "settled":
        return f"settled: {', '.join(c.items)}"
    return f"flagged for re-evaluation: {', '.join(c.items)} (rest on {c.claim})"


def world_line(engine: Engine, update: Update) -> str:
    """|W| before and after, and what the utterance did to the world model."""
    before, after = update.worlds  # type: ignore[misc]
    world = engine.world
    previous = world.model_at(update.turn - 1)  # type: ignore[union-attr]
    new = [a for a in world.model_at(update.turn).atoms if a not in previous.atom_index]  # type: ignore[union-attr]
    did = ([f"refine on {', '.join(new)}"] if new else []) + list(update.model_updates)
    size = f"|W| = {after}" if before == after else f"|W| {before} -> {after}"
    return f"M: {size}" + (f"  ({'; '.join(did)})" if did else "")


def render_update(console: Console, engine: Engine, update: Update, note: str = "") -> None:
    """The turn's line, its operations, the scenario's ``note`` on it (read before what the rules did, which
    a course's note prepares), and what the rules did."""
    u = update.utterance
    console.print(Text(f"T{update.turn} {update.speaker}", style="bold cyan"), Text(u.text, style="dim"))
    ops = "; ".join(describe_op(op) for op in u.ops)
    console.print(Text("  ops: ", style="bold") + Text(ops or "(none)"))
    if note:
        console.print(Text(f"  note: {note}", style="italic"))
    for line in describe_changes(engine, update):
        console.print("  " + line, markup=False)


def state_table(engine: Engine, at: int | None = None, title: str | None = None) -> Table:
    """Every argument with its standing, whether it is grounded, and its Dep."""
    from rich.table import Table

    table = Table(title=title, show_edge=False, pad_edge=False, header_style="bold")
    for name in ("#", "claim", "kind", "by", "T", "standing", "grounded", "Dep"):
        table.add_column(name, no_wrap=name != "Dep")
    grounded = grounded_arguments(engine.state, at)
    for r in engine.state.args:
        standing = r.standing_at(at)
        if standing is None:
            continue
        ok = r.id in grounded
        table.add_row(str(r.id), r.claim, r.kind, r.speaker, str(r.turn),
                      Text(standing, style=STANDING_STYLE.get(standing, "")),
                      Text("yes" if ok else "no", style="green" if ok else "red"),
                      ", ".join(r.deps_at(at)))
    return table


def render_state(console: Console, engine: Engine, at: int | None = None, full: bool = False) -> None:
    """The state table and open problems; with ``full``, commitments, dissent and reinstatable too."""
    console.print(state_table(engine, at))
    found = summary(engine, at)
    lines = [("open problems", ", ".join(found["open_problems"]) or "none")]
    if engine.world is not None:
        model = engine.model_at(at)
        actual = model.alive_actual()
        lines.append(("world model", f"|W| = {model.size} over {len(model.atoms)} atoms"
                      + (f"; actual world {{{', '.join(sorted(model.valuation(actual)))}}}"
                         if actual is not None else "")))
    if full:
        lines.append(("commitments", "; ".join(f"{agent}: {', '.join(claims)}"
                                               for agent, claims in found["commitments"].items()) or "none"))
        lines.append(("dissent", "; ".join(f"{d}: {', '.join(agents)}"
                                           for d, agents in found["dissent"].items()) or "none"))
        lines.append(("reinstatable", ", ".join(found["reinstatable"]) or "none"))
    for label, value in lines:
        console.print(Text(f"  {label}: ", style="bold") + Text(value))


def verification_line(v: Verification) -> Text:
    return verify_line(verify_json(v))


def verify_line(answer: dict[str, Any]) -> Text:
    """A Verify answer (the registry's shape) in one line."""
    claim = Text(f"{answer['claim']}: ", style="bold")
    if answer["grounded"]:
        return claim + Text("GROUNDED", style="bold green") + Text(f"  Dep*: {', '.join(answer['chain'])}")
    label = "NO ANCHOR (abstain)" if answer["status"] == "no_anchor" else "UNGROUNDED"
    return claim + Text(label, style="bold red") + Text(f"  {answer['reason']}")


def affected_line(answer: dict[str, Any]) -> Text:
    """An Affected answer (the registry's shape) in one line."""
    name = f"Affected{'*' if answer['closure'] else ''}({answer['claim']})"
    hops = answer["hops"]
    body = ", ".join(f"{c} (hop {hops[c]})" for c in answer["claims"]) or "nothing"
    out = Text(f"{name}: ", style="bold") + Text(body)
    if answer["lose_support"]:
        out += Text(f"   lose support: {', '.join(answer['lose_support'])}", style="yellow")
    return out


def answer_line(q: Query, answer: dict[str, Any]) -> Text:
    """Any registered query's answer in one line for the terminal (``grounded query``)."""
    if q.name == "verify":
        return verify_line(answer)
    if q.name == "affected":
        if answer["known"]:
            return affected_line(answer)
        when = "" if answer["at"] is None else f" at turn {answer['at']}"
        return Text(f"{answer['claim']}: unknown to the state{when} (no argument claims it, none rests on it, "
                    "no proposition declares it)")
    parts = []
    for key, value in answer.items():
        if key == "at" or value is None:
            continue
        if isinstance(value, dict):
            shown = "; ".join(f"{k}: {', '.join(map(str, v)) if isinstance(v, list) else v}"
                              for k, v in value.items())
        elif isinstance(value, list):
            shown = ", ".join(str(x.get("claim", x)) if isinstance(x, dict) else str(x) for x in value)
        else:
            shown = str(value)
        parts.append(Text(f"{key}: ", style="bold") + Text(shown or "none"))
    return Text("  ").join(parts)
