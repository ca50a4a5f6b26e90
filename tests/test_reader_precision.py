"""The offline reader accepts only what a claim confirms (issue "Verify from text that never gives false
assurance").

A conversation of its own (a bakery's ovens; no scenario or verifier item is in this domain), and one
regression per failure class: a wrong amount, an opposite predicate, another year, a stale hypothesis worded
through its premise, a new named entity, a cause with no hypothesis, and negators that are a claim's own
content.  Each asserts the verdict and its reason.
"""

from __future__ import annotations

import pytest

from grounded import Engine
from grounded.interpreter.anchor import AnchorIndex
from grounded.interpreter.polarity import stance
from grounded.interpreter.quantity import describe, unmatched
from grounded.interpreter.verdict import ABSTAIN, ACCEPT, REJECT

SIMILARITIES = ["tfidf", "embed"]
TURNS = [
    (1, "ines", [
        {"op": "observe", "claim": "o1", "text": "Oven 3 preheat time went from 12 minutes to 20 minutes."},
        {"op": "observe", "claim": "o2",
         "text": "The north bakery's proofing cabinet was unaffected by the power cut."},
        {"op": "observe", "claim": "o3", "text": "The south bakery's proofing cabinet failed during the power cut."},
        {"op": "observe", "claim": "o4", "text": "Marta opposes the new weekend rota."},
        {"op": "observe", "claim": "o5", "text": "The 2025 flour contract fixes the price per sack."},
    ]),
    (2, "tomas", [
        {"op": "observe", "claim": "o6", "text": "A new convection fan was fitted to oven 2."},
        {"op": "observe", "claim": "o7", "text": "Loaves from oven 2 come out with dry crusts."},
        {"op": "hypothesize", "claim": "h1", "deps": ["o6"], "explains": ["o7"],
         "text": "The new convection fan dries out the crusts in oven 2."},
    ]),
    (3, "ines", [
        {"op": "observe", "claim": "o8",
         "text": "The dry crusts also appear in loaves baked before the fan was fitted."},
        {"op": "revise", "target": "h1", "by": "o8", "text": "The fan is not why the crusts are dry."},
    ]),
    (4, "tomas", [
        {"op": "observe", "claim": "o9", "text": "The night shift stopped using oven 4."},
        {"op": "observe", "claim": "o10", "text": "The flour supplier, Moinhos Vale, delivers on Tuesdays."},
        {"op": "observe", "claim": "o11", "text": "The delivery van is not unreliable."},
        {"op": "observe", "claim": "o12", "text": "The sourdough starter smells of acetone on Mondays."},
    ]),
]


@pytest.fixture(scope="module")
def bakery():
    engine = Engine({"agents": {"ines": {"role": "head baker"}, "tomas": {"role": "maintenance"}}})
    for turn, speaker, ops in TURNS:
        engine.apply({"turn": turn, "speaker": speaker, "text": " ".join(o["text"] for o in ops), "ops": ops})
    yield engine
    engine.close()


@pytest.fixture(scope="module", params=SIMILARITIES)
def index(bakery, request):
    return AnchorIndex(bakery, None, request.param)


@pytest.mark.parametrize("text,verdict,reason", [
    # every amount is compared, not the first, and exactly (up to the coarser rounding)
    ("Oven 3 preheat time went from 12 minutes to 17 minutes.", ABSTAIN, "amount 17 minutes vs 20 minutes in o1"),
    ("Oven 3 preheat time went from 12 minutes to 20 minutes.", ACCEPT, "asserts o1"),
    ("Oven 3 preheat time went from 720 seconds to 20 minutes.", ACCEPT, "asserts o1"),
    # an opposite predicate with no negator contradicts
    ("Marta now supports the new weekend rota.", REJECT, "contradicts o4"),
    ("Marta does not support the new weekend rota.", ABSTAIN, "support against oppose in o4"),
    # another year is another contract
    ("The 2024 flour contract fixes the price per sack.", ABSTAIN, "number 2024 vs 2025 in o5"),
    # a stale hypothesis worded through its premise (o6) is the hypothesis
    ("The convection fan fitted to oven 2 is what dried out the loaves.", REJECT, "asserts h1, which is not grounded"),
    # a new fact about a named entity
    ("Moinhos Vale is headquartered in Braga.", ABSTAIN, "new entity: Braga"),
    # negators that are the claim's own content keep their sign; two resolve
    ("The night shift no longer uses oven 4.", ACCEPT, "asserts o9"),
    ("The night shift did not stop using oven 4.", REJECT, "contradicts o9"),
    ("The delivery van is reliable.", ACCEPT, "asserts o11"),
    # a conditional says what would follow; it does not deny the abandoned h1, a plain denial does
    ("Once the fan is cleaned, it will stop drying out the crusts in oven 2.", ABSTAIN,
     "a conditional clause read as denying h1"),
    ("The new convection fan does not dry out the crusts in oven 2.", ACCEPT, "denies h1 (not grounded)"),
    # a denial of a claim by a word that names it, beyond the best claim
    ("The north proofing cabinet failed too.", REJECT, "contradicts o2"),
    ("Like the south one, the north bakery's proofing cabinet failed during the power cut.", REJECT,
     "contradicts o2"),
])
def test_the_reader_accepts_only_what_a_claim_confirms(index, text, verdict, reason):
    v = index.verify(text)
    assert (v.verdict, reason in v.reason) == (verdict, True), (v.verdict, v.reason)


def test_a_cause_stated_of_an_observation_with_no_hypothesis_is_not_accepted(bakery):
    # TF-IDF: the clause anchors to o12, an observation; no hypothesis proposes a cause for it
    v = AnchorIndex(bakery, None, "tfidf").verify("Cleaning the starter jar with acetone is why the sourdough "
                                                  "starter smells of acetone on Mondays.")
    assert v.verdict == ABSTAIN, v.reason
    assert "causal claim with no hypothesis behind it" in v.reason


def test_a_clause_mostly_of_words_the_conversation_never_used_is_not_confirmed(bakery):
    # TF-IDF cannot tell a paraphrase from a new fact, so new content next to o7 abstains
    v = AnchorIndex(bakery, None, "tfidf").verify("Loaves from oven 2 have a walnut glaze with pumpernickel crumbs.")
    assert v.verdict == ABSTAIN and "new content next to o7: walnut, glaze, pumpernickel, crumb" in v.reason


def test_every_figure_is_compared_with_the_claims():
    assert [describe(f, like, "o4") for f, like in unmatched("p50 rose from 80 ms to 95 ms",
                                                           ["p50 rose from 80 ms to 110 ms"])] == \
        ["amount 95 ms vs 110 ms in o4"]
    assert unmatched("it took 1.5 s", ["it took 1500 ms"]) == []  # one measure, the coarser rounding
    assert unmatched("took 2 hours", ["took 120 minutes"]) == []
    assert unmatched("a $40 sack", ["a sack at 40 dollars"]) == []
    assert [f.surface for f, _ in unmatched("release v2.4 in 2026", ["release v2.3 in 2026"])] == ["v2.4"]


@pytest.mark.parametrize("a,b", [
    ("the mixer stopped turning", "the mixer no longer turns"),
    ("the mixer ceased turning", "the mixer is not turning"),
    ("the rye price is unchanged", "the rye price has not changed"),
    ("the batch is free of mould", "the batch has no mould"),
])
def test_a_negator_of_a_claims_own_content_reads_as_one_negation(a, b):
    assert stance(a).negated and stance(b).negated
