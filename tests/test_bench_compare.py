"""``python -m bench compare``: the baseline answers as we do, and the run prints its tables."""

from __future__ import annotations

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
