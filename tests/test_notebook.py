"""Notebook display: the reprs Jupyter shows, and scenarios/tutorial.ipynb executed by a real kernel (nbclient)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from html import escape
from pathlib import Path

import nbformat
import pytest
import tomllib
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

from grounded import Affected, Engine, Update, Verification, WhatIf
from grounded.cli.app import load_engine
from grounded.core import display
from grounded.epistemic.model import PlausibilityModel
from grounded.present.exercise import Exercise
from grounded.present.picture import Picture
from tests.inprocess import grounded

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def phase2() -> Engine:
    engine = load_engine(ROOT / "scenarios" / "phase2.yaml", None)
    yield engine
    engine.close()


def test_every_displayed_class_has_its_renderers():
    # the first rendering registers the renderers (the facade defers grounded.present.notebook until then)
    assert display.render(object(), "html") is None  # nothing registered: Jupyter falls back to repr
    for cls in (Engine, Update, Verification, Affected, PlausibilityModel, WhatIf):
        assert issubclass(cls, display.Displayable)
        for fmt in ("html", "markdown"):
            assert any((c, fmt) in display._renderers for c in cls.__mro__), (cls, fmt)


def test_engine_displays_its_picture_and_table(phase2):
    html = phase2._repr_html_()
    assert "<svg" in html and "Dependency map at T13" in html
    assert '<td class="abandoned">abandoned (T9 by o9)</td>' in html
    md = phase2._repr_markdown_()
    h2 = phase2.state.arg(12)
    assert f"| 12 | h2 | {h2.text} | hypothesis | carol | 6 | abandoned | no | o8 |" in md
    assert "<th>claim</th><th>text</th>" in html and f'<td class="text">{escape(h2.text)}</td>' in html
    ET.fromstring(phase2._repr_svg_().split("?>", 1)[1].split(">", 1)[1])  # well-formed after prolog and doctype
    assert repr(phase2) == "Engine(T13: 15 arguments, 14 in S_t, 10 open problems, |W| = 1)"
    assert isinstance(phase2.show(at=9, focus="h2"), Picture)


def test_answers_display(phase2):
    v = phase2.verify("h2")
    assert "h2 abandoned at T9 by o9" in v._repr_html_() and "not grounded" in v._repr_markdown_()
    assert "Dep*: h1, o8, h4" in phase2.verify("h1")._repr_html_()  # a set, not a line of arrows
    assert "&larr;" not in phase2.verify("h1")._repr_html_() and "<-" not in phase2.verify("h1")._repr_markdown_()
    a = phase2.affected("o5")
    assert a._repr_markdown_() == "**Affected*(o5)**: h3 (hop 1), h4 (hop 2), h1 (hop 3); lose support: h3, h4, h1"
    assert a._repr_html_().count("<tr>") == 4
    w = phase2.whatif({"speaker": "bob", "ops": [{"op": "revise", "target": "o5", "by": "o9"}]}, at=12)
    assert "o5 abandoned by o9" in w._repr_markdown_() and "<svg" in w._repr_html_()
    w = phase2.whatif({"speaker": "bob", "ops": [{"op": "support", "target": "h2", "by": "o8"}]})
    assert "`support_target_abandoned`" in w._repr_markdown_()


def test_update_and_model_display():
    muddy = load_engine(ROOT / "scenarios" / "phase1.yaml", None)
    model = muddy.model_at(2)
    html = model._repr_html_()
    assert "|W| = 4</b> of 8 worlds" in html
    assert html.count('<span class="cell">') == sum(len(set(model.cells[g][model.world_ids()].tolist()))
                                                    for g in ("alice", "bob", "carol"))
    update = muddy.whatif({"speaker": "father", "ops": [{"op": "observe", "claim": "some_muddy"}]}, at=0).update
    assert "new_arg(1, some_muddy, observation)" in update._repr_html_()
    assert "|W| 8 &rarr; 7" in update._repr_html_()
    muddy.close()


TUTORIAL = ROOT / "scenarios" / "tutorial.ipynb"
PREDICTIONS = {  # the reader's predictions typed into the exercises: one right, one in the wrong order, ...
    "check-h2": "prediction = False",
    "check-o5": 'prediction = ["h3", "h1", "h4"]',
    "check-one-step": 'prediction = ["h3"]',
    "check-whatif": 'prediction = {"o5": ["h3"]}',
    "check-muddy": "prediction = 4",
}
REVEALS = ("said-t7", "verify-h2", "affected-o5", "affected1-o5", "contrast", "whatif", "reveal-muddy", "trajectory")
"""The cells that show an answer, or what follows from one: held back until the exercise's prediction is checked."""


def run_tutorial(tmp_path: Path, predictions: dict[str, str]) -> dict:
    """The tutorial run from top to bottom with these predictions typed in; each tagged cell's outputs."""
    nb = nbformat.read(TUTORIAL, as_version=4)
    for cell in nb.cells:
        for tag in cell.metadata.get("tags", []):
            if tag in predictions:
                lines = cell.source.splitlines()
                k = next(i for i, line in enumerate(lines) if line.startswith("prediction = "))
                cell.source = "\n".join(lines[:k] + [predictions[tag]] + lines[k + 1:])
    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(tmp_path / "kernel"))
    NotebookClient(nb, km=km, timeout=120, resources={"metadata": {"path": str(ROOT / "scenarios")}}).execute()
    outputs = {}
    for cell in nb.cells:
        if cell.cell_type == "code":
            errors = [o for o in cell.outputs if o.output_type == "error"]
            assert not errors, f"{cell.source[:60]!r}: {errors[0].ename}: {errors[0].evalue}"
            for tag in cell.metadata.get("tags", []):
                outputs[tag] = cell.outputs
    return outputs


def test_run_all_without_predictions_gives_nothing_away(tmp_path):
    """Run All on the tutorial as it ships: every exercise asks for a prediction, every cell that would show
    an answer (or what follows from it) says it is held back, and the picture before the Affected* exercises
    highlights no chain."""
    outputs = run_tutorial(tmp_path, {})
    for tag in REVEALS:
        shown = "".join(str(o.get("data", {})) + o.get("text", "") for o in outputs[tag])
        assert "held back" in shown and "<svg" not in shown, (tag, shown[:300])
        assert not any(name in shown for name in ("h1", "h3", "h4", "[8, 7, 4, 1]")), (tag, shown[:300])
    for tag in ("check-h2", "check-o5", "check-one-step", "check-whatif", "check-muddy"):
        assert "".join(o.get("text", "") for o in outputs[tag]) == \
            "write your prediction first, then run the cell again\n", tag
    picture = "".join(o.get("data", {}).get("image/svg+xml", "") for o in outputs["picture"])
    assert "<svg" in picture and "#7b2cbf" not in picture and " chain" not in picture
    # the muddy children's cube is drawn before the exercise: eight corners, {} leaving
    cube = "".join(o.get("data", {}).get("image/svg+xml", "") for o in outputs["cube-t1"])
    assert cube.count('class="node"') == 7 and cube.count('class="node ghost leaving"') == 1


def test_the_tutorial_runs_and_holds_its_answers_back_until_revealed(tmp_path):
    outputs = run_tutorial(tmp_path, PREDICTIONS)

    def data(tag: str, mime: str) -> str:
        return "".join(o.get("data", {}).get(mime, "") for o in outputs[tag])

    def printed(tag: str) -> str:
        return "".join(o.get("text", "") for o in outputs[tag] if o.output_type == "stream")

    assert "<svg" in data("engine-t6", "text/html")
    # an update in words, not the rules' transitions
    t1 = data("said-t1", "text/markdown")
    assert "- + o1 (observation, carol)" in t1 and "- open problems + o1, o2, o3, o4, q1" in t1
    assert "new_arg" not in t1 and len(t1.splitlines()) <= 10
    # each check says right or not, and nothing of the answer; the reveal cell shows it
    assert printed("check-h2") == "right!\n" and not outputs["check-h2"][1:]
    assert "h2 weakened at T7 by o9" in data("verify-h2", "text/markdown")
    assert "- h2 weakened by o9" in data("said-t7", "text/markdown")
    assert printed("check-o5") == "not quite (the right claims, in another order): think again, or run reveal() " \
        "in the next cell\n"
    assert "h3 (hop 1), h4 (hop 2), h1 (hop 3)" in data("affected-o5", "text/markdown")
    assert printed("check-one-step") == "right!\n"
    assert data("affected1-o5", "text/markdown") == "**Affected(o5)**: h3 (hop 1); lose support: h3"
    assert printed("contrast") == "one step:  h3\nAffected*: h3, h4, h1\nmissed by one step: h4, h1\n"
    assert printed("check-whatif") == "not quite: think again, or run reveal() in the next cell\n"
    assert printed("check-muddy") == "right!\n"
    assert data("reveal-muddy", "image/svg+xml").count('class="node"') == 4  # and the three that left, ghosted
    assert "flagged for re-evaluation: h3, h4 (rest on o5)" in data("whatif", "text/markdown")
    for tag in ("check-h2", "check-o5", "check-one-step", "check-whatif", "check-muddy"):
        assert not any(name in printed(tag) for name in ("h1", "h3", "h4", "o5")), tag
    assert "<svg" in data("picture", "image/svg+xml")
    assert data("trajectory", "text/plain") == "[8, 7, 4, 1]"
    assert 'class="cell"' in data("model", "text/html")


def test_an_exercise_compares_by_shape_and_never_prints_the_answer(phase2, capsys):
    Exercise(phase2.verify("h2")).check(None)
    Exercise(phase2.verify("h2")).check(True)
    star = Exercise(phase2.affected("o5"))
    star.check(["h1", "h4", "h3"])  # a set, unless the order is asked
    Exercise(phase2.affected("o5"), order=True).check(["h3", "h4"])
    flagged = Exercise("shown", value={"o5": ["h3", "h4"]})
    flagged.check({"o5": ["h4", "h3"]})
    assert capsys.readouterr().out.splitlines() == [
        "write your prediction first, then run the cell again",
        "not quite: think again, or run reveal() in the next cell",
        "right!",
        "not quite: think again, or run reveal() in the next cell",  # not how many the engine names
        "right!",
    ]
    assert star.reveal() is not None and star.reveal().claims == ["h3", "h4", "h1"]
    assert flagged.reveal() == "shown" and "h3" not in repr(star)
    unchecked = Exercise(phase2.affected("o5"))  # no prediction checked: nothing shown
    assert "held back" in repr(unchecked.reveal()) and "held back" in repr(unchecked.after("h3, h4"))


def test_grounded_tutorial_copies_the_notebook_and_says_how_to_open_it(tmp_path):
    result = grounded("tutorial", "--dir", tmp_path)
    assert result.returncode == 0, result.stderr
    copied = tmp_path / "tutorial.ipynb"
    assert copied.read_bytes() == TUTORIAL.read_bytes()
    assert f"jupyter notebook {copied}" in result.stdout or f"jupyter lab {copied}" in result.stdout
    copied.write_text("my answers")
    again = grounded("tutorial", "--dir", tmp_path)
    assert again.returncode == 2 and "tutorial.ipynb: already exists" in again.stderr
    assert copied.read_text() == "my answers"  # nothing the reader wrote is lost
    assert grounded("tutorial", "--dir", tmp_path / "nope").returncode == 2
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["notebook"]
    assert any(req.startswith(("notebook", "jupyterlab")) for req in extra)  # something to open it with


def test_a_text_with_pipes_stays_in_its_markdown_cell():
    engine = Engine({"agents": {"ana": {}}})
    engine.apply({"speaker": "ana", "ops": [{"op": "observe", "claim": "o1", "text": "a | b\nc \\"}]})
    row = next(line for line in engine._repr_markdown_().splitlines() if line.startswith("| 1 |"))
    assert row == "| 1 | o1 | a \\| b c \\\\ | observation | ana | 1 | active | yes |  |"
    assert '<td class="text">a | b\nc \\</td>' in engine._repr_html_()
