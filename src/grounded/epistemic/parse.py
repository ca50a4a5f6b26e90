"""The plain-ASCII syntax of formulas: a parser with column-exact errors, and its printer.

    m_a | m_b | m_c                  atoms, | (or), & (and), ~ or - (not)
    K_alice m_a & ~K_bob m_b         K_i knowledge, B_i belief, A_i awareness
    C_{alice,bob} (p -> q)           C_G common knowledge of a group
    p ^ q,  p -> q,  p <-> q         xor, implication (right-associative), equivalence
    true, false                      the constants

Binding, tightest first: the prefixes (~ K B C A), &, |, ^, ->, <->.
Identifiers are letters, digits and ``_ . : -`` (a ``-`` inside a name, as
in the engine's ids, never before ``>``); names of the form ``K_x``, ``B_x``,
``A_x`` and ``C_x`` are modalities, and ``true``/``false`` are constants.

``show`` (formula.py) prints with the fewest parentheses that read back as the same tree,
so ``parse(show(f)) == f``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from grounded.core.bounds import MAX_FORMULA_DEPTH
from grounded.core.errors import InputError
from grounded.epistemic.formula import BOT, TOP, A, And, Atom, B, C, Formula, Iff, Implies, K, Not, Or, Xor, depth

_NAME_START = re.compile(r"[A-Za-z0-9_]")
_NAME_CHAR = re.compile(r"[A-Za-z0-9_.:]")
_MODAL = re.compile(r"([KBAC])_(.*)", re.S)
_AGENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:\-]*")

# binary operators: token -> (precedence, node type); higher binds tighter
_BINARY = {"<->": (1, Iff), "->": (2, Implies), "^": (3, Xor), "|": (4, Or), "&": (5, And)}


class FormulaSyntaxError(InputError):
    """A formula that does not parse; ``column`` is 1-based."""

    def __init__(self, message: str, column: int, text: str):
        self.column = column
        self.text = text
        super().__init__(f"column {column}: {message}")


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # name, modal, op, lparen, rparen, end
    text: str
    column: int
    value: object = None  # modal: (letter, agents)


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        col = i + 1
        if ch.isspace():
            i += 1
        elif text.startswith("<->", i):
            tokens.append(Token("op", "<->", col))
            i += 3
        elif text.startswith("->", i):
            tokens.append(Token("op", "->", col))
            i += 2
        elif ch in "&|^":
            tokens.append(Token("op", ch, col))
            i += 1
        elif ch in "~!-":
            tokens.append(Token("not", ch, col))
            i += 1
        elif ch == "(":
            tokens.append(Token("lparen", ch, col))
            i += 1
        elif ch == ")":
            tokens.append(Token("rparen", ch, col))
            i += 1
        elif _NAME_START.match(ch):
            j = i + 1
            while j < n and (_NAME_CHAR.match(text[j]) or (text[j] == "-" and j + 1 < n and text[j + 1] != ">"
                                                            and _NAME_CHAR.match(text[j + 1]))):
                j += 1
            name = text[i:j]
            m = _MODAL.fullmatch(name)
            if m is None:
                tokens.append(Token("name", name, col))
                i = j
                continue
            letter, rest = m.groups()
            if rest:
                if rest == "-" or _AGENT.fullmatch(rest) is None:
                    raise FormulaSyntaxError(f"{name!r}: bad agent name after {letter}_", col, text)
                tokens.append(Token("modal", name, col, (letter, (rest,))))
                i = j
                continue
            if j < n and text[j] == "{":
                close = text.find("}", j)
                if close < 0:
                    raise FormulaSyntaxError(f"{letter}_{{ is never closed with }}", j + 1, text)
                group, start = [], j + 1
                for part in text[j + 1:close].split(","):
                    g = part.strip()
                    if _AGENT.fullmatch(g) is None:
                        where = start + len(part) - len(part.lstrip()) + 1
                        raise FormulaSyntaxError(f"{g!r} is not an agent name in {letter}_{{...}}", where, text)
                    group.append(g)
                    start += len(part) + 1
                if letter != "C" and len(group) != 1:
                    raise FormulaSyntaxError(f"{letter}_ takes one agent, not {len(group)}", col, text)
                tokens.append(Token("modal", text[i:close + 1], col, (letter, tuple(group))))
                i = close + 1
                continue
            raise FormulaSyntaxError(f"{name!r} needs an agent: write {letter}_alice or {letter}_{{alice}}", col, text)
        else:
            raise FormulaSyntaxError(f"unexpected character {ch!r}", col, text)
    tokens.append(Token("end", "", n + 1))
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0
        self.level = 0  # nested operands being read: bounded so that no input runs out of stack

    def peek(self) -> Token:
        return self.tokens[self.pos]

    def take(self) -> Token:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def error(self, message: str, tok: Token) -> FormulaSyntaxError:
        return FormulaSyntaxError(message, tok.column, self.text)

    def formula(self, level: int = 1) -> Formula:
        """Precedence climbing from ``level`` up."""
        left = self.unary()
        while True:
            tok = self.peek()
            if tok.kind != "op" or _BINARY[tok.text][0] < level:
                return left
            prec, node = _BINARY[tok.text]
            self.take()
            if node in (And, Or):
                args = [left, self.operand(prec + 1, tok)]
                while self.peek().kind == "op" and self.peek().text == tok.text:
                    op = self.take()
                    args.append(self.operand(prec + 1, op))
                left = node(tuple(args))
            elif node is Implies:  # right-associative
                left = Implies(left, self.operand(prec, tok))
            else:  # <-> and ^ associate to the left
                left = node(left, self.operand(prec + 1, tok))

    def operand(self, level: int, after: Token) -> Formula:
        if self.peek().kind in ("end", "rparen", "op"):
            raise self.error(f"expected a formula after {after.text!r}", self.peek())
        with self.nested():
            return self.formula(level)

    @contextmanager
    def nested(self) -> Iterator[None]:
        self.level += 1
        if self.level > MAX_FORMULA_DEPTH:
            raise self.error(f"the formula is nested more than {MAX_FORMULA_DEPTH} levels deep", self.peek())
        try:
            yield
        finally:
            self.level -= 1

    def unary(self) -> Formula:
        tok = self.take()
        if tok.kind == "not":
            return Not(self.prefixed(tok))
        if tok.kind == "modal":
            assert isinstance(tok.value, tuple), tok
            letter, group = tok.value
            arg = self.prefixed(tok)
            if letter == "C":
                return C(group, arg)
            return {"K": K, "B": B, "A": A}[letter](group[0], arg)
        if tok.kind == "lparen":
            inner = self.operand(1, tok)
            close = self.take()
            if close.kind != "rparen":
                raise self.error(f"expected ')' to close the '(' at column {tok.column}", close)
            return inner
        if tok.kind == "name":
            if tok.text == "true":
                return TOP
            if tok.text == "false":
                return BOT
            return Atom(tok.text)
        if tok.kind == "end":
            raise self.error("expected a formula, found the end", tok)
        raise self.error(f"expected a formula, found {tok.text!r}", tok)

    def prefixed(self, prefix: Token) -> Formula:
        if self.peek().kind in ("end", "rparen", "op"):
            raise self.error(f"expected a formula after {prefix.text!r}", self.peek())
        with self.nested():
            return self.unary()


def parse(text: str) -> Formula:
    """Read one formula; FormulaSyntaxError names the column of the first problem."""
    if not isinstance(text, str):
        raise FormulaSyntaxError(f"a formula is text, not {type(text).__name__}", 1, str(text))
    p = _Parser(text)
    f = p.operand(1, Token("start", "the start", 1)) if p.peek().kind != "end" else None
    if f is None:
        raise p.error("empty formula", p.peek())
    tok = p.peek()
    if tok.kind != "end":
        if tok.kind == "rparen":
            raise p.error("unbalanced ')'", tok)
        raise p.error(f"expected an operator (& | ^ -> <->) before {tok.text!r}", tok)
    if depth(f) > MAX_FORMULA_DEPTH:  # a long chain of ^ or <-> nests without nesting the text
        raise FormulaSyntaxError(f"the formula is nested {depth(f)} levels deep (at most {MAX_FORMULA_DEPTH})",
                                 1, text)
    return f
