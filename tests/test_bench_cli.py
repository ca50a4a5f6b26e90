"""``grounded bench``: missing data, the verifier set, the noise diagnostic, the latency figure, statistics."""

from __future__ import annotations

import pytest

from grounded.bench import verifier
from grounded.bench.noise import perturb, states_at
from grounded.bench.stats import mcnemar
from grounded.core.errors import InputError
from grounded.present.tokens import count_tokens

from .bench_helpers import bench, grounded


def test_mcnemar_on_a_known_table():
    # 10 discordant pairs favour A, 2 favour B: p = 2 * P(X <= 2), X ~ Bin(12, 1/2) = 2 * 79 / 4096
    a = [True] * 10 + [False] * 2 + [True] * 5 + [False] * 3
    b = [False] * 10 + [True] * 2 + [True] * 5 + [False] * 3
    m = mcnemar(a, b)
    assert (m.wins, m.losses) == (10, 2)
    assert m.p == pytest.approx(158 / 4096)
    assert mcnemar([True, False], [True, False]).p == 1.0
    with pytest.raises(ValueError, match="different lengths"):
        mcnemar([True], [])


def test_the_token_estimate_is_deterministic_and_splits_like_bpe():
    assert count_tokens("The capital of France is Paris.") == 7
    assert count_tokens("12345. Wärtsilä") == count_tokens("12345. Wärtsilä") == 5
    assert count_tokens("") == 0


@pytest.mark.parametrize(("command", "needed"), [
    ("memab", ["MemoryAgentBench FactConsolidation", "mab_fc_", "MIT license", "--data", "nothing is downloaded"]),
    ("reviseqa", ["ReviseQA", "reviseqa/verified", "MIT license", "--data", "nothing is downloaded"]),
])
def test_missing_data_says_what_is_needed_and_where_it_comes_from(tmp_path, command, needed):
    result = grounded("bench", command, "--data", tmp_path / "nowhere", "--out", tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and len(result.stderr.strip().splitlines()) == 1
    for phrase in needed:
        assert phrase in result.stderr
    assert not (tmp_path / "out").exists()


def test_the_direct_verifier_set_is_right_by_claim_in_every_category(tmp_path):
    result = bench("verify", tmp_path)
    assert result["items"] == 10
    items = verifier.load_items()
    assert len(items) == 50
    assert {c: sum(i.category == c for i in items) for c in verifier.CATEGORIES} == {
        "actual": 15, "stale": 15, "cross_conversation": 10, "counterfactual": 10}
    full = verifier.run(items)
    assert all(s["correct"] == s["n"] for s in full["by_claim"].values())
    assert {c: s["n"] for c, s in full["by_text"].items()} == {c: s["n"] for c, s in full["by_claim"].items()}


def test_a_bad_verifier_item_names_its_index_and_field(tmp_path):
    path = tmp_path / "items.yaml"
    path.write_text("items:\n  - {id: x1, category: actual, at: 13, text: t, claim: h4, expected: grounded}\n"
                    "  - {id: x2, category: stale, at: 13, text: t, claim: 'not a literal', expected: ungrounded}\n")
    with pytest.raises(InputError, match=r"items\.yaml: items\[1\]\.claim: "):
        verifier.load_items(path)


def test_noise_models_touch_only_what_they_say():
    import random

    state = states_at({13})[13]
    dm = state.state
    edges = sum(len(r.deps) for r in dm.args)
    dropped = perturb(dm, "edge_drop", 1.0, random.Random(1))
    assert sum(len(r.deps) for r in dropped.args) == 0
    added = perturb(dm, "edge_add", 0.8, random.Random(1))
    assert sum(len(r.deps) for r in added.args) > edges
    flipped = perturb(dm, "status", 1.0, random.Random(1))
    assert all(a.standing != b.standing for a, b in zip(flipped.args, dm.args, strict=True))
    assert sum(len(r.deps) for r in dm.args) == edges and dm.args[0].standing == "active"  # the original untouched
    state.close()


def test_noise_quick_run(tmp_path):
    result = bench("noise", tmp_path)
    curves = result["curves"]
    for model in ("edge_drop", "edge_add", "status"):
        assert curves[model]["0.0"]["pooled"]["median"] == 1.0
    assert curves["edge_drop"]["0.8"]["pooled"]["median"] == 1.0  # dropping Dep edges cannot unground these items
    assert curves["status"]["0.8"]["pooled"]["median"] < 0.9
    assert curves["status"]["0.8"]["cross_conversation"]["median"] == 1.0
    assert (tmp_path / "noise.png").read_bytes()[:4] == b"\x89PNG"


def test_latency_quick_run(tmp_path):
    result = bench("latency", tmp_path)
    rows = {(r["regime"], r["k"]): r for r in result["rows"]}
    assert set(rows) == {(g, k) for g in ("naive", "bounded") for k in (13, 100, 500)}
    assert rows[("naive", 500)]["replay_us"] > rows[("naive", 13)]["replay_us"]
    for r in rows.values():  # per answer size, as the interleaved benchmark reports them
        assert r["none_queries"] + r["one_queries"] <= 20
        assert (r["none_us"] is None) == (r["none_queries"] == 0) and (r["one_us"] is None) == (r["one_queries"] == 0)
    assert {g["to_k"] for g in result["growth"].values()} == {500} and "none" in result["growth"]["naive"]
    assert (tmp_path / "latency.png").read_bytes()[:4] == b"\x89PNG"
