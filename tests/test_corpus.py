"""The held-apart corpus (bench/corpus): conversations the text reader was not written on.

Checked by claim only: each conversation's gold operations replay with every
expectation holding, and each item's gold literals, read through Verify and the
verdict rule as of the item's turn, give the verdict it was labelled with.  No
reader runs here.  The test conversations' files are frozen by the sha256 the
README records, so a held-out conversation or its items cannot drift while the
reader is tuned.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
import yaml

from grounded import Engine
from grounded.interpreter.verdict import by_claim
from grounded.scenario import Scenario, run

CORPUS = Path(__file__).resolve().parent.parent / "bench" / "corpus"
README = CORPUS / "README.md"
CATEGORIES = {"actual", "stale", "cross_conversation", "counterfactual", "negated_stale", "paraphrase", "new_fact"}
# The verdicts the labelling rule allows per category (paraphrase: grounded accept, stale reject).
ALLOWED = {"actual": {"accept"}, "stale": {"reject"}, "cross_conversation": {"abstain"},
           "counterfactual": {"reject"}, "negated_stale": {"accept"}, "paraphrase": {"accept", "reject"},
           "new_fact": {"abstain"}}
ROW = re.compile(r"^\| `(\w+)` \| (dev|test) \| (\S+) \| (\S+) \|$")


def split_table() -> dict[str, tuple[str, str, str]]:
    """The README's table: conversation -> (split, sha256 of its scenario, sha256 of its items)."""
    rows = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line.strip())
        if m:
            rows[m[1]] = (m[2], m[3], m[4])
    return rows


NAMES = sorted(split_table())


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def replay(name: str) -> tuple[Scenario, Engine, list]:
    scenario = Scenario.load(CORPUS / f"{name}.yaml")
    engine = Engine(scenario.header)
    return scenario, engine, list(run(scenario, engine))


def items(name: str) -> list[dict]:
    data = yaml.safe_load((CORPUS / "items" / f"{name}.yaml").read_text(encoding="utf-8"))
    assert data["conversation"] == name
    return data["items"]


def test_the_split_is_ten_conversations_five_of_them_test():
    table = split_table()
    assert len(table) == 10
    assert sorted(n for n, (split, _, _) in table.items() if split == "test") == [
        "agronomy", "brewery", "ferry", "finance_reconciliation", "supply_chain"]


@pytest.mark.parametrize("name", NAMES)
def test_test_conversations_match_their_recorded_sha256(name):
    split, scenario_sha, items_sha = split_table()[name]
    if split != "test":
        assert scenario_sha == items_sha == "-"
        return
    assert sha256(CORPUS / f"{name}.yaml") == scenario_sha
    assert sha256(CORPUS / "items" / f"{name}.yaml") == items_sha


@pytest.mark.parametrize("name", NAMES)
def test_conversation_replays_with_every_expectation_holding(name):
    scenario, _, outcomes = replay(name)
    assert 15 <= len(scenario.turns) <= 30
    checks = [c for o in outcomes for c in o.checks]
    assert len(checks) >= 15
    assert [str(c) for c in checks if not c.passed] == []
    ops = {op["op"] for t in scenario.turns for op in t.ops}
    assert {"observe", "hypothesize", "support", "undermine", "revise", "resolve", "question",
            "expand_awareness"} <= ops


@pytest.mark.parametrize("name", NAMES)
def test_every_item_gets_its_label_by_claim(name):
    scenario, engine, _ = replay(name)
    turns = {t.turn for t in scenario.turns}
    wrong = []
    its = items(name)
    assert len(its) >= 50
    for item in its:
        assert item["conversation"] == name
        assert item["at"] in turns, item["id"]
        assert item["category"] in CATEGORIES, item["id"]
        assert item["expected"] in ALLOWED[item["category"]], item["id"]
        literals = [*item.get("asserts", []), *item.get("denies", [])]
        if item["category"] in ("cross_conversation", "new_fact"):
            assert literals == [], item["id"]
        else:
            assert literals, item["id"]
            # a typo would make the literal unknown and the verdict an accidental abstain
            assert all(engine.verify(lit).status != "no_anchor" for lit in literals), item["id"]
        got = by_claim(engine, item.get("asserts", []), item.get("denies", []), item["at"]).verdict
        if got != item["expected"]:
            wrong.append((item["id"], item["expected"], got))
    assert wrong == []
    assert {i["category"] for i in its} == CATEGORIES
    ids = [i["id"] for i in its]
    assert len(ids) == len(set(ids))


def test_the_corpus_has_at_least_400_items_with_unique_ids():
    ids = [i["id"] for name in NAMES for i in items(name)]
    assert len(ids) >= 400
    assert len(ids) == len(set(ids))
