"""Ground a multi-shot encoding in one call: part parameters become variables.

history.lp is written as ``#program`` parts with parameters so that a live
conversation can be grounded turn by turn.  Checking a whole log that way is
slow: every part instance is a new set of rules, and gringo builds fresh
indices for each, so a turn costs time proportional to the history before it.

Here the same rules are rewritten through clingo's AST: inside a part
``p(x, u)`` the constants ``x`` and ``u`` become the variables ``P_X`` and
``P_U``, and every statement gets the body literal ``dom_p(P_X, P_U)``, whose
facts (asp/oneshot.lp, asp/oneshot_view.lp) enumerate exactly the instances the
incremental driver would ground; the answer set is the same.  A part named after
an operation (``#program observe(s).``) gets ``step(P_S, _, _, observe)``: the
steps of that operation.  (Grounding the
rewritten rules in several calls, a chunk of the history each, was measured
slower: every call rebuilds gringo's indices over everything before it.)
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

import clingo
from clingo import ast

_REWRITTEN = (ast.ASTType.Rule, ast.ASTType.ShowTerm, ast.ASTType.External)
_KEPT = (ast.ASTType.ShowSignature, ast.ASTType.Definition)


def variable_name(param: str) -> str:
    return "P_" + param.upper()


class _Parameters(ast.Transformer):
    """Replace the constants naming a part's parameters by variables."""

    def __init__(self, params: set[str]):
        self.params = params

    def visit_SymbolicTerm(self, term: ast.AST) -> ast.AST:  # noqa: N802 - clingo's visitor naming
        sym = term.symbol
        if sym.type == clingo.SymbolType.Function and not sym.arguments and sym.name in self.params:
            return ast.Variable(term.location, variable_name(sym.name))
        return term


def _domain_literal(location: ast.Location, part: str, params: list[str], operations: frozenset[str]) -> ast.AST:
    args = [ast.Variable(location, variable_name(p)) for p in params]
    if part in operations and len(params) == 1:
        # the part of one operation's rules: the steps whose operation it is
        anything = ast.Variable(location, "_")
        name = ast.SymbolicTerm(location, clingo.Function(part))
        atom = ast.SymbolicAtom(ast.Function(location, "step", [args[0], anything, anything, name], 0))
    else:
        atom = ast.SymbolicAtom(ast.Function(location, f"dom_{part}", args, 0))
    return ast.Literal(location, ast.Sign.NoSign, atom)


def one_shot_statements(files: tuple[str, ...], operations: frozenset[str] = frozenset()) -> tuple[ast.AST, ...]:
    """The statements of ``files``, every part with parameters folded into base, parameters rewritten.

    Each file is parsed once per process and contents: a check grounds many
    histories with the same rules, and a file rewritten in place is parsed again.
    """
    statements: list[ast.AST] = []
    for path in files:
        with open(path, encoding="utf-8") as handle:
            statements.extend(_file_statements(path, handle.read(), operations))
    return tuple(statements)


@cache
def _file_statements(path: str, text: str, operations: frozenset[str]) -> tuple[ast.AST, ...]:
    statements: list[ast.AST] = []
    part: tuple[str, list[str]] = ("base", [])

    def add(stm: ast.AST) -> None:
        nonlocal part
        kind = stm.ast_type
        if kind == ast.ASTType.Program:
            part = (stm.name, [p.name for p in stm.parameters])
            # a part with parameters is folded into base; one without keeps its name, for a later ground call
            statements.append(ast.Program(stm.location, "base" if part[1] else stm.name, []))
            return
        if kind == ast.ASTType.Comment:
            return
        name, params = part
        if not params or kind in _KEPT:
            statements.append(stm)
            return
        if kind not in _REWRITTEN:
            raise ValueError(f"{path}:{stm.location.begin.line}: cannot ground a {kind.name} "
                             f"of part {name} in one shot")
        stm = _Parameters(set(params))(stm)
        statements.append(stm.update(body=[*stm.body, _domain_literal(stm.location, name, params, operations)]))

    ast.parse_string(text, add)
    return tuple(statements)


def add_one_shot(ctl: clingo.Control, files: Iterable[str], operations: Iterable[str] = ()) -> None:
    """Add every part of ``files`` with parameters to ``ctl``'s base part, parameters rewritten; a part
    without parameters keeps its name (asp/oneshot.lp's ``queue``, grounded after base).

    A part named after one of ``operations`` (``#program observe(s).``) holds that
    operation's rules: its instances are the steps of that operation.
    """
    with ast.ProgramBuilder(ctl) as builder:
        for stm in one_shot_statements(tuple(files), frozenset(operations)):
            builder.add(stm)
