"""The precondition catalogue: every operation, its fields, preconditions and transitions, from the rules.

``grounded rules`` prints it and docs/preconditions.md is its output.  The
operations and their fields come from the engine's registry (``operation/3``);
the preconditions (stable code, message template) and the transitions each
operation can emit are read from the clauses SWI-Prolog has loaded, by
``prolog/catalogue.pl`` (clause introspection, no parsing of rule files).  So
an extension loaded with ``--extension`` is listed like a built-in operation,
and the catalogue follows the rules wherever their files move.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from grounded.engine import Engine
from grounded.solvers.prolog import PrologRules, rules_dir

_PLACE = re.compile(r"~[wqap]")


@dataclass(frozen=True)
class Message:
    template: str
    """The message with each place named: '{claim} is outside every agent's awareness'."""
    places: tuple[str, ...]


@dataclass
class Precondition:
    code: str
    messages: list[Message] = field(default_factory=list)
    source: str = ""


@dataclass
class OperationEntry:
    name: str
    doc: str
    fields: list[dict[str, Any]]
    extension: str | None
    """The extension rule file that adds it (None: built in)."""
    preconditions: list[Precondition] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)
    model_effects: list[str] = field(default_factory=list)
    """Effects emitted only when the conversation declares a world model."""


@dataclass
class Catalogue:
    operations: list[OperationEntry]
    general: dict[str, list[Precondition]]
    """The driver's own checks, by scope: utterance, operation (any), invariant."""
    transitions: dict[str, list[str]]
    """The effect vocabulary: name -> argument types."""

    @property
    def codes(self) -> list[str]:
        out = [p.code for op in self.operations for p in op.preconditions]
        out += [p.code for checks in self.general.values() for p in checks]
        return list(dict.fromkeys(out))

    def to_json(self) -> dict[str, Any]:
        return {"operations": [asdict(op) for op in self.operations],
                "general": {k: [asdict(p) for p in v] for k, v in self.general.items()},
                "transitions": self.transitions, "codes": self.codes}


def _template(raw: str, places: list[str]) -> Message:
    names = iter(places)

    def name(_: re.Match) -> str:
        n = next(names, "?")
        return "{" + ("?" if n == "_" else n) + "}"

    return Message(_PLACE.sub(name, raw).replace("~~", "~"), tuple(places))


def _relative(where: str) -> str:
    """'/.../prolog/ops/observe.pl:13' -> 'prolog/ops/observe.pl:13' for the shipped rules."""
    base = str(rules_dir())
    return "prolog" + where[len(base):] if where.startswith(base) else where


def catalogue(extensions: list[Path] | None = None) -> Catalogue:
    """Read the catalogue from the rules as loaded (with these extensions)."""
    with Engine(extensions=extensions or ()) as engine:
        text = PrologRules.get().catalogue_text()
        specs = engine.registry.specs
        ext_of = _extension_files(engine)
    ops = {name: OperationEntry(name, spec.doc, [{"name": f.name, "type": f.type, "required": f.required}
                                                 for f in spec.fields], ext_of.get(name))
           for name, spec in specs.items()}
    general: dict[str, list[Precondition]] = {}
    transitions: dict[str, list[str]] = {}
    for line in text.splitlines():
        kind, *rest = line.split("\t")
        if kind in ("violation", "check"):
            owner, code, template, places, where = rest
            message = _template(template, places.split("|") if places else [])
            bucket = ops[owner].preconditions if kind == "violation" and owner in ops \
                else general.setdefault(owner, [])
            found = next((p for p in bucket if p.code == code), None)
            if found is None:
                bucket.append(found := Precondition(code, [], _relative(where)))
            if message not in found.messages:
                found.messages.append(message)
        elif kind == "effect":
            owner, effect, condition = rest
            if owner in ops:
                target = ops[owner].model_effects if condition == "world_model" else ops[owner].effects
                if effect not in target:
                    target.append(effect)
        elif kind == "signature":
            name, types = rest
            transitions[name] = types.split(",") if types else []
    return Catalogue(list(ops.values()), general, transitions)


def _extension_files(engine: Engine) -> dict[str, str]:
    """Operation -> the extension file declaring it, by loading each extension alone."""
    if not engine.extensions:
        return {}
    names = set(engine.registry.extension_names)
    out: dict[str, str] = {}
    for path in engine.extensions:
        with Engine(extensions=[path]) as alone:
            for name in alone.registry.extension_names:
                if name in names:
                    out.setdefault(name, Path(path).name)
    return out


# -- Markdown ---------------------------------------------------------------------------------------------

HEADER = """# Precondition catalogue

Generated from the rules as loaded by `grounded rules > docs/preconditions.md`; do not edit by hand
(`tests/test_catalogue.py` fails when this file and the command's output differ). Each precondition has a
stable code; its message names the failing condition, with `{field}` where the operation's field (or the
speaker, or what the rule computed) is filled in. Transitions are the effects an operation can emit
(`new` is the argument it creates); the driver drops those that change nothing and re-decides the open
problems they touch.
"""


def markdown(cat: Catalogue) -> str:
    lines = [HEADER]
    n_pre = sum(len(op.preconditions) for op in cat.operations)
    n_gen = sum(len(v) for v in cat.general.values())
    lines.append(f"{len(cat.operations)} operations, {n_pre} operation preconditions and {n_gen} checks of the "
                 f"driver: {len(cat.codes)} codes.\n")
    for op in cat.operations:
        lines.append(f"## {op.name}" + (f" (extension: {op.extension})" if op.extension else "") + "\n")
        lines.append(op.doc + "\n")
        fields = ", ".join(f"`{f['name']}` ({f['type']}{', required' if f['required'] else ''})" for f in op.fields)
        lines.append(f"Fields: {fields or 'none'}.\n")
        if op.preconditions:
            lines.append("| code | message |")
            lines.append("| --- | --- |")
            for p in op.preconditions:
                lines.append(f"| `{p.code}` | {_cell(' / '.join(m.template for m in p.messages))} |")
            lines.append("")
        else:
            lines.append("No preconditions of its own.\n")
        if op.effects:
            lines.append("Transitions: " + ", ".join(f"`{e}`" for e in op.effects) + ".\n")
        if op.model_effects:
            lines.append("With a world model, on M: " + ", ".join(f"`{e}`" for e in op.model_effects) + ".\n")
    titles = {"utterance": "Any utterance", "operation": "Any operation",
              "invariant": "Invariants, checked after every operation's effects"}
    lines.append("## Checks of the driver\n")
    for scope, checks in cat.general.items():
        lines.append(f"### {titles.get(scope, scope)}\n")
        lines.append("| code | message |")
        lines.append("| --- | --- |")
        for p in checks:
            lines.append(f"| `{p.code}` | {_cell(' / '.join(m.template for m in p.messages))} |")
        lines.append("")
    lines.append("## Transition vocabulary\n")
    lines.append("| effect | arguments |")
    lines.append("| --- | --- |")
    for name, types in cat.transitions.items():
        lines.append(f"| `{name}` | {', '.join(types)} |")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
