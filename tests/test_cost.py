"""The cost check (grounded.authoring.cost, ``grounded cost FILE``): a rule that is right but walks
the history on every application is named with its exponent, and the driver's own grounded
arguments cost O(n log n) on a Dep chain (inferences, a count the load does not change)."""

from __future__ import annotations

import math
from pathlib import Path

from grounded import Engine
from grounded.authoring.cost import LIMIT, cost

from .test_cli import grounded

ROOT = Path(__file__).resolve().parent.parent
CONCUR = ROOT / "examples" / "extensions" / "concur.pl"
SIZES = (250, 1000, 4000)

QUADRATIC = '''% tally.pl -- right, and quadratic: every application counts every claim.
operation(tally, "commits the speaker to a claim, once enough claims exist", [field(target, literal, required)]).
violation(tally, _, Op, tally_too_early, M) :-
    field(Op, target, T), aggregate_all(count, claims(_, _), N), N < 2,
    fmt(M, "~w: only ~w claims so far", [T, N]).
effect(tally, U, Op, commit(S, A)) :- field(Op, target, T), speaker(U, S), standing_arg(T, A).
transition(tally, commit).
'''


def test_a_quadratic_rule_is_named_with_its_exponent(tmp_path):
    rule = tmp_path / "tally.pl"
    rule.write_text(QUADRATIC)
    (tally,) = cost([rule], sizes=SIZES, samples=10)
    assert tally.op == "tally"
    assert tally.exponent > 1.8 and not tally.ok
    assert "tally: inferences per application" in tally.line() and "FAIL: above 1.2" in tally.line()
    done = grounded("cost", str(rule), "--sizes", "250,1000,4000", "--samples", "10")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "tally: " in done.stdout and "FAIL" in done.stdout


def test_a_constant_rule_passes():
    (concur,) = cost([CONCUR], sizes=SIZES, samples=10)
    assert concur.exponent <= LIMIT, concur.line()
    done = grounded("cost", str(CONCUR), "--sizes", "250,1000", "--samples", "5")
    assert done.returncode == 0 and "concur: " in done.stdout and "ok" in done.stdout


def test_bad_sizes_are_an_input_error():
    assert grounded("cost", str(CONCUR), "--sizes", "1000,250").returncode == 2
    assert grounded("cost", str(CONCUR), "--sizes", "x").returncode == 2


def _grounded_args_inferences(n: int) -> int:
    """Inferences of the rules' grounded_args/1 on a Dep chain h1 <- h2 <- ... <- hn."""
    engine = Engine({"agents": {"alice": {}, "bob": {}}})
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o0"}]})
    previous = "o0"
    for i in range(1, n + 1):
        engine.apply({"speaker": "bob", "ops": [{"op": "hypothesize", "claim": f"h{i}", "deps": [previous],
                                                  "explains": ["o0"]}]})
        previous = f"h{i}"
    state = engine.rules
    state._ask("grounded_args")  # settle what the state owes the rules first
    before = state.rules.inferences()
    args = state._ask("grounded_args")
    spent = state.rules.inferences() - before
    assert len(args) == n + 1
    engine.close()
    return spent


def test_the_driver_s_grounded_arguments_are_linear_on_a_dep_chain():
    """Re-scanning the candidates round by round made a chain of n cost O(n^2) (about 16x from n to 4n);
    the work list costs O(n log n)."""
    small, large = _grounded_args_inferences(300), _grounded_args_inferences(1200)
    exponent = math.log(large / small) / math.log(4)
    assert exponent <= 1.2, (small, large, exponent)
