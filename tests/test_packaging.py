"""pyproject.toml ships every directory of the package: each directory under a package's root that holds files
the package reads (modules, rules, assets) is a package of ``[tool.setuptools] packages`` (setuptools warns of,
and in time drops, data in a directory that is not), and the license is an SPDX expression with its file."""

from __future__ import annotations

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
NOT_SHIPPED = {"prolog/tests"}  # the rules' own plunit tests, run from the repository (tests/test_plunit.py)


def _directory(package: str) -> Path:
    """Where setuptools reads ``package`` from: the longest ``package-dir`` entry it falls under."""
    dirs = SETUPTOOLS["package-dir"]
    parts = package.split(".")
    for n in range(len(parts), -1, -1):
        base = ".".join(parts[:n])
        if base in dirs:
            return ROOT / dirs[base] / Path(*parts[n:])
    raise AssertionError(f"{package}: under no package-dir")


def test_every_directory_of_a_shipped_tree_is_a_package():
    packages = SETUPTOOLS["packages"]
    shipped = {_directory(p) for p in packages}
    roots = {_directory(p) for p in packages if p.count(".") <= 1}
    found = {d for root in roots for d in [root, *root.rglob("*")] if d.is_dir() and d.name != "__pycache__"
             and any(f.is_file() for f in d.iterdir()) and str(d.relative_to(ROOT)) not in NOT_SHIPPED}
    assert sorted(str(d.relative_to(ROOT)) for d in found - shipped) == []


def test_each_package_with_data_says_which_files():
    data = SETUPTOOLS["package-data"]
    for package in SETUPTOOLS["packages"]:
        directory = _directory(package)
        others = [f.name for f in directory.iterdir() if f.is_file() and f.suffix != ".py"]
        if others:
            assert package in data, (package, others)


def test_the_license_is_an_spdx_expression_with_its_file():
    assert PYPROJECT["project"]["license"] == "MIT"
    assert all((ROOT / f).is_file() for f in PYPROJECT["project"]["license-files"])
