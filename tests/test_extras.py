"""An optional dependency missing reads as the extra that brings it (grounded.core.extras): one line, exit 2.

The fresh-venv install (test_distribution.py, slow) checks the same on a real install without extras; these
check it in this process, hiding a module the full environment has."""

from __future__ import annotations

import json
import sys
from importlib import resources

import pytest

from grounded.core.extras import MissingExtra, require
from tests.inprocess import run_cli

SHOW_NEEDS_VIEWS = "grounded show needs the 'views' extra: pip install 'grounded[views]' (graphviz is not installed)"


def test_an_installed_module_is_returned():
    assert require("views", "json") is json


def test_a_missing_module_names_the_command_the_extra_and_the_pip_command(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["grounded", "show", "log.jsonl", "-o", "p.svg"])
    monkeypatch.setitem(sys.modules, "graphviz", None)  # as if not installed
    with pytest.raises(MissingExtra) as caught:
        require("views", "graphviz")
    assert str(caught.value) == SHOW_NEEDS_VIEWS and caught.value.extra == "views"


def test_outside_the_command_line_the_message_says_this(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["my_script.py", "show"])
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(MissingExtra, match=r"^this needs the 'views' extra: pip install 'grounded\[views\]'"):
        require("views", "graphviz")


def test_an_import_failing_inside_an_installed_module_is_raised_as_it_is(tmp_path, monkeypatch):
    (tmp_path / "half_installed_xyz.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as caught:
        require("views", "half_installed_xyz")
    assert not isinstance(caught.value, MissingExtra) and caught.value.name == "no_such_dependency_xyz"


def test_the_command_line_exits_2_with_the_one_line_and_draws_nothing(tmp_path, monkeypatch):
    log, svg = tmp_path / "phase2.jsonl", tmp_path / "p.svg"
    code, _, err = run_cli("scenario-to-log", resources.files("grounded.scenarios") / "phase2.yaml", log)
    assert code == 0, err
    monkeypatch.setitem(sys.modules, "graphviz", None)
    code, out, err = run_cli("show", log, "-o", svg)
    assert (code, err.strip()) == (2, f"error: {SHOW_NEEDS_VIEWS}")
    assert not svg.exists() and "Traceback" not in out + err
