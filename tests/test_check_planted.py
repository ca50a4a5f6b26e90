"""Planted bugs in a copy of an example extension, caught by `grounded check` with a message that
names the operation, the turn and the first differing effect or violation code.

* the Prolog file drops an effect its twin keeps: the first difference (the turn of the concede
  that commits nobody) is printed first, before the later utterance it makes the two sides judge
  differently;
* the ASP twin lacks a precondition: a log holds no rejected utterance, so only probing its states
  with candidate utterances (crosscheck/probe.py) shows it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grounded import Engine

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "extensions"
TALK = {"agents": {"alice": {}, "bob": {}}}


def concede_copy(tmp_path: Path) -> Path:
    for suffix in (".pl", ".lp"):
        shutil.copy(EXAMPLES / f"concede{suffix}", tmp_path / f"concede{suffix}")
    return tmp_path / "concede.pl"


def drop(path: Path, head: str) -> None:
    """Remove the one clause of ``path`` starting with ``head`` (loudly if the example moved on)."""
    lines = path.read_text().splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith(head)]
    assert len(starts) == 1, f"{path.name}: {len(starts)} clauses start with {head!r}"
    end = starts[0]
    while not lines[end].rstrip().endswith("."):
        end += 1
    del lines[starts[0]:end + 1]
    path.write_text("".join(lines))


def write_log(path: Path, rules: Path, utterances: list[dict]) -> Path:
    with Engine(TALK, extensions=[rules], log=path) as engine:
        for u in utterances:
            engine.apply(u)
    return path


def check(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grounded", "check", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


OBSERVE = {"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]}
CONCEDE = {"speaker": "bob", "ops": [{"op": "concede", "target": "o1"}]}


@pytest.mark.slow
def test_a_dropped_effect_is_reported_at_its_own_turn_first(tmp_path):
    rules = concede_copy(tmp_path)
    drop(rules, "effect(concede, U, Op, commit(S, A)) :-")
    # with the effect gone bob is never committed, so the rules accept his second concede too
    log = write_log(tmp_path / "talk.jsonl", rules, [OBSERVE, CONCEDE, CONCEDE])
    done = check(log, "-x", rules, "--probes", "0")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == ("utterance 2 (turn 2) transitions of op [0] concede element: Prolog absent "
                        "but ASP ('commit', 'bob', 1) (decided at commit: no effect/4 clause for this effect; "
                        f"{tmp_path / 'concede.lp'}:9)"), lines
    later = [i for i, line in enumerate(lines) if line.startswith("utterance 3 (turn 3, bob, ops concede)")]
    assert later and later[0] > 0, lines
    assert "first differing code: concede_redundant (op [0] concede)" in lines[later[0]]


@pytest.mark.slow
def test_a_twin_without_a_precondition_is_caught_on_a_log(tmp_path):
    rules = concede_copy(tmp_path)
    log = write_log(tmp_path / "talk.jsonl", rules, [OBSERVE, CONCEDE])
    drop(rules.with_suffix(".lp"), "violation(s, concede_redundant)")
    # the header records the twin's sha256: the edited twin is named, and refused like an edited .pl
    refused = check(log, "-x", rules)
    assert refused.returncode == 2
    assert "the ASP twin concede.lp of extension concede.pl changed since the log was written" in refused.stderr
    log = write_log(tmp_path / "again.jsonl", rules, [OBSERVE, CONCEDE])
    # every line of the log agrees: without probing, the missing precondition passes
    assert check(log, "-x", rules, "--probes", "0").returncode == 0
    done = check(log, "-x", rules, "--probes", "8", "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["probe"]["seed"] is not None and report["probe"]["probes"] > 0
    (first, *_) = report["probe"]["mismatches"]
    assert "of the state after utterance" in first and "ops concede): engine rejected [concede_redundant (op [0] " \
        "concede)] but ASP accepted; first differing code: concede_redundant (op [0] concede)" in first, first
    again = check(log, "-x", rules, "--probes", "8")
    assert f"(seed {report['probe']['seed']})" in again.stdout and first in again.stdout


@pytest.mark.slow
def test_shrink_reduces_a_disagreeing_log_to_a_minimal_one(tmp_path):
    rules = concede_copy(tmp_path)
    drop(rules, "effect(concede, U, Op, commit(S, A)) :-")
    said = [OBSERVE, {"speaker": "bob", "ops": [{"op": "observe", "claim": "o2"}]},
            {"speaker": "alice", "ops": [{"op": "observe", "claim": "o3"}]},
            {"speaker": "bob", "ops": [{"op": "support", "target": "o3", "by": "o2"}]}, CONCEDE,
            {"speaker": "alice", "ops": [{"op": "question", "claim": "q1"}]}]
    log = write_log(tmp_path / "long.jsonl", rules, said)
    small = tmp_path / "small.jsonl"
    done = check(log, "-x", rules, "--probes", "0", "--shrink", "-o", small)
    assert done.returncode == 1, done.stderr
    assert "shrunk 6 utterances to 2 that still disagree (1-minimal" in done.stderr and str(small) in done.stderr
    lines = small.read_text().splitlines()
    assert lines[0] == log.read_text().splitlines()[0], "the header is kept"
    kept = [json.loads(line) for line in lines[1:]]
    assert [(u["speaker"], u["ops"]) for u in kept] == [(OBSERVE["speaker"], OBSERVE["ops"]),
                                                        (CONCEDE["speaker"], CONCEDE["ops"])]
    again = check(small, "-x", rules, "--probes", "0")
    assert again.returncode == 1 and again.stdout.startswith("utterance 2 (turn 5) transitions of op [0] concede")
    printed = check(log, "-x", rules, "--probes", "0", "--shrink")
    assert printed.stdout.endswith(small.read_text())


def test_shrink_takes_a_log_only(tmp_path):
    scenario = tmp_path / "talk.yaml"
    scenario.write_text("agents: {alice: {}}\nturns: []\n")
    done = check(scenario, "--shrink")
    assert done.returncode == 2 and "--shrink reduces an event log, not the scenario" in done.stderr


def test_shrink_and_probing_are_bounded():
    from random import Random

    from grounded.crosscheck.probe import PROBE_STATES, pick_states
    from grounded.crosscheck.shrink import shrink
    from grounded.dmap.model import Header

    header = Header.model_validate(TALK)
    said = [{"turn": t, "speaker": "alice", "ops": [{"op": "observe", "claim": f"o{t}"}]} for t in range(1, 9)]

    def disagrees(kept: list[dict]) -> bool:  # stands in for a check: o5 alone is to blame
        return any(u["ops"][0]["claim"] == "o5" for u in kept)

    full = shrink(header, said, disagrees)
    assert full.complete and [u["turn"] for u in full.utterances] == [5]
    cut = shrink(header, said, disagrees, max_tries=2)
    assert not cut.complete and cut.tries == 2 and disagrees(cut.utterances) and len(cut.utterances) < 8
    assert "maybe not minimal" in cut.summary(8)
    assert not shrink(header, said, disagrees, max_seconds=0.0).complete
    states = pick_states(100, Random(1))
    assert len(states) == PROBE_STATES and states[-1] == 100 and states == pick_states(100, Random(1))
    assert pick_states(3, Random(1)) == [1, 2, 3]


@pytest.mark.slow
def test_a_shrink_of_a_disagreement_no_probe_found_runs_no_probe(tmp_path, monkeypatch):
    """A log whose own lines disagree (a planted fault in queries.lp: Affected* one hop off, which the
    probe, comparing acceptance and transitions, never meets) is shrunk by checks that probe nothing:
    each try probed its history before (7 tries, 8 probes).  The shrunk log is the one a shrink
    without probing finds."""
    from grounded.crosscheck import check as module
    from grounded.crosscheck.probe import Probing
    from grounded.solvers.asp import encoding

    queries = tmp_path / "queries.lp"
    text = Path(encoding("queries.lp")).read_text()
    old = "now_hop(x, P, A, K)       :- now(x), hop(x, P, A, K)."
    assert old in text, "queries.lp moved on: update the fault"
    queries.write_text(text.replace(old, "now_hop(x, P, A, K + 1)   :- now(x), hop(x, P, A, K)."))
    said = [{"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]},
            {"speaker": "bob", "ops": [{"op": "observe", "claim": "o2"}]},
            {"speaker": "alice", "ops": [{"op": "question", "claim": "q1"}]},
            {"speaker": "bob", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["o1"], "explains": ["o1"]}]},
            {"speaker": "alice", "ops": [{"op": "observe", "claim": "o3"}]},
            {"speaker": "bob", "ops": [{"op": "observe", "claim": "o4"}]}]
    log = tmp_path / "log.jsonl"
    with Engine(TALK, log=log) as engine:
        for u in said:
            engine.apply(u)
    asp = {"queries.lp": str(queries)}
    unprobed = module.check(log, probes=0, shrink=True, asp_overrides=asp)
    made = [0]
    init = Probing.__init__

    def counted(self, *args, **kwargs):
        made[0] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(Probing, "__init__", counted)
    report = module.check(log, probes=2, shrink=True, asp_overrides=asp)
    assert report.mismatches and report.mismatches[0].startswith("Affected*(o1)"), report.mismatches
    assert report.probe is not None and report.probe.probes > 0 and report.probe.mismatches == []
    assert report.shrunk is not None and unprobed.shrunk is not None and report.shrunk.tries > 1
    assert made[0] == 1, made[0]  # the log's own probe, none per try
    assert report.shrunk.utterances == unprobed.shrunk.utterances
    assert [u["ops"][0]["claim"] for u in report.shrunk.utterances] == ["o1", "h1"]
