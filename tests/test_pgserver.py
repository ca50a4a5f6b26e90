"""The tests' throw-away PostgreSQL cluster (tests/pgserver.py) starts even when the port it chose free is taken
before the server binds it (initdb runs in between: seconds on a loaded machine)."""

from __future__ import annotations

import socket

import psycopg
import pytest

from tests import pgserver


@pytest.mark.postgres
def test_a_port_taken_before_the_cluster_binds_it_is_replaced_by_another(monkeypatch):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        held = taken.getsockname()[1]
        ports = iter([held])
        free = pgserver.free_port
        monkeypatch.setattr(pgserver, "free_port", lambda: next(ports, None) or free())  # the first choice: taken
        with pgserver.TempPostgres() as pg:
            assert pg.port != held
            assert "could not bind" in (pg.root / "server.log").read_text()  # the first try met the taken port
            with psycopg.connect(pg.url, connect_timeout=30) as conn:
                assert conn.execute("select 1").fetchone() == (1,)


@pytest.mark.postgres
def test_a_port_given_is_not_replaced():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        held = taken.getsockname()[1]
        pg = pgserver.TempPostgres(port=held)
        try:
            with pytest.raises(pgserver.InputError, match="pg_ctl failed"):
                pg.start()
        finally:
            pg.stop()
