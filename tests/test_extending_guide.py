"""docs/extending.md, executed: its example files, its commands and their output,
its predicate table, and the two walkthrough operations (withdraw, merge)
checked three ways (Python state = Prolog = ASP) on fixed and random histories."""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from grounded import Engine, PreconditionError
from grounded.crosscheck.check import check_history
from grounded.dmap.model import Header
from grounded.solvers.prolog import PrologRules, rules_dir

from .test_properties import HEADER, ops_for

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "extending.md"
EXAMPLES = ROOT / "examples" / "extensions"
WITHDRAW, MERGE = EXAMPLES / "withdraw.pl", EXAMPLES / "merge.pl"

FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)
HASH = re.compile(r"\b[0-9a-f]{12,64}\b")


def blocks(lang: str) -> list[str]:
    return [body for kind, body in FENCE.findall(DOC.read_text()) if kind == lang]


def shown_file(body: str) -> str | None:
    """The example file a block shows: its first line is `% NAME -- ...` or `# NAME -- ...`."""
    m = re.match(r"[%#] ([\w.]+) --", body)
    return m.group(1) if m else None


# -- the doc shows the example files as they are ---------------------------------------------


def test_every_example_file_is_shown_in_the_doc_exactly():
    shown = {name: body for lang in ("prolog", "asp", "yaml") for body in blocks(lang)
             if (name := shown_file(body)) is not None}
    files = {p.name for p in EXAMPLES.iterdir() if p.suffix in (".pl", ".lp", ".yaml")}
    assert set(shown) == files
    for name, body in shown.items():
        assert body == (EXAMPLES / name).read_text(), f"docs/extending.md shows {name} other than the file"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.pl")), ids=lambda p: p.stem)
def test_the_example_rule_files_use_only_the_documented_layer(path):
    assert PrologRules.get().lint(path) == []


# -- the doc's sessions, run --------------------------------------------------------------------


def sessions() -> list[tuple[str, str]]:
    """Every `$ command` of the doc's console blocks with the output shown under it."""
    out = []
    for body in blocks("console"):
        for chunk in re.split(r"^(?=\$ )", body, flags=re.M):
            if chunk.startswith("$ "):
                command, _, shown = chunk[2:].partition("\n")
                out.append((command, shown))
    return out


def normal(text: str) -> str:
    """Content hashes (the rules version, an extension's sha256) vary with the files: not compared."""
    return HASH.sub("<hash>", text).rstrip()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A copy of examples/extensions, where the doc's commands run in order (they share files)."""
    work = tmp_path_factory.mktemp("guide") / "extensions"
    shutil.copytree(EXAMPLES, work)
    return work


WRITERS = ("grounded new-op", "grounded scenario-to-log")
"""The doc's commands that write files later commands read."""


@pytest.mark.slow
def test_the_doc_sessions_print_what_the_doc_shows(workdir):
    """The Python sessions (doctest, in document order, sharing one namespace), then the shell
    commands, which may read the event logs the Python sessions wrote.  The commands that only read
    run two at a time, those that write (``WRITERS``) alone; `# exits N` on a command is its exit
    status (else 0)."""
    text = DOC.read_text()
    namespace: dict = {}
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        for body in blocks("pycon"):
            test = doctest.DocTestParser().get_doctest(body, namespace, "extending.md", str(DOC), 0)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
            runner.run(test, clear_globs=False)
            namespace.update(test.globs)
            assert runner.failures == 0, f"a Python session of docs/extending.md failed:\n{body}"
    finally:
        os.chdir(cwd)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "COLUMNS": "200", "NO_COLOR": "1"}

    def run(command: str) -> subprocess.CompletedProcess:
        return subprocess.run(command, shell=True, cwd=workdir, env=env, capture_output=True, text=True, timeout=120)

    commands = sessions()
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = []
        for command, _ in commands:
            if command.startswith(WRITERS):  # it writes what later commands read: run it after the others, alone
                wait(futures)
                futures.append(pool.submit(run, command))
                wait(futures)
            else:
                futures.append(pool.submit(run, command))
        results = [f.result() for f in futures]
    for (command, shown), done in zip(commands, results, strict=True):
        status = re.search(r"#\s*exits (\d)\s*$", command)
        assert done.returncode == (int(status.group(1)) if status else 0), (command, done.stderr)
        assert normal(done.stdout + done.stderr) == normal(shown), command
    assert len(blocks("pycon")) >= 3 and len(commands) >= 15
    assert "grounded.core.errors.InputError: ops[0].second: Field required" in text


def test_both_operations_are_checked_three_ways_by_the_doc():
    """The walkthroughs run `grounded check` on an event log written with each operation."""
    checks = [(c, s) for c, s in sessions() if c.startswith("grounded check")]
    for op in ("withdraw", "merge"):
        (shown,) = [s for c, s in checks if f"-x {op}.pl" in c and ".jsonl" in c]
        assert "all agree (Python, Prolog and ASP)" in shown
    replays = [s for c, s in sessions() if "# exits 2" in c]
    assert any("written with the extension withdraw.pl" in s for s in replays)


def test_the_third_example_is_written_with_the_authors_commands_in_order():
    """concur's walkthrough: new-op -> test-op -> scenario-to-log -> check -> retractions -> fuzz,
    each command run by the test above (it is one of the doc's sessions)."""
    commands = [c for c, _ in sessions() if "concur" in c]
    steps = ["grounded new-op concur", "grounded test-op draft/concur.test.yaml", "grounded lint concur.pl",
             "grounded test-op concur.test.yaml", "grounded scenario-to-log concur.yaml concur.jsonl",
             "grounded check concur.jsonl", "grounded retractions concur.jsonl", "grounded fuzz -x concur.pl"]
    found = [next(i for i, c in enumerate(commands) if c.startswith(step)) for step in steps]
    assert found == sorted(found)
    shown = dict(sessions())
    assert "6 passed, 0 failed" in shown["grounded test-op concur.test.yaml"]
    assert "all agree (Python, Prolog and ASP)" in shown["grounded check concur.jsonl -x concur.pl"]


# -- the predicate table matches both vocabulary files ----------------------------------------


def table_rows() -> list[tuple[str, str]]:
    """(Prolog cell, ASP cell) of each row of the doc's author-predicate table."""
    section = DOC.read_text().split("<!-- author-predicates -->")[1]
    rows: list[tuple[str, str]] = []
    for line in section.splitlines():
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] in ("Prolog", "---"):
            continue
        rows.append((cells[0], cells[1]))
    return rows


SIGNATURE = re.compile(r"`(\w+)/(\d+)`")


def asp_step_predicates() -> set[tuple[str, int]]:
    """What asp/vocabulary.lp defines for rule authors: every head of its `#program step(s)` part
    and `has_authority/1` (part base), less its own plumbing (need_*, speaks_*, not_abandoned)."""
    text = (rules_dir().parent / "asp" / "vocabulary.lp").read_text()
    heads = set()
    for m in re.finditer(r"^(\w+)\(([^:]*?)\)\s*:-", text, re.M):
        args = re.sub(r"\([^()]*\)", "", m.group(2))
        heads.add((m.group(1), args.count(",") + 1))
    plumbing = {"speaks_cand", "speaks_older", "not_abandoned", "effect"}
    return {h for h in heads if h[0] not in plumbing and not h[0].startswith("need_")}


def test_the_table_names_exactly_the_prolog_layer():
    _, _, _, _, layer = PrologRules.get().request(("vocabulary",))
    exported = {(str(n), int(a)) for _, n, a in layer}
    listed = {(n, int(a)) for prolog, _ in table_rows() for n, a in SIGNATURE.findall(prolog)}
    assert listed == exported


def asp_input_facts() -> set[tuple[str, int]]:
    """The facts the bridge gives the ASP program, as asp/history.lp's header lists them
    (`field(S, Key, L).`, `world_model.` ...)."""
    text = (rules_dir().parent / "asp" / "history.lp").read_text()
    header = text.split("% Input facts", 1)[1].split("% A fresh control", 1)[0]
    facts = set()
    for name, args in re.findall(r"\b(\w+)(?:\(([^()]*)\))?\.", header):
        facts.add((name, args.count(",") + 1 if args else 0))
    return facts


def test_the_table_names_exactly_the_asp_layer():
    listed = {(n, int(a)) for _, asp in table_rows() for n, a in SIGNATURE.findall(asp)}
    asp = asp_step_predicates()
    vocabulary = (rules_dir().parent / "asp" / "vocabulary.lp").read_text()
    # what an operation's rules state for the layer to read (not defined by it, but read there)
    stated = {("introduces", 2), ("retracts", 4), ("ask", 2)}
    assert all(re.search(rf"\b{n}\(s,", vocabulary) for n, _ in stated)
    assert asp - listed == set(), "defined in asp/vocabulary.lp but not in the table"
    assert listed - asp - stated - asp_input_facts() == set(), "in the table but not in asp/vocabulary.lp"


# -- rejections --------------------------------------------------------------------------------


TALK: dict[str, dict] = {"agents": {"ana": {}, "ben": {}, "cy": {}}}


def codes(engine: Engine, utterance: dict) -> list[str]:
    before = engine.snapshot()
    with pytest.raises(PreconditionError) as info:
        engine.apply(utterance)
    assert engine.snapshot() == before, "a rejected utterance changed the state"
    return info.value.codes


def test_withdraw_by_someone_else_is_refused_naming_the_author():
    engine = Engine(TALK, extensions=[WITHDRAW])
    engine.apply({"speaker": "ana", "ops": [{"op": "observe", "claim": "o1"}]})
    with pytest.raises(PreconditionError, match="ben did not observe o1 \\(ana did\\)"):
        engine.apply({"speaker": "ben", "ops": [{"op": "withdraw", "target": "o1"}]})
    assert codes(engine, {"speaker": "ben", "ops": [{"op": "withdraw", "target": "o1"}]}) == ["withdraw_not_author"]
    assert codes(engine, {"speaker": "ana", "ops": [{"op": "withdraw", "target": "o9"}]}) == [
        "withdraw_target_unknown"]
    engine.apply({"speaker": "ben", "ops": [{"op": "hypothesize", "claim": "h1", "deps": ["o1"],
                                            "explains": ["o1"]}]})
    assert codes(engine, {"speaker": "ben", "ops": [{"op": "withdraw", "target": "h1"}]}) == [
        "withdraw_not_observation"]
    engine.apply({"speaker": "ana", "ops": [{"op": "withdraw", "target": "o1"}]})
    assert codes(engine, {"speaker": "ana", "ops": [{"op": "withdraw", "target": "o1"}]}) == [
        "withdraw_already_abandoned"]


def test_withdraw_leaves_another_speakers_observation_standing():
    """Only the speaker's own word is taken back: a second witness still grounds what rests on it."""
    engine = Engine(TALK, extensions=[WITHDRAW])
    engine.apply({"speaker": "ana", "ops": [{"op": "observe", "claim": "o1"}]})
    engine.apply({"speaker": "ben", "ops": [{"op": "observe", "claim": "o1"},
                                            {"op": "hypothesize", "claim": "h1", "deps": ["o1"], "explains": ["o1"]}]})
    engine.apply({"speaker": "ana", "ops": [{"op": "withdraw", "target": "o1"}]})
    assert engine.verify("h1").grounded
    assert [engine.state.arg(a).standing for a in engine.state.claimants["o1"]] == ["abandoned", "active"]
    engine.apply({"speaker": "ben", "ops": [{"op": "withdraw", "target": "o1"}]})
    assert not engine.verify("h1").grounded


def test_merge_needs_a_shared_explained_observation():
    engine = Engine(TALK, extensions=[MERGE])
    engine.apply({"speaker": "ana", "ops": [{"op": "observe", "claim": "o1"}, {"op": "observe", "claim": "o2"},
                                            {"op": "hypothesize", "claim": "h1", "deps": [], "explains": ["o1"]},
                                            {"op": "hypothesize", "claim": "h2", "deps": [], "explains": ["o2"]}]})
    assert codes(engine, {"speaker": "ben", "ops": [{"op": "merge", "claim": "h3", "first": "h1",
                                                     "second": "h2"}]}) == ["merge_nothing_shared"]
    assert sorted(codes(engine, {"speaker": "ben", "ops": [{"op": "merge", "claim": "h1", "first": "h1",
                                                            "second": "o1"}]})) == [
        "merge_claim_stands", "merge_not_hypothesis"]
    assert codes(engine, {"speaker": "ben", "ops": [{"op": "merge", "claim": "h3", "first": "h1",
                                                     "second": "h1"}]}) == ["merge_same"]
    # once a third hypothesis explains o1 too, h1 and it merge; the merged ones are abandoned
    engine.apply({"speaker": "ben", "ops": [{"op": "hypothesize", "claim": "h4", "deps": ["o2"],
                                            "explains": ["o1"]}]})
    engine.apply({"speaker": "ben", "ops": [{"op": "merge", "claim": "h5", "first": "h1", "second": "h4"}]})
    assert codes(engine, {"speaker": "ben", "ops": [{"op": "merge", "claim": "h6", "first": "h1",
                                                     "second": "h2"}]}) == ["merge_not_standing"]
    h5 = engine.state.arg(engine.state.claimants["h5"][0])
    assert (h5.standing, sorted(h5.deps), sorted(h5.explains)) == ("active", ["o2"], ["o1"])
    assert "o1" in engine.state.open_problems  # a merge settles nothing


def test_merge_of_a_resolved_hypothesis_is_refused():
    engine = Engine(TALK, extensions=[MERGE])
    engine.apply({"speaker": "ana", "ops": [{"op": "observe", "claim": "o1"},
                                            {"op": "hypothesize", "claim": "h1", "deps": [], "explains": ["o1"]},
                                            {"op": "hypothesize", "claim": "h2", "deps": [], "explains": ["o1"]},
                                            {"op": "resolve", "target": "h1"}]})
    assert codes(engine, {"speaker": "ana", "ops": [{"op": "merge", "claim": "h3", "first": "h1",
                                                     "second": "h2"}]}) == ["merge_settled"]


REJECTED = [
    {"turn": 1, "speaker": "ana", "ops": [{"op": "observe", "claim": "o1"}, {"op": "observe", "claim": "o2"}]},
    {"turn": 2, "speaker": "ben", "ops": [{"op": "withdraw", "target": "o1"}]},
    {"turn": 3, "speaker": "ben", "ops": [{"op": "hypothesize", "claim": "h1", "deps": [], "explains": ["o1"]},
                                          {"op": "hypothesize", "claim": "h2", "deps": [], "explains": ["o2"]}]},
    {"turn": 4, "speaker": "ana", "ops": [{"op": "merge", "claim": "h3", "first": "h1", "second": "h2"}]},
    {"turn": 5, "speaker": "ana", "ops": [{"op": "withdraw", "target": "o1"}]},
]


def test_the_rejections_are_the_same_in_asp():
    report = check_history(Header.model_validate(TALK), REJECTED, extensions=[WITHDRAW, MERGE])
    assert report.ok, report.mismatches
    assert report.asp and not report.given
    assert report.accepted == 3


# -- random histories, three ways -------------------------------------------------------------


def extension_ops(engine: Engine, speaker: str) -> dict:
    """withdraw and merge drawn against the state, and hypotheses competing for an open
    observation, so that merges often have two hypotheses to merge.  Withdraw mostly names
    one of the speaker's own observations, sometimes someone else's."""
    dm = engine.state

    def kind(literal: str) -> str:
        return dm.props[literal.lstrip("-")].kind

    claimed = sorted(dm.claimants)
    observations = [c for c in claimed if kind(c) == "observation"]
    hypotheses = [c for c in claimed if kind(c) == "hypothesis"
                  and any(dm.in_standing(a) for a in dm.claimants[c])] or ["h0"]
    problems = [x for x in dm.open_problems if kind(x) == "observation"] or ["x0"]
    claimed = claimed or ["x0"]
    hypothesize = st.builds(lambda c, d, x: {"op": "hypothesize", "claim": c, "deps": d, "explains": [x]},
                            st.sampled_from(["h0", "h1", "h2", "h3", "h4"]),
                            st.lists(st.sampled_from(claimed), max_size=2, unique=True), st.sampled_from(problems))
    merge = st.builds(lambda c, p: {"op": "merge", "claim": c, "first": p[0], "second": p[1]},
                      st.sampled_from(["m0", "m1", "m2", "h3", "x1"]),
                      st.permutations(hypotheses + ["h0", "x0"]).map(lambda p: p[:2]))
    own = sorted({a.claim for a in dm.args if a.speaker == speaker and a.kind == "observation"})
    withdraw = st.builds(lambda t: {"op": "withdraw", "target": t}, st.sampled_from(own * 4 + observations + claimed))
    return {"withdraw": withdraw, "merge": merge, "hypothesize": hypothesize}


def competing_and_merged(engine: Engine):
    """Two hypotheses for one open observation (observed first if none is open), then their merge."""
    dm = engine.state
    problems = [x for x in dm.open_problems if dm.props[x.lstrip("-")].kind == "observation"]
    fresh = st.sampled_from(["x1", "x2", "x3"]).map(lambda x: (x, [{"op": "observe", "claim": x}]))
    observed = st.sampled_from(problems).map(lambda x: (x, [])) if problems else fresh

    def utterance(xo: tuple[str, list[dict]], a: str, b: str, m: str) -> list[dict]:
        x, first = xo
        return [*first, {"op": "hypothesize", "claim": a, "deps": [x], "explains": [x]},
                {"op": "hypothesize", "claim": b, "deps": [], "explains": [x]},
                {"op": "merge", "claim": m, "first": a, "second": b}]

    return st.builds(utterance, observed, st.sampled_from(["h0", "h1"]), st.sampled_from(["h2", "h3"]),
                     st.sampled_from(["m0", "m1", "h1"]))


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_histories_with_withdraw_and_merge_agree_three_ways(data):
    header = Header.model_validate(HEADER)
    engine = Engine(header, extensions=[WITHDRAW, MERGE])
    candidates = []
    for t in range(1, data.draw(st.integers(6, 16), label="length") + 1):
        who = data.draw(st.sampled_from(["alice", "bob", "carol"]), label="who")
        ours = extension_ops(engine, who)
        kind = data.draw(st.sampled_from(["built-in", "built-in", "withdraw", "merge", "hypothesize", "competing"]),
                         label="kind")
        if kind == "built-in":
            ops = data.draw(st.lists(ops_for(engine.state), min_size=1, max_size=2), label="ops")
        elif kind == "competing":
            ops = data.draw(competing_and_merged(engine), label="ops")
        else:
            ops = [data.draw(ours[kind], label="op")]
        u = {"turn": t, "speaker": who, "ops": ops}
        candidates.append(u)
        try:
            engine.apply(u)
            for op in ops:
                if op["op"] in ("withdraw", "merge"):
                    event(f"{op['op']} accepted")
        except PreconditionError:
            pass
    engine.close()
    report = check_history(header, candidates, extensions=[WITHDRAW, MERGE])
    assert report.asp and not report.given, "the twins beside the rule files are used"
    assert report.ok, report.mismatches[:5]
