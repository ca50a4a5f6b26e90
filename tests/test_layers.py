"""The package's layers import downward only, and no modules import each other in a circle.

docs/architecture.md draws the layers; ``LAYERS`` below is the same picture,
bottom first.  Packages on one line are independent of each other.  Every
import counts, including those under ``TYPE_CHECKING`` and inside functions:
a circle hidden behind a lazy import is still a circle for the reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import tomllib

ROOT = Path(__file__).resolve().parents[1]

LAYERS: list[tuple[str, ...]] = [
    ("grounded.prolog", "grounded.asp", "grounded.scenarios"),  # rule files and scenarios: package data
    ("grounded.core",),
    ("grounded.epistemic",),
    ("grounded.dmap",),
    ("grounded.queries",),
    ("grounded.solvers", "grounded.io"),
    ("grounded.dung",),
    ("grounded.engine",),
    ("grounded.scenario",),
    ("grounded.crosscheck", "grounded.present"),
    ("grounded.authoring",),
    ("grounded.interpreter",),
    ("grounded.service",),
    ("grounded.cli",),
]
TOP = ("grounded", "grounded.__main__")  # the public facade and ``python -m grounded`` may import anything


def package_dirs() -> dict[str, Path]:
    """Each package's folder: those under the import root (``""``, src/) and those mapped on their own."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    dirs: dict[str, Path] = {}
    for pkg, folder in config["tool"]["setuptools"]["package-dir"].items():
        if pkg:
            dirs[pkg] = ROOT / folder
        else:
            dirs.update({init.parent.name: init.parent for init in (ROOT / folder).glob("*/__init__.py")})
    return dirs


def modules() -> dict[str, Path]:
    """Every Python module of the distribution, by its import name."""
    found: dict[str, Path] = {}
    dirs = package_dirs()
    for pkg, folder in dirs.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            name = ".".join([pkg, *parts])
            # a folder mapped to a package of its own is reported under that name only
            if any(name.startswith(other + ".") or name == other for other in dirs if other != pkg
                   and other.startswith(pkg + ".")):
                continue
            found[name] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    here = name if is_package else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets.add(module)
            targets.update(f"{module}.{alias.name}" for alias in node.names)
    # keep the longest known module each import names (``from grounded.x import y`` may name module x.y)
    return {t for t in targets if t in known and t != name}


def layer_of(module: str) -> int | None:
    for i, layer in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in layer):
            return i
    return None


def package_of(module: str) -> str | None:
    for layer in LAYERS:
        for p in layer:
            if module == p or module.startswith(p + "."):
                return p
    return None


def import_graph() -> nx.DiGraph:
    found = modules()
    graph = nx.DiGraph()
    for name, path in found.items():
        graph.add_node(name)
        for target in imports_of(name, path, set(found)):
            graph.add_edge(name, target)
    return graph


def test_every_module_belongs_to_a_layer():
    stray = [m for m in modules() if m not in TOP and layer_of(m) is None]
    assert not stray, f"modules outside every layer (add them to LAYERS and docs/architecture.md): {stray}"


def test_layers_import_downward_only():
    upward = []
    for source, target in import_graph().edges:
        if source in TOP:
            continue
        ls, lt = layer_of(source), layer_of(target)
        if target in TOP or lt is None or ls is None:
            upward.append((source, target))
        elif lt > ls or (lt == ls and package_of(source) != package_of(target)):
            upward.append((source, target))
    assert not upward, "imports that go up (or across) the layers:\n" + "\n".join(f"  {s} -> {t}" for s, t in upward)


def test_no_import_circles():
    graph = import_graph()
    # a package's __init__ re-exports its modules; an edge back to the package itself is not a circle
    for source, target in list(graph.edges):
        if source.startswith(target + "."):
            graph.remove_edge(source, target)
    circles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not circles, f"modules that import each other in a circle: {circles}"


def test_the_layer_check_sees_an_upward_import(tmp_path, monkeypatch):
    """The checks above would catch a back-edge such as core -> engine (the one this layout removed)."""
    graph = import_graph()
    graph.add_edge("grounded.core.errors", "grounded.engine.engine")
    assert layer_of("grounded.engine.engine") > layer_of("grounded.core.errors")
    assert any(len(c) > 1 for c in nx.strongly_connected_components(graph))


def test_the_architecture_page_names_code_that_exists():
    """docs/architecture.md follows one utterance hop by hop (file:function); each hop must exist,
    and the page's layer list must name every package of LAYERS."""
    import re

    page = (ROOT / "docs" / "architecture.md").read_text()
    hops = re.findall(r"`((?:src/grounded|prolog)/[\w/]+\.(?:py|pl)):([\w.]+)(?:/\d)?`", page)
    assert len(hops) >= 8
    for path, name in hops:
        source = (ROOT / path).read_text()
        last = name.split(".")[-1]
        pattern = rf"^\s*(def|class) {last}\b" if path.endswith(".py") else rf"^{last}\("
        assert re.search(pattern, source, re.M), f"docs/architecture.md names {path}:{name}, which is not there"
    for layer in LAYERS:
        for package in layer:
            assert f" {package.rpartition('.')[2]} " in page or f" {package.rpartition('.')[2]}\n" in page or \
                f"| {package.rpartition('.')[2]} " in page, f"docs/architecture.md does not draw {package}"


WALKS = {"grounded.queries.verify.verify", "grounded.queries.affected.affected",
         "grounded.queries.verify.least_fixpoint"}
"""The hand-written query walks: a front end asks them through the registry (``Engine.ask``, ``StateView``)."""
WALKERS = ("grounded.queries", "grounded.engine")
"""The registry and the walks themselves, and the engine (``Engine``, ``StateView``) that the registry walks over."""


def walk_imports(name: str, path: Path) -> set[str]:
    """The walk functions a module imports by name (``from grounded.queries.verify import verify``, or the
    module imported and the function read off it: ``_verify.verify``)."""
    tree = ast.parse(path.read_text(), str(path))
    found: set[str] = set()
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                target = f"{node.module}.{alias.name}"
                if target in WALKS:
                    found.add(target)
                aliases[alias.asname or alias.name] = target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            target = f"{aliases.get(node.value.id, node.value.id)}.{node.attr}"
            if target in WALKS:
                found.add(target)
    return found


def walks_asked_outside_the_registry(found: dict[str, Path]) -> list[tuple[str, str]]:
    return [(name, walk) for name, path in sorted(found.items())
            if not name.startswith(WALKERS) for walk in walk_imports(name, path)]


def test_queries_are_answered_through_the_registry_only():
    """A query answered outside the registry (a front end calling a walk itself) fails here: the CLI, the
    service, the presenters and the checks ask ``Engine.ask`` / ``StateView`` (docs/architecture.md)."""
    outside = walks_asked_outside_the_registry(modules())
    assert not outside, "query walks called outside the registry and the engine:\n" + "\n".join(
        f"  {m} uses {w}" for m, w in outside)


def test_the_registry_check_sees_a_walk_called_directly(tmp_path):
    """Both ways of reaching a walk are seen: the function imported, and read off its module."""
    direct = tmp_path / "direct.py"
    direct.write_text("from grounded.queries.affected import affected\n")
    through = tmp_path / "through.py"
    through.write_text("from grounded.queries import verify as v\n\ndef f(dm):\n    return v.verify(dm, 'o1')\n")
    fine = tmp_path / "fine.py"
    fine.write_text("from grounded.queries.verify import Verification, grounded_arguments\n")
    found = {"grounded.present.direct": direct, "grounded.cli.through": through, "grounded.cli.fine": fine}
    assert walks_asked_outside_the_registry(found) == [
        ("grounded.cli.through", "grounded.queries.verify.verify"),
        ("grounded.present.direct", "grounded.queries.affected.affected")]


def _imports_bench(node: ast.AST) -> bool:
    """An import of the repository's benchmarks (``bench``; ``grounded.bench`` when they were packaged)."""
    def ours(name: str) -> bool:
        return name.split(".")[0] == "bench" or name.startswith("grounded.bench")
    if isinstance(node, ast.Import):
        return any(ours(alias.name) for alias in node.names)
    if isinstance(node, ast.ImportFrom) and not node.level:
        return ours(node.module or "") or (node.module == "grounded" and any(a.name == "bench" for a in node.names))
    return False


def _marked_bench(decorators: list[ast.expr]) -> bool:
    return any(ast.unparse(d) == "pytest.mark.bench" for d in decorators)


def test_only_the_benchmark_tests_import_the_benchmarks():
    """bench/ is not installed: a test importing it is a test of a benchmark and carries the ``bench`` marker
    (on its module, or on the function that imports it); the other tests' fixtures live in tests/."""
    unmarked = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        module_marked = path.name.startswith("bench_") or any(
            isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "pytestmark"
            and "pytest.mark.bench" in ast.unparse(n.value) for n in tree.body)
        if module_marked:
            continue
        marked_lines = {line for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                        and _marked_bench(f.decorator_list) for line in range(f.lineno, (f.end_lineno or 0) + 1)}
        unmarked += [f"{path.name}:{n.lineno}" for n in ast.walk(tree) if _imports_bench(n)
                     and n.lineno not in marked_lines]
    assert not unmarked, f"imports of bench/ outside the bench-marked tests: {unmarked}"


def test_the_benchmark_import_check_sees_an_unmarked_import(tmp_path):
    """The check above reads an import inside a function too, and the marker that excuses it."""
    tree = ast.parse("import pytest\n\ndef test_a():\n    from bench.synthetic import build\n\n"
                     "@pytest.mark.bench\ndef test_b():\n    from bench import flood\n")
    found = [n for n in ast.walk(tree) if _imports_bench(n)]
    assert [n.lineno for n in found] == [4, 8]
    functions = [f for f in tree.body if isinstance(f, ast.FunctionDef)]
    assert [_marked_bench(f.decorator_list) for f in functions] == [False, True]
