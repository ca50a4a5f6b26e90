"""The world model drawn (issue 22 item 8): worlds as nodes, each agent's indistinguishability as labelled
edges, arrows to the more plausible world, summarised past ``DRAW_LIMIT`` worlds.

What is drawn is held against the engine's own model: the node count against |W| as ``grounded run``
prints it turn by turn, and for an agent the relation the drawn edges close to (reflexive, symmetric and
transitive for ~_i; transitive for the strict order) against the model's cells and ranks, so leaving out
what transitivity implies loses nothing.  Both sides of the drawing limit are tried.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from itertools import product
from pathlib import Path

import networkx as nx
import pytest

from grounded.cli.app import load_engine
from grounded.epistemic.model import PlausibilityModel
from grounded.present.book import book
from grounded.present.worldgraph import DRAW_LIMIT, world_graph

from .browser import close, driver

ROOT = Path(__file__).resolve().parents[1]
PHASE1 = ROOT / "scenarios" / "phase1.yaml"
PHASE2 = ROOT / "scenarios" / "phase2.yaml"


def grounded(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grounded", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


@pytest.fixture(scope="module")
def phase1():
    engine = load_engine(PHASE1, None)
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def phase2():
    engine = load_engine(PHASE2, None)
    yield engine
    engine.close()


def sizes_from_run(path: Path) -> dict[int, int]:
    """|W| after each turn, read from what `grounded run` prints ('M: |W| 8 -> 7' or 'M: |W| = 1')."""
    r = grounded("run", str(path))
    assert r.returncode == 0, r.stderr
    sizes, turn = {}, None
    for line in r.stdout.splitlines():
        if m := re.match(r"T(\d+) ", line):
            turn = int(m.group(1))
        elif (m := re.match(r"\s+M: \|W\| (?:\d+ -> |= )(\d+)", line)) and turn is not None:
            sizes[turn] = int(m.group(1))
    return sizes


def closure(nodes: list[str], edges: list[tuple[str, str]], directed: bool) -> set[tuple[str, str]]:
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    if directed:
        return {(a, b) for a in nodes for b in nx.descendants(g, a)}
    return {(a, b) for part in nx.connected_components(g) for a in part for b in part}


def agent_relations(graph: dict, agent: str) -> tuple[set, set]:
    """~_agent (all pairs, reflexive) and the strict order (less plausible, more plausible) the drawing says."""
    nodes = [n["id"] for n in graph["nodes"]]
    mine = [e for e in graph["edges"] if agent in e["agents"]]
    same = closure(nodes, [(e["a"], e["b"]) for e in mine], directed=False)
    strict = closure(nodes, [(e["a"], e["b"]) for e in mine if e["directed"]], directed=True)
    return same, strict


def model_relations(model: PlausibilityModel, agent: str) -> tuple[set, set]:
    live = [int(w) for w in model.world_ids()]
    cells, ranks = model.cells[agent], model.ranks[agent]
    same = {(f"w{v}", f"w{w}") for v, w in product(live, live) if cells[v] == cells[w]}
    strict = {(f"w{v}", f"w{w}") for v, w in product(live, live) if cells[v] == cells[w] and ranks[v] > ranks[w]}
    return same, strict


@pytest.mark.slow
def test_the_drawing_has_a_node_per_world_as_grounded_run_counts_them_each_turn(phase1):
    sizes = sizes_from_run(PHASE1)
    assert sorted(sizes) == [1, 2, 3, 4, 5]
    for turn, size in sizes.items():
        r = grounded("world", str(PHASE1), "--at", str(turn), "--json")
        assert r.returncode == 0, r.stderr
        graph = json.loads(r.stdout)
        assert graph["drawn"] and len(graph["nodes"]) == graph["size"] == size, turn
        assert sum(n["actual"] for n in graph["nodes"]) == 1  # MMC survives every announcement
    assert len(world_graph(phase1.model_at(0))["nodes"]) == 8  # M0: the whole cube


@pytest.mark.parametrize("turn", [0, 1, 2])
def test_each_agents_edges_close_to_its_indistinguishability(phase1, turn):
    model = phase1.model_at(turn)
    graph = world_graph(model)
    for agent in ("alice", "bob", "carol"):
        assert agent_relations(graph, agent) == model_relations(model, agent)
    # no loops, and at T1 alice confuses exactly the worlds that differ on m_a only
    assert all(e["a"] != e["b"] for e in graph["edges"])
    if turn == 1:
        alice = {frozenset((e["a"], e["b"])) for e in graph["edges"] if "alice" in e["agents"]}
        names = {n["id"]: frozenset(n["atoms"]) for n in graph["nodes"]}
        assert alice == {frozenset((a, b)) for a in names for b in names
                         if names[a] ^ names[b] == {"m_a"}}
        assert len(alice) == 3  # {m_a} has lost its partner {}: the father said someone is muddy


def test_plausibility_arrows_point_to_the_more_plausible_world_and_close_to_the_order(phase2):
    model = phase2.model_at(12)  # 16 worlds in one cell, six plausibility levels after the upgrades
    assert model.size == DRAW_LIMIT
    graph = world_graph(model)
    assert graph["drawn"] and graph["levels"]["alice"] == 6
    assert any(e["directed"] for e in graph["edges"])
    assert agent_relations(graph, "alice") == model_relations(model, "alice")
    # transitivity left out: far fewer edges than the 120 pairs of one cell of 16
    assert len(graph["edges"]) < 16 * 15 // 2


def test_past_the_limit_the_model_is_summarised_not_drawn(phase2):
    model = phase2.model_at(1)
    assert model.size > DRAW_LIMIT
    graph = world_graph(model)
    assert not graph["drawn"] and "nodes" not in graph and "edges" not in graph
    for agent in model.agents:  # the cells by size count every live world once
        assert sum(int(size) * n for size, n in graph["cells"][agent].items()) == model.size
    # worlds are named by the atoms that differ only: the rest are said once
    assert set(graph["named_by"]) | set(graph["constant_true"]) | set(graph["constant_false"]) == set(model.atoms)
    assert graph["constant_true"] and len(graph["named_by"]) < len(model.atoms)
    live = model.world_ids()
    for a in graph["named_by"]:
        row = model.val[model.atom_index[a], live]
        assert row.any() and not row.all()


@pytest.mark.parametrize(("atoms", "drawn"), [(4, True), (5, False)])
def test_the_limit_on_both_sides(atoms, drawn):
    names = [f"p{i}" for i in range(atoms)]
    model = PlausibilityModel.cube(names, {"ann": names[:1], "bo": names[1:]})
    assert (model.size <= DRAW_LIMIT) == drawn
    graph = world_graph(model)
    assert graph["drawn"] == drawn
    if drawn:
        for agent in ("ann", "bo"):
            assert agent_relations(graph, agent) == model_relations(model, agent)


@pytest.mark.slow
def test_world_command_draws_or_refuses_to_draw_a_large_model(tmp_path):
    out = tmp_path / "m.svg"
    r = grounded("world", str(PHASE1), "--at", "2", "-o", str(out))
    assert r.returncode == 0, r.stderr
    svg = out.read_text()
    # the four live worlds, the four gone pale (the cube keeps its shape), one edge per agent in its own style
    assert svg.count('class="node"') == 4 and svg.count('class="node ghost"') == 4
    assert [svg.count(f'class="edge agent_{g}"') for g in ("alice", "bob", "carol")] == [1, 1, 1]
    assert "carol" in r.stdout and "{m_a, m_b} (actual) -- {m_a, m_b, m_c}: carol" in r.stdout
    big = tmp_path / "big.svg"
    r = grounded("world", str(PHASE2), "--at", "1", "-o", str(big))
    assert r.returncode == 2 and not big.exists()
    assert "64 worlds, more than --limit 16" in r.stderr
    assert "summarised" in r.stdout  # the summary is still printed
    r = grounded("world", str(ROOT / "scenarios" / "phase3.yaml"))
    assert r.returncode == 2 and "declares no world model" in r.stderr
    r = grounded("world", str(PHASE2), "--at", "1", "--limit", "64", "--json")  # raised: drawn after all
    assert r.returncode == 0 and len(json.loads(r.stdout)["nodes"]) == 64
    r = grounded("world", str(PHASE2), "--limit", "65")
    assert r.returncode == 2 and "--limit" in r.stderr and "64" in r.stderr


@pytest.mark.slow
def test_the_page_draws_each_turns_worlds(tmp_path):
    from selenium.webdriver.common.by import By

    page = tmp_path / "phase1.html"
    page.write_text(book(PHASE1)[0], encoding="utf-8")
    b = driver()
    try:
        b.get(page.as_uri() + "#t=0")
        seen = []
        for _ in range(6):
            size = int(b.find_element(By.ID, "worlds-size").get_attribute("data-size"))
            nodes = b.find_elements(By.CSS_SELECTOR, "#kripke svg g.node:not(.ghost)")
            assert len(nodes) == size
            # the worlds this turn eliminated are drawn leaving: as many as |W| lost
            leaving = b.find_elements(By.CSS_SELECTOR, "#kripke svg g.node.ghost.leaving")
            assert len(leaving) == (seen[-1] - size if seen else 0)
            seen.append(size)
            b.find_element(By.ID, "next").click()
        assert seen == [8, 7, 4, 2, 1, 1]
        assert b.find_element(By.CSS_SELECTOR, '#kripke .kripke-agent[data-agent="carol"]').text.startswith("carol")
    finally:
        close(b)


@pytest.mark.slow
def test_the_page_summarises_a_large_model(tmp_path):
    from .browser import dump_dom, parse_dom

    page = tmp_path / "phase2.html"
    page.write_text(book(PHASE2)[0], encoding="utf-8")
    dom = parse_dom(dump_dom(page.as_uri() + "#t=1"))
    box = dom.find("kripke")
    assert box.attrs["data-drawn"] == "false" and box.attrs["data-size"] == "64"
    assert box.select("svg") == [] and "summarised" in box.text


@pytest.mark.slow
def test_the_largest_model_is_summarised_in_bounded_time():
    """2^22 worlds (the model's own bound): counted with numpy, never listed; generous on a shared machine."""
    import time

    names = [f"p{i}" for i in range(22)]
    model = PlausibilityModel.cube(names, {"ann": names[:11], "bo": names[11:]})
    start = time.perf_counter()
    graph = world_graph(model)
    assert time.perf_counter() - start < 20
    assert not graph["drawn"] and graph["cells"] == {"ann": {"2048": 2048}, "bo": {"2048": 2048}}
    assert graph["named_by"] == names and graph["levels"] == {"ann": 1, "bo": 1}


def test_the_muddy_children_are_a_cube_each_agent_in_a_style_of_its_own(phase1):
    """Three atoms: every world at the corner its atoms give it, so that each child's edges run along the axis
    of the atom the child does not observe; the agents' colours and line styles all differ; the worlds the
    father's announcement eliminates leave as ghosts at T1, and stay pale after."""
    from grounded.present.worldgraph import CUBE_STEP

    graph = world_graph(phase1.model_at(1), before=phase1.model_at(0))
    pos = graph["positions"]
    assert len(pos) == 8 and len({tuple(p) for p in pos.values()}) == 8
    axis = {"alice": (CUBE_STEP[0], 0.0), "bob": (0.0, CUBE_STEP[1]), "carol": CUBE_STEP[2]}
    for e in graph["edges"]:
        (agent,) = e["agents"]
        step = (abs(pos[e["a"]][0] - pos[e["b"]][0]), abs(pos[e["a"]][1] - pos[e["b"]][1]))
        assert step == axis[agent], e
    looks = [tuple(graph["styles"][g].values()) for g in graph["agents"]]
    assert len({c for c, _ in looks}) == len({s for _, s in looks}) == len(looks)
    assert [(g["label"], g["leaving"]) for g in graph["ghosts"]] == [("{}", True)]
    later = world_graph(phase1.model_at(2), before=phase1.model_at(2))
    assert sorted(g["leaving"] for g in later["ghosts"]) == [False] * 4


def test_the_worlds_that_leave_are_ghosted_only_as_many_as_a_drawing_holds():
    """Off the cube (five atoms), a turn's leaving worlds are drawn pale when they are no more than the drawing
    limit; a model that drops from 32 worlds to 8 shows its 8 and says nothing of the 24 by drawing them."""
    import numpy as np

    names = [f"p{i}" for i in range(5)]
    before = PlausibilityModel.cube(names, {"ann": names[:2], "bo": names[2:]})
    half = before.replace(alive=before.val[0].copy())
    eighth = before.replace(alive=before.val[0] & before.val[1])
    assert (half.size, eighth.size) == (16, 8)
    graph = world_graph(half, before=before)
    assert "positions" not in graph and len(graph["ghosts"]) == 16 and all(g["leaving"] for g in graph["ghosts"])
    assert world_graph(eighth, before=before)["ghosts"] == []
    assert world_graph(eighth, before=half)["ghosts"] != [] and np.count_nonzero(half.alive & ~eighth.alive) == 8
