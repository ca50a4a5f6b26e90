"""The precondition catalogue (`grounded rules`), read from the loaded rules.

docs/preconditions.md must be the command's output.  The catalogue must list
exactly the codes the rule files declare (read here with a plain pattern, as
an independent witness), and every violation the engine actually reports must
carry one of the catalogue's codes with a message its template matches.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine, PreconditionError
from grounded.present.catalogue import catalogue

from .test_properties import HEADER, SPEAKERS, budget, ops_for

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cat():
    return catalogue()


def test_docs_preconditions_md_is_the_commands_output():
    """The command run as a user runs it, in a process of its own: the rules as a fresh process loads them."""
    docs = (ROOT / "docs" / "preconditions.md").read_text(encoding="utf-8")
    made = subprocess.run([sys.executable, "-m", "grounded", "rules"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert made.returncode == 0, made.stderr
    assert docs == made.stdout, "docs/preconditions.md is stale: regenerate it with " \
                                "`grounded rules > docs/preconditions.md`"


def test_the_catalogue_lists_every_code_the_rule_files_declare(cat):
    declared = set()
    for path in (ROOT / "prolog").rglob("*.pl"):
        declared |= set(re.findall(r"^violation\((\w+),\s*\w+,\s*\w+,\s*(\w+),", path.read_text(), re.M))
    listed = {(op.name, p.code) for op in cat.operations for p in op.preconditions}
    assert listed == declared
    assert len({code for _, code in declared}) >= 48
    assert {op.name for op in cat.operations} == {"observe", "hypothesize", "support", "undermine", "revise",
                                                   "expand_awareness", "resolve", "question"}
    general = {p.code for checks in cat.general.values() for p in checks}
    assert {"turn_order", "unknown_speaker", "missing_field", "attack_cycle", "dep_cycle"} <= general, \
        "the driver's checks moved: update general_check/4 in prolog/catalogue.pl"
    hyp = next(op for op in cat.operations if op.name == "hypothesize")
    assert "add_dep(new, <deps item>)" in hyp.effects and "upgrade(<claim>, lexicographic)" in hyp.model_effects
    assert [f["name"] for f in hyp.fields] == ["claim", "text", "deps", "explains"]


def matches(template: str, message: str) -> bool:
    pattern = "".join(".+" if part.startswith("{") else re.escape(part)
                      for part in re.split(r"(\{[^}]*\})", template))
    return re.fullmatch(pattern, message, re.S) is not None


@pytest.mark.slow
@budget(20)
@given(data=st.data())
def test_every_violation_reported_is_catalogued_with_a_matching_template(cat, data):
    templates = {}
    for op in cat.operations:
        for p in op.preconditions:
            templates[p.code] = [m.template for m in p.messages]
    for checks in cat.general.values():
        for p in checks:
            templates.setdefault(p.code, []).extend(m.template for m in p.messages)
    engine = Engine(HEADER)
    for _ in range(data.draw(st.integers(3, 12), label="length")):
        ops = data.draw(st.lists(ops_for(engine.state), min_size=1, max_size=2), label="ops")
        try:
            engine.apply({"speaker": data.draw(st.sampled_from(SPEAKERS), label="speaker"), "ops": ops})
        except PreconditionError as exc:
            for v in exc.violations:
                assert v.code in templates, f"{v.code} is not in the catalogue"
                assert any(matches(t, v.message) for t in templates[v.code]), (v.code, v.message, templates[v.code])
    engine.close()


def test_rules_command_lists_an_extension(tmp_path):
    extending = (ROOT / "docs" / "extending.md").read_text()
    (block,) = [b for b in re.findall(r"```prolog\n(.*?)```", extending, re.S) if b.startswith("% concede.pl")]
    (tmp_path / "concede.pl").write_text(block)
    r = subprocess.run([sys.executable, "-m", "grounded", "rules", "--json", "-x", str(tmp_path / "concede.pl")],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    ops = {op["name"]: op for op in json.loads(r.stdout)["operations"]}
    concede = ops["concede"]
    assert concede["extension"] == "concede.pl"
    assert [p["code"] for p in concede["preconditions"]] == ["concede_not_standing", "concede_redundant"]
    assert concede["preconditions"][1]["messages"][0]["template"] == "{speaker} is already committed to {target}"
    assert concede["effects"] == ["commit(<speaker>, <A>)"]
    assert ops["observe"]["extension"] is None
