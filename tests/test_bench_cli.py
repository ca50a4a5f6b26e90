"""``python -m bench``: missing data, the verifier set, the noise diagnostic, the latency figure, statistics."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench import verifier
from bench.noise import perturb, states_at
from bench.stats import mcnemar
from grounded.core.errors import InputError
from grounded.present.tokens import count_tokens

from .bench_helpers import bench, run_bench

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.bench  # runs of python -m bench


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
    result = run_bench(command, "--data", tmp_path / "nowhere", "--out", tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and len(result.stderr.strip().splitlines()) == 1
    for phrase in needed:
        assert phrase in result.stderr
    assert not (tmp_path / "out").exists()


def test_the_direct_verifier_set_is_right_by_claim_in_every_category_and_split(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    result = bench("verify", tmp_path, env=env)
    assert result["items"] == 39 and list(result["methods"]) == ["by_claim", "offline"]
    assert "LLM reader skipped" in result["llm"]  # no endpoint in the test environment
    items = verifier.load_items()
    assert len(items) == 233 and sum(i.split == "test" for i in items) == 60
    assert {c: sum(i.category == c for i in items) for c in verifier.CATEGORIES} == {
        "actual": 46, "stale": 50, "cross_conversation": 35, "counterfactual": 50, "negated_stale": 25,
        "paraphrase": 27}
    assert {i.phase for i in items} == {2, 3}
    engines = {p: verifier.scenario_engine(p) for p in (2, 3)}
    try:
        wrong = [i.id for i in items if verifier.judge_by_claim(engines[i.phase], i) != i.expected]
    finally:
        for e in engines.values():
            e.close()
    assert wrong == []
    md = (tmp_path / "verify.md").read_text()
    assert "## dev split" in md and "## test split" in md and "counterfactual: accepted" in md


def test_a_bad_verifier_item_names_its_index_and_field(tmp_path):
    path = tmp_path / "items.yaml"
    path.write_text("items:\n  - {id: x1, phase: 2, category: actual, split: dev, at: 13, text: t, asserts: [h4], "
                    "expected: accept}\n"
                    "  - {id: x2, phase: 2, category: stale, split: dev, at: 13, text: t, asserts: ['not a literal'], "
                    "expected: reject}\n")
    with pytest.raises(InputError, match=r"items\.yaml: items\[1\]\.asserts\.0: "):
        verifier.load_items(path)


def test_verifier_items_refuse_yaml_aliases(tmp_path):
    from tests.test_scenarios import alias_bomb

    path = tmp_path / "items.yaml"
    path.write_text(alias_bomb(6).replace("title:", "items:"))
    with pytest.raises(InputError, match=r"items\.yaml: cannot read the verifier items: .*alias \*a0 is not allowed"):
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


def test_a_standing_the_noise_flips_drops_the_answer_kept_for_the_old_one():
    """Verify keeps an answer on a record (resting on nothing, or out of standing: ``verify.leaf``, ``verify.out``)
    and the copy ``perturb`` makes carries it: a flipped standing goes through ``ArgRecord.change``, which drops
    it, so the noisy state answers by its own standings (an argument flipped back into S_t grounds its claim)."""
    import random

    from grounded.queries.verify import _verify_at, verify

    state = states_at({13})[13]
    dm = state.state
    claims = list(dm.claimants)
    assert {type(verify(dm, c)).__name__ for c in claims} >= {"_Leaf", "_Out"}  # answers kept on records
    flipped = perturb(dm, "status", 1.0, random.Random(1))
    assert all(verify(flipped, c) == _verify_at(flipped, c, None) for c in claims)
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


def test_the_verifier_bench_runs_one_split_on_request(tmp_path):
    """`--split dev` is what tuning runs: the test split's items are never read by the anchorers."""
    from bench.cli import bench_app
    from tests.inprocess import grounded as here

    path = tmp_path / "items.yaml"
    path.write_text("items:\n  - {id: d1, phase: 2, category: actual, split: dev, at: 13, "
                    "text: 'The retry storm is exhausting Redis.', asserts: [h4], expected: accept}\n"
                    "  - {id: t1, phase: 2, category: stale, split: test, at: 13, "
                    "text: 'Redis being down broke Auth.', asserts: [h2], expected: reject}\n")
    out = tmp_path / "out"
    done = here("verify", "--items", path, "--split", "dev", "--no-llm", "--out", out,
                drop_env=("OPENAI_",), app=bench_app)
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "verify.json").read_text())
    assert data["splits"] == {"dev": 1, "test": 0} and [i["id"] for i in data["item_verdicts"]] == ["d1"]
    md = (out / "verify.md").read_text()
    assert "## dev split" in md and "## test split" not in md
    bad = here("verify", "--items", path, "--split", "holdout", "--out", out, app=bench_app)
    assert bad.returncode == 2 and "--split: unknown 'holdout'" in bad.stderr


def test_crosscheck_scaling_at_the_turns_asked(tmp_path):
    """`python -m bench crosscheck --turns` (issue 13's done-when command): one row per K and the fitted exponent."""
    result = run_bench("crosscheck", "--turns", "40,80", "--out", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads((tmp_path / "crosscheck-scaling.json").read_text())
    assert [row["k"] for row in data["checks"]] == [40, 80]
    assert all(row["seconds"] > 0 and row["peak_mb"] > 0 and row["tree_mb"] > 0 for row in data["checks"])
    assert data["exponent"] is not None
    assert "Fitted exponent" in result.stdout and "| 80 |" in result.stdout
    bad = run_bench("crosscheck", "--turns", "40,many", "--out", tmp_path)
    assert bad.returncode == 2 and "--turns" in bad.stderr


def test_crosscheck_shapes_print_each_shape_and_fail_one_that_does_not_finish(tmp_path):
    """`python -m bench crosscheck --shapes`: per shape and K the wall, the CPU and the peak of the process
    tree and the probe's share, per shape the exponents of this run; a shape stopped by its time limit fails
    the command (exit 1, naming it) after the tables are written."""
    result = run_bench("crosscheck", "--shapes", "--turns", "30,60", "--only", "fan,dissent", "--probes", "0",
                       "--out", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads((tmp_path / "crosscheck-shapes.json").read_text())
    assert list(data["checks"]) == ["fan", "dissent"] and data["failed"] == {}
    for rows in data["checks"].values():
        assert [row["k"] for row in rows] == [30, 60]
        assert all(row["cpu"] > 0 and row["tree_mb"] > 0 and row["phases"].get("probe", 0) == 0 for row in rows)
    assert all(fit["exponent_cpu"] is not None for fit in data["fits"].values())
    assert "| fan | 60 |" in result.stdout and "exponent, CPU" in result.stdout
    stopped = run_bench("crosscheck", "--shapes", "--turns", "30", "--only", "fan", "--time-limit", "0.01",
                        "--out", tmp_path)
    assert stopped.returncode == 1 and "check failed: fan: K=30 stopped" in stopped.stderr
    assert "stopped: time limit" in (tmp_path / "crosscheck-shapes.md").read_text()
    unknown = run_bench("crosscheck", "--shapes", "--only", "spiral", "--out", tmp_path)
    assert unknown.returncode == 2 and "--only" in unknown.stderr


CHECKED_APP = """
import sys, typer
from bench.checks import CheckFailed
from grounded.cli import main
app = typer.Typer()
@app.command()
def run(fail: str) -> None:
    raise CheckFailed("chain: last / first 1.32, at most 1.2") if fail == "check" else AssertionError("a bug")
main(app, checks=(CheckFailed,))
"""


def test_a_benchmark_check_that_does_not_hold_exits_1_saying_so_not_as_an_internal_error():
    """A missed target (bench/checks.py) is the benchmark's answer, not its fault: `check failed`, exit 1; anything
    else the command raises stays an internal error, exit 2 (a real process, as `python -m bench` runs)."""
    found = {fail: subprocess.run([sys.executable, "-c", CHECKED_APP, fail], capture_output=True, text=True,
                                  timeout=60, cwd=ROOT)
             for fail in ("check", "bug")}
    said = "check failed: chain: last / first 1.32, at most 1.2\n"
    assert (found["check"].returncode, found["check"].stderr) == (1, said)
    assert found["bug"].returncode == 2 and found["bug"].stderr.startswith("internal error: AssertionError: a bug")
