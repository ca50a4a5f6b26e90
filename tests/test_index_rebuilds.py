"""The rules' clause indexes are rebuilt at sizes apart (prolog/state.pl, stagger_indexes/1; issue 23).

SWI-Prolog rebuilds a clause index from every clause once it holds twice the clauses it was built over: a
step of time in proportion to the predicate.  Grown from empty, every index of a state was built at the same
small size, so in a Dep chain or a fan the eight indexes of the predicates that grow one clause per hypothesis
were rebuilt in the same few utterances (0.3 s at 98,304 hypotheses, in the last tenth of ``python -m bench
ingest``'s 10^5 chain).  Here each index's rebuilds are seen as its bucket count changing, utterance by
utterance, and at most three of them may fall within any growth of the conversation by a tenth.
"""

from __future__ import annotations

import pytest
from pyswip import Prolog

from grounded import Engine

N = 7_000
SPAN = 1.1
"""A growth by a tenth: the span of one tenth at the end of a run, where a step of time shows."""
MOST = 3


def buckets(module: str) -> dict[str, int]:
    """Each single-argument clause index of the state module: its bucket count, by predicate and argument."""
    query = (f"findall(X, ( current_predicate('{module}':F/A), functor(H, F, A), "
             f"predicate_property('{module}':H, indexed(L)), member(single(K)-hash(B, _, _, _), L), "
             f"format(atom(X), '~w/~w:~w=~w', [F, A, K, B]) ), Xs), atomic_list_concat(Xs, ' ', S)")
    pairs = [p.split("=") for p in str(next(Prolog.query(query))["S"]).split()]
    return {name: int(count) for name, count in pairs}


def rebuilds(kind: str) -> list[tuple[int, str]]:
    """(hypotheses so far, index) for each index rebuilt past 1,000 hypotheses while building ``kind``."""
    engine = Engine({"agents": {"a": {"authority": True}}})
    engine.apply({"speaker": "a", "ops": [{"op": "observe", "claim": "o0"}, {"op": "question", "claim": "q0"}]})
    module, seen, found = engine.rules.module, {}, []
    for i in range(1, N + 1):
        dep = f"h{i - 1}" if kind == "chain" and i > 1 else "o0"
        engine.apply({"speaker": "a", "ops": [{"op": "hypothesize", "claim": f"h{i}", "deps": [dep],
                                               "explains": ["q0"]}]})
        now = buckets(module)  # an index dropped is missing until the next call rebuilds it
        found += [(i, name) for name, count in now.items() if i > 1_000 and count > seen.get(name, count)]
        seen.update(now)
    engine.close()
    return found


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["chain", "fan"])
def test_the_indexes_of_a_deep_input_are_rebuilt_apart(kind):
    """Before: the chain's eight indexes (claimed/6 on two arguments, dep/2, explains/2, dep_level/3,
    rested_on/2, committed/2, aware_prop/2) and the fan's six were rebuilt together at 1,536, 3,072 and
    6,144 hypotheses."""
    found = rebuilds(kind)
    # the grown indexes were each rebuilt (since a speaker's own commitment and a proposition that came with
    # its first argument are kept in claimed/6, committed/2 and aware_prop/2 no longer grow per hypothesis)
    assert len({name for _, name in found}) >= 5, found
    crowded = max((sum(1 for j, _ in found if i <= j <= i * SPAN), i) for i, _ in found)
    assert crowded[0] <= MOST, f"{crowded[0]} rebuilds from {crowded[1]:,} hypotheses on: {found}"
