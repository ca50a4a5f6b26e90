"""Static pictures for slides and handouts: `grounded show --all-turns -o DIR` and `--diff T0 T1`.

Every turn's SVG is read with an XML parser: a node must stand at the same point
in all of them (the layout is the union's, computed once), on canvases of one
size.  The comparison of two turns must mark exactly what the engine says
appeared, changed standing or lost grounding between them.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grounded.cli.app import load_engine
from grounded.core.vocabulary import GOOD_STANDING
from grounded.queries.verify import grounded_arguments

pytestmark = pytest.mark.slow  # a Graphviz layout per conversation: left out of `make check`

ROOT = Path(__file__).resolve().parents[1]
SVG = "{http://www.w3.org/2000/svg}"


def grounded_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grounded", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)


def node_points(svg: Path) -> dict[str, tuple[str, str]]:
    """Where each argument's first line of text is drawn."""
    out = {}
    for g in ET.parse(svg).getroot().iter(f"{SVG}g"):
        if "node" in g.get("class", "").split() and g.get("id", "").startswith("arg"):
            text = next(g.iter(f"{SVG}text"))
            out[g.get("id")] = (text.get("x"), text.get("y"))
    return out


def test_all_turns_are_drawn_on_one_layout(tmp_path):
    out = tmp_path / "slides"
    r = grounded_cli("show", "scenarios/phase3.yaml", "--all-turns", "-o", str(out))
    assert r.returncode == 0, r.stderr
    files = sorted(out.glob("*.svg"))
    assert [f.name for f in files] == [f"turn-{t:02d}.svg" for t in range(1, 21)]
    where: dict[str, set[tuple[str, str]]] = {}
    for f in files:
        for node, point in node_points(f).items():
            where.setdefault(node, set()).add(point)
    engine = load_engine(ROOT / "scenarios" / "phase3.yaml", None)
    try:
        assert {f"arg{a.id}" for a in engine.arguments(at=20)} <= set(where)
        p3 = f"arg{engine.state.claimants['P3'][0]}"
    finally:
        engine.close()
    moved = {n: pts for n, pts in where.items() if len(pts) != 1}
    assert not moved, moved
    assert len([f for f in files if p3 in node_points(f)]) >= 15  # P3 is in most slides, always at one point
    sizes = {(ET.parse(f).getroot().get("width"), ET.parse(f).getroot().get("height")) for f in files}
    assert len(sizes) == 1, sizes
    # drawn one at a time, the same node does move: what --all-turns is for
    one_by_one = set()
    for t in (10, 20):
        r = grounded_cli("show", "scenarios/phase3.yaml", "--at", str(t), "-o", str(tmp_path / f"t{t}.svg"))
        assert r.returncode == 0, r.stderr
        one_by_one.add(node_points(tmp_path / f"t{t}.svg")[p3])
    assert len(one_by_one) == 2


def test_all_turns_as_png_slides_of_one_size(tmp_path):
    out = tmp_path / "png"
    r = grounded_cli("show", "scenarios/phase2.yaml", "--all-turns", "-o", str(out), "--format", "png")
    assert r.returncode == 0, r.stderr
    files = sorted(out.glob("turn-*.png"))
    assert len(files) == 13
    sizes = set()
    for f in files:
        head = f.read_bytes()[:24]
        assert head[:8] == b"\x89PNG\r\n\x1a\n"
        sizes.add(struct.unpack(">II", head[16:24]))
    assert len(sizes) == 1, sizes


@pytest.mark.parametrize(("args", "words"), [
    ((), "give the folder to write into with -o DIR"),
    (("-o", "DIR", "--at", "3"), "does not take --at"),
    (("-o", "DIR", "--format", "gif"), "--format gif: expected one of svg, png, pdf, dot"),
    (("-o", "FILE"), "a file, not a folder"),
])
def test_all_turns_refuses_what_it_cannot_do(tmp_path, args, words):
    taken = tmp_path / "taken.txt"
    taken.write_text("keep me")
    args = tuple(str(tmp_path / "d") if a == "DIR" else str(taken) if a == "FILE" else a for a in args)
    r = grounded_cli("show", "scenarios/phase2.yaml", "--all-turns", *args)
    assert r.returncode == 2 and words in r.stderr, r.stderr
    assert taken.read_text() == "keep me" and not (tmp_path / "d").exists()


def _expected(scenario: str, since: int, until: int) -> dict[str, set[str]]:
    """What the engine says appeared, lost grounding and changed standing between two turns."""
    engine = load_engine(ROOT / "scenarios" / scenario, None)
    try:
        dm = engine.state
        before = {a.id: a for a in engine.arguments(at=since)}
        g0, g1 = grounded_arguments(dm, since), grounded_arguments(dm, until)
        out: dict[str, set[str]] = {"diff_appeared": set(), "diff_grounding": set(), "diff_standing": set()}
        for a in engine.arguments(at=until):
            node = f"arg{a.id}"
            if a.id not in before:
                out["diff_appeared"].add(node)
            elif a.id in g0 and a.id not in g1 and a.standing in GOOD_STANDING:
                out["diff_grounding"].add(node)
            elif before[a.id].standing != a.standing:
                out["diff_standing"].add(node)
        return out
    finally:
        engine.close()


@pytest.mark.parametrize(("scenario", "since", "until"), [("phase2.yaml", 9, 13), ("phase3.yaml", 19, 20)])
def test_diff_marks_what_appeared_changed_standing_and_lost_grounding(tmp_path, scenario, since, until):
    out = tmp_path / "diff.svg"
    r = grounded_cli("show", f"scenarios/{scenario}", "--diff", str(since), str(until), "-o", str(out))
    assert r.returncode == 0, r.stderr
    root = ET.parse(out).getroot()
    marked: dict[str, set[str]] = {"diff_appeared": set(), "diff_grounding": set(), "diff_standing": set()}
    colours = {}
    for g in root.iter(f"{SVG}g"):
        for cls in set(g.get("class", "").split()) & set(marked):
            marked[cls].add(g.get("id"))
            shape = next(e for e in g.iter() if e.tag in (f"{SVG}polygon", f"{SVG}ellipse", f"{SVG}path"))
            colours.setdefault(cls, set()).add(shape.get("stroke"))
    expected = _expected(scenario, since, until)
    assert marked == expected
    assert any(expected.values())
    if scenario == "phase3.yaml":  # -a3 at T20: alpha18 keeps its standing and loses its grounding
        assert len(expected["diff_grounding"]) == 1 and colours["diff_grounding"] == {"#c2185b"}
    assert colours.get("diff_appeared", {"#1f5fd6"}) == {"#1f5fd6"}
    title = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert f"compared with T{since}" in title and "lost grounding" in title


@pytest.mark.parametrize(("args", "words"), [
    (("--diff", "13", "9"), "--diff 13 9: the first turn must come before the second"),
    (("--diff", "9", "99"), "--diff 9 99: the conversation ends at turn 13"),
    (("--diff", "9", "13", "--at", "4"), "--diff T0 T1 draws T1: leave out --at"),
])
def test_diff_refuses_turns_out_of_order_or_past_the_end(args, words):
    r = grounded_cli("show", "scenarios/phase2.yaml", *args)
    assert r.returncode == 2 and words in r.stderr, r.stderr


def test_all_turns_reads_a_log_strictly_and_writes_nothing_from_a_bad_one(tmp_path):
    log = tmp_path / "phase2.jsonl"
    r = grounded_cli("scenario-to-log", "scenarios/phase2.yaml", str(log))
    assert r.returncode == 0, r.stderr
    r = grounded_cli("show", str(log), "--all-turns", "-o", str(tmp_path / "good"))
    assert r.returncode == 0, r.stderr
    assert len(list((tmp_path / "good").glob("turn-*.svg"))) == 13
    lines = log.read_text().splitlines(keepends=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(lines[:3]) + '{"turn": 3, "broken\n' + "".join(lines[3:]))
    r = grounded_cli("show", str(bad), "--all-turns", "-o", str(tmp_path / "out"))
    assert r.returncode == 2 and f"{bad}:4: invalid JSON" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
