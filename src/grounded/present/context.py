"""The Context Renderer (paper, section 3): what changed, what stands, what is flagged.

After every engine update the Renderer says in natural language what the
update changed; before an Interpreter call it renders the whole dependency map
within a token budget, so the next classification sees the state rather than
the raw history (the State-augmented condition); and when a continuation is
not grounded it writes the user-facing flag of the paper ("decision alpha18
no longer grounded; affected by retraction of a3; depends on a1, a2, a3").
Everything comes in plain text and Markdown, and nothing here changes the
engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from grounded.core.literals import atom_of
from grounded.dmap import effects as fx
from grounded.engine import Engine, Update
from grounded.present.tokens import count_tokens
from grounded.queries.verify import NO_ANCHOR, Verification

Format = Literal["text", "markdown"]

# -- what one update changed ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Change:
    """One change an update made, in the vocabulary of the dependency map.

    ``kind`` is one of: added (a new argument: ``value`` its kind, ``op`` the
    operation, ``items`` its Dep, ``explains``), standing (``value`` the new
    standing, ``cause``), dep (``value`` the literal added to Dep), attack
    (``claim`` attacks ``value``), withdrawn / dissent (``value`` the agent),
    aware, opened / settled (``items`` the problems), flagged (``claim`` left
    standing; ``items`` the claims in S_t resting on it).
    """

    kind: str
    claim: str = ""
    value: str = ""
    speaker: str = ""
    op: str = ""
    cause: str = ""
    text: str = ""
    items: tuple[str, ...] = ()
    explains: tuple[str, ...] = ()


def changes(engine: Engine, update: Update) -> list[Change]:
    """The changes of one update, in the order the rules made them."""
    args = engine.state.args
    new_args = {e.arg for e in update.of(fx.NewArg)}
    ops = update.utterance.ops
    out = []
    for e in update.effects:
        if isinstance(e, fx.NewArg):
            r = args[e.arg - 1]
            out.append(Change("added", r.claim, r.kind, r.speaker, r.op, text=r.text,
                              items=tuple(r.deps), explains=tuple(r.explains)))
        elif isinstance(e, fx.SetStanding) and e.arg not in new_args:
            out.append(Change("standing", args[e.arg - 1].claim, e.standing, cause=e.cause or ""))
        elif isinstance(e, fx.AddDep) and e.arg not in new_args:
            out.append(Change("dep", args[e.arg - 1].claim, e.literal))
        elif isinstance(e, fx.AddAttack):
            out.append(Change("attack", args[e.attacker - 1].claim, args[e.target - 1].claim))
        elif isinstance(e, fx.RetractCommitment):
            out.append(Change("withdrawn", args[e.arg - 1].claim, e.agent))
        elif isinstance(e, fx.Dissent):
            out.append(Change("dissent", args[e.arg - 1].claim, e.agent))
        elif isinstance(e, fx.Aware) and ops[e.index].op == "expand_awareness":
            out.append(Change("aware", e.atom))
    opened = tuple(e.literal for e in update.of(fx.Problem) if e.status == "open")
    settled = tuple(e.literal for e in update.of(fx.Problem) if e.status == "closed")
    if opened:
        out.append(Change("opened", items=opened))
    if settled:
        out.append(Change("settled", items=settled))
    for claim, losing in update.flagged.items():
        out.append(Change("flagged", claim, items=tuple(losing)))
    return out


_VERB = {"observe": "observed", "hypothesize": "hypothesized", "resolve": "decided",
         "expand_awareness": "brought into everyone's awareness"}
_STANDING_SENTENCE = {
    "weakened": "{claim} is now weakened{by}.",
    "abandoned": "{claim} was abandoned{by}.",
    "resolved": "{claim} is resolved.",
}


def describe(engine: Engine, change: Change) -> list[str]:
    """A change as sentences (a flag yields one sentence per claim it flags)."""
    c = change
    if c.kind == "added":
        verb = _VERB.get(c.op, f"introduced ({c.op})")
        head = f"{c.speaker} {verb} {c.claim} ({c.value})" + (f": {_clip(c.text)}" if c.text else "")
        tail = []
        if c.items:
            tail.append(f"rests on {_and(c.items)}")
        if c.explains:
            tail.append(f"explains {_and(c.explains)}")
        return [head.rstrip(".") + "." + (f" It {' and '.join(tail)}." if tail else "")]
    if c.kind == "standing":
        template = _STANDING_SENTENCE.get(c.value, "{claim} is now {value}{by}.")
        by = f" by {c.cause}" if c.cause else ""
        return [template.format(claim=c.claim, value=c.value, by=by)]
    if c.kind == "dep":
        return [f"{c.claim} now also rests on {c.value}."]
    if c.kind == "attack":
        return [f"{c.claim} attacks {c.value}."]
    if c.kind == "withdrawn":
        return [f"{c.value} withdrew their commitment to {c.claim}."]
    if c.kind == "dissent":
        return [f"{c.value} dissents from {c.claim}."]
    if c.kind == "opened":
        return [f"Open problem{'s' if len(c.items) > 1 else ''}: {_and(c.items)}."]
    if c.kind == "settled":
        return [f"No longer open: {_and(c.items)}."]
    if c.kind == "flagged":
        return [flag(engine, claim) or f"{claim} rests on {c.claim}, which left standing"
                for claim in c.items]
    return []  # "aware": said by the "added" sentence of the same operation


def summarize(engine: Engine, update: Update, fmt: Format = "text") -> str:
    """What one update changed, as sentences (one per line; bullets in Markdown)."""
    lines = [s for change in changes(engine, update) for s in describe(engine, change)]
    if not lines:
        lines = ["Nothing changed in the dependency map."]
    if fmt == "markdown":
        return "\n".join(f"- {_md_ids(line, engine)}" for line in lines)
    return "\n".join(lines)


# -- the user-facing flag ---------------------------------------------------------


def flag(engine: Engine, claim: str, at: int | None = None, verification: Verification | None = None) -> str | None:
    """The paper's flag for a claim that is not grounded, or None if it is (or nothing claims it).

    "decision alpha18 no longer grounded; affected by retraction of a3
    (abandoned at T20 by -a3); depends on a1, a2, a3"

    ``verification`` is ``engine.verify(claim, at)`` when the caller has it already.
    """
    v = verification if verification is not None else engine.verify(claim, at)
    if v.grounded or v.status == NO_ANCHOR:
        return None
    dm = engine.state
    kind = dm.arg(dm.claimants_at(claim, at)[-1]).kind
    deps = engine.dep(claim, at)
    failing = v.failing or claim
    claimants = dm.claimants_at(failing, at)
    if failing == claim:
        cause = str(dm.note(claim, at))
    elif not claimants:
        cause = f"rests on {failing}, which no argument claims"
    elif any(dm.in_standing(b, at) for b in claimants):  # circular support
        cause = v.reason or ""
    else:
        note = dm.note(failing, at)
        event = "retraction" if note.standing == "abandoned" else "weakening"
        cause = f"affected by {event} of {failing} ({note})"
    text = f"{kind} {claim} no longer grounded; {cause}"
    return text + (f"; depends on {', '.join(deps)}" if deps else "")


def continuation_flag(engine: Engine, asserted: Sequence[Verification],
                      denied: Sequence[tuple[Verification, str]], at: int | None = None) -> str | None:
    """The flag for a continuation read from its text, or None when nothing in it is flagged.

    ``asserted`` are Verify's answers on the literals the text asserts, ``denied``
    the answers on those it denies with how it denies them ("reversed causation").
    A grounded literal denied is a contradiction of the settled state; an asserted
    literal that is not grounded gets the flag of ``flag``.  The reading itself is
    the caller's (the Interpreter's anchoring): this layer only words it.
    """
    dm = engine.state
    out = []
    for v, how in denied:
        if v.grounded:
            kind = dm.arg(dm.claimants_at(v.claim, at)[-1]).kind
            deps = engine.dep(v.claim, at)
            out.append(f"the continuation contradicts {kind} {v.claim}, which is grounded"
                       + (f" ({how})" if how else "") + (f"; it depends on {', '.join(deps)}" if deps else ""))
    for v in asserted:
        note = flag(engine, v.claim, at, v)
        if note:
            out.append(note)
    return "; ".join(out) or None


# -- the whole state within a budget -----------------------------------------------

_SECTIONS = (  # (key, title, priority when the budget forces a choice: lower is kept first)
    ("flags", "Flagged: in standing but no longer grounded", 0),
    ("standing", "Standing claims (S_t)", 1),
    ("out", "Out of standing", 2),
    ("dissent", "Decisions with dissent", 2),
    ("open", "Open problems", 3),
    ("latent", "Not yet in anyone's awareness (use Expand-Awareness when one comes up)", 3),
    ("facts", "Observations and awareness", 4),
    ("commitments", "Commitments", 5),
)
_PRIORITY = {key: priority for key, _, priority in _SECTIONS}
_FACT_KINDS = frozenset({"observation", "assumption", "constraint"})


@dataclass(frozen=True, slots=True)
class _Item:
    section: str
    recency: int
    order: int
    line: str


def render_state(engine: Engine, *, at: int | None = None, budget: int | None = None,
                 fmt: Format = "text") -> str:
    """The dependency map as the LLM's context: every claim with standing, groundedness, Dep.

    With ``budget`` (estimated tokens, see ``grounded.present.tokens``) the rendering
    keeps flags, standing claims, then what left standing and why, then open
    problems and propositions outside awareness, and the newest items
    within each section, says how many lines it left out, and never exceeds
    the budget (an empty string if not even the title fits).
    """
    turn = at if at is not None else engine.turn
    title = f"Dependency map after T{turn}" if turn is not None else "Dependency map (no turns yet)"
    title = f"## {title}" if fmt == "markdown" else title
    return _fit(title, _state_items(engine, at, fmt), budget, fmt)


def _state_items(engine: Engine, at: int | None, fmt: Format) -> list[_Item]:
    dm = engine.state
    md = fmt == "markdown"
    code = (lambda x: f"`{x}`") if md else (lambda x: x)
    items: list[_Item] = []
    claims: dict[str, list[int]] = {}
    for r in dm.args:
        if dm.visible(r.id, at):
            claims.setdefault(r.claim, []).append(r.id)
    for order, (claim, ids) in enumerate(claims.items()):
        newest = dm.arg(ids[-1])
        standing_ids = [i for i in ids if dm.in_standing(i, at)]
        text = next((dm.arg(i).text for i in reversed(ids) if dm.arg(i).text), "")
        recency = max(dm.arg(i).turn for i in ids)
        if standing_ids:
            rep = dm.arg(standing_ids[-1])
            deps, explains = rep.deps_at(at), rep.explains_at(at)
            verification = engine.verify(claim, at)
            grounded = verification.grounded
            state = f"{rep.standing_at(at)}, {'grounded' if grounded else 'NOT grounded'}"
            if not grounded:
                note = flag(engine, claim, at, verification) or claim
                items.append(_Item("flags", recency, order, _md_ids(note, engine) if md else note))
            fact = not deps and (rep.kind in _FACT_KINDS or rep.op == "expand_awareness")
            section = "facts" if fact and grounded else "standing"
            detail = [f"rests on {', '.join(map(code, deps))}"] if deps else []
            if explains:
                detail.append(f"explains {', '.join(map(code, explains))}")
            if section == "facts":
                detail = [f"{rep.speaker}, T{rep.turn}" + (", awareness" if rep.op == "expand_awareness" else "")]
        else:
            turn, standing, cause = newest.change_at(at)
            state = f"{standing} at T{turn}" + (f" by {cause}" if cause else "")
            deps = newest.deps_at(at)
            detail = [f"rested on {', '.join(map(code, deps))}"] if deps else []
            section = "out"
        label = f"**{state}**" if md else f"[{state}]"
        body = f"{code(claim)} ({newest.kind}) {label}" + (f": {_clip(text).rstrip('.')}" if text else "")
        items.append(_Item(section, recency, order, body + "".join(f"; {d}" for d in detail)))
    base = len(claims)
    for k, literal in enumerate(engine.open_problems(at)):
        prop = dm.props.get(atom_of(literal))
        text = prop.text if prop is not None and not literal.startswith("-") else ""
        turn = prop.turn if prop is not None and prop.turn is not None else 0
        items.append(_Item("open", turn, base + k, code(literal) + (f": {_clip(text)}" if text else "")))
    for k, (decision, agents) in enumerate(engine.dissent(at).items()):
        items.append(_Item("dissent", 0, base + k, f"{code(decision)}: dissent by {', '.join(agents)}"))
    for k, prop in enumerate(dm.props_at(at)):
        aware = prop.aware_turn is not None and (at is None or prop.aware_turn <= at)
        if not aware:
            items.append(_Item("latent", 0, base + k, code(prop.id) + (f": {_clip(prop.text)}" if prop.text else "")))
    for k, (agent, committed) in enumerate(engine.commitments(at).items()):
        if committed:
            items.append(_Item("commitments", 0, base + k, f"{agent}: {', '.join(map(code, committed))}"))
    return items


def _fit(title: str, items: list[_Item], budget: int | None, fmt: Format) -> str:
    headers = {key: (f"### {name}" if fmt == "markdown" else f"{name}:") for key, name, _ in _SECTIONS}
    bullet = "- "

    def assemble(chosen: list[_Item], omitted: int) -> str:
        lines = [title]
        for key, _, _ in _SECTIONS:
            section = sorted((i for i in chosen if i.section == key), key=lambda i: i.order)
            if section:
                lines.append(headers[key])
                lines.extend(bullet + i.line for i in section)
        if omitted:
            lines.append(_omitted_note(omitted, budget))
        return "\n".join(lines)

    full = assemble(items, 0)
    if budget is None or count_tokens(full) <= budget:
        return full

    def cost(text: str) -> int:  # a line plus its newline
        return count_tokens(text) + 1

    # Line by line, most important first: the estimate is subadditive over lines,
    # so lines whose costs fit the budget fit it together.
    remaining = budget - count_tokens(title) - cost(_omitted_note(len(items), budget))
    if remaining < 0:
        return ""
    chosen: list[_Item] = []
    opened: set[str] = set()
    for item in sorted(items, key=lambda i: (_PRIORITY[i.section], -i.recency, i.order)):
        need = cost(bullet + item.line) + (0 if item.section in opened else cost(headers[item.section]))
        if need <= remaining:
            chosen.append(item)
            opened.add(item.section)
            remaining -= need
    text = assemble(chosen, len(items) - len(chosen))
    if count_tokens(text) > budget:  # subadditive over lines: cannot happen
        raise AssertionError(f"rendered {count_tokens(text)} tokens over a budget of {budget}")
    return text


def _omitted_note(n: int, budget: int | None) -> str:
    return f"({n} more lines left out to fit {budget} tokens)"


# -- helpers -------------------------------------------------------------------------


def _and(items: tuple[str, ...] | list[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _md_ids(line: str, engine: Engine) -> str:
    """Markdown: set the claim ids of a sentence in code spans."""
    known = engine.state.props
    words = line.split(" ")
    out = []
    for w in words:
        core = w.rstrip(".,;:)").lstrip("(")
        if core and atom_of(core) in known:
            w = w.replace(core, f"`{core}`", 1)
        out.append(w)
    return " ".join(out)
