"""The bridge between Python and the Prolog rules."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from grounded import Engine, PrologError
from grounded.dmap.operations import BUILTIN_OPERATIONS
from grounded.solvers.prolog import PrologRules, rules_dir

from .conftest import TEAM, hyp, obs


def test_the_builtin_models_match_the_rule_files_schema_entries():
    """The hand-written pydantic models and operation/3 in prolog/ops must agree."""
    specs = {s.name: s for s in PrologRules.get().operation_specs}
    assert set(BUILTIN_OPERATIONS) <= set(specs)
    for name, model in BUILTIN_OPERATIONS.items():
        fields = {k: f for k, f in model.model_fields.items() if k != "op"}
        assert set(fields) == {f.name for f in specs[name].fields}, name
        for f in specs[name].fields:
            assert fields[f.name].is_required() == f.required, (name, f.name)
            annotation = str(fields[f.name].annotation)
            expected = {"literals": "list", "literal": "str", "text": "str"}[f.type]
            assert expected in annotation, (name, f.name, annotation)


def test_interleaved_engines_keep_their_own_state():
    a, b = Engine(TEAM), Engine(TEAM)
    a.apply({"speaker": "carol", "ops": [obs("o1"), obs("o2")]})
    b.apply({"speaker": "carol", "ops": [obs("o1")]})
    a.apply({"speaker": "bob", "ops": [hyp("h1", ["o1"], ["o2"])]})
    with pytest.raises(Exception, match="support_target_unknown"):
        b.apply({"speaker": "bob", "ops": [{"op": "support", "target": "h1", "by": "o1"}]})
    b.apply({"speaker": "bob", "ops": [obs("o3")]})
    assert [r.claim for r in a.state.args] == ["o1", "o2", "h1"]
    assert [r.claim for r in b.state.args] == ["o1", "o3"]
    assert "argument(3,h1" in a.prolog_state() and "h1" not in b.prolog_state()


def test_prolog_stays_on_one_thread():
    engine = Engine(TEAM)
    errors = []

    def other():
        try:
            engine.apply({"speaker": "carol", "ops": [obs("o1")]})
        except PrologError as exc:
            errors.append(str(exc))

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert errors and "second thread" in errors[0]
    assert engine.turn is None


def test_rule_files_ship_with_the_package():
    assert (rules_dir() / "grounded.pl").is_file()
    assert sorted(p.stem for p in (rules_dir() / "ops").glob("*.pl")) == sorted(BUILTIN_OPERATIONS)


def test_the_readme_example_runs(tmp_path, monkeypatch):
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    engine = scope["engine"]
    assert engine.verify("h1").chain == ("h1", "o8")
    assert engine.affected("o8").arguments == [2] and engine.affected("o8").lose_support == ["h1"]
    assert Engine.load(tmp_path / "talk.jsonl").snapshot() == engine.snapshot()


def test_more_than_a_million_calls_do_not_exhaust_prologs_string_stack():
    """SWI-Prolog aborts the process after 2^20 unreleased text buffers; run in a child."""
    import subprocess
    import sys

    code = (
        "from grounded import Engine\n"
        "from grounded.solvers.prolog import PrologRules\n"
        "Engine()\n"
        "rules = PrologRules.get()\n"
        "for _ in range(1_100_000):\n"
        "    assert rules.call('invariant') == 'true'\n"
        "print('ok')\n"
    )
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert child.returncode == 0 and child.stdout.strip() == "ok", child.stderr[-500:]
