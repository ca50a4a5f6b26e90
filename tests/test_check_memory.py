"""`grounded check` on argument-heavy logs: the ASP program it grounds grows with the history, not its square.

Issue 23: on a log where every turn creates an argument, the check's memory grew
with turns x problems, because every Hypothesize that names nothing it explains
asked, at its point, whether each observation and question so far was queued.
asp/oneshot.lp now reads "is any problem queued before this utterance" off the
problem events (a segment tree over the utterances); these tests hold the size
of the ground program to linear growth (a deterministic count, clingo's own
statistics, instead of a timed run) and the summarised queue to the engine's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine, PreconditionError
from grounded.crosscheck.check import candidates_of, check_history
from grounded.dmap.model import Header
from grounded.solvers import facts as F
from grounded.solvers import history as history_module
from grounded.solvers.history import OneShotHistory
from tests import shapes
from tests.synthetic import argument_heavy

from .test_crosscheck import draw_candidates
from .test_properties import HEADER as PROPERTY_HEADER
from .test_properties import budget

HEADER = {"agents": {"alice": {"authority": True}, "bob": {}, "carol": {}}}


def one_shot(path: Path, **options) -> OneShotHistory:
    """The one-shot history of a log (``options``: window, batch ...), given every utterance, not solved."""
    header, candidates, _ = candidates_of(path)
    with Engine(header) as engine:
        history = OneShotHistory(header, engine.registry, **options)
        for c in candidates:
            engine.apply(c)
            history.add(c, engine.last_verdicts)
    return history


def ground_atoms(path: Path) -> int:
    """The atoms of the one-shot history program (its first, decisive ground call) for a log."""
    history = one_shot(path)
    history.solve()
    return int(history.statistics["problem"]["lp"]["atoms"])


def test_the_ground_program_of_an_argument_heavy_log_grows_linearly(tmp_path):
    """Twice the turns, at most 2.3 times the ground atoms (it was 3.2 times at 60 -> 120 turns, growing)."""
    sizes = {}
    for k in (60, 120):
        path = tmp_path / f"log{k}.jsonl"
        assert argument_heavy(k, 1, path) == k
        sizes[k] = ground_atoms(path)
    assert sizes[120] / sizes[60] < 2.3, sizes


def window_atoms(path: Path, window: int, monkeypatch) -> list[int]:
    """The ground atoms of each window of the one-shot history of a log (clingo's statistics of each
    window's control: its history program and the queue's part grounded after it)."""
    sizes: list[int] = []
    decide = history_module._decide

    def counted(*args):
        shown, statistics, times = decide(*args)
        sizes.append(int(statistics["problem"]["lp"]["atoms"]))
        return shown, statistics, times

    history = one_shot(path, window=window)
    with monkeypatch.context() as patched:
        patched.setattr(history_module, "_decide", counted)
        history.solve()
    return sizes


@pytest.mark.slow
def test_a_fan_of_competing_hypotheses_grounds_linearly_per_window(tmp_path, monkeypatch):
    """Many hypotheses explaining one question: each is a candidate event on the question's queue
    status.  Pairing each candidate that may open it with each later one that may close it grew the
    window's ground program with the square of the hypotheses (K=100 -> 200 in one window: 68,655 ->
    410,667 atoms, 6 times); the candidates chained one after the other (asp/oneshot.lp) make it
    linear: twice the turns at most 2.3 times the atoms, and a window of 60 utterances holds its own
    utterances' atoms plus the state it is seeded with (a few atoms per earlier utterance: the
    arguments, their standing, Dep, explanations and the problems still queued), nothing more."""
    whole = {}
    for k in (100, 200):
        path = tmp_path / f"fan{k}.jsonl"
        assert shapes.fan(k, 3, path) == k
        (whole[k],) = window_atoms(path, 1000, monkeypatch)
    assert whole[200] / whole[100] < 2.3, whole
    path = tmp_path / "fan360.jsonl"
    assert shapes.fan(360, 3, path) == 360
    windows = window_atoms(path, 60, monkeypatch)
    assert len(windows) == 6
    assert windows[0] < 1.3 * whole[100] * 60 / 100, (windows, whole)
    assert all(size <= windows[0] + 50 * 60 * i for i, size in enumerate(windows)), windows


@pytest.mark.slow
def test_windows_that_grow_with_the_history_seed_it_with_less(tmp_path, monkeypatch):
    """Each window is seeded with the whole state decided before it (every argument, its standing, Dep,
    the problems still queued), so windows of a fixed size w give K^2 / 2w seeds in all (on this fan
    with w = 10: 40 windows, 15 times its own facts); windows that grow with the history before them
    (WINDOW_GROWTH, up to WINDOW_MOST times w) seed it with about half (24 windows, 8 times)."""
    path = tmp_path / "fan.jsonl"
    assert shapes.fan(400, 3, path) == 400
    given = {"facts": 0, "seeds": 0, "windows": 0}
    decide = history_module._decide

    def counted(files, operations, facts, seeds):
        given["windows"] += 1
        given["seeds"] += len(seeds)
        return decide(files, operations, facts, seeds)

    history = one_shot(path, window=10)
    given["facts"] = sum(map(len, history._of))
    monkeypatch.setattr(history_module, "_decide", counted)
    history.solve(affected=False)
    assert given["windows"] < 30, given
    assert given["seeds"] < 10 * given["facts"], given


def u(turn: int, who: str, *ops: dict) -> dict:
    return {"turn": turn, "speaker": who, "text": "", "ops": list(ops)}


# The queue fills, empties (a resolved explanation settles o1; o2 is revised) and fills
# again; a Hypothesize naming nothing it explains is accepted only while something is
# queued.  Turn 10 takes o3 out and then hypothesizes in the same utterance: its second
# step sees the first one's tentative close.
QUEUE = [
    u(1, "alice", {"op": "observe", "claim": "o1"}),
    u(2, "bob", {"op": "hypothesize", "claim": "h1", "deps": ["o1"], "explains": ["o1"]}),
    u(3, "alice", {"op": "resolve", "target": "h1"}),
    u(4, "bob", {"op": "hypothesize", "claim": "h2", "deps": ["o1"]}),
    u(5, "carol", {"op": "observe", "claim": "o2"}),
    u(6, "bob", {"op": "hypothesize", "claim": "h3", "deps": ["o2"]}),
    u(7, "carol", {"op": "revise", "target": "o2"}),
    u(8, "bob", {"op": "hypothesize", "claim": "h4", "deps": ["o1"]}),
    u(9, "carol", {"op": "observe", "claim": "o3"}, {"op": "hypothesize", "claim": "h5", "deps": ["o3"]}),
    u(10, "alice", {"op": "revise", "target": "o3"}, {"op": "hypothesize", "claim": "h6", "deps": ["o1"]}),
    u(11, "bob", {"op": "hypothesize", "claim": "h7", "deps": ["o1"]}),
]


def queued(*options: dict) -> list[OneShotHistory]:
    """One-shot histories of QUEUE, one for each dict of options (window, batch, apart, bound), each given it all."""
    header = Header.model_validate(HEADER)
    with Engine(header) as engine:
        made = [OneShotHistory(header, engine.registry, **o) for o in options]
    for c in QUEUE:
        for history in made:
            history.add(c)
    return made


@pytest.mark.parametrize("incremental", [False, True], ids=["one shot", "turn by turn"])
def test_the_summarised_queue_accepts_and_rejects_as_the_engine_does(incremental):
    rejected = []
    with Engine(HEADER) as engine:
        for utterance in QUEUE:
            try:
                engine.apply(utterance)
            except PreconditionError as exc:
                assert [v.code for v in exc.violations] == ["hypothesize_nothing_to_explain"]
                rejected.append(utterance["turn"])
    assert rejected == [4, 8, 10]
    report = check_history(Header.model_validate(HEADER), QUEUE, incremental=incremental)
    assert report.ok, report.mismatches
    assert report.accepted == len(QUEUE) - 3


@pytest.mark.slow
@budget(15)
@given(data=st.data())
def test_a_history_decided_window_by_window_is_decided_whole(data):
    """A long history is decided `window` utterances at a time, each window a fresh control seeded
    with what the earlier ones decided (the summarised queue included), and Affected* is asked
    `batch` literals at a time: with a window of 3 and batches of 2 the answer, views included,
    is the one of a single window and batch (a declared question included)."""
    header = Header.model_validate({**PROPERTY_HEADER, "props": [*PROPERTY_HEADER["props"],
                                                                 {"id": "q9", "kind": "question"}]})
    candidates = draw_candidates(data, max_size=20, header=header.model_dump())
    with Engine(header) as engine:
        registry = engine.registry
    windows, whole = OneShotHistory(header, registry, window=3, batch=2), OneShotHistory(header, registry)
    for c in candidates:
        windows.add(c)
        whole.add(c)
    assert sorted(map(str, windows.solve().facts)) == sorted(map(str, whole.solve().facts))


@pytest.mark.slow
@pytest.mark.parametrize("window", [1, 2, 4])
def test_the_queue_carried_into_a_window_is_the_one_the_earlier_windows_left(window):
    """Each window starts from the problems the windows before it left queued: the history
    above decided a few utterances at a time equals it decided whole."""
    windows, whole = queued({"window": window}, {})
    decided = windows.solve()
    assert sorted(decided.accepted) == [1, 2, 3, 5, 6, 7, 9, 11]
    assert sorted(map(str, decided.facts)) == sorted(map(str, whole.solve().facts))


@pytest.mark.slow
def test_the_probe_holds_no_engine_of_its_own_once_a_state_is_probed(tmp_path, monkeypatch):
    """Issue 23: a second engine holding the whole log doubled the check's peak.  The probe runs inside
    the check: a probed state's candidates go to a scratch engine holding that state, released before
    the check's replay goes on (crosscheck/probe.py), so only the check's own engine is alive after it."""
    import gc

    from grounded.crosscheck.probe import Probing

    path = tmp_path / "log.jsonl"
    assert argument_heavy(40, 1, path) == 40
    header, candidates, _ = candidates_of(path)
    alive: list[int] = []
    take = Probing.take

    def spy(self, *args, **kwargs):
        take(self, *args, **kwargs)
        gc.collect()
        # type(), not isinstance: isinstance reads __class__, which torch's deprecated shims warn on
        alive.append(sum(issubclass(type(o), Engine) for o in gc.get_objects()))

    monkeypatch.setattr(Probing, "take", spy)
    probing = Probing(header, candidates, per_op=1)
    report = check_history(header, candidates, probing=probing)
    assert len(alive) == len(probing.report.states) > 1, probing.report.states
    assert alive == [1] * len(alive), alive
    assert report.ok and probing.report.mismatches == []


@pytest.mark.slow
@pytest.mark.parametrize("bound", [0, 2**31], ids=["a process a piece", "pieces share a process"])
def test_a_history_decided_apart_is_decided_as_in_one_process(bound):
    """Issue 23: with ``apart`` each window, the view and each batch of Affected* is grounded in a
    process of its own (clingo never frees a symbol, so one process held every window's atoms);
    the answer is the one of a single process, and ``affected()`` hands the closures out a batch
    at a time, together the ones the single process shows; whether a process takes one window (or
    batch) or goes on while it is below ``bound``."""
    apart, whole = queued({"window": 4, "batch": 2, "apart": True, "bound": bound}, {})
    answer, expected = apart.solve(affected=False), whole.solve()
    shown = {str(s) for s in expected.facts}
    assert {str(s) for s in answer.facts} == {s for s in shown if not s.startswith(("now_hop", "now_affected"))}
    batches = list(apart.affected(answer))
    assert len(batches) > 1, batches
    star = {(lit, a, hop) for stars, _ in batches for lit, hops in stars.items() for a, hop in hops.items()}
    one = {(lit, a) for _, ones in batches for lit, args in ones.items() for a in args}
    ids = expected.arg_id
    assert star == {(h.lit, ids[h.a], h.hop) for h in expected.facts.query(F.NowHop).all()} != set()
    assert one == {(h.lit, ids[h.a]) for h in expected.facts.query(F.NowAffectedOne).all()} != set()


def sleep_long() -> None:
    """A piece that would outlive its caller (a module-level function: it is sent to a child)."""
    import time

    time.sleep(120)


def test_a_piece_apart_ends_with_its_caller(tmp_path):
    """A check stopped at a time limit (killed) left its pieces running unowned, holding their memory
    and the caller's standard error; a piece now gets SIGKILL when its caller ends."""
    import signal
    import time

    caller = subprocess.Popen([sys.executable, "-c", "from grounded.solvers.apart import run_apart; "
                               "from tests.test_check_memory import sleep_long; run_apart('a piece', sleep_long)"],
                              cwd=Path(__file__).resolve().parents[1])
    children = Path(f"/proc/{caller.pid}/task/{caller.pid}/children")
    piece = None
    for _ in range(200):  # at most 20 s for the piece to start
        found = children.read_text().split() if children.exists() else []
        if found:
            piece = int(found[0])
            break
        time.sleep(0.1)
    assert piece is not None, "the piece never started"
    time.sleep(1.0)  # past the piece's start, where it asks for the parent-death signal
    caller.send_signal(signal.SIGKILL)
    caller.wait(timeout=10)
    for _ in range(100):  # at most 10 s for it to go
        state = Path(f"/proc/{piece}/stat")
        if not state.exists() or state.read_text().split(") ")[1].startswith("Z"):
            break
        time.sleep(0.1)
    else:
        os.kill(piece, signal.SIGKILL)
        raise AssertionError("the piece outlived its caller")


def run_caller(script: str, *args: str) -> subprocess.CompletedProcess:
    """``script`` run as a caller of pieces apart, in a fresh interpreter at the repository's root (so that
    it imports this module, whose functions it sends its pieces)."""
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])


def address_space() -> tuple[int, int]:
    """A piece's address-space limit and what it maps (a module-level function: it is sent to a child)."""
    import resource

    from grounded.solvers.apart import mapped_bytes

    return resource.getrlimit(resource.RLIMIT_AS)[0], mapped_bytes()


BUDGETED_CALLER = """
import json, resource
from grounded.solvers.apart import mapped_bytes, run_apart
from tests.test_check_memory import address_space
held = bytearray(300 * 1024 ** 2)  # the caller holds more than a fresh piece maps
budget = 400 * 1024 ** 2
resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + budget, resource.RLIM_INFINITY))
left = resource.getrlimit(resource.RLIMIT_AS)[0] - mapped_bytes()
limit, mapped = run_apart("a piece", address_space)
print(json.dumps({"left": left, "piece_limit": limit, "piece_mapped": mapped}))
"""


@pytest.mark.slow
def test_a_piece_apart_may_use_only_what_its_callers_memory_budget_has_left():
    """`grounded check --memory-limit` bounds the check, not each of its processes: an inherited
    RLIMIT_AS is the caller's absolute figure, and let a piece map as much again beside its waiting
    caller.  A piece now gets what the caller's budget has left, beyond its own start-up."""
    import json

    done = run_caller(BUDGETED_CALLER)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    beyond = found["piece_limit"] - found["piece_mapped"]
    assert 0 < beyond <= found["left"], found


class NoEngineHere:
    """An Engine that cannot be built: where it replaces the check's, the check must build its engine elsewhere."""

    def __init__(self, *args, **kwargs):
        raise AssertionError("the check built its engine in the caller's process")


@pytest.mark.slow
@pytest.mark.parametrize("probes", [0, 2], ids=["the check", "the check and its probe"])
def test_the_check_of_a_long_log_runs_in_a_process_of_its_own(tmp_path, monkeypatch, probes):
    """Issue 23: the check of a long log held its replay, its ASP answer and its comparison in the
    caller's process (~190 MB at 8,000 argument turns), beside every probed check that followed, and
    reading the log through the rules left the caller their clause store (62 MB at 20,000 turns).  The
    log is now read and checked in a process of its own, its probe built and run there too (the probe runs
    inside the check, crosscheck/probe.py): the caller neither reads the log nor builds an engine, and the
    report (the probe's states, candidates and lines included) is the one of a check in the caller's
    process."""
    from grounded.crosscheck import check as module

    path = tmp_path / "log.jsonl"
    assert argument_heavy(12, 1, path) == 12
    here = module.check(path, probes=probes)
    assert (here.probe is not None and here.probe.probes > 0) == (probes > 0), here.probe
    monkeypatch.setattr(module, "APART_FROM", 12)
    monkeypatch.setattr(module, "Engine", NoEngineHere)

    def read_here(*args, **kwargs):
        raise AssertionError("the caller read the log through the rules: their clause store stays with it")

    monkeypatch.setattr(module, "candidates_of", read_here)
    phases: list[tuple[str, int, int]] = []
    apart = module.check(path, probes=probes, progress=lambda *phase: phases.append(phase))
    assert apart.to_json() == here.to_json()
    assert apart.ok and apart.utterances == 12 and apart.literals > 0
    assert ("check", 0, 1) in phases and ("replay", 12, 12) not in phases


@pytest.mark.slow
def test_grounded_checks_child_checks_a_long_log_itself(tmp_path, monkeypatch):
    """`grounded check` runs every check in a child process under its memory budget (crosscheck/budget.py); for a
    long log that child started a second process for the check and only waited on it (a SWI-Prolog load and the
    report pickled for nothing, and the progress one phase).  The child now checks the log itself."""
    import json

    from grounded.crosscheck import budget
    from grounded.crosscheck import check as module

    path = tmp_path / "log.jsonl"
    assert argument_heavy(12, 1, path) == 12
    monkeypatch.setattr(module, "APART_FROM", 12)
    pieces: list[str] = []
    run = module.run_apart

    def spy(what, fn, *args):
        pieces.append(what)
        return run(what, fn, *args)

    monkeypatch.setattr(module, "run_apart", spy)
    spec = {"file": str(path), "at": None, "extensions": [], "incremental": False, "retraction": False,
            "every_turn": None, "seed": None, "partial": False, "allow_rules_change": False, "probes": 0,
            "as_json": True}
    result = tmp_path / "result.json"
    assert budget._child(json.dumps(spec), str(2 ** 34), str(result)) == 0
    answer = json.loads(result.read_text())
    assert answer["ok"] and answer["utterances"] == 12, answer
    assert pieces == [], pieces
    assert module.check(path, probes=0).to_json() == answer["report"]
    assert pieces == [f"the check of {path}"]  # a library caller's long log still goes to a process of its own


@pytest.mark.slow
def test_the_view_apart_grounds_its_facts_as_it_parses_them(monkeypatch):
    """Issue 23: the view's process, the largest piece of a long check (534 MB at 20,000 argument
    turns), held the text of every fact and decided atom, a list of their symbols and a third list
    of both while it grounded.  It now reads each symbol into the control as it parses it, and lets
    each text go once read: the control is built from no list, and nothing but this test holds the
    texts by then.  The answer is the one of the view in the caller's process."""
    from grounded.solvers import history as module

    apart, here = queued({"window": 4, "apart": True}, {"window": 4})
    texts: list[list[str]] = []
    built: list[tuple[bool, list[int]]] = []
    run, control = module.run_apart, module._facts_control

    def view_here(what, fn, *args):
        if what != "the ASP view":
            return run(what, fn, *args)
        texts.extend(args[2])
        return fn(*args)  # in this process, to watch it

    def spy(files, operations, symbols, *rest):
        ctl = control(files, operations, symbols, *rest)
        if texts:
            built.append((isinstance(symbols, list), [sys.getrefcount(t) for t in texts]))
        return ctl

    monkeypatch.setattr(module, "run_apart", view_here)
    monkeypatch.setattr(module, "_facts_control", spy)
    answer = apart.solve(affected=False)
    assert len(texts) > 2 and all(texts), texts  # the header's facts, each utterance's, the decided atoms
    # each held by `texts` and this loop's `t` (getrefcount's own counted)
    assert built == [(False, [3] * len(texts))], built
    assert {str(s) for s in answer.facts} == {str(s) for s in here.solve(affected=False).facts}


_HELD: list = []


def fill_memory_then(ending: str) -> object:
    """A piece that fills what its budget left, then returns all it holds (pickling it needs as much
    again) or raises MemoryError with nothing left to pickle the exception in (a module-level function:
    it is sent to a child)."""
    hoard: list = []
    for size in (1 << 20, 1 << 12, 1 << 6):  # down to small objects, so that nearly nothing is left
        try:
            while True:
                hoard.append(bytearray(size))
        except MemoryError:
            pass
    if ending == "return":
        return hoard
    _HELD.append(hoard)
    raise MemoryError


STARVED_CALLER = """
import resource, sys
from grounded.solvers.apart import ApartFailed, mapped_bytes, run_apart
from tests.test_check_memory import fill_memory_then
resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + 200 * 1024 ** 2, resource.RLIM_INFINITY))
try:
    run_apart("a piece", fill_memory_then, sys.argv[1])
except MemoryError:
    print("MemoryError")
except ApartFailed as exc:
    print("died" if exc.died else f"failed: {exc}")
"""


@pytest.mark.slow
@pytest.mark.parametrize("ending", ["return", "raise"])
def test_a_piece_apart_that_runs_out_of_memory_says_so_even_with_nothing_left(ending):
    """A piece that ran out of memory could not pickle its answer (or its MemoryError) back and ended
    with a traceback and exit status 1, which its caller took for a failure other than memory: under
    `grounded check --memory-limit`, an internal error instead of the memory-budget stop (CI, stop 28)."""
    done = run_caller(STARVED_CALLER, ending)
    assert done.stdout.strip() in ("MemoryError", "died"), done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr


@pytest.mark.slow
def test_the_view_apart_is_sent_the_text_the_windows_were_sent(monkeypatch):
    """``solve`` apart made every input fact text for the processes of windows, then made each again, and
    every decided atom (which the windows' processes had sent back as text), for the view's process: the
    view is now sent those very texts, and this process makes each input fact text once and no decided
    atom at all (a long check's decided history is most of its atoms).  The answer is unchanged."""
    import clingo

    from grounded.solvers import history as module

    apart, here = queued({"window": 4, "apart": True, "bound": 0}, {"window": 4})
    inputs = len(apart.facts.base) + len(apart.facts.literals) + sum(len(f) for f in apart._of)
    made = [0]
    text, run = clingo.Symbol.__str__, module.run_apart
    sent: dict[str, list] = {}

    def counted(self):
        made[0] += 1
        return text(self)

    def spy(what, fn, *args):
        if what.startswith("the ASP history"):
            sent["windows"] = [args[2], args[7]]  # the header's facts and the decided atoms, as text
        elif what == "the ASP view":
            sent["view"] = args[2]
        return run(what, fn, *args)

    monkeypatch.setattr(clingo.Symbol, "__str__", counted)
    monkeypatch.setattr(module, "run_apart", spy)
    answer = apart.solve(affected=False)
    monkeypatch.undo()
    assert made[0] == inputs, (made[0], inputs)
    assert sent["view"][0] is sent["windows"][0] and sent["view"][-1] is sent["windows"][1]
    expected = here.solve(affected=False)
    assert set(answer.facts) == set(expected.facts) and answer.accepted == expected.accepted
