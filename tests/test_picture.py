"""The picture: the view program's graph against the state, the SVG Graphviz draws, `grounded show`.

The SVG of Phase 2 at T13 is read with an XML parser: the nodes and edges are
those of the dependency map (checked against the engine's own Dep and attacks,
and against the paper's walkthrough), h2 is drawn as abandoned.
"""

from __future__ import annotations

import string
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine, InputError
from grounded.cli.app import load_engine
from grounded.core.bounds import MAX_ID_LENGTH
from grounded.core.literals import check_atom
from grounded.core.vocabulary import GOOD_STANDING
from grounded.present.picture import ViewError, default_view, picture, run_view, stable_svgs
from grounded.present.picture import facts as picture_facts
from grounded.queries.verify import grounded_arguments
from tests.inprocess import grounded as run_grounded

from .test_book import embedded_data
from .test_properties import ALL, HEADER, SPEAKERS, budget, draw_stream

ROOT = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def phase2() -> Engine:
    engine = load_engine(ROOT / "scenarios" / "phase2.yaml", None)
    yield engine
    engine.close()


def parse(svg: str) -> dict[str, ET.Element]:
    """Every node and edge group of an SVG drawn by Graphviz, by its id."""
    root = ET.fromstring(svg)
    return {g.get("id"): g for g in root.iter(f"{SVG}g") if (g.get("class") or "").split()[:1] in (["node"], ["edge"])}


def classes(g: ET.Element) -> set[str]:
    return set((g.get("class") or "").split())


def shape_attrs(g: ET.Element) -> list[dict[str, str]]:
    return [el.attrib for el in g.iter() if el.tag in (f"{SVG}ellipse", f"{SVG}polygon", f"{SVG}path")]


def label(g: ET.Element) -> str:
    return " ".join(t.text or "" for t in g.iter(f"{SVG}text"))


def lines(g: ET.Element) -> list[str]:
    """The label's lines, as Graphviz draws them (one <text> each)."""
    return [t.text or "" for t in g.iter(f"{SVG}text")]


def node_of(engine: Engine, claim: str, at: int | None = None) -> str:
    return f"arg{engine.state.claimants_at(claim, at)[-1]}"


def test_phase2_at_t13_has_the_maps_nodes_and_edges(phase2):
    groups = parse(picture(phase2, 13).svg())
    nodes = {k for k, g in groups.items() if "node" in classes(g)}
    edges = {k for k, g in groups.items() if "edge" in classes(g)}
    dm = phase2.state
    # every argument is a node, labelled with its claim, with its standing and kind as classes
    assert {f"arg{r.id}" for r in dm.args if r.turn <= 13} <= nodes
    for r in dm.args:
        g = groups[f"arg{r.id}"]
        assert label(g).split()[0] == r.claim
        assert {r.standing_at(13), r.kind, "argument"} <= classes(g)
    # Dep: an edge from each argument claiming the literal to the one resting on it
    for r in dm.args:
        for d in r.deps_at(13):
            for b in dm.claimants_at(d, 13):
                assert f"e-dep-arg{b}-arg{r.id}" in edges
    # attacks and explains
    for a, b, _ in dm.attacks:
        assert f"e-attack-arg{a}-arg{b}" in edges
    assert sum("dep" in classes(groups[e]) for e in edges) == sum(
        len(dm.claimants_at(d, 13)) for r in dm.args for d in r.deps_at(13))
    # the walkthrough: h1 rests on o8 and (T13's schema fix) on h4; o9 and h4 attack h2; h4 explains o8
    h1, h2, h4, o8, o9 = (node_of(phase2, c) for c in ("h1", "h2", "h4", "o8", "o9"))
    assert {f"e-dep-{o8}-{h1}", f"e-dep-{h4}-{h1}", f"e-attack-{o9}-{h2}", f"e-attack-{h4}-{h2}",
            f"e-explains-{h4}-{o8}"} <= edges
    # the questions are notes, not arguments
    assert {"lit-q1", "lit-q2", "lit-q10"} <= nodes and "question" in classes(groups["lit-q1"])


def test_h2_is_drawn_abandoned_and_the_resolved_chain_grounded(phase2):
    groups = parse(picture(phase2, 13).svg())
    h2 = groups[node_of(phase2, "h2")]
    assert "abandoned" in classes(h2) and "grounded" not in classes(h2)
    assert lines(h2)[0] == "h2"  # no grounded mark (nor ✗: h2 is out of standing)
    outline = shape_attrs(h2)[0]
    assert outline["fill"] == "#f6d0cc" and "stroke-dasharray" in outline  # red fill, dashed border
    for claim in ("h1", "h3", "h4"):
        g = groups[node_of(phase2, claim)]
        assert {"resolved", "grounded"} <= classes(g) and lines(g)[0] == f"{claim} ✓"
    assert "hexagon" not in classes(h2)


def test_earlier_turns_draw_the_state_of_their_turn(phase2):
    groups = parse(picture(phase2, 9).svg())
    assert node_of(phase2, "h4") not in groups  # h4 comes at T12
    h2 = groups[node_of(phase2, "h2")]
    assert "abandoned" in classes(h2)
    assert "active" in classes(parse(picture(phase2, 6).svg())[node_of(phase2, "h2")])
    assert f"e-dep-{node_of(phase2, 'h4')}-{node_of(phase2, 'h1')}" not in parse(picture(phase2, 12).svg())


def test_focus_highlights_the_dep_chain_and_affected_the_walk(phase2):
    groups = parse(picture(phase2, 13, focus="h1").svg())
    focused = {k for k, g in groups.items() if "focus" in classes(g)}
    assert focused == {f"arg{a}" for a in phase2.verify("h1", at=13).arguments}
    groups = parse(picture(phase2, 13, affected="o5").svg())
    hit = {k for k, g in groups.items() if "affected" in classes(g)}
    assert hit == {node_of(phase2, c) for c in ("h3", "h4", "h1")}
    # an ungrounded claim: its chain and where Verify fails
    groups = parse(picture(phase2, 9, focus="h2").svg())
    assert "focus" in classes(groups[node_of(phase2, "h2")])
    with pytest.raises(InputError, match="no argument claims nothing_claims_this as of T13"):
        picture(phase2, 13, focus="nothing_claims_this")
    with pytest.raises(InputError, match="unknown to the state"):
        picture(phase2, 13, affected="nothing_claims_this")


def test_a_lecturer_changes_the_look_by_editing_the_view_program(phase2, tmp_path):
    mine = tmp_path / "mine.lp"
    mine.write_text(default_view().read_text().replace('fill(abandoned, "#f6d0cc")', 'fill(abandoned, "black")')
                    + '\nattr(node, A, shape, "box") :- argument(A, _, hypothesis, _, _), standing(A, abandoned).\n'
                      'attr(node, A, shape, "ellipse") :- argument(A, _, K, _, _), not shape(K, _).\n')
    with pytest.raises(ViewError, match="2 values of shape"):
        picture(phase2, 13, view=mine)  # two rules give h2 a shape: said, not drawn at random
    mine.write_text(default_view().read_text().replace('fill(abandoned, "#f6d0cc")', 'fill(abandoned, "black")'))
    h2 = parse(picture(phase2, 13, view=mine).svg())[node_of(phase2, "h2")]
    assert shape_attrs(h2)[0]["fill"] == "black"


def test_view_program_errors_name_the_file(phase2, tmp_path):
    bad = tmp_path / "bad.lp"
    bad.write_text("node(A) :- argument(A, _, _, _, _)\n")  # no final period
    with pytest.raises(ViewError, match="bad.lp"):
        picture(phase2, 13, view=bad)
    stray = tmp_path / "stray.lp"
    stray.write_text("attr(node, 99, color, red).\n")
    with pytest.raises(ViewError, match="not a node/1"):
        picture(phase2, 13, view=stray)


def test_formats(phase2, tmp_path):
    pic = picture(phase2, 13)
    assert pic.save(tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert pic.save(tmp_path / "p.pdf").read_bytes()[:4] == b"%PDF"
    assert "digraph" in pic.save(tmp_path / "p.dot").read_text()
    assert pic._repr_svg_().startswith("<?xml")


def test_stable_layout_keeps_every_node_in_place(phase2):
    """Each turn of the book is drawn where the whole conversation's layout puts its nodes."""
    turns = list(range(1, 14))
    svgs = stable_svgs([run_view(picture_facts(phase2, t)) for t in turns])
    where: dict[str, tuple[str, str]] = {}
    for svg in svgs:
        for gid, g in parse(svg).items():
            if "node" in classes(g) and "corner" not in classes(g):
                text = next(g.iter(f"{SVG}text"))
                pos = (text.get("x"), text.get("y"))
                assert where.setdefault(gid, pos) == pos, f"{gid} moved"
    final = {k for k, g in parse(svgs[-1]).items() if "node" in classes(g) and "corner" not in classes(g)}
    assert set(where) == final


@budget(15)
@given(data=st.data())
def test_the_view_draws_every_argument_dep_and_attack_of_random_histories(data):
    engine = Engine(HEADER)
    draw_stream(data, engine, max_size=15)
    dm = engine.state
    t = data.draw(st.integers(0, dm.last_turn or 0), label="at")
    graph = run_view(picture_facts(engine, t))
    visible = [r for r in dm.args if r.turn <= t]
    assert {n for n in graph.nodes if n.startswith("arg")} == {f"arg{r.id}" for r in visible}
    deps = {(f"arg{b}", f"arg{r.id}") for r in visible for d in r.deps_at(t) for b in dm.claimants_at(d, t)}
    unclaimed = {(f"lit-{d}", f"arg{r.id}") for r in visible for d in r.deps_at(t) if not dm.claimants_at(d, t)}
    assert {(a, b) for a, b, kind in graph.edges if kind == "dep"} == deps | unclaimed
    assert {(a, b) for a, b, kind in graph.edges if kind == "attack"} == {
        (f"arg{a}", f"arg{b}") for a, b, turn in dm.attacks if turn <= t}
    abandoned = {f"arg{r.id}" for r in visible if r.standing_at(t) == "abandoned"}
    assert {n for n, attrs in graph.nodes.items() if "abandoned" in attrs.get("class", "").split()} == abandoned
    engine.close()


def grounded(*args: str, cwd: Path = ROOT):
    return run_grounded(*args, cwd=cwd)


def test_show_command(tmp_path):
    out = tmp_path / "p3.svg"
    r = grounded("show", "scenarios/phase3.yaml", "--at", "19", "-o", str(out))
    assert r.returncode == 0, r.stderr
    groups = parse(out.read_text())
    assert any("decision" in classes(g) and "resolved" in classes(g) for g in groups.values())
    assert "node" in classes(groups["agent-bob"])  # bob's dissent from the decision


def test_show_command_refuses_an_unknown_format(tmp_path, monkeypatch, capsys):
    from grounded.cli import main

    monkeypatch.setattr(sys, "argv", ["grounded", "show", str(ROOT / "scenarios" / "phase2.yaml"),
                                      "-o", str(tmp_path / "p.gif")])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 2 and "p.gif: cannot tell the format" in capsys.readouterr().err


# -- every id the log allows draws as itself ---------------------------------------------------------

XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"
ID_FIRST = string.ascii_letters + string.digits + "_"
ID_CHAR = st.sampled_from(ID_FIRST + ".:-") | st.sampled_from(":.-")  # DOT's own characters, often
ID = st.builds(lambda first, rest: first + rest, st.sampled_from(ID_FIRST),
               st.text(ID_CHAR, max_size=MAX_ID_LENGTH - 1))
"""Ids as the log allows them (grounded.core.literals.ATOM_PATTERN, at most MAX_ID_LENGTH characters)."""


def renamed(obj, names: dict[str, str]):
    """An utterance or header with every id (and its negation) spelled by ``names``."""
    if isinstance(obj, dict):
        return {renamed(k, names): v if k == "op" else renamed(v, names) for k, v in obj.items()}
    if isinstance(obj, list):
        return [renamed(v, names) for v in obj]
    if isinstance(obj, str) and obj.lstrip("-") in names:
        return obj[:len(obj) - len(obj.lstrip("-"))] + names[obj.lstrip("-")]
    return obj


def drawn(svg: str) -> tuple[dict[str, ET.Element], set[tuple[str, str, str]]]:
    """The nodes of a Graphviz SVG by their SVG id, and its edges as (tail id, head id, kind), read
    off the <title>s Graphviz writes (its own names for the nodes), not off our ids."""
    root = ET.fromstring(svg)
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class")]
    nodes = {g.find(f"{SVG}title").text: g for g in groups if "node" in classes(g) and "corner" not in classes(g)}
    assert len({g.get("id") for g in nodes.values()}) == len(nodes), "two nodes share an SVG id"
    edges = set()
    for g in groups:
        if "edge" in classes(g):
            tail, head = g.find(f"{SVG}title").text.split("->")
            edges.add((nodes[tail].get("id"), nodes[head].get("id"), g.get("class").split()[1]))  # edge KIND ...
    return {g.get("id"): g for g in nodes.values()}, edges


def labelled(svg: str) -> tuple[dict[str, str], set[tuple[str, str, str]]]:
    """Each node's label by its SVG id, and the edges."""
    groups, edges = drawn(svg)
    return {k: label(g) for k, g in groups.items()}, edges


def tooltip(g: ET.Element) -> str | None:
    return next((a.get(XLINK_TITLE) for a in g.iter(f"{SVG}a")), None)


def expected_picture(engine: Engine, t: int) -> tuple[dict[str, str], set[tuple[str, str, str]]]:
    """Each node's SVG id with its label, and each edge, read off the state itself."""
    dm = engine.state
    marked = grounded_arguments(dm, t)
    visible = [r for r in dm.args if r.standing_at(t) is not None]
    nodes = {f"arg{r.id}": r.claim + (" ✓" if r.id in marked else " ✗" if r.standing_at(t) in GOOD_STANDING
                                      else " ◐" if r.standing_at(t) == "weakened" else "")
             for r in visible}

    def ends(literal: str) -> list[str]:
        claimants = [f"arg{b}" for b in dm.claimants_at(literal, t)]
        if not claimants:
            nodes[f"lit-{literal}"] = literal
        return claimants or [f"lit-{literal}"]

    edges = set()
    for r in visible:
        edges |= {(end, f"arg{r.id}", "dep") for d in r.deps_at(t) for end in ends(d)}
        edges |= {(f"arg{r.id}", end, "explains") for x in r.explains_at(t) for end in ends(x)}
    edges |= {(f"arg{a}", f"arg{b}", "attack") for a, b, turn in dm.attacks if turn <= t}
    for a, agents in dm.dissent.items():
        if dm.visible(a, t):
            nodes.update({f"agent-{g}": g for g in agents})
            edges |= {(f"agent-{g}", f"arg{a}", "dissent") for g in agents}
    return nodes, edges


LITERAL_HEADER = {**HEADER, "props": [*HEADER["props"], *({"id": p, "kind": "assumption"} for p in ("p0", "p1", "p2"))]}
LITERAL_PREFIX = [{"speaker": "alice", "ops": [{"op": "observe", "claim": "o_base"}]},
                  {"speaker": "bob", "ops": [{"op": "hypothesize", "claim": "h_base", "deps": ["p0", "-p1", "p2"],
                                              "explains": ["o_base"]}]}]
"""Turns before the random ones, so that the picture has literals no argument claims (drawn by name)."""


@pytest.mark.slow
@budget(25)
@given(data=st.data())
def test_every_id_the_log_allows_draws_as_itself(data):
    """Random histories replayed with their ids respelled from the log's whole id alphabet (``:``,
    ``.``, ``-``, up to 200 characters): `grounded show`'s SVG and the book's stable drawing have one
    node per argument and unclaimed literal, labelled exactly with its id, and the edges between
    the right nodes (issue "Trust, round two", item 6: ``a:b`` drew an edge from a phantom node a)."""
    plain = Engine(LITERAL_HEADER)
    utterances = [{**u, "turn": plain.apply(u).turn} for u in LITERAL_PREFIX]
    utterances += draw_stream(data, plain, max_size=12)
    plain.close()
    words = sorted({w.lstrip("-") for w in ALL + SPEAKERS + [p["id"] for p in LITERAL_HEADER["props"]]}
                   | set(LITERAL_HEADER["agents"]) | {"o_base", "h_base"})
    spelled = data.draw(st.lists(ID, min_size=len(words), max_size=len(words), unique=True), label="ids")
    assert all(check_atom(s) for s in spelled)
    names = dict(zip(words, spelled, strict=True))
    engine = Engine(renamed(LITERAL_HEADER, names))
    for u in utterances:
        assert engine.apply(renamed({k: v for k, v in u.items() if k != "turn"}, names)).turn == u["turn"]
    last = engine.state.last_turn or 0
    t = data.draw(st.integers(0, last), label="at")
    nodes, edges = expected_picture(engine, t)
    shown = picture(engine, t).svg()
    book_svgs = stable_svgs([run_view(picture_facts(engine, at)) for at in sorted({t, last})])
    for svg in (shown, book_svgs[sorted({t, last}).index(t)]):
        assert labelled(svg) == (nodes, edges)
        groups, _ = drawn(svg)
        for k, g in groups.items():
            if k.startswith(("lit-", "agent-")):
                assert tooltip(g) == nodes[k]  # hovering shows the id, not Graphviz's name for the node
    engine.close()


def test_show_and_book_draw_ids_with_colons(tmp_path):
    """The CLI on a scenario whose ids hold ``:``: exit 0, and the literal is drawn once, as itself."""
    source = tmp_path / "colons.yaml"
    source.write_text(COLONS)
    out = tmp_path / "colons.svg"
    r = grounded("show", str(source), "-o", str(out))
    assert r.returncode == 0, r.stderr
    expected = ({"arg1": "svc:redis ✓", "arg2": "h:1 ✗", "lit-net:ok": "net:ok"},
                {("lit-net:ok", "arg2", "dep"), ("arg2", "arg1", "explains")})
    assert labelled(out.read_text()) == expected
    page = tmp_path / "colons.html"
    r = grounded("book", str(source), "-o", str(page))
    assert r.returncode == 0, r.stderr
    assert labelled(embedded_data(page.read_text())["frames"][-1]["svg"]) == expected

COLONS = """\
grounded: 1
title: Colons
agents: {"a:lice": {}, bob: {}}
props: [{id: "net:ok", kind: assumption}]
turns:
  - turn: 1
    speaker: "a:lice"
    text: Redis times out.
    ops: [{op: observe, claim: "svc:redis"}]
  - turn: 2
    speaker: bob
    text: the network
    ops: [{op: hypothesize, claim: "h:1", deps: ["net:ok"], explains: ["svc:redis"]}]
"""


# -- texts and the grounding channel ------------------------------------------------------------------


@pytest.fixture(scope="module")
def phase3() -> Engine:
    engine = load_engine(ROOT / "scenarios" / "phase3.yaml", None)
    yield engine
    engine.close()


def test_losing_grounding_is_drawn_and_marked_as_a_change(phase3):
    """Phase 3, T20: -a3 abandons a3, and the decision alpha18 resting on it stays resolved but is
    no longer grounded; the picture says so by its own channel, outlines it as changed, and marks
    a3 as the literal where Verify fails.  At T19 none of it."""
    alpha18, a3 = node_of(phase3, "alpha18", 20), node_of(phase3, "a3", 20)
    groups = parse(picture(phase3, 20).svg())
    g = groups[alpha18]
    assert {"resolved", "ungrounded", "lost_grounding", "changed"} <= classes(g) and "grounded" not in classes(g)
    assert lines(g)[0] == "alpha18 ✗"
    outline = shape_attrs(g)[0]
    assert outline["fill"].startswith("url(#")  # the standing's fill washed out: a gradient
    assert outline["stroke"] == "#1f5fd6" and "stroke-dasharray" in outline  # changed, dotted
    assert "NOT grounded (fails at a3)" in tooltip(g)
    assert {"failing", "abandoned"} <= classes(groups[a3])
    assert shape_attrs(groups[a3])[0]["stroke"] == "#e4002b"
    assert "failing" in classes(groups[f"e-dep-{a3}-{alpha18}"])
    # the other channel, standing, is untouched: the gradient runs from the resolved fill to white
    gradient = next(e for e in ET.fromstring(picture(phase3, 20).svg()).iter(f"{SVG}linearGradient")
                    if f"url(#{e.get('id')})" == outline["fill"])
    assert [stop.get("style").split(";")[0] for stop in gradient] == ["stop-color:#9fd89f", "stop-color:white"]
    before = parse(picture(phase3, 19).svg())
    g = before[alpha18]
    assert {"resolved", "grounded"} <= classes(g)
    assert not {"ungrounded", "lost_grounding", "changed"} & classes(g) and lines(g)[0] == "alpha18 ✓"
    assert "failing" not in classes(before[a3]) and "failing" not in classes(before[f"e-dep-{a3}-{alpha18}"])
    assert shape_attrs(g)[0]["fill"] == "#9fd89f"


def test_label_modes_show_the_claims_text_wrapped(phase3):
    arg = phase3.state.arg(phase3.state.claimants_at("alpha18", 20)[-1])
    words = arg.text.split()
    ids = parse(picture(phase3, 20, labels="id").svg())[f"arg{arg.id}"]
    assert lines(ids) == ["alpha18 ✗"]
    short = lines(parse(picture(phase3, 20).svg())[f"arg{arg.id}"])  # the default: two lines under the id
    assert short[0] == "alpha18 ✗" and len(short) == 3 and short[2].endswith("…")
    assert " ".join(short[1:]).startswith(" ".join(words[:3]))
    for width in (12, 40):
        full = lines(parse(picture(phase3, 20, labels="full", wrap=width).svg())[f"arg{arg.id}"])
        assert full[0] == "alpha18 ✗"
        assert "".join(full[1:]).replace(" ", "") == "".join(words)  # all of it, in order (long words broken)
        assert all(len(line) <= width for line in full[1:]), full
        assert len(full) > 3
    assert len(lines(parse(picture(phase3, 20, labels="full", wrap=12).svg())[f"arg{arg.id}"])) > len(full)
    with pytest.raises(InputError, match="--labels long: expected one of id, short, full"):
        picture(phase3, 20, labels="long")
    with pytest.raises(InputError, match="--wrap 3"):
        picture(phase3, 20, wrap=3)


def test_show_command_takes_labels_and_wrap(tmp_path):
    out = tmp_path / "p3.svg"
    r = grounded("show", "scenarios/phase3.yaml", "--at", "20", "--labels", "full", "--wrap", "16", "-o", str(out))
    assert r.returncode == 0, r.stderr
    g = next(g for g in parse(out.read_text()).values() if lines(g)[:1] == ["alpha18 ✗"])
    assert len(lines(g)) > 4 and all(len(line) <= 16 for line in lines(g)[1:])
    r = grounded("show", "scenarios/phase3.yaml", "--labels", "long", "-o", str(out))
    assert r.returncode == 2 and "--labels long" in r.stderr


def test_a_view_program_can_use_the_text_fact(phase3, tmp_path):
    mine = tmp_path / "texts.lp"
    mine.write_text(default_view().read_text()
                    + '\nattr(node, A, xlabel, X) :- text(A, X), argument(A, _, decision, _, _).\n')
    arg = phase3.state.claimants_at("alpha18", 20)[-1]
    g = parse(picture(phase3, 20, view=mine, labels="id").svg())[f"arg{arg}"]
    assert phase3.state.arg(arg).text in label(g)


@pytest.mark.parametrize("text", ['a \\N b \\G "quoted" <b>\\', "&amp; &lt; & &#0; ]]> <!-- --> \\l\\",
                                  "<svg onload=alert(1)>", "\\"])
def test_texts_with_graphviz_escapes_draw_as_written(text):
    """Graphviz's own escapes (\\N, \\G, entities, a trailing backslash) in a text are drawn as the text."""
    engine = Engine({"agents": {"ana": {}}})
    engine.apply({"speaker": "ana", "ops": [{"op": "observe", "claim": "o1", "text": text}]})
    g = parse(picture(engine, labels="full", wrap=80).svg())["arg1"]
    assert lines(g) == ["o1 ✓", text] and tooltip(g).endswith("\n" + text)


def test_texts_XML_cannot_hold_are_drawn_as_replacement_characters():
    engine = Engine({"agents": {"ana": {}}})
    engine.apply({"speaker": "ana", "ops": [{"op": "observe", "claim": "o1", "text": "nul\x00 bell\x07 \ufffe end"}]})
    g = parse(picture(engine, labels="full", wrap=80).svg())["arg1"]  # well-formed XML, drawn
    assert lines(g) == ["o1 ✓", "nul\ufffd bell\ufffd \ufffd end"]
