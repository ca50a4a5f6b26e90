"""The try-it form's operations, read from the JSON Schema the operation registry generates.

The page builds its form from this list (an operation picker, one input per
field), so the form offers exactly what the rules' pydantic models accept,
extensions included, with nothing spelled twice: the schema is the one
``grounded schema`` prints.  The page only collects the fields; the engine
validates them (``Engine.whatif``), so a wrong field comes back as the
engine's own error.
"""

from __future__ import annotations

from typing import Any

KINDS = {"array": "list", "boolean": "boolean", "integer": "number", "number": "number"}
"""JSON Schema types the form has an input for other than text (a list is typed comma-separated)."""


def _kind(spec: dict[str, Any]) -> str:
    types = [spec.get("type")] + [s.get("type") for s in spec.get("anyOf", [])]
    return next((KINDS[t] for t in types if t in KINDS), "text")


def operation_forms(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Each operation of an utterance model's JSON Schema: its name, what it does, and its fields
    (name, kind: text, list, boolean or number; required), in the registry's order."""
    defs = schema.get("$defs", {})
    forms = []
    for ref in schema["properties"]["ops"]["items"]["oneOf"]:
        model = defs[ref["$ref"].rsplit("/", 1)[-1]]
        required = set(model.get("required", []))
        fields = [{"name": name, "kind": _kind(spec), "required": name in required,
                   "description": spec.get("description", "")}
                  for name, spec in model["properties"].items() if name != "op"]
        forms.append({"op": model["properties"]["op"]["const"], "description": model.get("description", ""),
                      "fields": fields})
    return forms
