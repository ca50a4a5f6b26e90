"""Deep inputs (issue 10, item 4): a Dep chain of 10^4 hypotheses, and 10^4 resting on one literal.

Each is read from a log in bulk, answered (Verify, Affected*, the rules' own
reading of a cycle closed at the bottom of the chain, the commands, from the
log and from its snapshot) with no recursion in Python or Prolog deep enough
to fail.  The 10^5 figures, and the time per Hypothesize at each depth, are
in ``python -m bench ingest`` (bench/ingest.py).
"""

from __future__ import annotations

import gc
import json
import shutil
import sys
from pathlib import Path

import pytest

from grounded import Engine, PreconditionError
from grounded.core.errors import LogError
from grounded.present import render

from .inprocess import run_cli

N = 10_000
HEADER = {"grounded": 1, "agents": {"a": {"authority": True}, "b": {}}}


def write(path: Path, kind: str) -> Path:
    """o0, then N hypotheses: each resting on the one before (chain) or all on o0 (fan)."""
    lines = [HEADER, {"turn": 1, "speaker": "a", "ops": [{"op": "observe", "claim": "o0"}]}]
    for i in range(1, N + 1):
        dep = (f"h{i - 1}" if i > 1 else "o0") if kind == "chain" else "o0"
        lines.append({"turn": i + 1, "speaker": "a", "ops": [{"op": "hypothesize", "claim": f"h{i}", "deps": [dep]}]})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def replayed(path: Path) -> tuple[Path, Engine]:
    """The log and the engine read from it line by line; the reading leaves its snapshot beside it."""
    engine = Engine.load(path, snapshot=True)
    assert engine.log_status.utterances == N + 1 and engine.log_status.restored == 0
    assert Path(f"{path}.snapshot").exists()
    return path, engine


# each engine below is used (and changed) by one test only; the other tests read the log and its snapshot
@pytest.fixture(scope="module")
def chain(tmp_path_factory) -> tuple[Path, Engine]:
    return replayed(write(tmp_path_factory.mktemp("deep") / "chain.jsonl", "chain"))


@pytest.fixture(scope="module")
def fan(tmp_path_factory) -> tuple[Path, Engine]:
    return replayed(write(tmp_path_factory.mktemp("deep") / "fan.jsonl", "fan"))


@pytest.mark.slow
def test_a_dep_chain_of_ten_thousand_is_built_and_answered(chain):
    assert sys.getrecursionlimit() < N  # so a recursive walk anywhere would fail here
    e = chain[1]
    v = e.verify(f"h{N}")
    assert v.grounded and len(v.arguments) == N + 1 and v.chain[0] == f"h{N}" and v.chain[-1] == "o0"
    a = e.affected("o0")
    assert len(a.arguments) == N and sorted(a.hops) == list(range(1, N + 1))
    assert e.affected(f"h{N // 2}").claims == [f"h{i}" for i in range(N // 2 + 1, N + 1)]
    # closing a cycle at the bottom of the chain: the rules walk all of it, and say so
    with pytest.raises(PreconditionError) as info:
        e.apply({"speaker": "a", "ops": [{"op": "support", "target": "h1", "by": f"h{N}"}]})
    assert "dep_cycle" in info.value.codes
    # and the chain grows on, from its top, as cheaply as it began (levels: one step)
    e.apply({"speaker": "a", "ops": [{"op": "hypothesize", "claim": "top", "deps": [f"h{N}"]}]})
    assert e.verify("top").grounded and len(e.verify("top").arguments) == N + 2
    # the bottom of the chain leaves S_t: everything above it is flagged
    update = e.apply({"speaker": "b", "ops": [{"op": "revise", "target": "o0"}]})
    assert update.left == ("o0",) and len(update.flagged["o0"]) == N + 1
    assert not e.verify("top").grounded


@pytest.mark.slow
def test_ten_thousand_hypotheses_on_one_literal(fan):
    e = fan[1]
    assert len(e.affected("o0").arguments) == N and set(e.affected("o0").hops) == {1}
    assert all(e.verify(f"h{i}").grounded for i in (1, N // 2, N))
    # above the fan: g rests on h1; h2 may rest on g, h1 may not (a cycle through a literal rested on)
    e.apply({"speaker": "a", "ops": [{"op": "hypothesize", "claim": "g", "deps": ["h1"]}]})
    e.apply({"speaker": "a", "ops": [{"op": "support", "target": "h2", "by": "g"}]})
    assert e.affected("g").claims == ["h2"]
    with pytest.raises(PreconditionError) as info:
        e.apply({"speaker": "a", "ops": [{"op": "support", "target": "h1", "by": "g"}]})
    assert "dep_cycle" in info.value.codes
    update = e.apply({"speaker": "b", "ops": [{"op": "revise", "target": "o0"}]})
    assert len(update.flagged["o0"]) == N + 1 and not e.verify(f"h{N}").grounded


@pytest.mark.parametrize("kind", ["chain", "fan"])
def test_the_commands_answer_deep_logs_from_their_snapshot(kind, chain, fan):
    path = (chain if kind == "chain" else fan)[0]
    code, out, err = run_cli("verify", path, f"h{N}", "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["grounded"] and len(answer["chain"]) == (N + 1 if kind == "chain" else 2)
    code, out, err = run_cli("affected", path, "o0", "--json")
    assert code == 0, err
    assert len(json.loads(out)["claims"]) == N
    # the state table asks Verify of every claim at once (claim by claim, a chain is walked
    # once per link: quadratic); printing 10^4 rows is rich's time, not ours, so it is built only
    e = Engine.load(path, snapshot=True)
    assert e.log_status.restored == N + 1
    table = render.state_table(e)
    assert table.row_count == N + 1
    assert [str(c) for c in table.columns[6].cells] == ["yes"] * (N + 1)


@pytest.mark.slow
def test_a_cycle_in_a_deep_log_is_refused_at_its_line_after_its_snapshot(tmp_path, chain):
    """The rules' levels are rebuilt from a snapshot's facts; the line after it closing a cycle is refused."""
    path = chain[0]
    bad = tmp_path / "cycle.jsonl"
    bad.write_text(path.read_text() + json.dumps({"turn": N + 2, "speaker": "a",
                                                  "ops": [{"op": "support", "target": "h1", "by": f"h{N}"}]}) + "\n")
    shutil.copy(f"{path}.snapshot", f"{bad}.snapshot")
    with pytest.raises(LogError) as info:
        Engine.load(bad, snapshot=True)
    assert info.value.line == N + 3 and "dep_cycle" in str(info.value)
    e = Engine.load(bad, snapshot=True, strict=False)  # the same reading, answering from the lines before
    status = e.log_status
    assert status.restored == N + 1 and not status.complete and status.stopped_at == N + 3
    assert "dep_cycle" in (status.error or "") and e.affected("h1").claims == [f"h{i}" for i in range(2, N + 1)]


def lists_per_argument(engine: Engine) -> float:
    """Containers the garbage collector tracks in the state, beside the records themselves, per argument:
    every argument's standing history, Dep, explanations and their turns, every literal's claimants,
    dependents and attackers.  After two collections: the first drops a tuple of strings and integers from the
    collector's lists, and a tuple holding one (a standing change) by the second at the latest."""
    gc.collect()
    gc.collect()
    dm = engine.state
    per_argument = sum(gc.is_tracked(x) for r in dm.args
                       for x in (r.changes, r.deps, r.dep_turns, r.explains, r.explain_turns))
    per_literal = sum(gc.is_tracked(v) for index in (dm.claimants, dm.rev, dm.rev_turns, dm.attackers)
                      for v in index.values())
    return (per_argument + per_literal) / len(dm.args)


@pytest.mark.slow
def test_python_collections_do_not_scan_a_list_per_argument(chain):
    """Issue 23: a 10^5 Dep chain built live grew its tenths' time, the last 1.28 times the first, while the
    rules' work stayed flat: Python's full collections, about one per 10^4 utterances, each scanning every list
    the state held, ten per hypothesis.  An entry that keeps one item is a tuple (dmap.state.added), which the
    collector drops from its lists: the chain and the fan keep no list per hypothesis, live or restored, and
    the process holds two more tracked objects per hypothesis (its two records), not ten."""
    header = {"agents": {"a": {"authority": True}}}
    for kind in ("chain", "fan"):
        engine = Engine(header)
        engine.apply({"speaker": "a", "ops": [{"op": "observe", "claim": "o0"}, {"op": "question", "claim": "q0"}]})

        def build(first: int, last: int, kind: str = kind, engine: Engine = engine) -> None:
            for i in range(first, last + 1):
                dep = (f"h{i - 1}" if i > 1 else "o0") if kind == "chain" else "o0"
                engine.apply({"speaker": "a", "ops": [{"op": "hypothesize", "claim": f"h{i}", "deps": [dep],
                                                      "explains": ["q0"]}]})

        build(1, 1_000)
        gc.collect()
        before = len(gc.get_objects())
        build(1_001, 3_000)
        gc.collect()
        assert (len(gc.get_objects()) - before) / 2_000 < 2.1, kind  # the argument's and the claim's records
        assert lists_per_argument(engine) < 0.001, kind  # the fan: o0's dependents and their turns, two lists
        engine.close()
    # a state read back from a snapshot keeps its entries as the live one does (dmap.state.packed)
    restored = Engine.load(chain[0], snapshot=True)
    assert restored.log_status.restored == N + 1 and lists_per_argument(restored) == 0
    assert restored.affected("o0").claims == [f"h{i}" for i in range(1, N + 1)]  # the walk past tuples
