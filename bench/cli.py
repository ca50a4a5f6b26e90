"""``python -m bench ...`` (bench/__main__.py, from the repository root): the paper's benchmarks, as a typer app.

Each command reads third-party data from ``--data`` (default: ../shared/data
beside a repository checkout), writes ``<name>.json``, ``<name>.md`` and PNG
figures into ``--out``, prints the Markdown tables, and shows rich progress
bars on stderr.  ``--quick`` is a small smoke run (the tests use it).  The
heavy modules (scikit-learn, scipy, matplotlib, clingo grounding of thousands
of formulas) are imported inside the commands, so ``python -m bench --help`` stays fast.
Only matplotlib is optional (the ``bench`` extra); the commands that draw
figures check for it first.
"""

from __future__ import annotations

import importlib.util
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from grounded.core.errors import InputError

bench_app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                        help="Run the paper's benchmarks; write JSON, Markdown and PNG results.")
stdout = Console(highlight=False, soft_wrap=True)

Data = Annotated[Path | None, typer.Option(
    "--data", help="Directory holding memab-fc/ and reviseqa/ (default: ../shared/data beside the repository).")]
Out = Annotated[Path, typer.Option("--out", help="Results directory (JSON, Markdown, PNG).")]
Quick = Annotated[bool, typer.Option("--quick", help="A small smoke run (a few items, one seed).")]
DEFAULT_OUT = Path("bench-results")


def _require_matplotlib() -> None:
    """matplotlib is the one optional dependency (the bench extra): say so before any work is done."""
    if importlib.util.find_spec("matplotlib") is None:
        raise InputError("python -m bench needs matplotlib for its figures: install the bench extra "
                         "(from the repository root: pip install -e '.[bench]')")


def _publish(out: Path, name: str, result: dict, markdown: Callable[[dict], str],
             figures: Callable[[dict, Path], list[Path]] | None = None) -> None:
    """Write ``name.json`` (with the command's name), ``name.md`` and the figures; print the tables and paths."""
    from bench.report import write

    result["command"] = name
    md = markdown(result)
    paths = write(out, name, result, md) + (figures(result, out) if figures else [])
    stdout.print(md, markup=False)
    stdout.print()
    for path in paths:
        stdout.print(f"wrote {path}", markup=False)


@bench_app.command()
def memab(
    data: Data = None,
    out: Out = DEFAULT_OUT,
    quick: Quick = False,
    lengths: Annotated[str, typer.Option(help="Comma-separated stream lengths.")] = "6k,32k,64k,262k",
    questions: Annotated[int | None, typer.Option(help="Questions per hop and length (default: all 100).")] = None,
    llm: Annotated[bool, typer.Option("--llm/--no-llm",
                                      help="Run the LLM reader when an endpoint is configured.")] = True,
    workers: Annotated[int, typer.Option(help="Concurrent LLM requests.")] = 4,
) -> None:
    """MemAB-FC: native ingestion, supersessions, recall@50 and stale rate per arm, tokens, readers."""
    _require_matplotlib()
    from bench import llm as llm_mod
    from bench.datasets import MEMAB, MEMAB_LENGTHS, resolve_data_dir
    from bench.memab import run as memab_run
    from bench.report import progress, stderr

    root = resolve_data_dir(data, MEMAB)
    chosen = tuple(s.strip().lower() for s in lengths.split(",") if s.strip())
    unknown = [s for s in chosen if s not in MEMAB_LENGTHS]
    if unknown:
        raise InputError(f"--lengths: unknown length(s) {', '.join(unknown)} (known: {', '.join(MEMAB_LENGTHS)})")
    if quick:
        chosen, questions = chosen[:1], min(questions or 20, 20)
    config = llm_mod.configured() if llm else None
    if config is None:
        stderr.print(llm_mod.NOT_CONFIGURED if llm else "LLM reader skipped (--no-llm)")
    settings = memab_run.Settings(lengths=chosen, questions=questions, llm=config, workers=workers)
    with progress() as prog:
        result = memab_run.run(root, settings, prog)
    _publish(out, "memab", result, memab_run.markdown, memab_run.figures)


@bench_app.command()
def reviseqa(data: Data = None, out: Out = DEFAULT_OUT, quick: Quick = False) -> None:
    """ReviseQA: edits as Revise/Observe, Dep from clingo cores, accuracy@k of the clingo entailment reader."""
    _require_matplotlib()
    from bench.datasets import REVISEQA, resolve_data_dir
    from bench.report import progress
    from bench.reviseqa import run as rq

    root = resolve_data_dir(data, REVISEQA)
    with progress() as prog:
        result = rq.run(root, quick=quick, prog=prog)
    _publish(out, "reviseqa", result, rq.markdown, rq.figures)


Items = Annotated[Path | None, typer.Option("--items", help="Verifier items (default: the packaged set).")]
CorpusDir = Annotated[Path | None, typer.Option("--corpus-dir", help="The held-out corpus (default: the packaged "
                                                                    "bench/corpus); implies --corpus.")]


@bench_app.command()
def verify(
    out: Out = DEFAULT_OUT,
    items: Items = None,
    quick: Quick = False,
    llm: Annotated[bool, typer.Option("--llm/--no-llm",
                                      help="Read the texts through the configured endpoint too.")] = True,
    call_log: Annotated[Path | None, typer.Option(help="JSONL log of the LLM anchoring calls "
                                                       "(default: OUT/verify.calls.jsonl).")] = None,
    split: Annotated[str, typer.Option(help="Items to run: all, or only dev (what cue lists and thresholds "
                                            "may be tuned on) or only test.")] = "all",
    corpus: Annotated[bool, typer.Option("--corpus", help="The held-out corpus (bench/corpus) instead of the "
                                                          "Phase 2/3 items: per conversation and per category, "
                                                          "unsafe accepts and coverage.")] = False,
    corpus_dir: CorpusDir = None,
    limit: Annotated[int | None, typer.Option(min=1, help="With --corpus: only the first N items of each "
                                                          "category in each conversation (a smoke run).")] = None,
) -> None:
    """Direct verifier test, Phases 2 and 3 (or the held-out corpus): by claim, offline text, LLM text."""
    from bench import verifier

    if corpus or corpus_dir is not None:
        _verify_corpus(out, corpus_dir, split, limit, llm, call_log)
        return
    if limit is not None:
        raise InputError("--limit applies to --corpus only (the Phase 2/3 set has --quick)")
    if split not in ("all", *verifier.SPLITS):
        raise InputError(f"--split: unknown {split!r} (expected all, dev or test)")
    chosen = [i for i in verifier.load_items(items) if split in ("all", i.split)]
    if quick:
        chosen = [i for k, i in enumerate(chosen) if k % 6 == 0]
    note, judge = _llm_judge(llm, out, call_log)
    try:
        result = verifier.run(chosen, llm=judge, note_llm=note)
    finally:
        if judge is not None:
            judge.close()
    _publish(out, "verify", result, verifier.markdown)


def _llm_judge(llm: bool, out: Path, call_log: Path | None):
    """The LLM judge when asked for and an endpoint is configured, and the note saying which (or why none)."""
    from bench import llm as llm_mod
    from bench import verifier

    endpoint = llm_mod.configured() if llm else None
    note = None if endpoint is None else f"{endpoint.describe()}"
    if llm and endpoint is None:
        note = llm_mod.NOT_CONFIGURED
    judge = None
    if endpoint is not None:
        out.mkdir(parents=True, exist_ok=True)
        judge = verifier.llm_judge(call_log or out / "verify.calls.jsonl")
    return note, judge


def _verify_corpus(out: Path, root: Path | None, split: str, limit: int | None, llm: bool,
                   call_log: Path | None) -> None:
    """``verify --corpus``: the held-out conversations of ``split``, written as ``verify-corpus.<split>``."""
    from bench import heldout, verify_corpus

    root = root or heldout.corpus_dir()
    heldout.conversations(root, split)  # an unknown split or a changed test file: refused before any work
    note, judge = _llm_judge(llm, out, call_log)
    try:
        result = verify_corpus.run(root, split, limit, llm=judge, note_llm=note)
    finally:
        if judge is not None:
            judge.close()
    _publish(out, f"verify-corpus.{split}", result, verify_corpus.markdown)


@bench_app.command("interpret")
def interpret_corpus(
    out: Out = DEFAULT_OUT,
    split: Annotated[str, typer.Option(help="Conversations: dev (what may be tuned on), test or all.")] = "dev",
    corpus_dir: CorpusDir = None,
    only: Annotated[str | None, typer.Option("--only", help="Only these conversations of the split "
                                                            "(comma-separated; a smoke run).")] = None,
    record: Annotated[Path | None, typer.Option(help="Write the pooled figures to this baseline file (the one "
                                                     "`grounded interpret` quotes is src/grounded/interpreter/"
                                                     "rules_baseline.json); only for a whole split.")] = None,
) -> None:
    """The offline rules interpreter on the held-out corpus: multi-label F1, per-operation P/R, Dep-edge P/R."""
    from bench import heldout
    from bench import interpret_corpus as ic

    root = corpus_dir or heldout.corpus_dir()
    names = heldout.conversations(root, split)
    chosen = [n.strip() for n in only.split(",") if n.strip()] if only else None
    if chosen and (unknown := [n for n in chosen if n not in names]):
        raise InputError(f"--only: {', '.join(unknown)} not among the {split} conversations ({', '.join(names)})")
    if record is not None and chosen:
        raise InputError("--record measures a whole split: drop --only")
    with tempfile.TemporaryDirectory(prefix="grounded-interpret-") as logs:  # the event logs are a by-product
        result = ic.run(root, split, Path(logs), chosen)
    if record is not None:
        ic.record(result, record)
    _publish(out, f"interpret-corpus.{split}", result, ic.markdown)


@bench_app.command()
def textcli(
    out: Out = DEFAULT_OUT,
    quick: Quick = False,
    runs: Annotated[int, typer.Option(help="Timed calls, after one warm-up call.")] = 5,
) -> None:
    """`grounded verify LOG --text` as whole processes on Phase 2: wall and CPU s per call."""
    from bench import textcli as tc
    from bench.report import stderr

    if not 1 <= runs <= 100:
        raise InputError(f"--runs {runs}: expected 1 to 100")
    if quick:
        runs = 1
    result = tc.run(runs, log=lambda line: stderr.print(line, markup=False))
    _publish(out, "textcli", result, tc.markdown)


@bench_app.command()
def startup(
    out: Out = DEFAULT_OUT,
    quick: Quick = False,
    runs: Annotated[int, typer.Option(help="Interleaved rounds (each times every process once); medians.")] = 11,
    k: Annotated[int, typer.Option("-k", help="Turns of the synthetic log the queries read from its snapshot.")
                 ] = 1000,
) -> None:
    """`grounded --version` and `verify`/`affected` from a snapshot as whole processes: wall and CPU s, ratios."""
    from bench import startup as su
    from bench.report import stderr

    if not 1 <= runs <= 100:
        raise InputError(f"--runs {runs}: expected 1 to 100")
    if not 10 <= k <= 100_000:
        raise InputError(f"-k {k}: expected 10 to 100000")
    if quick:
        runs, k = 1, 30
    result = su.run(runs, k, log=lambda line: stderr.print(line, markup=False))
    _publish(out, "startup", result, su.markdown)


@bench_app.command()
def snapquery(
    out: Out = DEFAULT_OUT,
    quick: Quick = False,
    runs: Annotated[int, typer.Option(help="Interleaved rounds (each times every process once); medians.")] = 7,
    ks: Annotated[str, typer.Option("--ks", help="Turns of the realistic logs, comma-separated.")
                  ] = "10000,100000",
) -> None:
    """A question of one claim from the snapshot's index on realistic logs, against `--version` and against the
    same question read from the whole snapshot: whole processes, wall and CPU s, ratios, per log size."""
    from bench import startup as su
    from bench.report import stderr

    if not 1 <= runs <= 100:
        raise InputError(f"--runs {runs}: expected 1 to 100")
    try:
        sizes = [int(k) for k in ks.split(",")]
    except ValueError:
        raise InputError(f"--ks {ks}: expected turns, comma-separated (e.g. 10000,100000)") from None
    if not sizes or not all(10 <= k <= 100_000 for k in sizes):
        raise InputError(f"--ks {ks}: each expected 10 to 100000")
    if quick:
        runs, sizes = 1, [30]
    results = [su.run(runs, k, log=lambda line: stderr.print(line, markup=False), realistic=True) for k in sizes]
    _publish(out, "snapquery", {"runs": runs, "by_k": results},
             lambda r: "\n\n".join(su.markdown(one) for one in r["by_k"]))


@bench_app.command()
def noise(
    out: Out = DEFAULT_OUT,
    items: Items = None,
    quick: Quick = False,
    seeds: Annotated[int, typer.Option(help="Seeds per epsilon.")] = 10,
) -> None:
    """Noise diagnostic: Verify under dependency-edge drop, edge add and status corruption, eps in [0, 0.8]."""
    _require_matplotlib()
    from bench import noise as noise_mod
    from bench import verifier
    from bench.report import progress

    chosen = verifier.load_items(items)
    epsilons = noise_mod.EPSILONS
    if quick:
        seeds, epsilons = min(seeds, 2), (0.0, 0.4, 0.8)
    with progress() as prog:
        result = noise_mod.run(chosen, seeds=seeds, epsilons=epsilons, prog=prog)
    _publish(out, "noise", result, noise_mod.markdown, noise_mod.figures)


@bench_app.command()
def crosscheck(
    out: Out = DEFAULT_OUT,
    quick: Quick = False,
    soak: Annotated[int, typer.Option(help="Noisy conversations in the soak.")] = 8,
    py_arg_limit: Annotated[float, typer.Option(help="Seconds PyArg may take per framework.")] = 30.0,
    turns: Annotated[str | None, typer.Option(help="Only the scaling table of grounded check, at these numbers "
                                                   "of turns (e.g. 500,2000,8000,20000).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the synthetic conversations.")] = 1,
    regime: Annotated[str, typer.Option(help="With --turns: the logs checked, a shape of tests/shapes.py (naive, "
                                             "arguments: every turn an argument, realistic, fan, ...).")] = "naive",
    time_limit: Annotated[float | None, typer.Option(help="With --turns or --shapes: seconds each check may take "
                                                         "(--shapes: 900 unless given).")] = None,
    memory_limit: Annotated[float | None, typer.Option(help="With --turns or --shapes: GB each check may use.")] = None,
    probes: Annotated[int, typer.Option(help="With --turns or --shapes: candidate utterances per operation and "
                                             "probed state (0: the check with no probe, as grounded check "
                                             "--probes 0).")] = 3,
    shapes: Annotated[bool, typer.Option("--shapes", help="The check on every shape of conversation "
                                                          "(tests/shapes.py) at 1,000, 4,000 and 20,000 turns (or "
                                                          "--turns): time, CPU, peak memory, the probe's share, "
                                                          "exponents; fails a shape above K^1.15.")] = False,
    only: Annotated[str | None, typer.Option(help="With --shapes: only these shapes, separated by commas.")] = None,
) -> None:
    """grounded check at 100-2,000 turns (one shot vs turn by turn); preferred extensions vs PyArg; a soak."""
    from bench import crosscheck as cc
    from bench.report import stderr

    def log(line: str) -> None:
        stderr.print(line, markup=False)

    ks = None if turns is None else _turns(turns)
    if shapes:
        names = list(cc.SHAPES) if only is None else only.split(",")
        unknown = [n for n in names if n not in cc.SHAPES]
        if unknown or not names:
            raise typer.BadParameter(f"{only!r}: expected shapes among {', '.join(cc.SHAPES)}", param_hint="--only")
        result = cc.shapes(ks or list(cc.SHAPE_KS), names, seed, log=log,
                           time_limit=cc.SHAPE_TIME_LIMIT if time_limit is None else time_limit,
                           memory_gb=memory_limit, probes=probes)
        _publish(out, "crosscheck-shapes", result, cc.shapes_markdown)
        if result["failed"]:
            from bench.checks import CheckFailed

            raise CheckFailed("; ".join(f"{name}: {why}" for name, why in result["failed"].items()))
        return
    if ks is not None:
        if regime not in cc.REGIMES:
            raise typer.BadParameter(f"{regime!r}: expected one of {', '.join(cc.REGIMES)}", param_hint="--regime")
        _publish(out, "crosscheck-scaling", cc.scaling(ks, seed, log=log, regime=regime, time_limit=time_limit,
                                                       memory_gb=memory_limit, probes=probes), cc.scaling_markdown)
        return
    _publish(out, "crosscheck", cc.run(quick, soak, py_arg_limit, seed, log=log), cc.markdown)


def _turns(turns: str) -> list[int]:
    """--turns as numbers of turns (at least 1 each)."""
    try:
        ks = [int(k) for k in turns.split(",")]
    except ValueError:
        raise typer.BadParameter(f"{turns!r}: expected numbers of turns separated by commas",
                                 param_hint="--turns") from None
    if not ks or min(ks) < 1:
        raise typer.BadParameter(f"{turns!r}: every number of turns must be at least 1", param_hint="--turns")
    return ks


@bench_app.command("del")
def del_updates(
    quick: Quick = False,
    repeat: Annotated[int, typer.Option(help="Runs per figure (median).")] = 7,
) -> None:
    """DEL: announcement and upgrades on 2^10 to 2^20 worlds; muddy(n, m) end to end (prints its tables)."""
    from bench.epistemic import main

    main(["--repeat", str(repeat), *(["--quick"] if quick else [])])


@bench_app.command()
def latency(
    out: Out = DEFAULT_OUT,
    quick: Quick = False,
    seeds: Annotated[int, typer.Option(help="Seeds (synthetic conversations) per K.")] = 5,
    queries: Annotated[int, typer.Option(help="Queries per seed.")] = 200,
) -> None:
    """Latency figure: per-query Affected* against history replay over K, medians over seeds."""
    _require_matplotlib()
    from bench import latency_figure as lat
    from bench.report import progress

    ks: tuple[int, ...] = lat.KS
    repeat = 200
    if quick:
        seeds, queries, repeat, ks = 1, 20, 20, (13, 100, 500)
    with progress() as prog:
        result = lat.run(seeds=seeds, queries=queries, repeat=repeat, ks=ks, prog=prog)
    _publish(out, "latency", result, lat.markdown, lat.figures)


@bench_app.command()
def compare(
    out: Out = DEFAULT_OUT,
    quick: Annotated[bool, typer.Option("--quick", help="K <= 1,000, frameworks <= 1,000, 2 rounds.")] = False,
    ks: Annotated[str | None, typer.Option("--ks", help="Comma-separated K (default 100,1000,10000,100000).")] = None,
    rounds: Annotated[int | None, typer.Option(help="Interleaved rounds (default 5).")] = None,
    peer_limit: Annotated[float | None, typer.Option(
        help="Seconds ASPARTIX-style and PyArg may take per framework (default 30).")] = None,
    streams: Annotated[str | None, typer.Option(
        help="Comma-separated conversations to query: naive, realistic, deep (default all three).")] = None,
    queries_only: Annotated[bool, typer.Option(
        "--queries-only", help="Only the per-answer-size query table and its target check.")] = False,
) -> None:
    """grounded against the authors' engine, networkx, clingo encodings and PyArg, interleaved; ratios."""
    from bench import compare as cmp
    from bench.report import stderr

    _require("networkx", "networkx")
    _require("py_arg", "python-argumentation")
    settings = cmp.Settings.quick() if quick else cmp.Settings()
    if ks is not None:
        try:
            settings.ks = tuple(int(x) for x in ks.split(",") if x.strip())
        except ValueError:
            raise InputError(f"--ks {ks}: expected comma-separated integers") from None
        if not settings.ks or min(settings.ks) < 10:
            raise InputError(f"--ks {ks}: each K must be at least 10")
    if rounds is not None:
        if rounds < 1:
            raise InputError(f"--rounds {rounds}: at least 1")
        settings.rounds = rounds
    if peer_limit is not None:
        settings.peer_limit = peer_limit
    if streams is not None:
        settings.streams = tuple(x.strip() for x in streams.split(",") if x.strip())
        unknown = [x for x in settings.streams if x not in cmp.STREAMS]
        if unknown or not settings.streams:
            raise InputError(f"--streams {streams}: expected some of {', '.join(cmp.STREAMS)}")
    settings.queries_only = queries_only
    result = cmp.run(settings, log=lambda line: stderr.print(line, markup=False))
    _publish(out, "compare", result, cmp.markdown)


@bench_app.command()
def ingest(
    out: Out = DEFAULT_OUT,
    quick: Annotated[bool, typer.Option("--quick", help="K = 2,000, depth 500, no memory figure.")] = False,
    k: Annotated[int | None, typer.Option("-k", help="Turns of the synthetic stream (default 100,000).")] = None,
    realistic: Annotated[int | None, typer.Option(
        help="Turns of the realistic stream: every operation, competing hypotheses (default 100,000).")] = None,
    depth: Annotated[int | None, typer.Option(help="Hypotheses in the deep inputs (default 100,000).")] = None,
    rounds: Annotated[int | None, typer.Option(help="Alternating rounds of bulk reading, or loads with "
                                                    "--foreign-only (default 3).")] = None,
    deep_only: Annotated[bool, typer.Option(
        "--deep-only", help="Only the deep inputs (a chain and a fan of --depth hypotheses), checked as in a full run.")
    ] = False,
    foreign_only: Annotated[bool, typer.Option(
        "--foreign-only", help="Only the realistic stream of --realistic turns as a log written elsewhere, loaded "
                               "--rounds times: CPU per utterance in the rules and in Python.")] = False,
) -> None:
    """Bulk reading, live apply, memory, a realistic stream, deep inputs, the snapshot and fsync policies (issue 13)."""
    from bench import ingest as ing
    from bench.report import stderr

    settings = ing.Settings.quick() if quick else ing.Settings()
    for name, value, least in (("k", k, 10), ("realistic", realistic, 10), ("depth", depth, 10), ("rounds", rounds, 1)):
        if value is not None:
            if value < least:
                raise InputError(f"--{name} {value}: at least {least}")
            setattr(settings, name, value)
    if deep_only and foreign_only:
        raise InputError("--deep-only and --foreign-only each run one part alone: choose one")
    settings.deep_only, settings.foreign_only = deep_only, foreign_only
    result = ing.run(settings, log=lambda line: stderr.print(line, markup=False))
    _publish(out, "ingest", result, ing.markdown)
    ing.check(result)  # after the figures are printed and written: a failing run is not lost


@bench_app.command()
def hops(
    out: Out = DEFAULT_OUT,
    show: Annotated[bool, typer.Option("--show", help="List every hop, in order.")] = False,
) -> None:
    """Files of src/grounded entered, and module hops, on an HTTP append and on `grounded verify LOG c1`."""
    from bench import hops as hp

    result = hp.run(show)
    if show:
        for name, r in result.items():
            stdout.print(f"{name}: {', '.join(r['file_list'])}", markup=False)
            for line in r["hop_list"]:
                stdout.print(f"  {line}", markup=False)
    _publish(out, "hops", result, hp.markdown)


def _require(module: str, package: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise InputError(f"python -m bench compare needs {package}: install the bench extra "
                         "(from the repository root: pip install -e '.[bench]')")


@bench_app.command()
def serve(
    out: Out = DEFAULT_OUT,
    quick: Quick = False,
    db: Annotated[str, typer.Option(help="sqlite, postgresql or both.")] = "both",
    conversations: Annotated[int, typer.Option(help="Conversations driven in parallel.")] = 50,
    appends: Annotated[int, typer.Option(help="Appends per conversation.")] = 20,
    verifies: Annotated[int, typer.Option(help="Verify requests sent at --rate (open loop).")] = 5000,
    rate: Annotated[float, typer.Option(help="Verify requests per second in the paced run.")] = 500.0,
    closed: Annotated[int, typer.Option(help="Verify requests with every conversation in flight.")] = 5000,
    kills: Annotated[int, typer.Option(help="kill -9 restarts during appends, per store.")] = 20,
    processes: Annotated[str, typer.Option(help="Instead: N server processes on one PostgreSQL, for each N of this "
                                                "comma-separated list (bench/scale.py).")] = "",
    routing: Annotated[str, typer.Option(help="With --processes: pinned, round-robin or both.")] = "both",
    scale_appends: Annotated[int, typer.Option(help="With --processes: appends per conversation (20 of them).")]
    = 150,
    scale_rate: Annotated[float, typer.Option(help="With --processes: Verify requests per second.")] = 100.0,
    cold_size: Annotated[int, typer.Option(help="With --processes: utterances of the conversation built cold "
                                                "(0: no cold run).")] = 20_000,
) -> None:
    """A bounded load run of `grounded serve` on loopback: appends/s, p50/p99 of append and Verify, kill -9, and
    another tenant's Verify p99 while one tenant floods Verify by text.  With --processes: several processes on
    one PostgreSQL, pinned or round-robin, and a long conversation built cold (bench/scale.py)."""
    from bench import flood
    from bench import serve as serve_bench
    from bench.report import stderr

    if processes:
        from bench import scale

        routings = {"pinned": ("pinned",), "round-robin": ("round-robin",), "both": scale.ROUTINGS}
        if routing not in routings:
            raise InputError(f"--routing {routing}: expected pinned, round-robin or both")
        try:
            counts = tuple(int(n) for n in processes.split(","))
        except ValueError as exc:
            raise InputError(f"--processes {processes}: expected counts like 1,2,4") from exc
        if quick:
            scale_appends, cold_size = min(scale_appends, 30), min(cold_size, 2000)
        result = scale.run(counts, routings[routing], appends=scale_appends, rate=scale_rate, cold_size=cold_size,
                           verifies=400 if quick else 2000)
        _publish(out, "serve-scale", result, scale.markdown)
        return

    choices = {"sqlite": ("sqlite",), "postgresql": ("postgresql",), "both": ("sqlite", "postgresql")}
    if db not in choices:
        raise InputError(f"--db {db}: expected sqlite, postgresql or both")
    if quick:
        conversations, appends, verifies, closed, kills = min(conversations, 5), min(appends, 8), 200, 200, \
            min(kills, 2)
    result = serve_bench.run(choices[db], conversations, appends, verifies, rate, closed, kills,
                             switch_lengths=(10, 100) if quick else (10, 100, 1000))
    stderr.print("bench serve: one tenant floods Verify by text", markup=False)
    result["isolation"] = flood.isolation(verifies=400 if quick else 1200)
    _publish(out, "serve", result, lambda r: serve_bench.markdown(r) + "\n\n" + flood.markdown(r["isolation"]))
    flood.check_isolation(result["isolation"])  # after the figures are written: a failing run still shows them


@bench_app.command()
def flood(
    attack: Annotated[list[str], typer.Option(help="An attack by name (repeat the option; 'all': every one).")],
    out: Out = DEFAULT_OUT,
    verifies: Annotated[int, typer.Option(help="Tenant B's Verify by claim, idle and under attack, each.")] = 600,
    rate: Annotated[float, typer.Option(help="Tenant B's Verify requests per second.")] = 100.0,
    rounds: Annotated[int, typer.Option(help="Idle and attack windows, alternating.")] = 3,
) -> None:
    """One tenant attacks the server (bench/attacks.py); another tenant's Verify p99 against idle, and its Verify by
    text answered, during each attack."""
    from bench import attacks
    from bench.report import stderr

    names = list(attacks.ATTACKS) if "all" in attack else attack
    unknown = [n for n in names if n not in attacks.ATTACKS]
    if unknown:
        raise InputError(f"--attack {unknown[0]}: expected one of {', '.join(attacks.ATTACKS)} or all")
    results = []
    for name in names:
        stderr.print(f"bench flood: attack {name}", markup=False)
        results.append(attacks.run(name, verifies, rate, rounds))
    _publish(out, "flood", {"attacks": results}, lambda r: attacks.markdown(r["attacks"]))
