"""Kill a writer with SIGKILL mid-stream, again and again: every acknowledged utterance is read back.

A writer process appends utterances (some of them 100 KB, so that a kill can
land inside a write) and acknowledges each one on a pipe once ``apply`` has
returned.  The test kills it with SIGKILL at a random moment, reads the log
back strictly (a torn final line is the only damage allowed, and it must be
unacknowledged), checks that every acknowledged utterance is there, and
starts the next writer on the same log with ``append=True``.  Writers are
forked from a forkserver that has imported grounded once, so the 20 runs stay
quick.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from multiprocessing.connection import Connection

import pytest

from grounded import Engine

pytestmark = pytest.mark.kill  # kill -9 rounds

RUNS = 20
HEADER = {"agents": {"writer": {}}}


def text_for(turn: int) -> str:
    size = random.Random(turn).choice((0, 10, 2_000, 60_000, 99_000))
    return f"t{turn}:" + "x" * size


def write_until_killed(path: str, conn: Connection) -> None:
    """The writer: append utterance after utterance, acknowledging each once it is durable."""
    import os

    engine = Engine.load(path, append=True) if os.path.exists(path) else Engine(HEADER, log=path)
    turn = engine.turn or 0
    while True:
        turn += 1
        engine.apply({"speaker": "writer", "ops": [{"op": "observe", "claim": f"o{turn}", "text": text_for(turn)}]})
        conn.send_bytes(str(turn).encode())


def test_every_acknowledged_utterance_survives_sigkill(tmp_path):
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["grounded", "grounded.engine", "grounded.solvers.prolog", "pyswip"])
    path = tmp_path / "killed.jsonl"
    rng = random.Random(20)
    acked = 0  # the last turn known to be in the log
    last_ack = 0  # the last turn a writer acknowledged
    ahead = 0  # runs whose log held a whole utterance not yet acknowledged when the writer died
    torn = 0
    started = time.monotonic()
    for run in range(RUNS):
        receive, send = ctx.Pipe(duplex=False)
        writer = ctx.Process(target=write_until_killed, args=(str(path), send), daemon=True)
        writer.start()
        send.close()
        wanted = acked + rng.randint(1, 12)
        deadline = time.monotonic() + 60
        while acked < wanted and time.monotonic() < deadline and receive.poll(deadline - time.monotonic()):
            acked = last_ack = int(receive.recv_bytes())
        time.sleep(rng.random() * 0.01)  # land anywhere: between writes, inside one, inside an fsync
        writer.kill()
        writer.join(30)
        assert writer.exitcode == -9, f"run {run}: the writer ended with {writer.exitcode}"
        while receive.poll():  # acknowledged before the kill took effect
            try:
                acked = last_ack = int(receive.recv_bytes())
            except EOFError:
                break
        receive.close()
        engine = Engine.load(path)  # strict: only a torn, unacknowledged final line may be missing
        status = engine.log_status
        torn += status.torn_line is not None
        assert engine.turn is not None and engine.turn >= acked, f"run {run}: acknowledged {acked}, read {engine.turn}"
        assert [engine.state.arg(i).claim for i in range(1, acked + 1)] == [f"o{t}" for t in range(1, acked + 1)]
        assert all(engine.argument(t).text == text_for(t) for t in range(1, engine.turn + 1))
        ahead += engine.turn > acked
        acked = engine.turn  # written whole but not acknowledged yet: it is in the log, and stays
        engine.close()
    print(f"\nkill test: {RUNS} SIGKILLs; {last_ack} utterances acknowledged, all {last_ack} read back "
          f"({acked} in the log: {ahead} runs died after a write, before its acknowledgement); {torn} torn final "
          f"lines dropped; {time.monotonic() - started:.1f} s")
    assert last_ack >= RUNS
