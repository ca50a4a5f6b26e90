"""An ASPARTIX-style encoding of grounded semantics, run on the same clingo as ours.

ASPARTIX (Egly, Gaggl and Woltran, "Answer-set programming encodings for
argumentation frameworks", Argument & Computation 1(2), 2010) wrote its
encodings for DLV, which has no conditional literals.  "Every attacker of X
is defeated" is therefore checked along a total order of the arguments,
built in the program itself: ``defeated_upto(X, Y)`` holds when each argument
up to Y in the order either does not attack X or is defeated, and X is in when
that reaches the last argument.  This is that idea, written here for clingo;
only the order's successor relation uses an aggregate instead of ASPARTIX's
cubic "not the successor" rule.  The program stays positive through in/1 and
defeated/1, so its one answer set is the least fixpoint: the grounded
extension.  The order makes it quadratic in the number of arguments (one
``defeated_upto`` atom per pair), which is the point of comparing it: our
encoding (asp/af_grounded.lp) says "every attacker" with a conditional
literal, and the labelling does without a solver.
"""

from __future__ import annotations

GROUNDED = """
first(X) :- X = #min { Y : arg(Y) }.
last(X)  :- X = #max { Y : arg(Y) }.
succ(X, Y) :- arg(X), Y = #min { Z : arg(Z), Z > X }, arg(Y).

defeated_upto(X, Y) :- first(Y), arg(X), not att(Y, X).
defeated_upto(X, Y) :- first(Y), att(Y, X), defeated(Y).
defeated_upto(X, Y) :- succ(Z, Y), defeated_upto(X, Z), not att(Y, X).
defeated_upto(X, Y) :- succ(Z, Y), defeated_upto(X, Z), att(Y, X), defeated(Y).

in(X)       :- last(Y), defeated_upto(X, Y).
defeated(X) :- in(Y), att(Y, X).

#show in/1.
"""
