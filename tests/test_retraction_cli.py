"""`grounded retractions`, `grounded extensions --retract` and `grounded check --retraction`, run as users run them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import grounded
from tests.synthetic import build

ROOT = Path(__file__).resolve().parent.parent
PHASE2 = ROOT / "scenarios" / "phase2.yaml"
PHASE3 = ROOT / "scenarios" / "phase3.yaml"



def test_retractions_shows_x_s_prime_and_the_extensions():
    # Phase 2 at T13: retracting o5 takes h3, then h4 (rests on h3), then h1 (rests on h4 since T13's Resolve)
    result = grounded("retractions", PHASE2, "-p", "o5", "--at", "13")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    star = lines.index("turn 13, retracting o5 (Corollary 2.6): holds")
    assert lines[star + 1] == "  X = Affected*(o5) = {h1 #11, h3 #14, h4 #15}"
    assert lines[star + 2] == ("  S' = S_t \\ X = {o1 #1, o2 #2, o3 #3, o4 #4, o5 #5, o6 #6, o7 #7, o8 #8, "
                               "mis_monitor #9, o10 #10, o9 #13}")
    assert lines[star + 3] == "  preferred extensions of AF|X containing S': 1 of 1"
    assert lines[-1].endswith("Proposition 2.5 and Corollary 2.6 hold for 2 retractions: the given literals at 1 turns")

    report = json.loads(grounded("retractions", PHASE2, "-p", "o5", "--json").stdout)
    assert report["ok"] and not report["sampled"] and report["mismatches"] == []
    names = report["arguments"]
    last = [r for r in report["retractions"] if r["turn"] == 13]
    assert [(r["proposition"], [names[str(a)] for a in r["affected"]]) for r in last] == [
        ("Proposition 2.5", ["h3"]), ("Corollary 2.6", ["h1", "h3", "h4"])]
    assert all(r["holds"] and len(r["extensions"]) == 1 and set(r["kept"]) <= set(r["extensions"][0])
               for r in report["retractions"])
    assert {r["turn"] for r in report["retractions"]} == {2, 3, 4, 5, 6, 7, 9, 11, 12, 13}  # o5 is said at T2


def test_extensions_of_the_framework_a_retraction_leaves():
    text = grounded("extensions", PHASE2, "--retract", "o5")
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[0] == "X = Affected*(o5) at turn 13 = {h1 #11, h3 #14, h4 #15}"
    assert "1 preferred extension(s) of AF|X with 12 arguments and 1 attacks (acyclic)" in text.stdout
    assert text.stdout.rstrip().endswith(": contains S'")
    one = json.loads(grounded("extensions", PHASE2, "--retract", "o5", "--one-step", "--at", "11", "--json").stdout)
    assert one["affected"] == ["h3"] and one["at"] == 11 and not one["closure"]
    assert one["contain_kept"] == [True] and "h1" in one["extensions"][0] and "h3" not in one["extensions"][0]
    bad = grounded("extensions", PHASE2, "--retract", "not a literal")
    assert bad.returncode == 2 and "is not a literal" in bad.stderr


@pytest.mark.slow
def test_check_decides_every_turn_and_samples_a_long_log_with_its_seed(tmp_path):
    report = json.loads(grounded("check", PHASE3, "--retraction", "--json").stdout)
    r = report["retraction"]
    assert report["ok"] and r["ok"] and not r["sampled"] and r["seed"] is None
    assert r["decided"] == 2 * r["pairs"] == len(r["retractions"]) and len(r["turns"]) == 19
    assert report["retractions"] == r["decided"]

    log = tmp_path / "long.jsonl"
    build(120, "naive", 3, log=log).engine.close()
    sampled = grounded("check", log, "--retraction", "--sample", "--seed", "3")
    assert sampled.returncode == 0, sampled.stdout + sampled.stderr
    assert "(seed 3; --seed 3 repeats it, --every-turn decides all)" in sampled.stdout
    assert "a sample of" in sampled.stdout


def test_retractions_rejects_bad_input():
    bad = grounded("retractions", PHASE2, "--at", "-1")
    assert bad.returncode == 2 and "at=-1: a turn is a non-negative integer" in bad.stderr  # as every command says
    missing = grounded("retractions", ROOT / "no-such.jsonl")
    assert missing.returncode == 2 and "no-such.jsonl" in missing.stderr
