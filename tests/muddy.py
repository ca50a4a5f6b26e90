"""The muddy children, in the style of SMCDEL's ``mudScnInit n m`` and ``father n``.

n children, the first m of them muddy; child i sees every forehead but its
own (atom ``m<i>``, agent ``c<i>``).  The father announces that at least one
child is muddy; then, round after round, the children say at once whether
they know their own state.  The classic result: in round m the muddy children
know (so "nobody knows" is announced m-1 times), and the clean ones know in
round m+1.

    >>> muddy(3, 2).rounds
    2
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grounded.epistemic.formula import Atom, Formula, Not, conj, disj, knows_whether
from grounded.epistemic.model import PlausibilityModel
from grounded.epistemic.semantics import holds
from grounded.epistemic.updates import announce


def child(i: int) -> str:
    return f"c{i}"


def mud(i: int) -> str:
    return f"m{i}"


def muddy_model(n: int, m: int) -> PlausibilityModel:
    """mudScnInit n m: all 2^n valuations, child i observes every m_j but its own; m_1..m_m true."""
    if not 1 <= n <= 22 or not 0 <= m <= n:
        raise ValueError(f"muddy({n}, {m}): need 1 <= n <= 22 and 0 <= m <= n")
    atoms = [mud(i) for i in range(1, n + 1)]
    observes = {child(i): [a for a in atoms if a != mud(i)] for i in range(1, n + 1)}
    return PlausibilityModel.cube(atoms, observes, actual=atoms[:m])


def father(n: int) -> Formula:
    """At least one of you is muddy."""
    return disj(*(Atom(mud(i)) for i in range(1, n + 1)))


def knows_own(i: int) -> Formula:
    return knows_whether(child(i), Atom(mud(i)))


def nobody_knows(n: int) -> Formula:
    """The round's simultaneous answer: no child knows whether it is muddy."""
    return conj(*(Not(knows_own(i)) for i in range(1, n + 1)))


@dataclass
class MuddyRun:
    n: int
    m: int
    rounds: int  # the round in which the muddy children know
    sizes: list[int] = field(default_factory=list)  # |W| initially, after the father, after each "nobody knows"
    clean_know_early: bool = False  # the clean children already know in round m (they should not)
    clean_know_next: bool = False  # the clean children know in round m+1


def muddy(n: int, m: int) -> MuddyRun:
    """Run the puzzle: announce the father's statement, then "nobody knows" until
    the muddy children know.  Eliminated worlds are dropped between rounds
    (faster for large n; nothing is withdrawn here)."""
    if m < 1:
        raise ValueError("with no muddy child the father's announcement is false")
    model = muddy_model(n, m)
    sizes = [model.size]
    model = announce(model, father(n))
    sizes.append(model.size)
    muddy_know = conj(*(knows_own(i) for i in range(1, m + 1)))
    rounds = 1
    while not holds(model, muddy_know):
        if rounds > n:
            raise AssertionError(f"muddy({n}, {m}): still nobody knows after {n} rounds")
        model = announce(model, nobody_knows(n)).restricted()
        sizes.append(model.size)
        rounds += 1
    # Round m's answers, said at once: the muddy children know, the clean ones do not yet.
    answers = [knows_own(i) for i in range(1, n + 1)]
    said = conj(*(f if holds(model, f) else Not(f) for f in answers))
    clean = conj(*answers[m:])
    after = announce(model, said)
    return MuddyRun(n, m, rounds, sizes, clean_know_early=m < n and holds(model, clean),
                    clean_know_next=holds(after, clean))
