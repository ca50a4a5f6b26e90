"""Where a verdict or an effect is decided: the ``.pl`` clause and the ``.lp`` rule, by file and line.

A disagreement between the rules and their twin names the operation and the
code or effect that differs; the author then wants the clause to read.  The
Prolog side is read from the clauses SWI-Prolog loaded (``clause_property/2``
gives each clause's file and line: the rules' ``clause_locations`` request);
the ASP side from clingo's own parser, whose every rule carries its location.
Neither file is parsed by hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path

import clingo.ast

from grounded.solvers.history import rule_files
from grounded.solvers.prolog import PrologRules, rules_dir
from grounded.solvers.ruleset import asp_twins

Key = tuple[str, str, str]
"""(kind, operation or program, name): ``("violation", "support", "support_self")``,
``("effect", "concur", "commit")``."""


def prolog_locations() -> dict[Key, list[str]]:
    """Every violation/5 and effect/4 clause of the loaded operations, by (kind, operation, code or effect)."""
    out: dict[Key, list[str]] = {}
    for _, kind, op, name, path, line in PrologRules.get().request(("clause_locations",)):
        out.setdefault((str(kind), str(op), str(name)), []).append(f"{_short(str(path))}:{line}")
    return out


@cache
def _asp_file(path: str) -> tuple[tuple[Key, str], ...]:
    """The violation and effect rules of one ASP file, with their lines (each file parsed once)."""
    found: list[tuple[Key, str]] = []
    program = ["base"]

    def visit(stmt: clingo.ast.AST) -> None:
        if stmt.ast_type == clingo.ast.ASTType.Program:
            program[0] = stmt.name
            return
        if stmt.ast_type != clingo.ast.ASTType.Rule:
            return
        head = stmt.head
        if head.ast_type != clingo.ast.ASTType.Literal or head.atom.ast_type != clingo.ast.ASTType.SymbolicAtom:
            return
        term = head.atom.symbol
        if term.ast_type != clingo.ast.ASTType.Function or term.name not in ("violation", "effect"):
            return
        if len(term.arguments) != 2:
            return
        inner = term.arguments[1]
        name = getattr(inner, "name", None)
        if name is None and inner.ast_type == clingo.ast.ASTType.SymbolicTerm:
            name = str(inner.symbol)
        if name:
            found.append(((term.name, program[0], name), f"{_short(path)}:{stmt.location.begin.line}"))

    clingo.ast.parse_files([path], visit)
    return tuple(found)


def asp_locations(extensions: Iterable[str | Path] = ()) -> dict[Key, list[str]]:
    """The violation and effect rules of the shipped encodings and the extensions' twins."""
    twins, _ = asp_twins(extensions)
    out: dict[Key, list[str]] = {}
    for path in [*rule_files(), *twins]:
        for key, where in _asp_file(str(path)):
            out.setdefault(key, []).append(where)
    return out


def _short(path: str) -> str:
    """A shipped file relative to the repository (prolog/ops/support.pl), an extension as given."""
    base = rules_dir().parent
    return path[len(str(base)) + 1:] if path.startswith(str(base) + "/") else path


class Locations:
    """Both sides' locations for one set of extensions, read once (the Prolog side as loaded now: make
    it after the engine that loaded the extensions)."""

    def __init__(self, extensions: Iterable[str | Path] = ()):
        self.prolog = prolog_locations()
        self.asp = asp_locations(extensions)

    def knows(self, kind: str, op: str, name: str) -> bool:
        """Does either side have a clause or rule for it?"""
        return (kind, op, name) in self.prolog or (kind, op, name) in self.asp

    def where(self, kind: str, op: str, name: str) -> str:
        """'decided at prolog/ops/support.pl:27; asp/ops/support.lp:8', or what side has no rule for it."""
        pl = self.prolog.get((kind, op, name), []) or self.prolog.get((kind, op, "?"), [])
        lp = self.asp.get((kind, op, name), [])
        what = "code" if kind == "violation" else "effect"
        left = ", ".join(pl) if pl else f"no {kind}/{5 if kind == 'violation' else 4} clause for this {what}"
        right = ", ".join(lp) if lp else f"no {kind} rule for this {what}"
        return f"{name}: {left}; {right}"
