"""An extension is code the commands trust, within two limits.  One that calls halt/0,1 cannot end the process
with a status that reads as a verdict: every command that loads one exits 2 naming the rule file and line
(the load's sandbox refuses the call before it can run; prolog/grounded.pl's at_halt hook, with
grounded.solvers.prolog, stands behind it for a halt reached at run time).  One whose rules never end is stopped by
``--timeout`` (exit 2).  Run as real processes: a halt that got through would end the test's own interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_authoring import EXAMPLES, grounded

IN_A_RULE = "violation(concur, _, _, concur_halt, _) :- halt.\n"
"""Called when a concur utterance is checked, before the first of concur's own violation clauses."""
AT_LOAD = ":- halt(0).\n"


def planted(tmp_path: Path, clause: str) -> Path:
    """The concur example (rule file, twin, cases, scenario) with ``clause`` before its first violation rule."""
    for name in ("concur.pl", "concur.lp", "concur.test.yaml", "concur.yaml"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    rules = tmp_path / "concur.pl"
    text = rules.read_text()
    first = text.index("violation(concur, _, Op, concur_unknown")
    rules.write_text(text[:first] + clause + text[first:])
    return tmp_path


COMMANDS = {
    "run": ["run", "concur.yaml", "-x", "concur.pl"],
    "verify": ["verify", "concur.yaml", "measles", "-x", "concur.pl"],
    "fuzz": ["fuzz", "-x", "concur.pl", "--histories", "2", "--length", "6", "--seed", "1"],
    "test-op": ["test-op", "concur.test.yaml"],
}


@pytest.mark.slow
@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("clause", [IN_A_RULE, AT_LOAD], ids=["in-a-rule", "at-load"])
def test_halt_in_an_extension_is_an_error_naming_the_file(tmp_path, command, clause):
    where = planted(tmp_path, clause)
    done = grounded(*COMMANDS[command], cwd=where)
    assert done.returncode == 2, (done.stdout, done.stderr)
    line = next(n for n, text in enumerate((where / "concur.pl").read_text().splitlines(), 1) if text == clause.strip())
    assert f"concur.pl:{line}" in done.stderr and "halt" in done.stderr, done.stderr
    assert "PASS" not in done.stdout and "passed" not in done.stdout.lower().replace("0 passed", "")


def test_a_halt_at_load_leaves_nothing_of_the_file_and_the_process_goes_on(tmp_path):
    """In a library: the load is refused as an input error, nothing of the file stays loaded, the next request runs."""
    from grounded import Engine
    from grounded.core.errors import InputError

    where = planted(tmp_path, AT_LOAD)
    with pytest.raises(InputError, match="halt"):
        Engine(extensions=[str(where / "concur.pl")])
    clean = tmp_path / "clean"
    clean.mkdir()
    shutil.copy(EXAMPLES / "concur.pl", clean / "concur.pl")
    engine = Engine(extensions=[str(clean / "concur.pl")])
    assert "concur" in engine.registry.extension_names


LOOPS = "violation(concur, _, _, concur_loop, _) :- repeat, fail.\n"
"""Rules that never end: SWI-Prolog runs them with no Python in between, so no signal handler stops them."""


@pytest.mark.slow
@pytest.mark.parametrize("command", list(COMMANDS))
def test_timeout_stops_an_extension_that_never_ends(tmp_path, command):
    where = planted(tmp_path, LOOPS)
    done = grounded(*COMMANDS[command], "--timeout", "2", cwd=where)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "error: --timeout 2: the command did not finish within 2 s, and was stopped" in done.stderr


def test_a_directive_that_never_ends_is_refused_before_it_runs(tmp_path):
    """A directive other than discontiguous or use_module is refused at load by its line: a loop there never starts."""
    where = planted(tmp_path, ":- repeat, fail.\n")
    done = grounded(*COMMANDS["run"], "--timeout", "20", cwd=where)
    line = (where / "concur.pl").read_text().splitlines().index(":- repeat, fail.") + 1
    assert done.returncode == 2 and f"concur.pl:{line}" in done.stderr and "directive" in done.stderr, done.stderr


def test_timeout_is_a_positive_number_of_seconds(tmp_path):
    done = grounded(*COMMANDS["run"], "--timeout", "0", cwd=planted(tmp_path, ""))
    assert done.returncode == 2 and "--timeout 0.0: a number of seconds above 0" in done.stderr
