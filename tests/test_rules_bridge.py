"""The bridge between Python and the Prolog rules."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest

from grounded import Engine, PrologError
from grounded.dmap.operations import class_name, model_from_spec
from grounded.solvers.prolog import PrologRules, rules_dir

from .conftest import TEAM, hyp, obs

BUILTINS = ["expand_awareness", "hypothesize", "observe", "question", "resolve", "revise", "support", "undermine"]


def test_the_public_operation_models_are_generated_from_the_rule_files():
    """operation/3 is the single source: grounded.Observe & co. are its generated models."""
    import grounded

    specs = {s.name: s for s in PrologRules.get().builtin_specs}
    assert sorted(specs) == BUILTINS
    for name, spec in specs.items():
        model = getattr(grounded, class_name(spec.name))
        assert model is model_from_spec(spec) and model.__doc__ == spec.doc
        fields = {k: f for k, f in model.model_fields.items() if k != "op"}
        assert list(fields) == [f.name for f in spec.fields], name
        for f in spec.fields:
            assert fields[f.name].is_required() == f.required, (name, f.name)
    assert grounded.Observe(claim="o1").model_dump() == {"op": "observe", "claim": "o1", "text": "", "supersedes": []}
    u = grounded.Utterance(speaker="alice", ops=[grounded.Observe(claim="o1")])
    assert Engine().apply(u).turn == 1


def test_the_schema_of_the_builtins_is_what_it_was_before_the_models_were_generated():
    """`grounded schema` against its output with the hand-written models (tests/data): the
    same document, except that each operation's description is now its operation/3 doc."""
    from typer.testing import CliRunner

    from grounded.cli import app

    before = json.loads((Path(__file__).parent / "data" / "schema_before_issue9.json").read_text())
    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0, result.output
    now = json.loads(result.stdout)
    # since: line 1 is described as written, with the rules version and extensions (a HeaderLine)
    line = now["$defs"].pop("HeaderLine")
    assert set(line["properties"]) - set(before["$defs"]["Header"]["properties"]) == {"rules", "extensions"}
    del line["properties"]["rules"], line["properties"]["extensions"], now["$defs"]["ExtensionRef"]
    now["$defs"]["Header"] = {**line, "title": "Header", "description": before["$defs"]["Header"]["description"]}
    now["oneOf"][0] = {"$ref": "#/$defs/Header"}
    now["description"] = before["description"]
    docs = {class_name(s.name): s.doc for s in PrologRules.get().builtin_specs}
    for name, doc in docs.items():
        assert now["$defs"][name].pop("description") == doc
        before["$defs"][name].pop("description", None)
    assert now == before


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
    assert ("argument", 3, "h1", "hypothesis", "bob", 2) in a.prolog_state()
    assert not any("h1" in fact for fact in b.prolog_state())


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
    assert sorted(p.stem for p in (rules_dir() / "ops").glob("*.pl")) == BUILTINS


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


@pytest.mark.slow
def test_text_read_back_from_prolog_is_released_after_every_call():
    """SWI-Prolog aborts the process after 2^20 unreleased text buffers ("Too many stacked
    strings"); run in a child.  Each call reads 64 atoms back, so 20,000 calls would
    leave 1.28 million buffers if a call did not release its own (checked by hand: the
    same loop with the release disabled aborts)."""
    import subprocess
    import sys

    code = (
        "from grounded import Engine\n"
        "from grounded.solvers.prolog import PrologRules\n"
        "Engine()\n"
        "rules = PrologRules.get()\n"
        "atoms = [f'a{i}' for i in range(64)]\n"
        "for _ in range(20_000):\n"
        "    assert rules.request(('echo', atoms), ('list', 'text')) == atoms\n"
        "print('ok')\n"
    )
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert child.returncode == 0 and child.stdout.strip() == "ok", child.stderr[-500:]
