"""`grounded schema`: the JSON Schema of the event-log format, or of a cited continuation."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from pydantic.json_schema import models_json_schema

from grounded.cli.app import Extensions, Timeout, app
from grounded.engine import Engine
from grounded.io.origin import HeaderLine


@app.command()
def schema(extension: Extensions = None, timeout: Timeout = None,
           cited: Annotated[bool, typer.Option("--cited", help="The schema of a cited continuation instead "
                                                               "(what `grounded verify --cited` reads).")] = False,
           queries: Annotated[bool, typer.Option("--queries", help="The schemas of the queries' answers instead: "
                                                                   "one per registered query, the JSON `grounded "
                                                                   "query`, the HTTP API and the MCP tools "
                                                                   "answer.")] = False,
           ) -> None:
    """Print the JSON Schema of the event-log format (header line, utterance lines)."""
    if queries:
        from grounded.queries.registry import QUERIES

        _, doc = models_json_schema([(q.answer, "serialization") for q in QUERIES.values()],
                                    title="grounded query answers")
        print(json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema",
                          "description": "The answer of each query (grounded.queries.registry), by query name.",
                          "properties": {q.name: {"$ref": f"#/$defs/{q.answer.__name__}", "description": q.help}
                                         for q in QUERIES.values()}, **doc}, indent=2))
        return
    if cited:
        from grounded.core.cited import CitedContinuation

        doc = {"$schema": "https://json-schema.org/draft/2020-12/schema", **CitedContinuation.model_json_schema()}
        print(json.dumps(doc, indent=2))
        return
    with Engine(extensions=extension or ()) as engine:
        utterance = engine.registry.utterance_model
    # line 1 as the library writes it: the Header plus the rules version and extensions it records
    _, doc = models_json_schema([(HeaderLine, "validation"), (utterance, "validation")],
                                title="grounded event log line")
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema",
           "description": "Line 1 of an event log is a HeaderLine; every further line is an Utterance.",
           "oneOf": [{"$ref": "#/$defs/HeaderLine"}, {"$ref": "#/$defs/Utterance"}], **doc}
    print(json.dumps(doc, indent=2))
