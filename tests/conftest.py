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


@pytest.fixture(scope="session")
def postgres_url():
    """A throw-away PostgreSQL cluster on a loopback port (Debian's postgresql package; see bench/pgserver.py)."""
    from grounded.bench.pgserver import TempPostgres

    with TempPostgres() as pg:
        yield pg.url
