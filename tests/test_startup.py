"""Start-up of the command line (issue 23, item 5): what a process imports, read from ``python -X importtime``.

``grounded --version`` imports no solver, model, presenter, service or pydantic
model; a query answered from the snapshot beside its log imports no solver
(SWI-Prolog is not started: the snapshot's Python state answers), no numpy and
no service, and answers as a full replay does.  Times are the benchmark's
(``python -m bench startup``, bench/startup.py); these tests hold the structure that gives them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .startup_probe import grounded, heavy, imported, write_log

NOT_FOR_VERSION = {"pydantic", "grounded.engine", "grounded.dmap.model", "grounded.present.notebook", "rich.table",
                   "grounded.cli.query", "grounded.cli.serve", "yaml"}
NOT_FOR_A_SNAPSHOT_QUERY = {"grounded.scenario", "grounded.present.notebook", "grounded.present.picture",
                            "grounded.service", "grounded.cli.serve", "grounded.cli.author", "grounded.crosscheck",
                            "grounded.interpreter", "grounded.epistemic.model", "yaml",
                            "grounded.epistemic.formula", "grounded.epistemic.parse",
                            "grounded.dmap.operations", "rich.table",  # the operation models: made when the rules start
                            "pydantic", "pydantic_core", "grounded.dmap.model", "grounded.queries.models",
                            "grounded.io.origin", "typer._adapters",  # no model: the header and parameters are plain
                            "grounded.solvers.terms", "ctypes",  # Prolog's C interface: when the rules start
                            "grounded.present.context",  # an update's changes in words: not a query's answer
                            "grounded.engine.whatif",
                            # the rules' bridge and the effects it reads: when the rules start (made an engine, it
                            # imported them: 29 M instructions, a fifth of what the query cost beyond --version)
                            "grounded.solvers.prolog", "grounded.solvers.flat", "grounded.solvers.termdata",
                            "grounded.dmap.effects"}


@pytest.fixture(scope="module")
def talk(tmp_path_factory) -> tuple[Path, dict[str, str], str, str]:
    """A log of 40 synthetic turns, its snapshot written by a first query under a cache key of its own."""
    tmp = tmp_path_factory.mktemp("startup")
    env = {**os.environ, "GROUNDED_CACHE_DIR": str(tmp / "cache")}
    path = tmp / "talk.jsonl"
    claim, retracted = write_log(path, 40)
    first = grounded("verify", path, claim, env=env)
    assert first.returncode in (0, 1), first.stderr
    assert Path(str(path) + ".snapshot").is_file()
    return path, env, claim, retracted


def test_version_imports_neither_the_solvers_nor_the_commands():
    modules = imported(["--version"])
    assert "grounded.cli.app" in modules and "grounded.solvers.ruleset" in modules  # the reading is real
    assert heavy(modules) == [], f"--version imports {heavy(modules)}"
    assert not modules & NOT_FOR_VERSION, sorted(modules & NOT_FOR_VERSION)


@pytest.mark.slow
@pytest.mark.parametrize("args", [["commitments"], ["standing", "{claim}"], ["affected", "{retracted}", "-p",
                                                                           "closure=false"]])
def test_every_query_from_the_snapshot_imports_no_pydantic_and_answers_as_a_replay(talk, args):
    """``grounded query LOG NAME ...``: its parameters plainly right are read as plain data (Query.read)."""
    path, env, claim, retracted = talk
    args = [a.format(claim=claim, retracted=retracted) for a in args]
    modules = imported(["query", str(path), *args], env)
    assert not modules & NOT_FOR_A_SNAPSHOT_QUERY, sorted(modules & NOT_FOR_A_SNAPSHOT_QUERY)
    cached = grounded("query", path, *args, "--json", env=env)
    replayed = grounded("query", path, *args, "--json", "--no-cache", env=env)
    assert cached.returncode == replayed.returncode and cached.returncode in (0, 1), cached.stderr
    assert json.loads(cached.stdout) == json.loads(replayed.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("command", ["verify", "affected"])
def test_a_query_from_the_snapshot_starts_no_solver_and_answers_as_a_replay(talk, command):
    path, env, claim, retracted = talk
    literal = claim if command == "verify" else retracted
    modules = imported([command, str(path), literal], env)
    # one claim's question: answered from the snapshot's index, without the engine (tests/test_snapshot_index.py)
    assert "grounded.engine.indexed" in modules and "grounded.io.snapshot_index" in modules
    assert "grounded.engine.engine" not in modules
    assert heavy(modules) == [], f"{command} from the snapshot imports {heavy(modules)}"
    assert not modules & NOT_FOR_A_SNAPSHOT_QUERY, sorted(modules & NOT_FOR_A_SNAPSHOT_QUERY)
    cached = grounded(command, path, literal, "--json", env=env)
    replayed = grounded(command, path, literal, "--json", "--no-cache", env=env)
    assert cached.returncode == replayed.returncode and cached.returncode in (0, 1), cached.stderr
    assert json.loads(cached.stdout) == json.loads(replayed.stdout)
    assert json.loads(cached.stdout)["claim"] == literal


def test_importing_the_query_path_builds_no_pydantic_validator():
    """Grounded's models build their validators when first used (``defer_build``): importing them (the engine and
    the registry import none) builds none, and a model validated afterwards still refuses what it did before."""
    script = """
import json
import grounded.engine, grounded.queries.registry, grounded.queries.models, grounded.io.origin
from pydantic import BaseModel, ValidationError
from grounded.dmap.model import Header
def subclasses(c):
    for s in c.__subclasses__():
        yield s
        yield from subclasses(s)
ours = {m for m in subclasses(BaseModel) if m.__module__.startswith("grounded.")}
built = sorted(m.__qualname__ for m in ours if m.__pydantic_complete__)
try:
    Header.model_validate({"agents": {"a": {"authority": "yes"}}})
    refused = None
except ValidationError as exc:
    refused = exc.errors()[0]["loc"]
print(json.dumps({"models": len(ours), "built": built, "refused": refused}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["models"] >= 20 and found["built"] == [], found  # Header, Argument, the answers, ...
    assert found["refused"] == ["agents", "a", "authority"]  # StrictBool still strict once built


def verify_watched(talk: tuple, watch: str, report: str, ready: str = "") -> tuple[dict, list[str]]:
    """``grounded verify`` of the talk's claim, run by ``main`` in a fresh interpreter: ``watch`` runs first
    (it patches what the test counts), ``ready`` once ``main`` is imported, and ``report`` (the items of a dict
    display) is printed as JSON with the exit code under "code".  That JSON, and every line the process
    printed (the answer's first)."""
    path, env, claim, _ = talk
    script = "\n".join(["import gc, json, sys", watch, "from grounded.cli import main", ready,
                        f"sys.argv = ['grounded', 'verify', {str(path)!r}, {claim!r}]",
                        "try:", "    main()", "except SystemExit as exc:", "    code = exc.code",
                        f"print(json.dumps({{'code': code, {report}}}))"])
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    return json.loads(lines[-1]), lines


def test_a_query_collects_no_garbage_before_start_up_is_frozen(talk):
    """The collector is off while main imports the command (grounded.cli.app.StartupCollector): every collection
    of the query comes after ``gc.freeze``, and the collector is on again, as the caller had it."""
    found, _ = verify_watched(talk, "frozen_then = []\ngc.callbacks.append(lambda phase, info: phase == 'start' "
                              "and frozen_then.append(gc.get_freeze_count() > 0))",
                              "'frozen_then': frozen_then, 'enabled': gc.isenabled()", ready="frozen_then.clear()")
    assert found["code"] in (0, 1) and found["enabled"], found
    assert all(found["frozen_then"]), f"{found['frozen_then'].count(False)} collections during start-up"


def test_a_query_from_the_snapshot_counts_no_frozen_object(talk):
    """``gc.get_freeze_count`` walks every frozen object (25,000 once start-up is frozen), and the log reading
    asked it twice whether anything was frozen: 2-13 ms of a snapshot query's 1.3x ``--version`` (issue 23, item
    5).  What start-up froze is known (grounded.core.collector), and the reading counts nothing; the answer and
    the collector's state are as before."""
    found, lines = verify_watched(talk, "counted, count = [], gc.get_freeze_count\n"
                                  "gc.get_freeze_count = lambda: counted.append(1) or count()",
                                  "'counted': len(counted), 'frozen': count(), 'enabled': gc.isenabled()")
    assert found["code"] == 0 and lines[0].startswith(f"{talk[2]}: GROUNDED"), lines
    assert found["counted"] == 0 and found["frozen"] > 1000 and found["enabled"], found


def test_a_query_with_lines_after_the_snapshot_starts_the_rules(talk, tmp_path):
    """The rules are started when there is something for them to decide: the lines the snapshot lacks."""
    path, env, claim, _ = talk
    longer = tmp_path / "talk.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    longer.write_text("".join(lines[:-1]))
    assert grounded("verify", longer, claim, env=env).returncode in (0, 1)  # a snapshot of all but the last line
    longer.write_text("".join(lines))
    modules = imported(["verify", str(longer), claim], env)
    assert "pyswip" in modules
    again = grounded("verify", longer, claim, "--json", env=env)
    assert json.loads(again.stdout) == json.loads(grounded("verify", path, claim, "--json", env=env).stdout)


DATACLASSES_OF_A_SNAPSHOT_QUERY = 8
"""How many of grounded's dataclasses a query answered from a snapshot makes: each compiles its methods when
made (a frozen one six; 1-4 M instructions each), and the 18 it made were a sixth of what the query cost beyond
``--version`` (issue 23, item 5): not the snapshot's records, nor each kind of Verify's answer."""


def test_a_query_from_the_snapshot_makes_few_dataclasses(talk):
    found, _ = verify_watched(talk, """import dataclasses
made, process = [], dataclasses._process_class
def counted(cls, *args, **kwargs):
    made.append(cls.__module__ + "." + cls.__qualname__)
    return process(cls, *args, **kwargs)
dataclasses._process_class = counted""", "'made': [m for m in made if m.startswith('grounded.')]")
    assert found["code"] == 0 and len(found["made"]) <= DATACLASSES_OF_A_SNAPSHOT_QUERY, found["made"]
    assert not any(m.startswith("grounded.io.snapshot.") for m in found["made"]), found["made"]
    assert [m for m in found["made"] if m.startswith("grounded.queries.verify.")] == [
        "grounded.queries.verify.Verification"]


def test_the_query_commands_parameters_are_built_with_no_annotation_compiled():
    """Typer reads a command's parameters from its annotations four times over (``inspect.signature``, which
    compiles and evaluates each one given as a string: 76 for ``verify`` under ``from __future__ import
    annotations``, 2-10 ms of a snapshot query, issue 23 item 5); the query commands' annotations are objects,
    made once when their module is imported."""
    import inspect

    from grounded.cli import query

    for command in (query.verify, query.affected, query.query_command):
        kinds = {name: type(a).__name__ for name, a in inspect.get_annotations(command).items()}
        assert len(kinds) > 5 and "str" not in kinds.values(), (command.__name__, kinds)


def test_a_query_builds_its_own_command_alone(talk):
    """The module of ``verify`` registers ``affected`` and ``query`` too; Typer builds a command by reading its
    signature (a millisecond each), and a call builds only the command it runs."""
    found, _ = verify_watched(talk, """import typer.main
built, build = [], typer.main.get_command_from_info
typer.main.get_command_from_info = lambda info, **kw: built.append(info.callback.__name__) or build(info, **kw)
import grounded.cli.app
grounded.cli.app.get_command_from_info = typer.main.get_command_from_info""", "'built': built")
    assert found == {"code": 0, "built": ["verify"]}, found


def test_each_command_is_registered_by_the_module_commands_names():
    """grounded.cli.app.COMMANDS against what the modules register, in a process that imports them one by one."""
    script = """
import importlib, json
from typer.main import get_command_name
from grounded.cli.app import COMMANDS, app
def registered():
    names = {i.name or get_command_name(i.callback.__name__) for i in app.registered_commands}
    return names | {g.name for g in app.registered_groups}
missing = {}
for module in dict.fromkeys(COMMANDS.values()):
    importlib.import_module("grounded.cli." + module)
    missing[module] = sorted(n for n, m in COMMANDS.items() if m == module and n not in registered())
print(json.dumps({"missing": missing, "unlisted": sorted(registered() - set(COMMANDS))}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["unlisted"] == [] and not any(found["missing"].values()), found


def test_every_command_module_is_named_in_commands():
    """A module of grounded.cli that COMMANDS does not name is never imported: its commands would vanish (app and
    values, which convert parameters, register none)."""
    import pkgutil

    import grounded.cli
    from grounded.cli.app import COMMANDS

    modules = {m.name for m in pkgutil.iter_modules(grounded.cli.__path__)} - {"app", "values"}
    assert modules == set(COMMANDS.values()), "add each command to grounded.cli.app.COMMANDS under its module"


def test_a_typo_still_suggests_the_command_and_help_lists_every_one():
    typo = grounded("verfy", "x.jsonl", "o1")
    assert typo.returncode == 2 and "Did you mean 'verify'" in typo.stderr
    listed = grounded("--help", env={**os.environ, "COLUMNS": "200"}).stdout
    from grounded.cli.app import COMMANDS

    first_words = [line.strip("│ ").split(" ")[0] for line in listed.splitlines() if line.startswith("│ ")]
    assert [w for w in first_words if w in COMMANDS] == list(COMMANDS)  # every command, in COMMANDS's order


def test_an_object_displays_without_the_facade_having_imported_the_renderers():
    script = """
import sys
from grounded.engine import Engine
assert "grounded.present.notebook" not in sys.modules
html = Engine({"agents": {"alice": {"authority": True}}})._repr_html_()
print("grounded.present.notebook" in sys.modules, "Dependency map at T0" in html)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]


def test_the_header_of_a_log_whose_snapshot_fits_is_not_validated_again(talk):
    """Line 1 of a log whose snapshot fits was validated by the reading that took the snapshot (its bytes are under
    the snapshot's MAC): the engine's header is built from it as authenticated, equal to the validated one (fields
    set alike), and no validator of the header's models is built; a log without one still has its header validated."""
    path, env, _, _ = talk
    script = f"""
import json
from pydantic import BaseModel
from grounded.engine import Engine
from grounded.dmap.model import Header
from grounded.io.format import split_header
engine = Engine.load({str(path)!r}, snapshot=True)
def subclasses(c):
    for s in c.__subclasses__():
        yield s
        yield from subclasses(s)
built = sorted(m.__qualname__ for m in subclasses(BaseModel) if m.__module__.startswith("grounded.")
               and m.__pydantic_complete__)
with open({str(path)!r}) as f:
    validated = Header.model_validate(split_header(json.loads(f.readline()))[0])
ours = engine.header
print(json.dumps({{"restored": engine.log_status.restored, "built": built, "equal": ours == validated,
                  "set": [sorted(ours.model_fields_set), sorted(validated.model_fields_set)],
                  "agents": [[sorted(a.model_fields_set) for a in h.agents.values()] for h in (ours, validated)],
                  "dump": ours.model_dump(mode="json") == validated.model_dump(mode="json")}}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["restored"] > 0 and found["built"] == [], found
    assert found["equal"] and found["dump"] and found["set"][0] == found["set"][1], found
    assert found["agents"][0] == found["agents"][1], found


def test_a_bad_header_is_refused_whether_or_not_a_snapshot_is_beside_the_log(talk, tmp_path):
    path, env, claim, _ = talk
    bad = tmp_path / "talk.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    bad.write_text(lines[0].replace('"authority": true', '"authority": "yes"', 1) + "".join(lines[1:]))
    assert '"yes"' in bad.read_text()
    for _ in range(2):  # the second time, no snapshot was written by the first
        done = grounded("verify", bad, claim, env=env)
        assert done.returncode == 2 and f"{bad}:1: header: agents.alice.authority" in done.stderr, done.stderr
        assert not Path(str(bad) + ".snapshot").exists()


def test_the_bounds_and_the_literal_checks_import_no_pydantic():
    """The checks are plain functions; only the model field types that carry them (grounded.core.fields) need
    pydantic: a step to a query answered from a snapshot without it (issue 23, item 5)."""
    script = """
import sys
from grounded.core.bounds import check_turn
from grounded.core.literals import check_literal, is_literal
assert check_turn(3) == 3 and is_literal("-a3") and check_literal("o1") == "o1"
print(sorted(m for m in sys.modules if m.partition(".")[0] in ("pydantic", "pydantic_core")))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_query_from_the_snapshot_makes_no_effect_class(talk):
    """The effect classes (a dataclass per kind, grounded.dmap.effects) are made when the first effect of their kind is
    read or handled: a state read from a snapshot applies none, so a query answered from it makes none."""
    found, _ = verify_watched(talk, "", "'made': sorted(n for n in (effects.class_name(k.name) for k in effects.KINDS) "
                              "if n in vars(effects)), 'later': effects.NewArg.name, "
                              "'all': list(effects.CLASSES) == [k.name for k in effects.KINDS]",
                              ready="from grounded.dmap import effects")
    assert found["code"] in (0, 1) and found["made"] == [], found
    assert found["later"] == "new_arg" and found["all"]  # made when asked for; every kind listed, in order
