"""`grounded try` answers only requests addressed to it (a Host naming the address it bound: a page elsewhere that
rebinds its own name to 127.0.0.1 cannot drive the what-if endpoint), and `at` is a turn: an integer, not "1" or
true.  The server is the command in a process of its own on 127.0.0.1 (tests/tryit_server.py)."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
import pytest

from .tryit_server import try_server

UTTERANCE = {"speaker": "alice", "ops": [{"op": "observe", "claim": "know_alice"}]}


@pytest.fixture(scope="module")
def server():
    with try_server("scenarios/phase1.yaml") as url:
        yield url


@pytest.mark.slow
@pytest.mark.parametrize("host", ["evil.example:{port}", "127.0.0.1:1", "127.0.0.1", "localhost.evil:{port}"])
def test_a_host_that_is_not_the_servers_address_is_refused(server, host):
    port = urlsplit(server).port
    for method, path, body in (("GET", "/", None), ("POST", "/whatif", {"at": 1, "utterance": UTTERANCE})):
        r = httpx.request(method, server.rstrip("/") + path, json=body, headers={"Host": host.format(port=port)},
                          timeout=60)
        assert r.status_code == 400, (host, r.status_code)
        assert r.json()["error"] == "invalid_host"


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost"])
def test_the_servers_own_loopback_names_are_answered(server, name):
    port = urlsplit(server).port
    r = httpx.post(server + "whatif", json={"at": 2, "utterance": UTTERANCE}, headers={"Host": f"{name}:{port}"},
                   timeout=60)
    assert r.status_code == 200 and r.json()["accepted"] is True


@pytest.mark.parametrize("at", ["1", True, 1.5, [1]])
def test_at_is_an_integer(server, at):
    r = httpx.post(server + "whatif", json={"at": at, "utterance": UTTERANCE}, timeout=60)
    assert r.status_code == 422, r.text
    assert r.json()["error"] == "invalid" and "at" in r.json()["message"], r.json()
