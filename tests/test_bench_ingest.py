"""``grounded bench ingest`` (bench/ingest.py) on a small stream: every measurement runs and checks its answers."""

from __future__ import annotations

from grounded.bench import ingest


def test_a_small_run_measures_and_prints_every_part():
    settings = ingest.Settings(k=200, depth=60, rounds=1, fsync_utterances=20, memory=False, cli_calls=1)
    result = ingest.run(settings)
    bulk, live = result["bulk"], result["live"]
    n = bulk["utterances"]
    assert n > 150 and live["utterances"] == n  # the synthetic stream: the same utterances both ways
    assert bulk["ratio"] > 0 and bulk["per_second"]["grounded"] > 0 and len(bulk["tenths"]) == 10
    assert len(live["chunks"]) == 10 and live["last_over_first"] > 0
    chain, wide = result["deep"]
    # each checked its answers as it ran (Verify, Affected*, the reloaded and the restored state)
    assert (chain["kind"], wide["kind"]) == ("chain", "wide") and chain["depth"] == wide["depth"] == 60
    assert len(chain["tenths"]) == 10
    cli = result["cli"]
    assert cli["snapshot_bytes"] > 0 and cli["warm_cpu_s"] > 0 and cli["cold_cpu_s"] > 0
    assert set(result["fsync"]["per_second"]) == {"none", "never", "batch", "always"}
    md = ingest.markdown(result)
    for heading in ("## Reading a log in bulk", "## Live", "## Deep inputs", "## `grounded verify` as a command",
                    "## Durability"):
        assert heading in md
