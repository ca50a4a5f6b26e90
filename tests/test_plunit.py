"""The driver's own plunit tests (prolog/tests/*.plt): atomicity, no-op dropping and
rule files loaded as modules, checked in SWI-Prolog alone, without the bridge."""

from __future__ import annotations

import re
import subprocess

import pytest

from grounded.solvers.prolog import rules_dir

PLT = sorted((rules_dir() / "tests").glob("*.plt"))


@pytest.mark.parametrize("path", PLT, ids=lambda p: p.stem)
def test_plunit(path):
    out = subprocess.run(["swipl", "-g", "run_tests", "-t", "halt", str(path)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "tests passed" in out.stdout + out.stderr and "ERROR" not in out.stderr


def test_make_docs_writes_the_author_layer_as_pldoc_html(tmp_path):
    """`make docs` (SWI-Prolog's doc_save over prolog/): one page per module, and the author layer's page
    documents every predicate of the layer."""
    from grounded.solvers.prolog import PrologRules

    root = rules_dir().parent
    out = subprocess.run(["make", "-s", "docs", f"PLDOC={tmp_path}"], cwd=root, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    pages = {p.name for p in tmp_path.glob("*.html")}
    assert {"vocabulary.html", "grounded.html", "lint.html", "queries.html", "index.html"} <= pages
    page = (tmp_path / "vocabulary.html").read_text()
    _, _, _, _, layer = PrologRules.get().request(("vocabulary",))
    documented = set(re.findall(r'class="pred">(\w+)</', page))
    assert {n for _, n, _ in layer} - documented == set()
