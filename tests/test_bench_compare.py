"""``python -m bench compare``: the baseline answers as we do, and the run prints its tables."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from bench import compare
from bench.reference import ReferenceEngine
from tests.synthetic import build

from .bench_helpers import run_bench

pytestmark = pytest.mark.bench  # runs of python -m bench compare


def test_the_authors_engine_and_networkx_answer_as_grounded_on_a_synthetic_conversation():
    conv = build(400, "naive", 3)
    authors = ReferenceEngine()
    for u in conv.history:
        authors.apply(u)
    s = compare.subject(400, 3, queries=5)
    engine = conv.engine
    verdicts = set()
    for p in conv.claims:
        star = engine.affected(p).claims
        assert authors.affected_closure(p) == sorted(star)
        assert compare.nx_affected(s.dependents, p) == sorted(star)
        v = engine.verify(p)
        status, chain = authors.verify(p)
        walked = compare.nx_verify(s.rests_on, s.good, p)
        assert (status == "grounded") == v.grounded == (walked is not None)
        if v.grounded and not p.startswith("o"):
            assert sorted(chain) == sorted(v.chain) == sorted(walked)
        verdicts.add(v.grounded)
    assert verdicts == {True, False}  # both answers occur
    assert len(s.buckets) >= 4  # answers of several sizes to compare
    assert nx.is_directed_acyclic_graph(s.rests_on)
    conv.engine.close()
    s.conv.engine.close()


def test_a_small_run_prints_every_table():
    settings = compare.Settings(ks=(60,), rounds=1, queries=3, repeat=2, ingest=40, memory=40, af_sizes=(30,),
                                peer_limit=30.0)
    result = compare.run(settings)
    md = compare.markdown(result)
    for heading in ("## Queries", "## Ingestion", "## Memory", "## Dung semantics"):
        assert heading in md
    assert result["queries"] and all(r["ratio"]["grounded"] > 0 for r in result["queries"])
    assert result["ingestion"]["utterances"] == 40 and result["ingestion"]["ratio"] > 0
    assert result["memory"]["bytes"]["grounded"]["heap"] > 0 and result["memory"]["bytes"]["authors"]["heap"] > 0
    (dung,) = result["dung"]
    assert set(dung["seconds"]) == {"labelling", "labelling, preferred", "clingo (ours)", "clingo (ours), preferred",
                                    "ASPARTIX-style", "PyArg"}  # each agreed with the labelling, or the run fails


def test_bad_options_are_refused():
    result = run_bench("compare", "--ks", "10,x")
    assert result.returncode == 2 and result.stderr.startswith("error: --ks 10,x: expected comma-separated")


def test_the_realistic_stream_is_queried_in_every_size_band_the_peers_agree_on():
    """Every operation (awareness, superseding, resolutions over dissent): the authors' engine reads it all,
    and the long answers are drawn as well as the short ones."""
    s = compare.subject(600, 2, queries=5, stream="realistic")
    engine = s.conv.engine
    assert "expand_awareness" in {op["op"] for u in s.conv.history for op in u["ops"]}
    for bucket, picks in s.buckets.items():
        for p in picks:
            if bucket.startswith("Affected"):
                assert compare.affected_band(len(s.authors.affected_closure(p))) == bucket
                assert sorted(engine.affected(p).claims) == s.authors.affected_closure(p)
            elif bucket in ("Verify |Dep*|=2-4", "Verify |Dep*|>=5"):  # a leaf's chain is a sentence there
                assert sorted(engine.verify(p).chain) == sorted(s.authors.verify(p)[1])
    assert {"Affected* |A*|=0-1", "Affected* |A*|=2-4", "Affected* |A*|=5-20", "Verify |Dep*|=1",
            "Verify not grounded"} <= set(s.buckets)
    engine.close()


def test_the_deep_stream_fills_the_long_bands_the_other_streams_leave_empty():
    """Long support chains: Affected* answers of more than 20 claims and witnesses of 5 or more, on which
    the authors' engine, networkx and grounded agree (the query is drawn only then)."""
    s = compare.subject(1_000, 0, queries=5, stream="deep")
    engine = s.conv.engine
    assert {"Affected* |A*|>20", "Verify |Dep*|>=5"} <= set(s.buckets)
    for p in s.buckets["Affected* |A*|>20"]:
        assert len(s.authors.affected_closure(p)) > 20
        assert sorted(engine.affected(p).claims) == s.authors.affected_closure(p)
    for p in s.buckets["Verify |Dep*|>=5"]:
        assert len(engine.verify(p).chain) >= 5
        assert sorted(engine.verify(p).chain) == sorted(s.authors.verify(p)[1])
    engine.close()


def test_the_bands_and_the_target_check():
    assert [compare.affected_band(n) for n in (0, 1, 2, 4, 5, 20, 21, 10**5)] == [
        "Affected* |A*|=0-1", "Affected* |A*|=0-1", "Affected* |A*|=2-4", "Affected* |A*|=2-4",
        "Affected* |A*|=5-20", "Affected* |A*|=5-20", "Affected* |A*|>20", "Affected* |A*|>20"]

    def row(k: int, bucket: str, call: float, read: float) -> dict:
        return {"stream": "naive", "k": k, "bucket": bucket, "ratio": {"grounded": call, "grounded+read": read}}

    found = compare.check([row(100, "Verify |Dep*|=1", 0.9, 1.3), row(1000, "Verify |Dep*|=1", 1.01, 1.2),
                           row(100, "Verify not grounded", 1.0, 1.5), row(1000, "Verify not grounded", 0.9, 1.6),
                           row(100, "Affected* |A*|>20", 0.5, 1.7)])
    assert [(f["bucket"], f["rows"], f["call"], f["read"], f["met"]) for f in found] == [
        ("Affected* |A*|>20", 1, 0.5, 1.7, True), ("Verify |Dep*|=1", 2, 1.01, 1.3, False),
        ("Verify not grounded", 2, 1.0, 1.6, False)]  # the call at most 1.0x; reading the reason 1.5x
    md = compare.check_markdown(found)
    assert "| Verify \\|Dep*\\|=1 | 2 | 1.01 | 1.30 | NOT met |" in md
    assert "| Verify not grounded | 2 | 1.00 | 1.60 (<= 1.5) | NOT met |" in md


def test_the_query_table_alone_on_the_command_line(tmp_path):
    result = run_bench("compare", "--queries-only", "--ks", "60", "--rounds", "1", "--streams", "realistic",
                      "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    md = (tmp_path / "compare.md").read_text()
    assert "### Target: the Engine call <= 1.0x the authors'" in md and "## Ingestion" not in md
    data = json.loads((tmp_path / "compare.json").read_text())
    assert {r["stream"] for r in data["queries"]} == {"realistic"} and data["check"]
    bad = run_bench("compare", "--streams", "naive,chat")
    assert bad.returncode == 2 and "--streams naive,chat: expected some of naive, realistic, deep" in bad.stderr
