"""Every transition an operation declares fires in drawn histories, and every standing
change it emits is one it declares (tests/transitions.py): a bug the rules and their
ASP twin share, which the three-way check cannot see, is caught by name."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grounded.solvers.prolog import RULES_DIR_VARIABLE, PrologRules, rules_dir

from .test_retraction_mutations import plant
from .transitions import cover, declared_transitions, shown

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "extensions"
BUILTINS = ["observe", "hypothesize", "support", "undermine", "revise", "expand_awareness", "resolve", "question"]
EXTENSIONS = ["concede", "withdraw", "merge", "concur"]


def extensions_of(op: str) -> list[Path]:
    return [EXAMPLES / f"{op}.pl"] if op in EXTENSIONS else []


@pytest.mark.slow
@pytest.mark.parametrize("op", BUILTINS + EXTENSIONS)
def test_every_declared_transition_fires_and_no_other_standing_change(op):
    coverage = cover(op, extensions_of(op))
    assert coverage.declared, f"{op} declares no transition"
    problems = coverage.problems()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("op", BUILTINS + EXTENSIONS)
def test_the_declarations_name_the_effects_the_clauses_emit(op):
    """What transition/2 declares is what the effect clauses can emit on the map (the
    catalogue's reading of them, prolog/catalogue.pl; the world model's effects aside)."""
    rules = PrologRules.get()
    rules.use_extensions(tuple(str(p) for p in extensions_of(op)))
    emitted = set()
    for line in rules.catalogue_text().splitlines():
        kind, *fields = line.split("\t")
        if kind == "effect" and fields[0] == op and fields[2] != "world_model":
            name, inner = re.fullmatch(r"(\w+)\((.*)\)", fields[1]).groups()
            emitted.add(name if name != "set_standing" else f"set_standing {inner.split(', ')[1]}")
    declared = {shown(t) if isinstance(t, str) else f"set_standing {t[2]}" for t in declared_transitions()[op]}
    assert declared == emitted


def planted_extension(tmp_path: Path, op: str, pl: tuple[str, str], lp: tuple[str, str]) -> Path:
    """A copy of an example extension with one clause replaced in both its files alike."""
    for suffix in (".pl", ".lp"):
        shutil.copy(EXAMPLES / f"{op}{suffix}", tmp_path / f"{op}{suffix}")
    plant(tmp_path, f"{op}.pl", *pl)
    plant(tmp_path, f"{op}.lp", *lp)
    return tmp_path / f"{op}.pl"


@pytest.mark.slow
def test_an_effect_forgotten_in_both_files_is_named(tmp_path):
    forgot = planted_extension(
        tmp_path, "withdraw",
        ("effect(withdraw, U, Op, retract_commitment(S, A)) :-", ""),
        ("effect(s, retract_commitment(G, A))", ""))
    problems = cover("withdraw", [forgot]).problems()
    assert len(problems) == 1
    assert re.fullmatch(r"withdraw never emitted retract_commitment \(declared by "
                        r"transition\(withdraw, retract_commitment\)\) in \d+ utterances", problems[0])


@pytest.mark.slow
def test_a_standing_change_the_operation_does_not_declare_is_named(tmp_path):
    weakens = planted_extension(
        tmp_path, "withdraw",
        ("effect(withdraw, U, Op, set_standing(A, abandoned, none)) :-",
         "effect(withdraw, U, Op, set_standing(A, weakened, none)) :-\n"
         "    field(Op, target, T), withdraw_own(U, T, A)."),
        ("effect(s, set_standing(A, abandoned, none))",
         "effect(s, set_standing(A, weakened, none)) :- withdraw_own(s, A)."))
    problems = cover("withdraw", [weakens]).problems()
    assert "withdraw never emitted set_standing(active, abandoned) (declared by transition(withdraw, " \
           "set_standing(active, abandoned)))" in problems[0]
    assert any(re.match(r"withdraw emitted set_standing\(active, weakened\) at T\d+ \(argument \d+\), which it "
                        r"does not declare", p) for p in problems)


@pytest.mark.slow
def test_a_builtin_operation_that_forgets_an_effect_is_named(tmp_path):
    """The same bug in a copy of the shipped rules (GROUNDED_RULES_DIR), in a fresh process."""
    rules = tmp_path / "rules"
    shutil.copytree(rules_dir(), rules, ignore=shutil.ignore_patterns("__pycache__"))
    plant(rules, "ops/undermine.pl", "effect(undermine, U, Op, commit(S, B)) :-", "")
    code = "from tests.transitions import cover; print('\\n'.join(cover('undermine').problems()))"
    env = {**os.environ, RULES_DIR_VARIABLE: str(rules)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert re.fullmatch(r"undermine never emitted commit \(declared by transition\(undermine, commit\)\) "
                        r"in \d+ utterances\n", out.stdout)
