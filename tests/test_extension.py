"""A new operation is added by a rule file alone (docs/extending.md), and the
driver holds extension rules to the same invariants as the built-in ones."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import grounded
from grounded import Engine, InputError, PreconditionError
from grounded.crosscheck.check import check_history
from grounded.dmap.model import Header
from grounded.solvers.prolog import PrologRules

from .test_epistemic_properties import header as epistemic_header
from .test_properties import ops_for

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "extending.md"


@pytest.fixture(scope="module")
def concede(tmp_path_factory) -> Path:
    """The concede.pl block of docs/extending.md, exactly as documented."""
    blocks = re.findall(r"```prolog\n(.*?)```", DOC.read_text(), re.S)
    (block,) = [b for b in blocks if b.startswith("% concede.pl")]
    path = tmp_path_factory.mktemp("ext") / "concede.pl"
    path.write_text(block)
    return path


@pytest.fixture(scope="module")
def concede_twin(concede) -> Path:
    """The concede.lp block of docs/extending.md, saved beside concede.pl."""
    blocks = re.findall(r"```asp\n(.*?)```", DOC.read_text(), re.S)
    (block,) = [b for b in blocks if b.startswith("% concede.lp")]
    concede.with_suffix(".lp").write_text(block)
    return concede.with_suffix(".lp")


def test_the_documented_example_runs_as_documented(concede):
    engine = Engine({"agents": {"alice": {}, "bob": {}}}, extensions=[concede])
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    engine.apply({"speaker": "bob", "ops": [{"op": "concede", "target": "o1"}]})
    assert engine.commitments() == {"alice": ["o1"], "bob": ["o1"]}
    sessions = re.findall(r"```pycon\n(.*?)```", DOC.read_text(), re.S)
    assert any(">>> engine.commitments()\n{'alice': ['o1'], 'bob': ['o1']}" in s for s in sessions)


def test_the_new_operation_has_preconditions_model_and_schema(concede):
    engine = Engine({"agents": {"alice": {}, "bob": {}}}, extensions=[concede])
    assert "concede" in engine.registry.extension_names
    model = engine.registry.models["concede"]
    assert model.__doc__.startswith("A speaker accepts a claim")
    assert set(model.model_fields) == {"op", "target", "text"}
    with pytest.raises(PreconditionError) as info:
        engine.apply({"speaker": "bob", "ops": [{"op": "concede", "target": "o1"}]})
    assert info.value.codes == ["concede_not_standing"]
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    with pytest.raises(PreconditionError, match="alice is already committed to o1"):
        engine.apply({"speaker": "alice", "ops": [{"op": "concede", "target": "o1"}]})
    with pytest.raises(InputError, match="target"):
        engine.apply({"speaker": "bob", "ops": [{"op": "concede"}]})


def test_the_python_core_is_unchanged_by_an_extension(concede):
    """No module of the package names the new operation; the built-ins stay eight."""
    package = ROOT / "src" / "grounded"
    assert not any("concede" in p.read_text() for p in package.glob("*.py"))
    assert len(PrologRules.get().builtin_specs) == 8
    Engine(extensions=[concede])
    assert "concede" not in grounded.Utterance.model_json_schema()["$defs"]


def test_engines_without_the_extension_do_not_see_it(concede):
    with_ext = Engine({"agents": {"alice": {}, "bob": {}}}, extensions=[concede])
    plain = Engine({"agents": {"alice": {}, "bob": {}}})
    plain.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    with pytest.raises(InputError, match="concede"):
        plain.apply({"speaker": "bob", "ops": [{"op": "concede", "target": "o1"}]})
    with_ext.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
    with_ext.apply({"speaker": "bob", "ops": [{"op": "concede", "target": "o1"}]})
    assert with_ext.commitments()["bob"] == ["o1"]


def test_a_log_with_the_new_operation_reloads_with_its_rules(concede, tmp_path):
    log = tmp_path / "dialogue.jsonl"
    with Engine({"agents": {"alice": {}, "bob": {}}}, extensions=[concede], log=log) as engine:
        engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
        engine.apply({"speaker": "bob", "ops": [{"op": "concede", "target": "o1"}]})
        live = engine.snapshot()
    assert Engine.load(log, extensions=[concede]).snapshot() == live
    with pytest.raises(InputError, match="dialogue.jsonl:1: header: written with the extension concede.pl"):
        Engine.load(log)  # replayed without its extension: refused, naming it


def test_the_cli_takes_the_extension(concede, tmp_path):
    scenario = tmp_path / "concede.yaml"
    scenario.write_text("""
grounded: 1
agents: {alice: {}, bob: {}}
turns:
  - {turn: 1, speaker: alice, ops: [{op: observe, claim: o1}]}
  - turn: 2
    speaker: bob
    ops: [{op: concede, target: o1}]
    expect:
      - commitments: {bob: {includes: [o1]}}
""")
    run = subprocess.run([sys.executable, "-m", "grounded", "run", str(scenario), "--extension", str(concede)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "PASS Cm(bob) includes o1" in run.stdout
    schema = subprocess.run([sys.executable, "-m", "grounded", "schema", "-x", str(concede)],
                            capture_output=True, text=True)
    assert "Concede" in json.loads(schema.stdout)["$defs"]


BROKEN = {
    "standing_invariant": """
operation(revive, "bring an argument back", [field(target, literal, required)]).
effect(revive, _, Op, set_standing(A, active, none)) :- field(Op, target, T), claims(A, T).
""",
    "attack_on_standing": """
operation(snipe, "attack without consequence", [field(target, literal, required), field(by, literal, required)]).
effect(snipe, _, Op, add_attack(B, A)) :- field(Op, target, T), field(Op, by, E), speaks_for(B, E), standing_arg(T, A).
""",
    "unknown_effect": """
operation(scribble, "emit nonsense", [field(target, literal, required)]).
effect(scribble, _, _, delete_everything).
""",
    "two_new_arguments": """
operation(twins, "two arguments at once", [field(claim, literal, required)]).
effect(twins, _, Op, new_arg(L, observation)) :- field(Op, claim, L).
effect(twins, _, _, new_arg(other, observation)).
""",
}


@pytest.mark.parametrize("code", list(BROKEN))
def test_extension_rules_are_held_to_the_invariants(code, tmp_path):
    path = tmp_path / f"{code}.pl"
    path.write_text(BROKEN[code])
    engine = Engine({"agents": {"alice": {}}}, extensions=[path])
    engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}, {"op": "observe", "claim": "o2"},
                                              {"op": "undermine", "target": "o1", "by": "o2"}]})
    before = engine.snapshot()
    op = engine.registry.extension_names[0]
    # o1 is weakened (attacked by o2); o2 stands
    fields = {"target": "o2", "by": "o1"} if op == "snipe" else {"target": "o1", "claim": "o3"}
    spec = engine.registry.specs[op]
    with pytest.raises(PreconditionError) as info:
        engine.apply({"speaker": "alice", "ops": [{"op": op, **{f.name: fields[f.name] for f in spec.fields}}]})
    assert code in info.value.codes
    assert engine.snapshot() == before


TALK = {"agents": {"alice": {}, "bob": {}, "carol": {}}}
CONCEDE_POOL = st.sampled_from(["o1", "o2", "o3"])
CONCEDE_OPS = st.one_of(
    st.builds(lambda c: {"op": "observe", "claim": c}, CONCEDE_POOL),
    st.builds(lambda t: {"op": "concede", "target": t}, CONCEDE_POOL),
    st.builds(lambda t, b: {"op": "undermine", "target": t, "by": b}, CONCEDE_POOL, CONCEDE_POOL),
    st.builds(lambda t: {"op": "revise", "target": t}, CONCEDE_POOL),
)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(stream=st.lists(st.tuples(st.sampled_from(["alice", "bob", "carol"]), st.lists(CONCEDE_OPS, min_size=1,
                                                                                      max_size=2)),
                       min_size=3, max_size=14))
def test_the_asp_twin_agrees_three_ways(concede, concede_twin, stream):
    candidates = [{"turn": t, "speaker": who, "ops": ops} for t, (who, ops) in enumerate(stream, 1)]
    report = check_history(Header.model_validate(TALK), candidates, extensions=[concede])
    assert report.asp, "concede.lp beside concede.pl is picked up"
    assert report.ok, report.mismatches[:5]


def test_without_a_twin_asp_is_skipped_only_where_the_operation_is_used(concede, tmp_path):
    """The engine's record of a twinless operation stands in for its rules; the rest is recomputed."""
    alone = tmp_path / "concede.pl"
    alone.write_text(concede.read_text())
    candidates = [{"turn": 1, "speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]},
                  {"turn": 2, "speaker": "bob", "ops": [{"op": "concede", "target": "o1"}]},
                  {"turn": 3, "speaker": "bob", "ops": [{"op": "concede", "target": "o9"}]},
                  {"turn": 4, "speaker": "carol", "ops": [{"op": "observe", "claim": "o2"}]},
                  # bob's commitment to o1 came from the concede: ASP must see it to find this redundant
                  {"turn": 5, "speaker": "bob", "ops": [{"op": "support", "target": "o1", "by": "o2"}]},
                  {"turn": 6, "speaker": "bob", "ops": [{"op": "support", "target": "o1", "by": "o2"}]}]
    report = check_history(Header.model_validate(TALK), candidates, extensions=[alone])
    assert report.ok, report.mismatches
    assert report.asp and report.given == {"concede": 2}
    assert report.accepted == 4
    assert "ASP took the engine's effects for 2 utterances using concede (no .lp twin)" in report.summary()


def test_a_broken_twin_is_caught(concede, tmp_path):
    """The twin is really compared: a twin that forgets the commitment disagrees, naming it."""
    pl = tmp_path / "concede.pl"
    pl.write_text(concede.read_text())
    pl.with_suffix(".lp").write_text("#program concede(s).\n"
                                     "violation(s, concede_not_standing) :- field(s, target, T), not stands(s, T).\n")
    candidates = [{"turn": 1, "speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]},
                  {"turn": 2, "speaker": "bob", "ops": [{"op": "concede", "target": "o1"}]}]
    report = check_history(Header.model_validate(TALK), candidates, extensions=[pl])
    assert not report.ok
    assert any("utterance 2 (turn 2) transitions of op [0] concede element: Prolog ('commit', 'bob', 1) but ASP absent"
               in m for m in report.mismatches), report.mismatches


def _announce_lines() -> tuple[str, str]:
    """The two `announce` lines docs/extending.md gives for a concede that publishes its target."""
    text = DOC.read_text()
    pl = re.search(r"`(effect\(concede, _, Op, announce\(T\)\) :- [^`]*)`", text).group(1)
    lp = re.search(r"`(effect\(s, announce\(T\)\) :- [^`]*)`", text).group(1)
    return pl, lp


@pytest.fixture(scope="module")
def announcing_concede(concede, concede_twin, tmp_path_factory) -> Path:
    pl_line, lp_line = _announce_lines()
    path = tmp_path_factory.mktemp("announce") / "concede.pl"
    path.write_text(concede.read_text() + "\n" + pl_line + "\n")
    path.with_suffix(".lp").write_text(concede_twin.read_text() + "\n" + lp_line + "\n")
    return path


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(data=st.data(), actual=st.booleans())
def test_an_announcing_twin_agrees_three_ways_with_a_world_model(announcing_concede, data, actual):
    """docs/extending.md's `announce` line in both twins: the world model judges the announcement
    the same way on both sides (the drivers derive it from the effect)."""
    header = Header.model_validate(epistemic_header(actual))
    engine = Engine(header, extensions=[announcing_concede])
    candidates = []
    for t in range(1, data.draw(st.integers(4, 12), label="length") + 1):
        claimed = sorted(engine.state.claimants) or ["x0"]
        concede_op = st.builds(lambda c: {"op": "concede", "target": c}, st.sampled_from(claimed))
        ops = data.draw(st.lists(st.one_of(ops_for(engine.state), concede_op), min_size=1, max_size=2), label="ops")
        u = {"turn": t, "speaker": data.draw(st.sampled_from(["alice", "bob", "carol"]), label="who"), "ops": ops}
        candidates.append(u)
        try:
            engine.apply(u)
        except PreconditionError:
            pass
    engine.close()
    report = check_history(header, candidates, extensions=[announcing_concede])
    assert report.ok, report.mismatches[:5]
    assert not report.given


FALSE_ANNOUNCEMENT = [
    {"turn": 1, "speaker": "alice", "ops": [{"op": "observe", "claim": "x0"}]},
    {"turn": 2, "speaker": "alice", "ops": [{"op": "hypothesize", "claim": "-x4", "deps": ["x0"]}]},
    {"turn": 3, "speaker": "bob", "ops": [{"op": "concede", "target": "-x4"}]},  # -x4 is false in the actual world
]


def test_a_false_announcement_is_rejected_on_both_sides(announcing_concede, tmp_path):
    header = Header.model_validate(epistemic_header(True))
    report = check_history(header, FALSE_ANNOUNCEMENT, extensions=[announcing_concede])
    assert report.ok, report.mismatches
    assert report.accepted == 2
    # a twin that forgets the announce line accepts what the rules reject: the check says so
    pl = tmp_path / "concede.pl"
    pl.write_text(announcing_concede.read_text())
    pl.with_suffix(".lp").write_text(announcing_concede.with_suffix(".lp").read_text().split("effect(s, announce")[0])
    report = check_history(header, FALSE_ANNOUNCEMENT, extensions=[pl])
    assert ("utterance 3 (turn 3, bob, ops concede): engine rejected [announce_false (op [0] concede)] "
            "but ASP accepted; first differing code: announce_false (op [0] concede)") in report.mismatches
