"""Shared helpers: small engines and a terse way to say things in them."""

from __future__ import annotations

import pytest

from grounded import Engine

TEAM = {
    "agents": {"alice": {"role": "lead", "authority": True}, "bob": {}, "carol": {}},
    "props": [
        {"id": "latent", "kind": "observation", "aware": False, "text": "nobody thought of this"},
        {"id": "a1", "kind": "assumption"},
        {"id": "a2", "kind": "assumption"},
    ],
}


def say(engine: Engine, speaker: str, *ops: dict, turn: int | None = None):
    utterance = {"speaker": speaker, "ops": list(ops)}
    if turn is not None:
        utterance["turn"] = turn
    return engine.apply(utterance)


def obs(claim: str, **kw) -> dict:
    return {"op": "observe", "claim": claim, **kw}


def hyp(claim: str, deps=(), explains=(), **kw) -> dict:
    return {"op": "hypothesize", "claim": claim, "deps": list(deps), "explains": list(explains), **kw}


@pytest.fixture
def team() -> Engine:
    engine = Engine(TEAM)
    yield engine
    engine.close()


@pytest.fixture(autouse=True, scope="session")
def _snapshot_key(tmp_path_factory):
    """The snapshots query commands write beside logs are keyed by a key in the user's cache
    directory (grounded.io.snapshot): the tests use one of their own."""
    import os

    os.environ.setdefault("GROUNDED_CACHE_DIR", str(tmp_path_factory.mktemp("grounded-cache")))
    yield


@pytest.fixture
def server():
    """A scripted OpenAI-compatible server on 127.0.0.1 (tests/openai_server.py), closed after the test."""
    from .openai_server import ScriptedServer

    s = ScriptedServer()
    yield s
    s.close()


@pytest.fixture(scope="module")
def p2():
    """Phase 2 replayed through its gold operations (one engine per test module)."""
    from .phases import scenario_engine

    engine = scenario_engine(2)
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def postgres_url():
    """A throw-away PostgreSQL cluster on a loopback port (Debian's postgresql package; see tests/pgserver.py)."""
    from tests.pgserver import TempPostgres

    with TempPostgres() as pg:
        yield pg.url


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium under selenium (tests/browser.py) for the module's page tests, quit after them."""
    from .browser import close, driver

    d = driver()
    yield d
    close(d)
