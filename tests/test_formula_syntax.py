"""The plain-ASCII formula syntax: what it reads, how it binds, where it says it failed."""

from __future__ import annotations

import pytest
from hypothesis import given

from grounded.epistemic.formula import BOT, TOP, A, And, Atom, B, C, Iff, Implies, K, Not, Or, Xor, agents, atoms, show
from grounded.epistemic.parse import FormulaSyntaxError, parse

from .epistemic_strategies import formulas
from .test_properties import budget

p, q, r = Atom("p"), Atom("q"), Atom("r")


@pytest.mark.parametrize("text,tree", [
    ("K_alice m_a & ~K_bob m_b", And((K("alice", Atom("m_a")), Not(K("bob", Atom("m_b")))))),
    ("C_{alice,bob} p", C(("alice", "bob"), p)),
    ("C_{ alice , bob } p", C(("alice", "bob"), p)),
    ("C_alice p", C(("alice",), p)),
    ("K_{alice} p", K("alice", p)),
    ("A_carol mis_monitor", A("carol", Atom("mis_monitor"))),
    ("B_a ~p", B("a", Not(p))),
    ("-p", Not(p)),
    ("!p", Not(p)),
    ("~~p", Not(Not(p))),
    ("p & q | r", Or((And((p, q)), r))),
    ("p | q & r", Or((p, And((q, r))))),
    ("p & q & r", And((p, q, r))),
    ("(p & q) & r", And((And((p, q)), r))),
    ("p -> q -> r", Implies(p, Implies(q, r))),
    ("(p -> q) -> r", Implies(Implies(p, q), r)),
    ("p <-> q <-> r", Iff(Iff(p, q), r)),
    ("p ^ q | r", Xor(p, Or((q, r)))),
    ("p ^ q -> r", Implies(Xor(p, q), r)),
    ("p -> q <-> r", Iff(Implies(p, q), r)),
    ("K_a p -> q", Implies(K("a", p), q)),
    ("K_a (p -> q)", K("a", Implies(p, q))),
    ("~K_a K_b p", Not(K("a", K("b", p)))),
    ("true | false", Or((TOP, BOT))),
    ("decide_x-1 -> y", Implies(Atom("decide_x-1"), Atom("y"))),
    ("a.b:c", Atom("a.b:c")),
    ("  p  ", p),
])
def test_it_reads_and_binds_as_documented(text, tree):
    assert parse(text) == tree


@pytest.mark.parametrize("text,column,words", [
    ("K_alice m_a &", 14, "expected a formula after '&'"),
    ("p q", 3, "expected an operator"),
    ("(p & q", 7, "expected ')' to close the '(' at column 1"),
    ("p)", 2, "unbalanced ')'"),
    ("K_ p", 1, "needs an agent"),
    ("C_{a,,b} p", 6, "'' is not an agent name"),
    ("C_{a, b", 3, "never closed"),
    ("", 1, "empty formula"),
    ("   ", 4, "empty formula"),
    ("p & & q", 5, "expected a formula after '&'"),
    ("K_alice", 8, "expected a formula after 'K_alice'"),
    ("p # q", 3, "unexpected character '#'"),
    ("p -> ", 6, "expected a formula after '->'"),
    ("B_{a,b} p", 1, "takes one agent"),
    ("~", 2, "expected a formula after '~'"),
])
def test_errors_name_the_column(text, column, words):
    with pytest.raises(FormulaSyntaxError) as info:
        parse(text)
    assert info.value.column == column
    assert words in str(info.value)
    assert str(info.value).startswith(f"column {column}: ")


def test_printing_uses_the_fewest_parentheses():
    assert show(parse("((p & q)) | (r)")) == "p & q | r"
    assert show(parse("(p | q) & r")) == "(p | q) & r"
    assert show(parse("~(K_a p)")) == "~K_a p"
    assert show(parse("C_{a,b} (p -> q)")) == "C_{a,b} (p -> q)"
    assert str(K("alice", Atom("m_a")) & ~K("bob", Atom("m_b"))) == "K_alice m_a & ~K_bob m_b"


def test_atoms_and_agents_of_a_formula():
    f = parse("K_a (p -> C_{b,c} q) & A_d r")
    assert atoms(f) == {"p", "q", "r"}
    assert agents(f) == {"a", "b", "c", "d"}


NAMES = ["p", "m_a", "x1", "decide_x-1", "a.b", "h:2", "K", "B"]


@budget(200)
@given(f=formulas(atoms=NAMES, agents=["alice", "b_2", "c.d"]))
def test_printing_then_reading_gives_the_same_formula(f):
    assert parse(show(f)) == f
