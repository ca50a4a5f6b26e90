"""What the library, the CLI and the API accept is what their published schemas accept.

The JSON Schema of the log (`grounded schema`) says a turn is an integer and
a flag a boolean; the library took `"turn": "22"`, `"turn": true` (as turn 1)
and `"acyclic": "false"`, and the API `expect_turn: "1"`.  Here hypothesis
writes log lines and request bodies whose typed fields hold integers, texts,
bools, floats, nulls and integers past the bounds, and each is judged twice:
by python-jsonschema against the published document, and by the code that
reads it (the log reader and Engine.load, `grounded verify`, a real server).
The two must agree on every one.  JSON Schema's integer is a number with no
fractional part, so ``1.0`` is an integer to both.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from grounded import Engine, InputError
from grounded.core.bounds import MAX_TURN
from tests.serve_helpers import ServerProcess, client, make_key

from .inprocess import run_cli
from .test_properties import budget

ROOT = Path(__file__).resolve().parents[1]

# JSON values a typed field may be given, near the valid ones
INTEGERS = st.one_of(st.integers(-3, 3), st.integers(MAX_TURN - 2, MAX_TURN + 2), st.integers(2 ** 31, 2 ** 80),
                     st.integers(-(2 ** 70), -(2 ** 31)))
FLOATS = st.one_of(st.sampled_from([0.0, 1.0, 2.0, 1e9, 1e9 + 1, 1e30, -1.0, 0.5, 2.5]),
                   st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([math.nan, math.inf]))
TURNISH = st.one_of(INTEGERS, st.booleans(), st.none(), FLOATS, st.integers(-3, 30).map(str),
                    st.text(max_size=3), st.lists(st.integers(0, 3), max_size=1))
FLAGISH = st.one_of(st.booleans(), st.integers(0, 1), st.sampled_from(["true", "false", "yes", "0"]), st.none(),
                    st.sampled_from([0.0, 1.0]))


def optional(**fields: st.SearchStrategy) -> st.SearchStrategy[dict]:
    """Dicts holding any subset of these keys."""
    return st.fixed_dictionaries({}, optional=fields)


HEADERS = st.builds(lambda version, rest, agent, prop: {"grounded": version, **rest, "agents": {"alice": agent},
                                                        "props": [{"id": "p1", **prop}]},
                    st.one_of(st.just(1), TURNISH), optional(acyclic=FLAGISH), optional(authority=FLAGISH),
                    optional(aware=FLAGISH))
UTTERANCES = st.builds(lambda rest: {"speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}], **rest},
                       optional(turn=TURNISH))


def json_of(value: object) -> object:
    """The value as a JSON line carries it (Python's json writes nan as NaN and reads it back)."""
    return json.loads(json.dumps(value))


def validator(document: dict, ref: str) -> Draft202012Validator:
    """A validator of one definition of a published document (its $refs resolved within it)."""
    return Draft202012Validator({**{k: v for k, v in document.items() if k in ("$defs", "components")}, "$ref": ref})


@pytest.fixture(scope="module")
def log_schema() -> dict:
    code, out, err = run_cli("schema")
    assert code == 0, err
    return json.loads(out)


# -- the log: `grounded schema` against the reader, Engine.load and the CLI -------------------------

@budget(120)
@given(header=HEADERS)
@example(header={"grounded": True})
@example(header={"grounded": 1.0, "acyclic": "false"})
def test_a_header_line_is_read_iff_the_schema_accepts_it(tmp_path_factory, log_schema, header):
    header = json_of(header)
    schema_says = validator(log_schema, "#/$defs/HeaderLine").is_valid(header)
    log = tmp_path_factory.mktemp("h") / "talk.jsonl"
    log.write_text(json.dumps(header) + "\n")
    try:
        Engine.load(log)
        library_says = True
    except InputError as exc:
        assert "talk.jsonl:1: header: " in str(exc)
        library_says = False
    assert library_says == schema_says, header


@pytest.mark.slow
@budget(120)
@given(utterance=UTTERANCES)
@example(utterance={"turn": "22", "speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
@example(utterance={"turn": True, "speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
@example(utterance={"turn": 1.0, "speaker": "alice", "ops": [{"op": "observe", "claim": "o1"}]})
def test_an_utterance_line_is_read_iff_the_schema_accepts_it(tmp_path_factory, log_schema, utterance):
    utterance = json_of(utterance)
    schema_says = validator(log_schema, "#/$defs/Utterance").is_valid(utterance)
    log = tmp_path_factory.mktemp("u") / "talk.jsonl"
    log.write_text(json.dumps({"grounded": 1}) + "\n" + json.dumps(utterance) + "\n")
    try:
        Engine.load(log)
        library_says = True
    except InputError as exc:
        assert "talk.jsonl:2: turn: " in str(exc)
        library_says = False
    assert library_says == schema_says, utterance
    code, _, err = run_cli("verify", log, "o1")
    assert (code == 0) == schema_says and code in (0, 2), (utterance, err)


def test_every_line_the_library_writes_is_valid_under_the_schema(tmp_path, log_schema):
    """The schema described the Header without the rules version and extensions the writer adds to
    line 1, so it refused every log the library wrote."""
    path = tmp_path / "talk.jsonl"
    with Engine({"agents": {"alice": {}}, "props": [{"id": "p1", "aware": False}]}, log=path) as engine:
        engine.apply({"speaker": "alice", "ops": [{"op": "observe", "claim": "o1", "text": "seen"}]})
        engine.apply({"turn": 5, "speaker": "alice", "ops": [{"op": "question", "claim": "q1"}]})
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert "rules" in lines[0] and "extensions" in lines[0]
    whole = Draft202012Validator(log_schema)
    for number, line in enumerate(lines, 1):
        assert whole.is_valid(line), (number, [e.message for e in whole.iter_errors(line)])


# -- the API: docs/openapi.json against a real server ------------------------------------------------

@pytest.fixture(scope="module")
def api(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve-schema")
    db = str(root / "grounded.db")
    key = make_key(db, "t1")
    with ServerProcess(db, root / "server.log") as server, client(server, key) as c:
        cid = c.post("/conversations", json={"id": "one"}).json()["id"]
        c.post(f"/conversations/{cid}/utterances", json={"speaker": "ann", "ops": [{"op": "observe", "claim": "o1"}]})
        yield c, json.loads((ROOT / "docs" / "openapi.json").read_text())


def post(c, path: str, body: object):
    """POST a JSON body as written by Python's json (NaN included, which httpx would refuse to send)."""
    return c.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


def refused_as_invalid(response) -> bool:
    """422 for the body itself (not a rejection by the rules, a conflict, or a turn the conversation is past)."""
    return response.status_code == 422 and response.json()["message"].startswith("body")


THRESHOLDS = st.one_of(st.none(), st.floats(-1, 2, allow_nan=False), st.booleans(), st.sampled_from(["0.5", 1, 0]))


@pytest.mark.slow
@budget(60)
@given(body=st.builds(lambda rest: {"speaker": "ann", "ops": [], **rest},
                      optional(turn=TURNISH, expect_turn=TURNISH)))
@example(body={"speaker": "ann", "ops": [], "expect_turn": "1"})
def test_an_append_is_taken_iff_openapi_accepts_its_body(api, body):
    c, openapi = api
    body = json_of(body)
    schema_says = validator(openapi, "#/components/schemas/AppendUtterance").is_valid(body)
    cid = c.post("/conversations", json={}).json()["id"]  # a fresh one: whatever is appended stays apart
    response = post(c, f"/conversations/{cid}/utterances", body)
    assert (not refused_as_invalid(response)) == schema_says, (body, response.json())
    assert response.status_code in (201, 409, 422), response.json()


@budget(60)
@given(body=st.builds(lambda rest: {"claim": "o1", **rest}, optional(at=TURNISH, threshold=THRESHOLDS)))
@example(body={"claim": "o1", "at": True})
def test_a_verify_is_answered_iff_openapi_accepts_its_body(api, body):
    c, openapi = api
    body = json_of(body)
    schema_says = validator(openapi, "#/components/schemas/VerifyRequest").is_valid(body)
    response = post(c, "/conversations/one/verify", body)
    assert (response.status_code == 200) == schema_says, (body, response.json())
    assert response.status_code == 200 or refused_as_invalid(response), response.json()


@budget(60)
@given(header=HEADERS)
def test_a_conversation_is_created_iff_openapi_accepts_its_header(api, header):
    c, openapi = api
    body = json_of({"header": header})
    schema_says = validator(openapi, "#/components/schemas/CreateConversation").is_valid(body)
    response = post(c, "/conversations", body)
    assert (response.status_code == 201) == schema_says, (body, response.json())
