"""Verify from text (the anchor), and the interpret / score / verify --text commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grounded import Engine
from grounded.cli.demo import DEMO_VERDICT
from grounded.interpreter.anchor import THRESHOLD, AnchorIndex, anchor, verify_text
from grounded.scenario import Scenario, run
from tests.inprocess import grounded as run_grounded

ROOT = Path(__file__).resolve().parent.parent
PHASE2, PHASE3 = ROOT / "scenarios" / "phase2.yaml", ROOT / "scenarios" / "phase3.yaml"
STALE = "The Redis failure is what causes the auth failures."
ACTUAL = "The retry storm from the token bug is exhausting the Redis connection pool."
UNKNOWN = "The moon is made of cheese."


def grounded(*args: str, cwd: Path | None = None):
    """The CLI as a user runs it (in this process), with no endpoint configured (so offline)."""
    return run_grounded(*args, cwd=cwd, drop_env=("OPENAI_",))


@pytest.fixture(scope="module")
def phase2():
    scenario = Scenario.load(PHASE2)
    engine = Engine(scenario.header)
    for _ in run(scenario, engine):
        pass
    yield engine
    engine.close()


def test_anchor_finds_the_claim_standing_or_not(phase2):
    assert anchor(phase2, STALE, similarity="tfidf").claim == "h2"  # abandoned, still found: so it is rejected
    assert anchor(phase2, ACTUAL, similarity="tfidf").claim == "h4"
    assert anchor(phase2, UNKNOWN, similarity="tfidf") is None
    assert anchor(phase2, "Does Auth use Redis?", threshold=0.0).claim != "q6"  # questions are not anchors
    hit = AnchorIndex(phase2, similarity="tfidf").best(UNKNOWN)
    assert hit.score < THRESHOLD  # the closest is not close enough: abstain


def test_verify_text_accept_reject_abstain(phase2):
    stale = verify_text(phase2, STALE)
    assert stale.verdict == "reject" and "asserts h2, which is not grounded: h2 abandoned at T9 by o9" in stale.reason
    actual = verify_text(phase2, ACTUAL)
    assert actual.verdict == "accept" and "h4" in [f.literal for f in actual.asserted]
    assert next(f for f in actual.asserted if f.literal == "h4").verification.chain == ("h4", "h3", "o5", "o6", "o9")
    early = verify_text(phase2, STALE, at=6)
    assert early.verdict == "accept" and "h2" in [f.literal for f in early.asserted]  # before T7, h2 stood
    none = verify_text(phase2, UNKNOWN)
    assert none.verdict == "abstain" and "'moon'" in none.reason and "'cheese'" in none.reason
    assert [f.verification.status for f in none.findings] == ["no_anchor"]  # what nobody claims: no anchor


def test_a_declared_proposition_nobody_claims_anchors_but_is_not_rejected_as_stale():
    engine = Engine({"agents": {"a": {}}, "props": [{"id": "may", "text": "The launch date moved to May."}]})
    tv = verify_text(engine, "The launch date moved to May.")
    assert [f.literal for f in tv.asserted] == ["may"] and tv.asserted[0].verification.status == "no_anchor"
    assert tv.verdict == "abstain"
    assert set(DEMO_VERDICT) == {"grounded", "ungrounded", "no_anchor"}


def test_cli_verify_text_json():
    result = grounded("verify", PHASE2, "--text", STALE, "--json", "--anchor", "tfidf")
    stale = json.loads(result.stdout)
    assert result.returncode == 1 and stale["verdict"] == "reject" and "h2" in [
        f["literal"] for f in stale["asserted"]]
    assert "hypothesis h2 no longer grounded; abandoned at T9 by o9" in stale["flag"]
    before = grounded("verify", PHASE3, "--text", "We go with Yjs server-relayed for launch.", "--at", "19", "--json",
                      "--anchor", "tfidf")
    cf = json.loads(before.stdout)
    assert before.returncode == 0 and cf["verdict"] == "accept" and cf["asserted"][0]["literal"] == "alpha18"
    after = json.loads(grounded("verify", PHASE3, "--text", "We go with Yjs server-relayed for launch.", "--json",
                                "--anchor", "tfidf").stdout)
    assert after["verdict"] == "reject"
    assert after["asserted"][0]["reason"] == "a3 -> alpha18: a3 abandoned at T20 by -a3"
    result = grounded("verify", PHASE2, "--text", UNKNOWN, "--json", "--anchor", "tfidf")
    abstain = json.loads(result.stdout)
    assert result.returncode == 1 and abstain["verdict"] == "abstain"
    assert [f["status"] for f in abstain["asserted"]] == ["no_anchor"] and "'moon'" in abstain["reason"]
    assert abstain["best"]["score"] < abstain["threshold"]


@pytest.mark.parametrize("args,message", [
    (["verify", PHASE2], "give a CLAIM, --text or --cited"),
    (["verify", PHASE2, "h2", "--text", "x"], "not a CLAIM and --text"),
    (["score", "missing.jsonl", "--gold", PHASE2], "missing.jsonl: cannot read the event log"),
    (["score", PHASE2, "--gold", PHASE2, "--turns", "a-b"], "--turns/--key-shifts"),
    (["interpret", PHASE2, "-o", "x.jsonl", "-i", "telepathy"], "unknown interpreter 'telepathy'"),
])
def test_cli_errors_are_one_line(args, message, tmp_path):
    result = grounded(*args, cwd=tmp_path)
    assert result.returncode == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_cli_interpret_offline_then_score(tmp_path):
    log = tmp_path / "p2.jsonl"
    result = grounded("interpret", PHASE2, "-o", log, "-v")
    assert result.returncode == 0, result.stderr
    assert "with the rules interpreter" in result.stdout  # the default with no endpoint configured
    assert "T4 carol: expand_awareness, question" in result.stdout
    assert "mis_monitor" in result.stdout  # the renderer's sentences under -v
    again = grounded("interpret", PHASE2, "-o", log)
    assert again.returncode == 2 and "exists; pass --force" in again.stderr
    scored = grounded("score", log, "--gold", PHASE2)
    assert scored.returncode == 0, scored.stderr
    assert "overall: F1 " in scored.stdout and "key shifts: F1 " in scored.stdout
    assert "dependency extraction: precision" in scored.stdout
    data = json.loads(grounded("score", log, "--gold", PHASE2, "--json").stdout)
    assert data["classification"]["overall"]["n"] == 13 and data["classification"]["key_shifts"]["n"] == 4
    assert [t["turn"] for t in data["classification"]["turns"] if t["key_shift"]] == [4, 7, 9, 12]
    assert 0 <= data["dependencies"]["f1"] <= 1 and data["dependencies"]["gold"] == 7


def test_cli_replay_scores_perfectly_and_turns_select(tmp_path):
    log = tmp_path / "p3.jsonl"
    assert grounded("interpret", PHASE3, "-i", "replay", "-o", log).returncode == 0
    data = json.loads(grounded("score", log, "--gold", PHASE3, "--turns", "1-19", "--json").stdout)
    assert data["classification"]["overall"] == {"n": 19, "f1": 1.0, "exact": 1.0}
    assert data["classification"]["key_shifts"] == {"n": 4, "f1": 1.0, "exact": 1.0}
    assert data["dependencies"]["f1"] == 1.0


def test_cli_interpret_a_plain_transcript_with_a_header(tmp_path):
    transcript = tmp_path / "talk.txt"
    transcript.write_text("Carol: P1 incident. Auth failure rate up since 2am.\n"
                          "Carol: OK, so the database alert is about Redis, not the primary DB.\n")
    log = tmp_path / "talk.jsonl"
    result = grounded("interpret", transcript, "--header", PHASE2, "-o", log)
    assert result.returncode == 0, result.stderr
    assert "T2 carol: expand_awareness" in result.stdout
    assert Engine.load(log).verify("mis_monitor").grounded


REJECTING = """\
grounded: 1
agents: {alice: {}}
props: [{id: secret, text: "The launch date moved to May.", aware: false}]
turns:
  - turn: 1
    speaker: alice
    text: "The launch date moved to May."
    labels: [observe]
    ops: [{op: observe, claim: secret}]
    expect:
      - rejected: [observe_unaware]
  - turn: 2
    speaker: alice
    text: "Wait: the launch date moved to May."
    labels: [expand_awareness]
    ops: [{op: expand_awareness, claim: secret}]
  - turn: 3
    speaker: alice
    text: "So the beta slips with the launch date."
    labels: [hypothesize]
    ops: [{op: hypothesize, claim: h1, deps: [secret], text: "The beta slips with the launch date."}]
"""


def test_cli_score_against_a_scenario_with_a_turn_expecting_its_rejection(tmp_path):
    gold = tmp_path / "reject.yaml"
    gold.write_text(REJECTING)
    log = tmp_path / "x.jsonl"
    assert grounded("interpret", gold, "-i", "replay", "-o", log).returncode == 0
    result = grounded("score", log, "--gold", gold, "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [t["turn"] for t in data["classification"]["turns"]] == [1, 2, 3]
    assert (data["dependencies"]["gold"], data["dependencies"]["f1"]) == (1, 1.0)  # h1 -> secret
    two = json.loads(grounded("score", log, "--gold", gold, "--turns", "1-2", "--json").stdout)
    assert two["dependencies"]["gold"] == 0  # scored up to T2: h1 is not there yet
