"""The driver's own plunit tests (prolog/tests/*.plt): atomicity, no-op dropping and
rule files loaded as modules, checked in SWI-Prolog alone, without the bridge."""

from __future__ import annotations

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
