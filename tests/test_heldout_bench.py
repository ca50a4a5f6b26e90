"""The held-out corpus in the benchmarks: ``bench verify --corpus``, ``bench interpret``, the rules baseline line.

Run on dev conversations only (or a copy of the corpus), never on a test
conversation's items one by one.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from bench import heldout
from grounded.interpreter import baseline

from .bench_helpers import grounded, run_bench

pytestmark = pytest.mark.bench  # the held-out corpus in the benchmarks

CORPUS = Path(__file__).resolve().parent.parent / "bench" / "corpus"
NO_ENDPOINT = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_") and k != "GROUNDED_MODEL"}
OFFLINE = NO_ENDPOINT
DEV = ["customer_support", "education", "legal_review", "science_lab", "security_forensics"]


def test_split_yaml_is_the_readme_table():
    from .test_corpus import split_table

    table = heldout.load_split(CORPUS)
    assert {n: (c.split, c.scenario_sha256 or "-", c.items_sha256 or "-") for n, c in table.items()} == split_table()
    assert heldout.conversations(CORPUS, "dev") == DEV


def test_verify_corpus_dev_reports_per_conversation_and_category_with_unsafe_accepts_and_coverage(tmp_path):
    result = run_bench("verify", "--corpus", "--split", "dev", "--limit", "1", "--no-llm",
                      "--out", tmp_path, env=OFFLINE)
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads((tmp_path / "verify-corpus.dev.json").read_text())
    assert list(data["conversations"]) == DEV and data["items"] == 5 * 7  # one item of each category in each
    chosen = {n: [next(i for i in heldout.load_items(CORPUS, n) if i.category == c) for c in heldout.CORPUS_CATEGORIES]
              for n in DEV}
    accept = {n: sum(i.expected == "accept" for i in items) for n, items in chosen.items()}
    total = sum(accept.values())
    claim = data["scores"]["by_claim"]  # the verdict rule on the gold reading: right on every item
    assert claim["overall"] == {"n": 35, "correct": 35, "accepted": total, "unsafe_n": 20, "unsafe_accepted": 0,
                                "gold_accept": total, "covered": total}
    assert claim["targets"]["unsafe_share_met"] and claim["targets"]["coverage_met"]
    md = (tmp_path / "verify-corpus.dev.md").read_text()
    for name in DEV:
        a = accept[name]
        assert f"| {name} | by claim | 7 | 7/7 (100.0%) | 0/4 (0.0%) | {a}/{a} (100.0%) |" in md
    for category in heldout.CORPUS_CATEGORIES:
        assert f"| {category}" in md
    assert "| new_fact (unsafe) | 5 | 5/5, 0 accepted |" in md
    assert "unsafe accepts 0/20 (0.0%)" in result.stdout and f"coverage {total}/{total} (100.0%)" in result.stdout
    tfidf = data["scores"]["offline"]["overall"]
    assert f"unsafe accepts {tfidf['unsafe_accepted']}/20" in result.stdout
    assert f"coverage {tfidf['covered']}/{total}" in result.stdout


def test_a_changed_test_file_is_refused_naming_it(tmp_path):
    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS, copy)
    items = copy / "items" / "supply_chain.yaml"
    items.write_text(items.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    for command in (["verify", "--corpus-dir", copy], ["interpret", "--corpus-dir", copy]):
        result = run_bench(*command, "--split", "test", "--out", tmp_path / "out", env=OFFLINE)
        assert result.returncode == 2, result.stdout + result.stderr
        assert str(items) in result.stderr and "supply_chain" in result.stderr and "sha256" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "verify-corpus.test.json").exists()
    # the dev split of the same copy runs: only test files are frozen
    dev = run_bench("verify", "--corpus-dir", copy, "--split", "dev", "--limit", "1", "--no-llm",
                   "--out", tmp_path / "out", env=OFFLINE)
    assert dev.returncode == 0, dev.stderr


def test_bench_interpret_scores_the_rules_and_records_the_baseline(tmp_path):
    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS, copy)
    (copy / "split.yaml").write_text(yaml.safe_dump({"conversations": {"education": {"split": "dev"}}}))
    record = tmp_path / "baseline.json"
    result = run_bench("interpret", "--corpus-dir", copy, "--split", "dev", "--record", record,
                      "--out", tmp_path / "out", env=OFFLINE)
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads((tmp_path / "out" / "interpret-corpus.dev.json").read_text())
    pooled = data["pooled"]
    assert pooled["turns"] == 21 and 0 <= pooled["f1"] <= 1
    assert pooled["dep"]["gold"] > 0  # the gold edges at the last turn, not at turn 0
    assert {"hypothesize", "observe", "support", "undermine", "revise", "resolve"} <= set(pooled["per_operation"])
    for figure in ("f1", "hypothesize precision", "hypothesize recall", "dep precision", "dep recall"):
        assert f"| {figure} |" in result.stdout
    recorded = json.loads(record.read_text())
    assert recorded["f1"] == round(pooled["f1"], 4) and recorded["turns"] == 21
    assert f"multi-label F1 {recorded['f1']:.2f}" in baseline.rules_note(False, record)
    only = run_bench("interpret", "--corpus-dir", copy, "--only", "education", "--record", record,
                    "--out", tmp_path / "out", env=OFFLINE)
    assert only.returncode == 2 and "--record measures a whole split" in only.stderr


def test_interpret_says_on_stderr_that_the_rules_are_a_baseline_with_the_recorded_f1(tmp_path):
    recorded = baseline.read_baseline()
    assert recorded is not None and recorded["split"] == "test"  # the checked-in file, written by the benchmark
    transcript = tmp_path / "talk.txt"
    transcript.write_text("Ann: The build is red since noon.\nBob: Maybe the new linter rule broke it.\n")
    result = grounded("interpret", transcript, "-o", tmp_path / "log.jsonl", env=NO_ENDPOINT)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "baseline" in line]
    assert len(lines) == 1
    assert lines[0].startswith("no LLM endpoint configured: the offline rules interpreter is a baseline")
    assert f"multi-label F1 {recorded['f1']:.2f} on the held-out corpus's test split ({recorded['turns']} turns" \
        in lines[0]


def test_the_note_without_a_record_says_so(tmp_path):
    assert baseline.read_baseline(tmp_path / "none.json") is None
    (tmp_path / "bad.json").write_text('{"f1": "high"}')
    assert "no measured F1 recorded" in baseline.rules_note(False, tmp_path / "bad.json")
