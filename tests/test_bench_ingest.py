"""``python -m bench ingest`` (bench/ingest.py) on a small stream: every measurement runs and checks its answers."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import weakref

import pytest

from bench import ingest
from bench.checks import CheckFailed
from grounded.engine import Engine

from .bench_helpers import ROOT, run_bench

pytestmark = pytest.mark.bench  # runs of python -m bench ingest


def test_a_small_run_measures_and_prints_every_part():
    settings = ingest.Settings(k=200, realistic=2_000, depth=60, rounds=1, fsync_utterances=20, memory=False,
                               cli_calls=1)
    result = ingest.run(settings)
    bulk, live = result["bulk"], result["live"]
    n = bulk["utterances"]
    assert n > 150 and live["utterances"] == n  # the synthetic stream: the same utterances both ways
    assert bulk["ratio"] > 0 and bulk["per_second"]["grounded"] > 0 and len(bulk["tenths"]) == 10
    assert len(live["chunks"]) == 10 and live["last_over_first"] > 0
    # the realistic stream: every operation, each tenth timed, the rules' work per operation flat (checked by the run)
    real = result["realistic"]
    assert set(real["ops"]) == {"observe", "hypothesize", "support", "undermine", "revise", "resolve", "question",
                                "expand_awareness"}
    assert real["utterances"] > 1_500 and len(real["tenths"]) == len(real["inference_tenths"]) == 10
    assert real["inferences_last_over_first"] <= ingest.FLAT
    logs = result["realistic_logs"]  # read back: written elsewhere (the rules), and by the engine (its record)
    assert logs["utterances"] == real["utterances"] and len(logs["foreign"]["tenths"]) == 10
    assert logs["foreign"]["bulk"] == 0 and logs["own"]["bulk"] == logs["utterances"]
    assert logs["own"]["per_second"] > 0 and logs["live_logged_per_second"] > 0
    assert logs["own"]["cpu_per_second"] > 0 and logs["foreign"]["cpu_per_second"] > 0  # the shared machine's
    chain, wide = result["deep"]
    # each checked its answers as it ran (Verify, Affected*, the reloaded and the restored state)
    assert (chain["kind"], wide["kind"]) == ("chain", "wide") and chain["depth"] == wide["depth"] == 60
    assert len(chain["tenths"]) == 10
    # each hypothesis explained q0: settling it did not cost more with each explanation
    assert chain["inferences_last_over_first"] <= ingest.FLAT and wide["inferences_last_over_first"] <= ingest.FLAT
    cli = result["cli"]
    assert cli["snapshot_bytes"] > 0 and cli["warm_cpu_s"] > 0 and cli["cold_cpu_s"] > 0
    assert set(result["fsync"]["per_second"]) == {"none", "never", "batch", "always"}
    md = ingest.markdown(result)
    for heading in ("## Reading a log in bulk", "## Live", "## Realistic", "## Realistic logs read back",
                    "## Deep inputs",
                    "## `grounded verify` as a command", "## Durability"):
        assert heading in md
    assert "| log | utterances/s (wall) | utterances/s (CPU) |" in md
    # the deep inputs' tenths in CPU seconds beside wall, with Python's full collections in each
    assert len(chain["cpu_tenths"]) == len(chain["full_collections"]) == len(chain["collection_seconds"]) == 10
    assert "last / first tenth (CPU)" in md and "chain: seconds per tenth: " in md and "CPU seconds: " in md


def test_the_check_fails_a_run_whose_work_per_operation_grows():
    """The benchmark's own check, on a run whose last tenth cost the rules 1.5 times the first per operation."""
    clock = ingest.Tenths(10, Engine({"agents": {"a": {}}}))
    clock.seconds, clock.ops, clock.inferences = [0.1] * 10, [2] * 10, [100] * 9 + [150]
    grown = clock.report("wide")
    assert grown["flat_check"] == "wide: the rules' inferences per operation grew from the first tenth (100 in 2 " \
                                  "operations) to the last (150 in 2 operations): last / first 1.50, at most 1.2"
    with pytest.raises(CheckFailed, match=r"^wide: the rules' inferences per operation grew .* 1\.50, at most 1\.2$"):
        ingest.check({"deep": [grown]})
    clock.ops = [2] * 9 + [3]  # the same work over more operations: flat
    flat = clock.report("wide")
    assert flat["inferences_last_over_first"] == 1.0 and flat["flat_check"] is None
    ingest.check({"deep": [flat]})


def test_the_check_fails_a_run_whose_cpu_per_tenth_grows():
    """Issue 23: the deep inputs' CPU seconds, last tenth over first, at most 1.2 when the tenths are long
    enough to time (``timed``); the wall seconds are shown beside, with a note when they alone pass it."""
    clock = ingest.Tenths(10, Engine({"agents": {"a": {}}}))
    clock.seconds, clock.ops, clock.inferences = [1.0] * 9 + [1.5], [2] * 10, [100] * 10
    clock.full_collections, clock.collection_seconds = [1] * 10, [0.1] * 10
    clock.cpu = [1.0] * 9 + [1.3]
    grown = clock.report("chain", timed=True)
    assert grown["time_check"] == "chain: the CPU seconds per tenth grew from the first (1.00) to the last (1.30): " \
                                  "last / first 1.30, at most 1.2"
    short = clock.report("chain")  # a short run: shown, not checked
    assert short["cpu_last_over_first"] == pytest.approx(1.3) and short["time_check"] is None
    # the run fails once its figures are written, naming what grew; the page says so too
    with pytest.raises(CheckFailed, match=r"^chain: the CPU seconds per tenth grew .* 1\.30, at most 1\.2$"):
        ingest.check({"deep": [grown, short]})
    clock.cpu = [1.0] * 9 + [1.1]
    found = clock.report("chain", timed=True)
    assert found["time_check"] is None
    ingest.check({"deep": [found, short]})
    assert "(last / first 1.50) (wall above 1.2 with CPU at or under it: other jobs on the machine)" in (
        ingest._tenths_line(found))


def test_the_deep_inputs_collect_what_came_before_them_first(tmp_path):
    """Garbage the earlier parts of the run left for the collector (their engines: a second of CPU at 10^5) is
    collected before the chain is built, not in whichever tenth the next full collection falls in."""
    class Cycle:
        pass

    left = Cycle()
    left.me = left  # type: ignore[attr-defined]  # freed only by a collection
    alive = weakref.ref(left)
    del left
    seen: dict[str, bool] = {}
    collecting = gc.isenabled()
    gc.disable()  # no collection but the ones the bench asks for
    try:
        found = ingest.deep("chain", 60, tmp_path, lambda line: seen.setdefault(line, alive() is not None))
    finally:
        if collecting:
            gc.enable()
    assert seen["chain: built"] is False and found["collected_before"] >= 2  # the object and its __dict__
    assert len(found["cpu_tenths"]) == 10


def test_a_realistic_stream_too_short_to_measure_is_refused(tmp_path):
    result = run_bench("ingest", "--realistic", "5", "--out", tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: --realistic 5: at least 10"
    assert not (tmp_path / "out").exists()


def test_the_deep_inputs_run_alone(tmp_path):
    """--deep-only: the chain and the fan measured and checked as in a full run, nothing else run before them."""
    result = run_bench("ingest", "--deep-only", "--depth", "40", "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    found = json.loads((tmp_path / "ingest.json").read_text())
    assert found["settings"]["deep_only"] is True and {"bulk", "live", "realistic", "cli", "fsync"}.isdisjoint(found)
    assert [(d["kind"], d["depth"], len(d["cpu_tenths"])) for d in found["deep"]] == [("chain", 40, 10),
                                                                                      ("wide", 40, 10)]
    md = (tmp_path / "ingest.md").read_text()
    assert md.startswith("## Deep inputs") and "chain: seconds per tenth" in md and "Reading a log" not in md


STRICT = """
import runpy, sys
from bench import ingest
ingest.FLAT = 0.1  # stricter than any run's figures (a first tenth holds warm-up too): every tenths check fails
sys.argv = ["bench", *sys.argv[1:]]
runpy.run_module("bench", run_name="__main__")
"""


def test_a_run_whose_check_fails_prints_and_saves_its_figures_first(tmp_path):
    """A failed flatness check ends the command as ``python -m bench`` ends one (``check failed: ...``, exit 1),
    after the figures it measured are printed and written: the run is not lost."""
    result = subprocess.run([sys.executable, "-c", STRICT, "ingest", "--deep-only", "--depth", "40", "--out", tmp_path],
                            capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 1, result.stderr
    failed = result.stderr.splitlines()[-1]  # after the parts' progress lines: both inputs' failures, in one
    assert failed.startswith("check failed: chain: the rules' inferences per operation grew")
    assert "; wide: the rules' inferences per operation grew" in failed
    found = json.loads((tmp_path / "ingest.json").read_text())
    chain, wide = found["deep"]
    assert chain["flat_check"].startswith("chain: ") and wide["flat_check"].startswith("wide: ")
    assert len(chain["inference_tenths"]) == 10 and chain["verify_ms"] > 0  # measured to the end
    md = (tmp_path / "ingest.md").read_text()
    assert md.startswith("## Deep inputs") and "chain: seconds per tenth" in md
    assert "**A check failed**: chain: the rules' inferences per operation grew" in md
    assert "## Deep inputs" in result.stdout and "chain: seconds per tenth" in result.stdout
