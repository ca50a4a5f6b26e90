"""The query registry: every query answers in one JSON shape through the CLI, the HTTP API and MCP.

One conversation (the paper's phase 2, its accepted turns) is written as an
event log for the CLI (``grounded query FILE NAME ... --json``) and appended to
a real ``grounded serve`` on 127.0.0.1 (SQLite); an MCP server over stdio (the
official SDK's client) reads the same store.  Every registered query, at the
latest turn and at an earlier one, must give the same JSON on all three, and
that JSON must validate against the entry's answer model, the schema
``grounded schema --queries`` publishes and the one docs/openapi.json names.

A toy query registered in the servers' processes only by a ``sitecustomize``
(one ``register(Query(...))``, no other file) shows up as a CLI query, a
route and a tool: the worked example of docs/architecture.md (Queries: the
registry), the Python side of adding a query.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import jsonschema
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client

from grounded import Engine, PreconditionError
from grounded.io.eventlog import header_json
from grounded.queries import registry
from grounded.queries.registry import QUERIES
from grounded.scenario import Scenario
from tests.inprocess import grounded
from tests.serve_helpers import ServerProcess, client, make_key

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "phase2.yaml"
EARLIER = 6

TOY = '''
from pydantic import Field

from grounded.queries.models import Answer, Params
from grounded.queries.registry import Query, register


class ClaimsAnswer(Answer):
    claims: list[str] = Field(description="Every literal some argument claims, sorted.")


register(Query("claims", "Every literal some argument claims (a toy query).", Params, ClaimsAnswer,
               walk=lambda s, p, t: sorted(c for c in s.state.claimants if s.state.claimants_at(c, t)),
               shape=lambda found, s, p, t: {"at": t, "claims": found}))
'''
"""The toy query: one entry, as a ``sitecustomize`` puts it in every process it starts."""

QUESTIONS: list[tuple[str, dict]] = [
    ("verify", {"claim": "h2"}), ("verify", {"claim": "h1"}), ("verify", {"claim": "nothing_here"}),
    ("affected", {"claim": "o5"}), ("affected", {"claim": "o5", "closure": False}),
    ("affected", {"claim": "never_said"}),
    ("reinstatable", {}), ("open_problems", {}), ("commitments", {}), ("dissent", {}),
    ("standing", {"claim": "h2"}), ("dep", {"claim": "h1"}), ("arguments", {"claim": "h1"}), ("arguments", {}),
    ("claims", {}),
]


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """The toy query registered here and, through a ``sitecustomize``, in every process the test starts."""
    site = tmp_path_factory.mktemp("site")
    (site / "sitecustomize.py").write_text(TOY)
    exec(compile(TOY, str(site / "sitecustomize.py"), "exec"), {})
    yield f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    registry.unregister("claims")


def _conversation(log: Path) -> tuple[dict, list[dict]]:
    scenario = Scenario.load(SCENARIO)
    accepted = []
    with Engine(scenario.header, log=log) as engine:
        for turn in scenario.turns:
            try:
                engine.apply(turn.utterance())
            except PreconditionError:
                continue
            accepted.append(turn.utterance())
    return header_json(scenario.header), accepted


async def _mcp_answers(db: str, key: str, pythonpath: str, asks: list[tuple[str, dict]]) -> tuple[list, list]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "grounded", "mcp", "--db", db, "--key", key],
                                   env={**get_default_environment(), "PYTHONPATH": pythonpath})
    answers = []
    with anyio.fail_after(120):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = sorted(t.name for t in (await session.list_tools()).tools)
            for name, args in asks:
                result = await session.call_tool(name, {"conversation": "reg", **args})
                assert not result.is_error, result.content
                answers.append(json.loads(result.content[0].text))  # type: ignore[union-attr]
    return tools, answers


@pytest.mark.slow
def test_every_query_answers_alike_through_the_cli_the_api_and_mcp(toy, tmp_path):
    log = tmp_path / "phase2.jsonl"
    header, utterances = _conversation(log)
    db = str(tmp_path / "grounded.db")
    key = make_key(db, "t1")
    asks = [(name, {**params, **({} if at is None else {"at": at})}) for name, params in QUESTIONS
            for at in (None, EARLIER)]
    assert {name for name, _ in asks} == set(QUERIES)  # every registered query is asked, the toy too
    with ServerProcess(db, tmp_path / "server.log", env={"PYTHONPATH": toy}) as server, client(server, key) as c:
        assert c.post("/conversations", json={"id": "reg", "header": header}).status_code == 201
        for u in utterances:
            assert c.post("/conversations/reg/utterances", json=u).status_code == 201
        by_api = []
        for name, args in asks:
            r = c.get(f"/conversations/reg/{QUERIES[name].path}",
                      params={k: str(v).lower() if isinstance(v, bool) else v for k, v in args.items()})
            assert r.status_code == 200, (name, r.text)
            by_api.append(r.json())
        documented = c.get(server.url + "/openapi.json").json()
    tools, by_mcp = anyio.run(_mcp_answers, db, key, toy, asks)
    assert set(QUERIES) <= set(tools)
    published = json.loads(grounded("schema", "--queries").stdout)  # the answers' schemas, by query name
    jsonschema.Draft202012Validator.check_schema(published)
    assert set(published["properties"]) == set(QUERIES)
    for (name, args), api, mcp in zip(asks, by_api, by_mcp, strict=True):
        q = QUERIES[name]
        cli_args = [name, *([args["claim"]] if "claim" in args else []),
                    *[a for k, v in args.items() if k not in ("claim", "at") for a in ("-p", f"{k}={json.dumps(v)}")],
                    *(["--at", str(args["at"])] if "at" in args else [])]
        done = grounded("query", log, *cli_args, "--json")
        assert done.returncode in (0, 1), done.stderr
        cli = json.loads(done.stdout)
        assert cli == api == mcp, (name, args)
        assert q.answer.model_validate(cli).model_dump(mode="json") == cli  # the entry's model, field for field
        jsonschema.validate(cli, {"$defs": published["$defs"], **published["properties"][name]})
        assert done.returncode == (0 if q.ok(cli) else 1)
        assert f"#/components/schemas/{q.answer.__name__}" in json.dumps(
            documented["paths"][f"/v1/conversations/{{cid}}/{q.path}"]["get"]["responses"]["200"])
    # the answers are about the conversation, not empty shapes: a few facts of phase 2
    answers = {(name, json.dumps(args, sort_keys=True)): a for (name, args), a in zip(asks, by_api, strict=True)}
    assert answers[("verify", '{"claim": "h2"}')]["reason"] == "h2 abandoned at T9 by o9"
    assert answers[("verify", '{"at": 6, "claim": "h2"}')]["grounded"] is True
    assert answers[("affected", '{"claim": "o5"}')]["hops"] == {"h3": 1, "h4": 2, "h1": 3}
    assert answers[("affected", '{"claim": "never_said"}')]["known"] is False
    assert "h2" in answers[("claims", "{}")]["claims"]


def test_a_bad_parameter_is_refused_naming_the_query_and_the_field(tmp_path):
    log = tmp_path / "phase2.jsonl"
    _conversation(log)
    done = grounded("query", log, "affected", "o5", "-p", "closure=maybe")
    assert done.returncode == 2 and "query affected: closure: Input should be a valid boolean" in done.stderr
    done = grounded("query", log, "nosuch")
    assert done.returncode == 2 and "no query 'nosuch' (one of verify, affected," in done.stderr
    done = grounded("query", log, "open_problems", "-p", "claim=o5")
    assert done.returncode == 2 and "query open_problems: claim: Extra inputs are not permitted" in done.stderr


def test_a_query_is_registered_once():
    with pytest.raises(ValueError, match="query verify is registered already"):
        registry.register(QUERIES["verify"])


def test_grounded_check_holds_each_registered_set_of_arguments_to_the_rules_and_asp():
    """``grounded check`` reads the registry: an entry naming a rules query and an ASP predicate is compared
    three ways (phase 3 has reinstatable arguments); an entry whose walk disagrees is reported by its name."""
    from grounded.crosscheck.check import check

    phase3 = SCENARIO.with_name("phase3.yaml")
    assert check(phase3).ok
    reinstatable = QUERIES["reinstatable"]
    registry.register(registry.Query("wrong", "reinstatable, walked wrong", reinstatable.params, reinstatable.answer,
                                     walk=lambda s, p, t: [], shape=reinstatable.shape, prolog="reinstatable",
                                     asp="now_reinstatable", ids=reinstatable.ids))
    try:
        report = check(phase3)
    finally:
        registry.unregister("wrong")
    found = [m for m in report.mismatches if m.startswith("wrong arguments")]
    assert len(found) == 2 and "Prolog" in found[0] and "ASP" in found[1], report.mismatches


PARAMS = [{}, {"claim": "o1"}, {"claim": "-a3"}, {"claim": ""}, {"claim": 3}, {"claim": None}, {"claim": b"o1"},
          {"claim": "o1", "closure": False}, {"claim": "o1", "closure": True}, {"claim": "o1", "closure": 0},
          {"claim": "o1", "closure": "false"}, {"closure": False}, {"claim": "o1", "other": 1}, {"other": 1}]


@pytest.mark.parametrize("name", list(QUERIES))
def test_parameters_read_as_plain_data_are_what_the_model_makes_of_them(name):
    """``Query.read`` takes parameters plainly right for a query's model without it (no pydantic on a query
    answered from a snapshot); whatever it so takes, the model takes alike, and it leaves the model all else."""
    from pydantic import ValidationError

    from grounded.queries.registry import PlainParams, plain_params

    q = QUERIES[name]
    assert isinstance(q.params_model, str)  # the built-in queries name their models
    taken = 0
    for given in PARAMS:
        plain = plain_params(q.params_model, given)
        try:
            model = q.params.model_validate(given)
        except ValidationError:
            assert plain is None, (name, given)
            continue
        if plain is None:
            continue
        taken += 1
        assert isinstance(q.read(given), PlainParams)
        for field in type(model).model_fields:
            assert getattr(plain, field) == getattr(model, field), (name, given, field)
    assert taken >= 1
