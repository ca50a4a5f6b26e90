"""kill -9 of `grounded serve` during a stream of appends loses no acknowledged utterance.

A writer appends to one conversation as fast as the server answers; the server
is killed with SIGKILL at a random moment, restarted on the same store, and
the stored log is read back through the API: every acknowledged utterance is
there, at the row it was acknowledged with.  An append in flight at the kill
may be stored without having been acknowledged (it committed; the answer was
lost with the process): that is allowed, a lost acknowledged one is not.
GROUNDED_KILL_ROUNDS sets the number of kills on SQLite (default 20, as the issue asks).
"""

from __future__ import annotations

import os

import pytest

from tests.serve_helpers import kill_rounds
from tests.test_serve_api import _fresh_database

pytestmark = pytest.mark.kill  # kill -9 rounds against a real server


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_kill_9_during_appends_loses_no_acknowledged_utterance(backend, tmp_path, request):
    if backend == "sqlite":
        db, rounds = str(tmp_path / "durable.db"), int(os.environ.get("GROUNDED_KILL_ROUNDS", "20"))
    else:
        db, rounds = _fresh_database(request.getfixturevalue("postgres_url"), "durability"), 3
    report = kill_rounds(db, rounds, tmp_path, seed=rounds, min_wait=0.05, max_wait=0.25)
    print(f"kill -9 on {backend}: {report.to_json()}")
    assert report.rounds == rounds
    assert report.lost == []
    assert report.acknowledged >= rounds  # the writer got answers between kills: the kills hit a live stream
    assert 0 <= report.unacknowledged_stored <= rounds  # at most the one append in flight per kill
