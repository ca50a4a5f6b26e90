"""Two `grounded serve` processes on one PostgreSQL append to one conversation at the same time.

Each process keeps its own engine (a cache); the store orders the appends
under the conversation's row lock.  Whatever the interleaving, the result is
one history: every acknowledged append is stored once, with the turn it was
acknowledged with, and both processes answer exactly as a serial replay of
the stored log through the library does.  The same holds for two processes
on one SQLite file.
"""

from __future__ import annotations

import threading

import pytest

from grounded import Engine
from grounded.io.eventlog import read_log
from grounded.service.conversations import state_json
from tests.serve_helpers import ServerProcess, client, make_key
from tests.test_serve_api import _fresh_database

APPENDS_PER_CLIENT = 40


def _stream(server: ServerProcess, key: str, cid: str, name: str, acked: list, errors: list,
            start: threading.Barrier) -> None:
    """Observe o_<name>_i, and every fifth time a hypothesis resting on the other writer's last claim.

    Both writers connect first, start together and meet again every ten appends (the barrier):
    otherwise one could be done before the other had its connection, and the history would
    interleave nothing."""
    with client(server, key) as c:
        c.get(f"/conversations/{cid}")
        start.wait(timeout=120)
        for i in range(APPENDS_PER_CLIENT):
            ops = [{"op": "observe", "claim": f"o_{name}_{i}", "text": f"{name} saw {i}"}]
            if i % 5 == 4:
                ops.append({"op": "question", "claim": f"q_{name}_{i}"})
                ops.append({"op": "hypothesize", "claim": f"h_{name}_{i}", "deps": [f"o_{name}_{i}"],
                            "explains": [f"q_{name}_{i}"]})
            r = c.post(f"/conversations/{cid}/utterances", json={"speaker": name, "ops": ops})
            if r.status_code != 201:
                errors.append((r.status_code, r.text))
                return
            acked.append((r.json()["seq"], r.json()["turn"], f"o_{name}_{i}"))
            if i % 10 == 9:  # meet again every ten appends: a fast writer cannot finish before the other starts
                start.wait(timeout=120)


@pytest.mark.slow
@pytest.mark.parametrize("backend", [pytest.param("postgresql", marks=pytest.mark.postgres), "sqlite"])
def test_two_processes_append_to_one_conversation_as_one_serial_history(backend, tmp_path, request):
    if backend == "postgresql":
        db = _fresh_database(request.getfixturevalue("postgres_url"), "concurrency")
    else:
        db = str(tmp_path / "shared.db")
    key = make_key(db, "t")
    a = ServerProcess(db, tmp_path / "a.log").start()
    b = ServerProcess(db, tmp_path / "b.log").start()
    try:
        with client(a, key) as c:
            cid = c.post("/conversations", json={"id": "shared"}).json()["id"]
        acked: dict[str, list] = {"ann": [], "ben": []}
        errors: list = []
        start = threading.Barrier(2)
        threads = [threading.Thread(target=_stream, args=(server, key, cid, name, acked[name], errors, start))
                   for server, name in ((a, "ann"), (b, "ben"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert not errors, errors
        everything = sorted(acked["ann"] + acked["ben"])
        assert [seq for seq, _, _ in everything] == list(range(1, 2 * APPENDS_PER_CLIENT + 1))
        # the writers really interleaved (else this test would prove nothing about concurrency)
        owners = [claim.split("_")[1] for _, _, claim in everything]
        assert sum(x != y for x, y in zip(owners, owners[1:], strict=False)) >= 2
        with client(a, key) as ca:
            log = tmp_path / "shared.jsonl"
            log.write_text(ca.get(f"/conversations/{cid}/export").text)
            via_a = ca.get(f"/conversations/{cid}/state").json()
        with client(b, key) as cb:
            via_b = cb.get(f"/conversations/{cid}/state").json()
            verdicts_b = {f"h_{n}_{i}": cb.get(f"/conversations/{cid}/verify",
                                               params={"claim": f"h_{n}_{i}"}).json()["grounded"]
                          for n in ("ann", "ben") for i in range(4, APPENDS_PER_CLIENT, 5)}
        _, lines = read_log(log)
        stored = [(line["turn"], line["ops"][0]["claim"]) for _, line in lines]
        assert stored == [(turn, claim) for _, turn, claim in everything]
        serial = Engine.load(log)
        want = state_json(serial)
        assert {k: v for k, v in via_a.items() if k not in ("id", "length")} == want
        assert {k: v for k, v in via_b.items() if k not in ("id", "length")} == want
        assert verdicts_b == {h: serial.verify(h).grounded for h in verdicts_b}
        assert all(verdicts_b.values())
    finally:
        a.stop()
        b.stop()
