"""A state has one JSON shape, the query registry's (``registry.state``, described by ``StateAnswer``): the
CLI prints it, the HTTP API answers it (its turn named ``turn``, with the conversation's id and length), and
the pages' argument rows are read from it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grounded.cli.app import load_engine
from grounded.core.vocabulary import GOOD_STANDING
from grounded.present.summary import ROW_KEYS, argument_rows
from grounded.queries import registry
from grounded.queries.models import StateAnswer
from grounded.queries.verify import grounded_arguments
from grounded.service.conversations import state_json
from grounded.service.schemas import StateOut

ROOT = Path(__file__).resolve().parent.parent
PHASE2 = ROOT / "scenarios" / "phase2.yaml"


@pytest.fixture(scope="module")
def engine():
    return load_engine(PHASE2, None)


@pytest.mark.parametrize("at", [None, 1, 4, 7])
def test_the_registrys_state_is_what_its_model_describes(engine, at):
    found = registry.state(engine, at)
    assert StateAnswer.model_validate(found).model_dump(mode="json") == found
    assert found["at"] == (engine.turn if at is None else at)
    grounded = grounded_arguments(engine.state, at)
    assert [a["grounded"] for a in found["arguments"]] == [a["id"] in grounded for a in found["arguments"]]
    assert [{k: v for k, v in a.items() if k != "grounded"} for a in found["arguments"]] == \
        engine.ask("arguments", at)["arguments"]
    assert {k: found[k] for k in registry.SUMMARY} == registry.summary(engine, at)


@pytest.mark.parametrize("at", [None, 7])
def test_the_service_answers_the_registrys_state(engine, at):
    found, answered = registry.state(engine, at), state_json(engine, at)
    assert answered == {"turn": found["at"], **{k: v for k, v in found.items() if k != "at"}}
    assert list(StateOut.model_fields) == ["id", "turn", "length", *[k for k in StateAnswer.model_fields if k != "at"]]
    StateOut.model_validate({"id": "c1", "length": 3, **answered})


def test_the_cli_prints_the_registrys_state(engine):
    printed = subprocess.run([sys.executable, "-m", "grounded", "state", str(PHASE2), "--json", "--at", "7"],
                             capture_output=True, text=True, timeout=120, check=True).stdout
    assert json.loads(printed) == registry.state(engine, 7)


@pytest.mark.parametrize("at", [None, 2, 7])
def test_the_pages_rows_are_read_from_the_registrys_state(engine, at):
    rows, found = argument_rows(engine, at), registry.state(engine, at)["arguments"]
    assert [{k: r[k] for k in ROW_KEYS} for r in rows] == [{k: a[k] for k in ROW_KEYS} for a in found]
    for row, a in zip(rows, found, strict=True):
        record = engine.state.arg(a["id"])
        assert (row["since"], row["standing"], row["cause"]) == record.change_at(at)
        assert row["in_standing"] == (a["standing"] in GOOD_STANDING)
