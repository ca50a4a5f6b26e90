"""The picture of a dependency map: state -> facts -> view program -> graph -> Graphviz.

The look is not written here.  This module states the dependency map as of a
turn as facts (``facts``), hands them to a view program, an answer set program
(``asp/views/picture.lp`` by default) that derives nodes, edges and their
Graphviz attributes, and turns its answer into DOT, which Graphviz lays out.
A lecturer who wants other shapes, colours or edges edits the view program
(``grounded show --view my.lp``); the vocabulary both sides speak is listed at
the top of picture.lp and in docs/views.md.

``stable_svgs`` serves the step-through page: every turn is drawn on the layout of
the whole conversation, so nodes stay where they are while the reader steps.
"""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from types import ModuleType

import clingo

from grounded.core.errors import GroundedError, InputError
from grounded.core.extras import require
from grounded.core.vocabulary import GOOD_STANDING
from grounded.dmap.state import DependencyMap
from grounded.engine import Engine
from grounded.queries.verify import grounded_arguments

FORMATS = ("svg", "png", "pdf", "dot")

CORNER = 10
"""Points of room around a stable drawing, for nodes drawn larger than in the layout (double borders)."""

_CONSTANT = re.compile(r"[a-z][A-Za-z0-9_]*")

LABELS = ("id", "short", "full")
"""Label modes: the claim alone, the claim over its text shortened to two lines, the claim over all its text."""
WRAP = 28
"""Characters per line of a node's text, unless the caller gives another width."""
WRAP_RANGE = (8, 400)


def label_text(text: str, mode: str = "short", wrap: int = WRAP) -> str:
    """A claim's text as the label mode shows it under the id: lines of at most ``wrap`` characters
    (longer words are broken), joined by newlines; ``short`` keeps two lines and ends in "…"."""
    if mode not in LABELS:
        raise InputError(f"--labels {mode}: expected one of {', '.join(LABELS)}")
    if not WRAP_RANGE[0] <= wrap <= WRAP_RANGE[1]:
        raise InputError(f"--wrap {wrap}: expected a line width from {WRAP_RANGE[0]} to {WRAP_RANGE[1]} characters")
    text = " ".join(text.split())
    if mode == "id" or not text:
        return ""
    if mode == "short":
        return "\n".join(textwrap.wrap(text, wrap, max_lines=2, placeholder=" …", break_on_hyphens=False))
    return "\n".join(textwrap.wrap(text, wrap, break_on_hyphens=False))


def default_view() -> Path:
    """The view program shipped with the package."""
    return Path(str(resources.files("grounded.asp"))) / "views" / "picture.lp"


# -- the state as facts -------------------------------------------------------------------


def _word(text: str) -> clingo.Symbol:
    """Vocabulary words (kinds, standings) as constants; anything else as a string."""
    return clingo.Function(text) if _CONSTANT.fullmatch(text) else clingo.String(text)


def _fact(name: str, *args: object) -> clingo.Symbol:
    symbols = [a if isinstance(a, clingo.Symbol) else clingo.Number(a) if isinstance(a, int)
               else clingo.String(str(a)) for a in args]
    return clingo.Function(name, symbols)


def facts(engine: Engine, at: int | None = None, *, changed: Iterable[int] = (), new: Iterable[int] = (),
          focus: str | None = None, affected: str | None = None, labels: str = "short", wrap: int = WRAP,
          within: Collection[int] | None = None) -> list[clingo.Symbol]:
    """The dependency map as of turn ``at`` in the view program's input vocabulary (see picture.lp).

    ``labels`` and ``wrap`` shape the ``label_text`` facts; ``within`` keeps only these arguments,
    the literals their Dep names and the attacks among them, for the sub-picture of one claim's Dep*.
    """
    dm = engine.state
    t = at
    label_text("", labels, wrap)  # a bad mode or width is an error even when nothing has text
    out = [_fact("turn", t if t is not None else (dm.last_turn or 0)), _fact("label_mode", _word(labels)),
           _fact("wrap", wrap)]
    visible = [r for r in dm.args if r.standing_at(t) is not None and (within is None or r.id in within)]
    shown = {r.id for r in visible}
    claimed = set()
    for r in visible:
        out.append(_fact("argument", r.id, r.claim, _word(r.kind), r.speaker, r.turn))
        out.append(_fact("standing", r.id, _word(r.standing_at(t))))  # type: ignore[arg-type]
        out.append(_fact("claims", r.id, r.claim))
        if r.text:
            text = _NOT_XML.sub("\ufffd", r.text)  # clingo's strings end at NUL; XML holds none of these
            out.append(_fact("text", r.id, text))
            if lines := label_text(text, labels, wrap):
                out.append(_fact("label_text", r.id, lines))
        claimed.add(r.claim)
    named = set()
    for r in visible:
        for d in r.deps_at(t):
            out.append(_fact("dep", r.id, d))
            named.add(d)
        for x in r.explains_at(t) if within is None else ():  # a sub-picture of Dep* draws Dep only
            out.append(_fact("explains", r.id, x))
            named.add(x)
    out.extend(_fact("unclaimed", lit) for lit in sorted(named - claimed))
    out.extend(_fact("prop", p.id, _word(p.kind)) for p in dm.props_at(t))
    grounded = grounded_arguments(dm, t) & shown
    out.extend(_fact("grounded", a) for a in sorted(grounded))
    out.extend(_grounding_facts(engine, t, grounded, [r.id for r in visible]))
    out.extend(_fact("attack", a, b) for a, b, turn in dm.attacks
               if (t is None or turn <= t) and a in shown and b in shown)
    for agent, ids in dm.commitments_at(t).items():
        out.extend(_fact("committed", agent, a) for a in ids if a in shown)
    for a, agents in dm.dissent.items() if within is None else ():
        if dm.visible(a, t):
            out.extend(_fact("dissent", a, g) for g in agents)
    out.extend(_fact("open_problem", lit) for lit in dm.open_problems_at(t))
    out.extend(_fact("changed", a) for a in sorted(set(changed)))
    out.extend(_fact("new", a) for a in sorted(set(new)))
    if focus is not None:
        out.extend(_focus_facts(engine, focus, t))
    if affected is not None:
        out.extend(_affected_facts(engine, affected, t))
    return out


def _grounding_facts(engine: Engine, t: int | None, grounded: set[int], ids: list[int]) -> list[clingo.Symbol]:
    """The grounding channel: ``ungrounded(A)`` for an argument in standing that is not grounded,
    ``fails_at(A, L)`` the literal where Verify of its claim fails, ``lost_grounding(A)`` when it was
    grounded the turn before (its standing may not have changed at all: a premise was abandoned)."""
    dm = engine.state
    ungrounded = [a for a in ids if a not in grounded and dm.arg(a).standing_at(t) in GOOD_STANDING]
    out = [_fact("ungrounded", a) for a in ungrounded]
    for a in ungrounded:
        failing = engine.verify(dm.arg(a).claim, at=t).failing
        if failing is not None:
            out.append(_fact("fails_at", a, failing))
    out.extend(_fact("lost_grounding", a) for a in sorted(lost_grounding(dm, t) & set(ungrounded)))
    return out


def lost_grounding(dm: DependencyMap, t: int | None) -> set[int]:
    """The arguments in standing as of turn ``t`` that were grounded the turn before and are not now."""
    now = dm.last_turn if t is None else t
    if not now or now < 1:
        return set()
    before = grounded_arguments(dm, now - 1)
    if not before:
        return set()
    after = grounded_arguments(dm, t)
    return {a for a in before - after if dm.arg(a).standing_at(t) in GOOD_STANDING}


def diff_facts(engine: Engine, since: int, t: int) -> list[clingo.Symbol]:
    """Turn ``t`` compared with the earlier turn ``since`` (``grounded show --diff``): ``since(T0)``,
    ``appeared(A)`` for an argument made after it, ``restood(A, Before)`` for one whose standing changed,
    ``lost_since(A)`` for one grounded then and in standing but not grounded now."""
    dm = engine.state
    before, after = grounded_arguments(dm, since), grounded_arguments(dm, t)
    out = [_fact("since", since)]
    for r in dm.args:
        now = r.standing_at(t)
        if now is None:
            continue
        then = r.standing_at(since)
        if then is None:
            out.append(_fact("appeared", r.id))
        elif then != now:
            out.append(_fact("restood", r.id, _word(then)))
        if r.id in before and r.id not in after and now in GOOD_STANDING:
            out.append(_fact("lost_since", r.id))
    return out


def _focus_facts(engine: Engine, claim: str, t: int | None) -> list[clingo.Symbol]:
    """The Dep* chain of ``claim``: the witness when it is grounded, else everything its newest
    argument rests on, and the literal where Verify fails."""
    v = engine.verify(claim, at=t)
    dm = engine.state
    if v.status == "no_anchor":
        raise InputError(f"--focus {claim}: no argument claims {claim}" + ("" if t is None else f" as of T{t}"))
    if v.grounded:
        chain = list(v.arguments)
    else:
        chain, seen = [], set()
        stack = [dm.claimants_at(claim, t)[-1]]
        while stack:
            a = stack.pop()
            if a in seen:
                continue
            seen.add(a)
            chain.append(a)
            for d in dm.arg(a).deps_at(t):
                stack.extend(dm.claimants_at(d, t))
    out = [_fact("focus", a) for a in chain]
    if v.failing is not None:
        out.append(_fact("failing", v.failing))
    return out


def _affected_facts(engine: Engine, literal: str, t: int | None) -> list[clingo.Symbol]:
    dm = engine.state
    if not dm.claimants_at(literal, t) and literal not in dm.rev:
        raise InputError(f"--affected {literal}: {literal} is unknown to the state"
                         + ("" if t is None else f" as of T{t}"))
    a = engine.affected(literal, at=t)
    return [_fact("retracted", literal)] + [_fact("affected", arg, hop) for arg, hop in zip(a.arguments, a.hops,
                                                                                           strict=True)]


# -- the view program's answer: a graph ---------------------------------------------------


@dataclass
class Graph:
    """What a view program derived: DOT names, in a fixed order, with their attributes."""

    graph: dict[str, str] = field(default_factory=dict)
    node_defaults: dict[str, str] = field(default_factory=dict)
    edge_defaults: dict[str, str] = field(default_factory=dict)
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    edges: dict[tuple[str, str, str], dict[str, str]] = field(default_factory=dict)

    def dot_names(self) -> dict[str, str]:
        """The name each node goes by in DOT: ``n0``, ``n1``, ... in the order of ``nodes``.

        Our names hold the user's ids (``lit-svc:redis``), and DOT gives such
        names meanings of their own: in an edge, ``a:b`` is node ``a``, port
        ``b``.  So Graphviz never sees them as names; each node carries its
        name in the ``id`` attribute (the SVG id the page finds it by) and its
        text in the label and tooltip, which are plain quoted strings.
        """
        return {name: f"n{i}" for i, name in enumerate(self.nodes)}

    def to_dot(self) -> str:
        g = _graphviz().Digraph("dependency_map", graph_attr=self.graph, node_attr=self.node_defaults,
                             edge_attr=self.edge_defaults)
        dot = self.dot_names()
        for name, attrs in self.nodes.items():
            g.node(dot[name], **_escaped({"id": name, **attrs}))
        for (tail, head, _), attrs in self.edges.items():
            g.edge(dot[tail], dot[head], **_escaped(attrs))
        return g.source


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
"""Characters XML 1.0 does not allow (the SVG is XML), NUL among them: each is drawn as U+FFFD."""


def _escaped(attrs: dict[str, str]) -> dict[str, str]:
    """Attribute values as DOT escape strings: a value is plain text, a newline a line break.

    Graphviz reads ``\\N``, ``\\G``, ``\\l`` ... in a label or tooltip as escapes, ``&amp;`` as an
    entity, and a trailing backslash would swallow the closing quote; a claim's text may hold any
    of these, so every backslash is doubled, every ``&`` written ``&amp;`` and every newline
    ``\\n``.  Tooltips are unescaped twice by Graphviz (2.43), so a backslash in one is written
    four times.  Characters XML cannot hold become U+FFFD.
    """
    out = {}
    for k, v in attrs.items():
        v = _NOT_XML.sub("\ufffd", v.replace("\r\n", "\n").replace("\r", "\n")).replace("&", "&amp;")
        out[k] = v.replace("\\", "\\\\\\\\" if k.endswith("tooltip") else "\\\\").replace("\n", "\\n")
    return out


def node_name(symbol: clingo.Symbol) -> str:
    """An argument (integer) is ``arg3``, a literal (string) ``lit-o5``, anything else spelled out."""
    if symbol.type == clingo.SymbolType.Number:
        return f"arg{symbol.number}"
    if symbol.type == clingo.SymbolType.String:
        return f"lit-{symbol.string}"
    return re.sub(r"[^A-Za-z0-9_.:-]+", "-", str(symbol)).strip("-")


def _text(symbol: clingo.Symbol) -> str:
    if symbol.type == clingo.SymbolType.String:
        return symbol.string
    if symbol.type == clingo.SymbolType.Number:
        return str(symbol.number)
    return str(symbol)


def _sort_key(symbol: clingo.Symbol) -> tuple:
    order = {clingo.SymbolType.Number: 0, clingo.SymbolType.String: 1}.get(symbol.type, 2)
    return (order, symbol.number if order == 0 else 0, str(symbol))


class ViewError(InputError):
    """The view program failed, or derived something that cannot be drawn."""


def run_view(symbols: Sequence[clingo.Symbol], view: Path | None = None) -> Graph:
    """Solve the view program on these facts and read the graph it derives."""
    path = view or default_view()
    messages: list[str] = []
    ctl = clingo.Control(["--models=1"], logger=lambda code, msg: messages.append(" ".join(msg.split())))
    try:
        ctl.load(str(path))
    except RuntimeError as exc:
        if not path.is_file():
            raise ViewError(f"view program not found: {path}") from exc
        raise ViewError(f"{path}: {'; '.join(messages) or exc}") from exc
    with ctl.backend() as backend:
        for symbol in symbols:
            backend.add_rule([backend.add_atom(symbol)])
    try:
        ctl.ground([("base", [])])
    except RuntimeError as exc:
        raise ViewError(f"{path}: {'; '.join(messages) or exc}") from exc
    shown: list[clingo.Symbol] | None = None

    def on_model(model: clingo.Model) -> None:
        nonlocal shown
        shown = list(model.symbols(shown=True))

    ctl.solve(on_model=on_model)
    if shown is None:
        raise ViewError(f"{path}: the view program has no answer set for this state")
    return _graph(shown, path)


def _graph(shown: list[clingo.Symbol], path: Path) -> Graph:
    nodes: dict[clingo.Symbol, None] = {}
    edges: dict[tuple[clingo.Symbol, ...], None] = {}
    attrs: list[tuple[str, clingo.Symbol | None, clingo.Symbol, clingo.Symbol]] = []
    for s in shown:
        if s.name == "node" and len(s.arguments) == 1:
            nodes[s.arguments[0]] = None
        elif s.name == "edge" and len(s.arguments) == 3:
            tail, head, label = s.arguments
            edges[(tail, head, label)] = None
        elif s.name == "attr" and len(s.arguments) == 4:
            attrs.append((str(s.arguments[0]), s.arguments[1], s.arguments[2], s.arguments[3]))
        elif s.name == "attr" and len(s.arguments) == 3:
            attrs.append((str(s.arguments[0]), None, s.arguments[1], s.arguments[2]))
    graph = Graph()
    order = sorted(nodes, key=_sort_key)
    names: dict[clingo.Symbol, str] = {}
    drawn: dict[str, clingo.Symbol] = {}
    for n in order:
        names[n] = node_name(n)
        if drawn.setdefault(names[n], n) != n:
            raise ViewError(f"{path}: nodes {drawn[names[n]]} and {n} would both be drawn as {names[n]}")
    raw: dict[tuple[str, object], dict[str, list[tuple[int, str]]]] = {}
    for what, ident, name, value in attrs:
        owner: object = ident
        if what == "node":
            if ident not in nodes:
                raise ViewError(f"{path}: attr(node, {ident}, {name}, ...) is about {ident}, which is not a node/1")
        elif what == "edge":
            key = tuple(ident.arguments) if ident is not None else None
            if key not in edges:
                raise ViewError(f"{path}: attr(edge, {ident}, {name}, ...) is about an edge that is not an edge/3")
            owner = key
        elif what not in ("graph", "node_default", "edge_default"):
            raise ViewError(f"{path}: attr({what}, ...): expected node, edge, graph, node_default or edge_default")
        if name.type == clingo.SymbolType.Function and len(name.arguments) == 2 and not name.name:
            first, second = name.arguments
            attr, pos = _text(first), second.number if second.type == clingo.SymbolType.Number else 0
        else:
            attr, pos = _text(name), -1
        raw.setdefault((what, owner), {}).setdefault(attr, []).append((pos, _text(value)))

    def merged(kind: str, ident: object) -> dict[str, str]:
        out: dict[str, str] = {}
        for attr, values in raw.get((kind, ident), {}).items():
            parts = [v for p, v in values if p >= 0]
            plain = sorted({v for p, v in values if p < 0})
            if parts and plain:
                raise ViewError(f"{path}: {kind} {ident}: {attr} is given both whole and in parts")
            if parts:
                out[attr] = "".join(v for _, v in sorted((p, v) for p, v in values))
            elif attr == "class":
                out[attr] = " ".join(plain)
            elif len(plain) > 1:
                raise ViewError(f"{path}: {kind} {ident} gets {len(plain)} values of {attr}: {', '.join(plain)}")
            else:
                out[attr] = plain[0]
        return out

    graph.graph = merged("graph", None)
    graph.node_defaults = merged("node_default", None)
    graph.edge_defaults = merged("edge_default", None)
    for n in order:
        graph.nodes[names[n]] = {"id": names[n], **merged("node", n)}
    for key in sorted(edges, key=lambda e: (_sort_key(e[0]), _sort_key(e[1]), str(e[2]))):
        tail, head, label = key
        for end in (tail, head):
            if end not in nodes:
                raise ViewError(f"{path}: edge({tail}, {head}, {label}) ends at {end}, which is not a node/1")
        edge_id = f"e-{_text(label)}-{names[tail]}-{names[head]}"
        given = merged("edge", key)
        kinds = " ".join([_text(label)] + ([given.pop("class")] if "class" in given else []))
        graph.edges[(names[tail], names[head], _text(label))] = {"id": edge_id, "class": kinds, **given}
    return graph


# -- rendering ----------------------------------------------------------------------------------


def format_of(path: str | Path, option: str = "") -> str:
    """The picture format a file's suffix names (svg, png, pdf, dot), or InputError naming the file
    (and the command's ``option`` that gave it)."""
    fmt = Path(path).suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        where = f"{option} {path}" if option else str(path)
        raise InputError(f"{where}: cannot tell the format from the suffix; use .svg, .png, .pdf or .dot")
    return fmt


def _graphviz() -> ModuleType:
    """The graphviz package (the 'views' extra), imported on first drawing: the queries never need it."""
    return require("views", "graphviz")


def _require_dot() -> None:
    if shutil.which("dot") is None:
        raise GroundedError("Graphviz is not installed (no dot on PATH): install it with "
                            "`apt-get install graphviz`, or run `make setup-test`")


def _split_svgs(out: bytes, n: int) -> list[bytes]:
    """The ``n`` SVG documents of one Graphviz run over ``n`` graphs."""
    docs = [b"<?xml" + part for part in out.split(b"<?xml")[1:]]
    if len(docs) != n:
        raise GroundedError(f"Graphviz drew {len(docs)} pictures for {n} graphs")
    return docs


def render(sources: Sequence[str], fmt: str = "svg") -> list[bytes]:
    """Lay out and render DOT sources with Graphviz (``dot``); SVG in one call for all of them."""
    if fmt not in FORMATS:
        raise InputError(f"unknown picture format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if fmt == "dot":
        return [s.encode() for s in sources]
    _require_dot()
    if fmt != "svg" or len(sources) == 1:
        return [_graphviz().pipe("dot", fmt, s.encode(), quiet=True) for s in sources]
    if not sources:
        return []
    return _split_svgs(_graphviz().pipe("dot", "svg", "\n".join(sources).encode(), quiet=True), len(sources))


@dataclass
class Picture:
    """One drawing: the DOT source the view program produced, rendered on demand."""

    graph: Graph
    at: int | None = None
    _svg: str | None = field(default=None, repr=False)

    @property
    def dot(self) -> str:
        return self.graph.to_dot()

    def svg(self) -> str:
        if self._svg is None:
            self._svg = render([self.dot], "svg")[0].decode("utf-8")
        return self._svg

    def render(self, fmt: str) -> bytes:
        return self.svg().encode() if fmt == "svg" else render([self.dot], fmt)[0]

    def save(self, path: str | Path, fmt: str | None = None) -> Path:
        """Write the picture; the format is the file's suffix unless given (svg, png, pdf, dot)."""
        p = Path(path)
        p.write_bytes(self.render(fmt or format_of(p)))
        return p

    def _repr_svg_(self) -> str:
        return self.svg()

    def __repr__(self) -> str:
        when = "now" if self.at is None else f"T{self.at}"
        return f"Picture({when}: {len(self.graph.nodes)} nodes, {len(self.graph.edges)} edges)"


def picture(engine: Engine, at: int | None = None, *, focus: str | None = None, affected: str | None = None,
            view: str | Path | None = None, changed: Iterable[int] = (), new: Iterable[int] = (),
            labels: str = "short", wrap: int = WRAP, since: int | None = None) -> Picture:
    """The picture of ``engine``'s dependency map as of turn ``at``; ``labels`` (id, short or full)
    says how much of each claim's text goes under its id, in lines of ``wrap`` characters; with
    ``since``, marked with what changed since that earlier turn (``diff_facts``)."""
    symbols = facts(engine, at, changed=changed, new=new, focus=focus, affected=affected, labels=labels, wrap=wrap)
    if since is not None:
        symbols += diff_facts(engine, since, at if at is not None else (engine.state.last_turn or 0))
    return Picture(run_view(symbols, Path(view) if view is not None else None), at)


def dep_star(engine: Engine, claim: str, at: int | None = None, view: str | Path | None = None,
             labels: str = "id", wrap: int = WRAP) -> Graph:
    """The sub-picture of Verify(claim): only the arguments of its Dep* chain (the witness when it is
    grounded, else all it rests on), the failing step marked, in the view program's look."""
    chain = [s.arguments[0].number for s in _focus_facts(engine, claim, at) if s.name == "focus"]
    symbols = facts(engine, at, focus=claim, labels=labels, wrap=wrap, within=set(chain))
    return run_view(symbols, Path(view) if view is not None else None)


# -- one layout for a whole conversation ------------------------------------------------------------


def union(graphs: Sequence[Graph]) -> Graph:
    """Every node and edge of the graphs, each with its attributes where it last appears, and each
    node as large as it is drawn in any of them (its longest label, its most peripheries), so that
    a layout of the union has room for every graph's drawing."""
    nodes: dict[str, dict[str, str]] = {}
    edges: dict[tuple[str, str, str], dict[str, str]] = {}
    for g in graphs:
        for name, attrs in g.nodes.items():
            before = nodes.get(name, {})
            merged = dict(attrs)
            if len(before.get("label", "")) > len(attrs.get("label", "")):
                merged["label"] = before["label"]
            for key in ("peripheries", "penwidth"):
                widest = max(float(a[key]) for a in (before, attrs) if key in a) \
                    if key in before or key in attrs else None
                if widest is not None:
                    merged[key] = f"{widest:g}"
            nodes[name] = merged
        edges.update(g.edges)
    last = graphs[-1] if graphs else Graph()
    return Graph(dict(last.graph), dict(last.node_defaults), dict(last.edge_defaults),
                 {n: nodes[n] for n in sorted(nodes, key=_name_key)},
                 {e: edges[e] for e in sorted(edges, key=lambda e: (_name_key(e[0]), _name_key(e[1]), e[2]))})


def stable_svgs(graphs: Sequence[Graph]) -> list[str]:
    """Each graph drawn where the layout of all of them puts its nodes (SVG text, see ``stable_render``)."""
    return [d.decode("utf-8") for d in stable_render(graphs, "svg")]


def stable_render(graphs: Sequence[Graph], fmt: str = "svg") -> list[bytes]:
    """Each graph drawn where the layout of all of them puts its nodes, in ``fmt`` (svg, png, pdf, dot).

    dot lays out the union of the graphs once; each graph is then drawn with
    its own attributes at those positions (``neato -n2``: no layout, the given
    positions and edge splines), on a canvas of the same size, so nothing
    moves while the reader steps through the turns, nor between the slides
    ``grounded show --all-turns`` writes.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown picture format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if not graphs:
        return []
    _require_dot()
    whole = union(graphs)
    ours = {dot: name for name, dot in whole.dot_names().items()}
    layout = json.loads(_graphviz().pipe("dot", "json0", whole.to_dot().encode(), quiet=True))
    node_pos = {ours[o["name"]]: o["pos"] for o in layout.get("objects", []) if "pos" in o}
    edge_pos = {e["id"]: {k: e[k] for k in ("pos", "lp", "xlp", "head_lp", "tail_lp") if k in e}
                for e in layout.get("edges", []) if "id" in e}
    # two invisible corners a little outside the layout's box: Graphviz sizes (and shifts) each drawing
    # to what it contains, so every drawing gets the same box and nodes keep their coordinates
    x0, y0, x1, y1 = (float(v) for v in layout["bb"].split(","))
    corners = {f"corner-{i}": {"pos": f"{x:g},{y:g}!", "shape": "point", "style": "invis", "width": "0",
                               "height": "0", "label": "", "id": f"corner-{i}", "class": "corner"}
               for i, (x, y) in enumerate([(x0 - CORNER, y0 - CORNER), (x1 + CORNER, y1 + CORNER)])}
    sources = []
    for g in graphs:
        fixed = replace(g, graph={k: v for k, v in g.graph.items() if k != "rankdir"},
                        nodes={**corners, **{n: {**a, "pos": node_pos[n] + "!"} for n, a in g.nodes.items()}},
                        edges={k: {**a, **edge_pos.get(a["id"], {})} for k, a in g.edges.items()})
        sources.append(fixed.to_dot())
    if fmt == "dot":
        return [s.encode() for s in sources]
    if fmt != "svg":  # one run per drawing: PNG and PDF documents cannot be split as SVG ones are
        return [_graphviz().pipe("neato", fmt, s.encode(), neato_no_op=2, quiet=True) for s in sources]
    out = _graphviz().pipe("neato", "svg", "\n".join(sources).encode(), neato_no_op=2, quiet=True)
    return _split_svgs(out, len(sources))


LARGE_TYPE = 2.4
"""How much larger a projector's type is than the view program's (14 pt becomes 34 pt, drawn at 18 px or more
when the picture is fitted to what presentation mode leaves it)."""


def large_type(graph: Graph, factor: float = LARGE_TYPE) -> Graph:
    """The same drawing for a projector: every font size times ``factor`` and none smaller than the nodes'
    (an edge's label is read from as far back as a node's id), nodes and ranks closer.

    A node that shows its id alone is hardly larger than Graphviz's smallest node
    (0.75 x 0.5 inch) whatever its type, so larger type costs little room, and
    every shipped scenario fits the page's presentation mode at 1280x720 with
    its ids 18 px high or more (docs/views.md, *Running a class*); with the texts
    in the nodes (the page's key ``l``) the type is much smaller (``book.type_size``
    decides which the page starts with).  Everything else (shapes, colours,
    the lecturer's ``--view``) is the view program's.
    """
    least = float(graph.node_defaults.get("fontsize", 14)) * factor

    def scaled(attrs: dict[str, str], default: float | None = None) -> dict[str, str]:
        size = attrs.get("fontsize", default)
        return attrs if size is None else {**attrs, "fontsize": f"{max(float(size) * factor, least):g}"}

    return replace(graph, graph={**graph.graph, "nodesep": "0.15", "ranksep": "0.3"},
                   node_defaults=scaled(graph.node_defaults, 14), edge_defaults=scaled(graph.edge_defaults, 14),
                   nodes={n: scaled(a) for n, a in graph.nodes.items()},
                   edges={e: scaled(a) for e, a in graph.edges.items()})


def _name_key(name: str) -> tuple:
    if name.startswith("arg") and name[3:].isdigit():
        return (0, int(name[3:]), name)
    return (1 if name.startswith("lit-") else 2, 0, name)


# -- drawings inlined in a page ------------------------------------------------------------------------

_SVG_REF = re.compile(r'(\bid="|url\(#|xlink:href="#)')
_XML_HEAD = re.compile(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->", re.S)


def inline_svg(svg: str) -> str:
    """An SVG document as an element to inline in HTML: no prolog, doctype or comments."""
    return _XML_HEAD.sub("", svg).strip()


def prefixed_ids(svg: str, prefix: str) -> str:
    """An SVG with every id (and every reference to one) prefixed: inlined beside the page's own
    picture, its ``arg26`` and its gradients must not be taken for that picture's."""
    return _SVG_REF.sub(lambda m: m.group(1) + prefix, svg)
