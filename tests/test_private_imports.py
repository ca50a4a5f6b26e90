"""The package imports no private module or name of another project (``typer._click``, ``from x import _y``):
what a dependency keeps private may change in any release, so the code holds to what each one publishes."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "grounded"

STILL_PRIVATE = {"cli/app.py": "typer._click"}
"""Files another change owns, with the private import it still has (a type-only import of typer's own click:
``Command`` and ``Context``); each is to go, and this test fails once it has gone so the entry is removed."""


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(path: Path) -> list[str]:
    """The private modules and names of other projects ``path`` imports, as ``module`` or ``module:name``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if any(map(_private, a.name.split(".")))]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            if node.module.partition(".")[0] == "grounded":
                continue
            if any(map(_private, node.module.split("."))):
                found.append(node.module)
            found += [f"{node.module}:{a.name}" for a in node.names if _private(a.name)]
    return found


def test_the_package_imports_no_private_module_of_a_dependency():
    found = {str(p.relative_to(SRC)): private_imports(p) for p in sorted(SRC.rglob("*.py"))}
    assert {f: names for f, names in found.items() if names and f not in STILL_PRIVATE} == {}
    assert {f: found[f] for f in STILL_PRIVATE} == {f: [name] for f, name in STILL_PRIVATE.items()}


def test_the_check_finds_a_private_import(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from __future__ import annotations\nimport os\nfrom typer._coercion import build_runtime_param\n"
                      "from typer.core import _TyperParameter\nimport json._x\nfrom . import _here\n")
    assert private_imports(source) == ["typer._coercion", "typer.core:_TyperParameter", "json._x"]
