"""The probe runs inside the check: a probed state costs its candidates, not a check of the log up to it.

Each probed state's candidates are applied to a scratch engine restored from the
state the check's replay reached, and decided by ASP from the events the check
decided up to it (crosscheck/probe.py).  What it finds must be what a whole
check of the log up to the state plus its candidates finds (the probe as it
was): compared on planted faults, a missing precondition among them.  And the
cost is counted, never timed: how many utterances the engines apply and how
many steps clingo grounds.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded.crosscheck import probe as probe_module
from grounded.crosscheck.check import candidates_of, check, check_history
from grounded.crosscheck.probe import Probing
from grounded.dmap.model import Header
from grounded.engine.engine import Engine
from grounded.solvers import history
from grounded.solvers.asp import encoding
from tests.synthetic import argument_heavy

from .test_check_report import HEADER, STORY
from .test_crosscheck import draw_candidates
from .test_epistemic_properties import header as epistemic_header
from .test_properties import HEADER as RANDOM_HEADER
from .test_properties import budget

FAULTS = {
    "none": None,
    "support_self dropped": ("ops/support.lp", "violation(s, support_self)", "violation(s, support_self_never)"),
    "undermine_by_unknown dropped": ("ops/undermine.lp", "violation(s, undermine_by_unknown)",
                                     "violation(s, undermine_by_unknown_never)"),
    "undermined argument abandoned": ("ops/undermine.lp", "weakened", "abandoned"),
    "flagged forgets standing": ("history.lp", "aff(L, A, 2*C), in_s(A, 2*C)", "aff(L, A, 2*C), not in_s(A, 2*C)"),
}


def overrides(name: str, tmp_path: Path) -> dict[str, str]:
    if FAULTS[name] is None:
        return {}
    rule, old, new = FAULTS[name]
    original = Path(encoding(rule)).read_text()
    assert old in original, f"{rule} no longer holds {old!r}: update the fault"
    mutated = tmp_path / Path(rule).name
    mutated.write_text(original.replace(old, new))
    return {rule: str(mutated)}


def reference(probing: Probing, header: Header, log: list[dict], asp: dict[str, str]) -> list[str]:
    """What the probe found before it ran inside the check: per probed state, a whole check of the log
    up to it plus its candidates, and the first line about a candidate."""
    lines = []
    for state in probing.taken:
        found = check_history(header, log[:state.k] + state.probes, asp_overrides=asp, label="probe").mismatches
        for line in found:
            words = line.split(" ", 2)
            if words[0] == "utterance" and int(words[1]) > state.k:
                n = int(words[1]) - state.k
                lines.append(f"probe {n} of the state after utterance {state.k} (seed {probing.report.seed}): "
                             f"{line}; the candidate: {json.dumps(state.probes[n - 1])}")
                break
    return lines


@pytest.mark.slow
@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_probed_state_finds_what_a_check_of_the_log_up_to_it_finds(fault, tmp_path):
    header, asp = Header.model_validate(HEADER), overrides(fault, tmp_path)
    probing = Probing(header, STORY, seed=7, per_op=3, states=4)
    report = check_history(header, STORY, asp_overrides=asp, probing=probing)
    assert len(probing.taken) == len(probing.report.states) == 4
    assert probing.report.mismatches == reference(probing, header, STORY, asp)
    if fault == "none":
        assert probing.report.mismatches == [] and report.mismatches == []
    elif fault == "flagged forgets standing":  # met on the log, not necessarily on a candidate
        assert report.mismatches, "a planted fault the log meets"
    else:
        assert probing.report.mismatches, "a planted fault a candidate meets"


@pytest.mark.slow
@budget(20)
@given(data=st.data(), world=st.booleans(), incremental=st.booleans())
def test_probing_random_histories_finds_what_checks_up_to_their_states_find(data, world, incremental):
    """Random histories (rejected utterances among them), with a world model (whose state the scratch
    engine replays: no snapshot restores it) or without, the check's ASP one-shot or turn by turn."""
    header = Header.model_validate(epistemic_header(True) if world else RANDOM_HEADER)
    log = draw_candidates(data, max_size=12, header=epistemic_header(True) if world else RANDOM_HEADER)
    probing = Probing(header, log, seed=data.draw(st.integers(0, 2**16)), per_op=1, states=3)
    check_history(header, log, incremental=incremental, probing=probing)
    assert len(probing.taken) == len(probing.report.states)
    assert probing.report.mismatches == reference(probing, header, log, {})


def engine_applies(monkeypatch) -> list[int]:
    """How many utterances any engine applies from now on, counted in the one item of the list returned until
    ``monkeypatch`` undoes it."""
    applied = [0]
    apply = Engine.apply

    def counted(self, utterance):
        applied[0] += 1
        return apply(self, utterance)

    monkeypatch.setattr(Engine, "apply", counted)
    return applied


def test_a_probed_state_costs_its_candidates_not_the_log(tmp_path, monkeypatch):
    """The engines apply each log utterance once and each candidate once; clingo grounds each log step
    once and each candidate's once (before, each probed state replayed and grounded the log up to it)."""
    path = tmp_path / "log.jsonl"
    n = argument_heavy(30, 1, path)
    grounded = [0]
    decide = history._decide

    def counted_decide(files, operations, facts, seeds):
        grounded[0] += sum(1 for f in facts if f.name == "step" and len(f.arguments) == 4)
        return decide(files, operations, facts, seeds)

    applied = engine_applies(monkeypatch)
    monkeypatch.setattr(history, "_decide", counted_decide)
    report = check(path, probes=2)
    assert report.ok, report.mismatches
    probe = report.probe
    assert probe is not None and len(probe.states) > 2 and probe.probes > 0
    assert applied[0] == n + probe.probes
    steps = sum(len(u["ops"]) for u in candidates_of(path)[1])
    assert grounded[0] == steps + probe.probes  # every candidate has one operation
    assert "probe" in report.timings  # its own phase, out of the replay's


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["phase1.yaml", "phase2.yaml"])
def test_with_a_world_model_a_probed_state_costs_its_candidates_not_the_log(scenario, monkeypatch):
    """A header with a world model: the scratch engine of a probed state takes a fork of the check engine's
    M with its state (it replayed the log up to each probed state: k utterances at state k, quadratic in
    the states probed).  The engines apply each utterance once, the check engine's M is left as it was,
    and what the probe finds is what a whole check of the log up to each state finds."""
    header, log, _ = candidates_of(Path(__file__).parent.parent / "scenarios" / scenario)
    assert header.world is not None
    kept = []
    take = Probing.take

    def watched_take(self, k, engine, *rest):
        world = engine.world
        before = (list(world.history), dict(world.first_seen))
        take(self, k, engine, *rest)
        kept.append(before == (world.history, world.first_seen)
                    and all(a[1] is b[1] for a, b in zip(before[0], world.history, strict=True)))

    applied = engine_applies(monkeypatch)
    monkeypatch.setattr(Probing, "take", watched_take)
    probing = Probing(header, log, seed=11, per_op=1, states=len(log))
    report = check_history(header, log, probing=probing)
    assert report.ok, report.mismatches
    assert probing.report.states == list(range(1, len(log) + 1)) and probing.report.probes > 0
    assert applied[0] == len(log) + probing.report.probes, applied[0]
    assert kept == [True] * len(log)
    monkeypatch.undo()
    assert probing.report.mismatches == reference(probing, header, log, {})


PIDS = "GROUNDED_TEST_PROBE_PIDS"


def decided_here(*args):
    """decide_seeded, noting the process it ran in (a module-level function: it is sent to a child)."""
    with open(os.environ[PIDS], "a", encoding="utf-8") as out:
        out.write(f"{os.getpid()}\n")
    return history.decide_seeded(*args)


def decided_dies(*args):
    """A process deciding the probed states that ends without an answer, killed as the OOM killer would."""
    os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.slow
def test_apart_the_probed_states_are_decided_in_a_process_of_their_own(tmp_path, monkeypatch):
    header = Header.model_validate(HEADER)
    here = Probing(header, STORY, seed=3, states=3)
    check_history(header, STORY, probing=here, apart=False)
    monkeypatch.setenv(PIDS, str(tmp_path / "pids"))
    monkeypatch.setattr(probe_module, "decide_seeded", decided_here)
    there = Probing(header, STORY, seed=3, states=3)
    check_history(header, STORY, probing=there, apart=True)
    pids = (tmp_path / "pids").read_text().split()
    assert len(pids) == 1 and pids[0] != str(os.getpid())
    assert there.report.to_json() == here.report.to_json() and here.report.probes > 0


@pytest.mark.slow
def test_a_process_of_probed_states_that_dies_is_a_line_of_the_report(monkeypatch):
    header = Header.model_validate(HEADER)
    monkeypatch.setattr(probe_module, "decide_seeded", decided_dies)
    probing = Probing(header, STORY, seed=3, states=2)
    check_history(header, STORY, probing=probing, apart=True)
    assert len(probing.report.states) == 2
    assert probing.report.mismatches == [
        f"probes after utterance {k}: not completed (ApartFailed: the ASP of the probed states "
        f"{probing.report.states}: its process ended without an answer (killed by signal {signal.SIGKILL.value}))"
        for k in probing.report.states]


def name_reads(monkeypatch) -> list[int]:
    """How many times ``clingo.Symbol.name`` is read from now on (each read is a call into clingo), counted in
    the one item of the list returned until ``monkeypatch`` undoes it."""
    import clingo

    reads = [0]
    name = clingo.Symbol.name

    def counted(self):
        reads[0] += 1
        return name.fget(self)

    monkeypatch.setattr(clingo.Symbol, "name", property(counted))
    return reads


def test_seeding_reads_each_decided_atom_s_name_once(monkeypatch):
    """seed_of runs once per probed state (and per window of a long history) over every atom decided so
    far: each read of a symbol's name is a call into clingo, so it reads each once (it read up to five);
    seeds_after (seed_of and the queue's seed) reads each at most four times (it read them five times)."""
    header = Header.model_validate(HEADER)
    with Engine(header) as engine:
        registry = engine.registry
    decided = history.OneShotHistory(header, registry)
    for c in STORY:
        decided.add(c)
    archive = list(decided.solve(affected=False).facts)
    decisions = sum(1 for a in archive if a.name == "f_arg")  # an argument's kind is a name too
    reads = name_reads(monkeypatch)
    seeds = history.seed_of(decided.candidates, archive, STORY[-1]["turn"])
    assert seeds
    accepted_pass = len(archive)  # the accepted utterances are read off first
    touched_pass = len(archive)  # and the declared questions touched last
    assert reads[0] <= accepted_pass + len(archive) + touched_pass + decisions + len(seeds), reads[0]
    reads[0] = 0
    seeds = history.seeds_after(decided.candidates, archive)
    assert seeds
    # the accepted pass, seed_of's and its declared questions', the queue's: four passes, not five
    assert reads[0] <= 4 * len(archive) + decisions + len(seeds), reads[0]  # before: 408 > 386 here


def test_the_probed_states_are_decided_by_the_check_s_own_rule_files(tmp_path, monkeypatch):
    """The probe grounds its states with the one-shot stages the check's history grounds (an override
    among them), named by one function, history.rule_file (check.py spelled the lookup again)."""
    from grounded.solvers.history import rule_file, rule_files

    header = Header.model_validate(HEADER)
    view = tmp_path / "oneshot_view.lp"
    view.write_text(Path(encoding("oneshot_view.lp")).read_text())
    asp = {"oneshot_view.lp": str(view)}
    windows, views, probed = [], [], []
    decide, view_of, seeded = history._decide, history._view, probe_module.decide_seeded

    def decided(files, *rest):
        windows.append(files)
        return decide(files, *rest)

    def viewed(files, *rest):
        views.append(files)
        return view_of(files, *rest)

    def decided_seeded(files, stages, *rest):
        probed.append((files, stages))
        return seeded(files, stages, *rest)

    monkeypatch.setattr(history, "_decide", decided)
    monkeypatch.setattr(history, "_view", viewed)
    monkeypatch.setattr(probe_module, "decide_seeded", decided_seeded)
    probing = Probing(header, STORY, seed=3, states=2)
    check_history(header, STORY, asp_overrides=asp, probing=probing, apart=False)
    expected = ([*rule_files(asp), rule_file("oneshot.lp", asp)], [*rule_files(asp), str(view)])
    assert rule_file("oneshot_view.lp", asp) == str(view) and rule_file("oneshot.lp", {}) == encoding("oneshot.lp")
    assert probed == [expected] and views == [expected[1]]
    assert windows and all(files == expected[0] for files in windows)  # the check's windows, then the probe's


@pytest.mark.slow
def test_a_window_and_a_probed_state_are_seeded_by_one_function(monkeypatch):
    """history.seeds_after seeds both a window of the one-shot history and a probed state (probe.py wrote
    the window's sequence out again: seed_of with the last accepted turn, then queue_seed); the answer of
    windows of three utterances is that of one window (its reads: test_seeding_reads_each_decided_atom_s_name_once)."""
    header = Header.model_validate(HEADER)
    seeded: list[tuple[str, int]] = []
    seeds_after = history.seeds_after

    def counted(where):
        def seeds(before, archive):
            seeded.append((where, len(before)))
            return seeds_after(before, archive)
        return seeds

    monkeypatch.setattr(history, "seeds_after", counted("window"))
    monkeypatch.setattr(probe_module, "seeds_after", counted("probe"))
    with Engine(header) as engine:
        registry = engine.registry
    answers = []
    for window in (3, 1000):
        decided = history.OneShotHistory(header, registry, window=window)
        for c in STORY:
            decided.add(c)
        answers.append(decided.solve(affected=False))
    assert set(answers[0].facts) == set(answers[1].facts) and answers[0].accepted == answers[1].accepted
    assert seeded == [("window", 3), ("window", 6)]
    seeded.clear()
    probing = Probing(header, STORY, seed=3, states=3)
    check_history(header, STORY, probing=probing, apart=False)
    assert seeded == [("probe", k) for k in probing.report.states]
