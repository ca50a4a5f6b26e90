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


@pytest.mark.parametrize("path", sorted(rules_dir().glob("*.pl")), ids=lambda p: p.stem)
def test_each_rule_file_is_a_module_with_a_pldoc_header_per_export(path):
    """Every file of prolog/ (the driver, the state, the author layer, the checks) is a module with an
    export list, and each exported predicate has a PlDoc (``%!``) header, as SWI-Prolog's library does."""
    text = path.read_text()
    declared = re.search(r":- module\(\s*\w+\s*,\s*\[(.*?)\]\s*\)", text, re.S)
    assert declared is not None, f"{path.name} is not a module"
    exports = {(n, int(a)) for n, a in re.findall(r"(\w+)/(\d+)", declared.group(1))}
    headed = {(m.group(1), len([a for a in (m.group(2) or "").split(",") if a.strip()]))
              for m in re.finditer(r"^%!\s+(\w+)(?:\(([^)]*)\))?", text, re.M)}
    assert exports and exports - headed == set()
