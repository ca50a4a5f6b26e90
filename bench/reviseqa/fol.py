"""First-order formulas as ReviseQA writes them, parsed into a small syntax tree.

The dataset's syntax (read off all 236 files): unary predicates applied to a
constant or a bound variable (``p_7(Novah)``, ``p_3(x)``), quantifiers
``∀x`` / ``∃x`` whose scope is the unary formula after them (in the data
always a parenthesised or negated group), negation ``¬`` (also ``-``, as in
``-(p_6(Molly) ↔ p_16(Molly))``), and the connectives ``∧ ∨ ⊕ → ← ↔``
(once or twice written ``->``); now and then a trailing ``.``.  The dataset's Prover9 translations use
``all x``, ``exists x``, ``-``, ``&``, ``|``, ``->``, ``<-``, ``<->``, and
the same parser reads them (``parse(text, dialect="prover9")``, which also
accepts the Unicode symbols some translations kept), so every formula can be
checked against its Prover9 twin.

Precedence, tightest first: ``¬``/quantifiers, ``∧``, ``∨``, then ``→``
and ``←`` (right-associative), then ``↔`` and ``⊕`` (left-associative, the
loosest).  ``⊕`` is exclusive or, as the dataset's own Prover9 translation
``-(a <-> b)`` has it.

Errors are ``FOLSyntaxError``, naming where the formula came from (file and
field, passed by the caller) and the character position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union


class FOLSyntaxError(ValueError):
    def __init__(self, message: str, text: str, pos: int, where: str = ""):
        self.where, self.text, self.pos = where, text, pos
        prefix = f"{where}: " if where else ""
        super().__init__(f"{prefix}cannot parse formula {text!r} at character {pos + 1}: {message}")


@dataclass(frozen=True, slots=True)
class Atom:
    predicate: str
    args: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Not:
    body: Formula


@dataclass(frozen=True, slots=True)
class Binary:
    op: str  # "and", "or", "implies", "iff", "xor"
    left: Formula
    right: Formula


@dataclass(frozen=True, slots=True)
class Quantified:
    quantifier: str  # "forall", "exists"
    var: str
    body: Formula


Formula = Union[Atom, Not, Binary, Quantified]  # noqa: UP007 - used at runtime by isinstance

# token kind -> regular expression, per dialect; identifiers and punctuation are shared
_SYMBOLS = {
    "unicode": [("forall", "∀"), ("exists", "∃"), ("not", "¬|-(?!>)"), ("and", "∧"), ("or", "∨"),
                ("xor", "⊕"), ("iff", "↔|<->"), ("implies", "→|->"), ("revimplies", "←|<-")],
    "prover9": [("forall", r"all\b|∀"), ("exists", r"exists\b|∃"), ("iff", "<->|↔"), ("implies", "->|→"),
                ("revimplies", "<-|←"), ("not", "-|¬"), ("and", "&|∧"), ("or", r"\||∨"), ("xor", "⊕")],
}
_SHARED = [("lpar", r"\("), ("rpar", r"\)"), ("comma", ","), ("ident", r"[A-Za-z_][A-Za-z0-9_']*"),
           ("end", r"\.\s*$"), ("space", r"\s+")]
_LEXERS = {d: re.compile("|".join(f"(?P<{k}>{rx})" for k, rx in syms + _SHARED)) for d, syms in _SYMBOLS.items()}


def _tokens(text: str, dialect: str, where: str) -> list[tuple[str, str, int]]:
    lexer = _LEXERS[dialect]
    out, pos = [], 0
    while pos < len(text):
        m = lexer.match(text, pos)
        if m is None:
            raise FOLSyntaxError(f"unexpected character {text[pos]!r}", text, pos, where)
        if m.lastgroup is not None and m.lastgroup not in ("space", "end"):
            out.append((m.lastgroup, m.group(), pos))
        pos = m.end()
    out.append(("eof", "", len(text)))
    return out


class _Parser:
    def __init__(self, text: str, dialect: str, where: str):
        self.text, self.where = text, where
        self.toks = _tokens(text, dialect, where)
        self.i = 0
        self.bound: list[str] = []

    def error(self, message: str) -> FOLSyntaxError:
        return FOLSyntaxError(message, self.text, self.toks[self.i][2], self.where)

    def peek(self) -> str:
        return self.toks[self.i][0]

    def take(self, kind: str) -> str:
        if self.peek() != kind:
            found = self.toks[self.i][1] or "end of formula"
            raise self.error(f"expected {kind}, found {found!r}")
        value = self.toks[self.i][1]
        self.i += 1
        return value

    def formula(self) -> Formula:
        result = self.equivalence()
        if self.peek() != "eof":
            raise self.error(f"unexpected {self.toks[self.i][1]!r}")
        return result

    def equivalence(self) -> Formula:
        left = self.implication()
        while self.peek() in ("iff", "xor"):
            op = self.peek()
            self.take(op)
            left = Binary(op, left, self.implication())
        return left

    def implication(self) -> Formula:
        left = self.disjunction()
        if self.peek() == "implies":
            self.take("implies")
            return Binary("implies", left, self.implication())
        if self.peek() == "revimplies":
            self.take("revimplies")
            return Binary("implies", self.implication(), left)
        return left

    def disjunction(self) -> Formula:
        left = self.conjunction()
        while self.peek() == "or":
            self.take("or")
            left = Binary("or", left, self.conjunction())
        return left

    def conjunction(self) -> Formula:
        left = self.unary()
        while self.peek() == "and":
            self.take("and")
            left = Binary("and", left, self.unary())
        return left

    def unary(self) -> Formula:
        kind = self.peek()
        if kind == "not":
            self.take("not")
            return Not(self.unary())
        if kind in ("forall", "exists"):
            self.take(kind)
            var = self.take("ident")
            self.bound.append(var)
            body = self.unary()
            self.bound.pop()
            return Quantified(kind, var, body)
        if kind == "lpar":
            self.take("lpar")
            inner = self.equivalence()
            self.take("rpar")
            return inner
        if kind == "ident":
            return self.atom()
        raise self.error(f"expected a formula, found {self.toks[self.i][1] or 'end of formula'!r}")

    def atom(self) -> Atom:
        predicate = self.take("ident")
        if self.peek() != "lpar":
            return Atom(predicate, ())  # a propositional constant
        self.take("lpar")
        args = [self.take("ident")]
        while self.peek() == "comma":
            self.take("comma")
            args.append(self.take("ident"))
        self.take("rpar")
        return Atom(predicate, tuple(args))


def parse(text: str, where: str = "", dialect: str = "unicode") -> Formula:
    """Parse one formula; ``where`` (e.g. ``ex_3.json: edits[1].edited_context_fol[4]``) names it in errors."""
    return _Parser(text.strip(), dialect, where).formula()


_OPS = {"and": "∧", "or": "∨", "implies": "→", "iff": "↔", "xor": "⊕"}


def show(f: Formula) -> str:
    """A canonical, fully parenthesised spelling: equal strings, equal syntax trees."""
    if isinstance(f, Atom):
        return f"{f.predicate}({','.join(f.args)})" if f.args else f.predicate
    if isinstance(f, Not):
        return f"¬{show(f.body)}"
    if isinstance(f, Quantified):
        return f"{'∀' if f.quantifier == 'forall' else '∃'}{f.var} {show(f.body)}"
    return f"({show(f.left)} {_OPS[f.op]} {show(f.right)})"


def free_constants(f: Formula, bound: frozenset[str] = frozenset()) -> set[str]:
    """The constants of a formula: argument names not bound by a quantifier around them."""
    if isinstance(f, Atom):
        return {a for a in f.args if a not in bound}
    if isinstance(f, Not):
        return free_constants(f.body, bound)
    if isinstance(f, Quantified):
        return free_constants(f.body, bound | {f.var})
    return free_constants(f.left, bound) | free_constants(f.right, bound)
