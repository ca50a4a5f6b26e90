"""Verify from text, offline: polarity, contrast, reversed causation, the verdict rule, the CLI.

The sentences here are written for the tests (none is an item of the verifier
set).  Anchoring tests run with both similarities: the sentence-embedding
model (installed by `make setup-test`, the embed extra) and TF-IDF, the fallback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounded import Engine
from grounded.interpreter import embedding
from grounded.interpreter.anaphora import known_names, resolve
from grounded.interpreter.anchor import AnchorIndex, acronyms, foreign_names, verify_text
from grounded.interpreter.causal import chain, direction, link
from grounded.interpreter.mood import directive, imperative, proposal
from grounded.interpreter.polarity import clauses, relation, stance
from grounded.interpreter.quantity import amounts, conflict
from grounded.interpreter.restriction import restricted, unrestricted
from grounded.interpreter.verdict import ABSTAIN, ACCEPT, REJECT, by_claim
from tests.inprocess import grounded as here
from tests.phases import scenario_engine

ROOT = Path(__file__).resolve().parent.parent
PHASE2 = ROOT / "scenarios" / "phase2.yaml"
DONE_WHEN = "The token bug is a downstream symptom of Redis unavailability"
SIMILARITIES = ["tfidf", "embed"]


@pytest.fixture(scope="module")
def p3():
    engine = scenario_engine(3)
    yield engine
    engine.close()


def read(engine: Engine, text: str, at: int | None, similarity: str):
    return AnchorIndex(engine, at, similarity).verify(text)


# -- polarity and contrast ---------------------------------------------------------------------


@pytest.mark.parametrize("text,negated", [
    ("Stripe is returning 429s", False),
    ("Stripe isn't returning 429s", True),
    ("Nothing is being rejected", True),
    ("The outage is unrelated to Redis", True),
    ("Token expiry is independent of Redis", True),
    ("The Redis theory is a red herring", True),
    ("We can rule out the cache", True),
    ("Redis has no free connections left", False),  # an idiom for exhaustion, not a denial
    ("It is not only Redis", False),
    ("It was never not broken", False),  # two negators
])
def test_negators_decide_a_texts_own_sign(text, negated):
    assert stance(text).negated is negated


def test_contrast_splits_the_affirmed_from_the_denied_part():
    affirmed, denied = clauses("The auth errors come from the token bug rather than from Redis.")
    assert (affirmed.text, affirmed.negated) == ("The auth errors come from the token bug", False)
    assert denied.negated and denied.text == "The auth errors come from Redis"  # read in the affirmed frame
    x, y = clauses("We have six months, not six weeks, to ship.")
    assert not x.negated and x.text == "We have six months to ship" and y.negated and "six weeks" in y.text
    a, b = clauses("It is not the cache but the token bug.")
    assert not a.negated and a.text.endswith("the token bug") and b.negated and b.text.endswith("the cache")


def test_a_denied_noun_phrase_takes_the_subject_of_the_affirmed_copula():
    # "X is A, not the B of C": what is denied is that X is the B of C, however long the phrase
    a, b = clauses("The scheduler is a bystander here, not the source of the duplicate invoices.")
    assert not a.negated and a.text == "The scheduler is a bystander here"
    assert b.negated and b.text == "The scheduler is the source of the duplicate invoices"
    # "fine, not the worker" contrasts subjects: the long phrase stands alone, as before
    _, c = clauses("The queue is fine, not the billing worker that crashed twice overnight.")
    assert c.negated and c.text == "the billing worker that crashed twice overnight"
    _, d = clauses("The invoices come from the retry job, not from the nightly export worker.")
    assert d.text == "from the nightly export worker"


def test_a_contrast_that_only_insists_on_the_direction_is_dropped():
    for text in ("The storm exhausts Redis, not the other way round.", "The storm exhausts Redis rather than "
                 "the reverse.", "The storm exhausts Redis and not vice versa."):
        (only,) = clauses(text)
        assert not only.negated and only.text == "The storm exhausts Redis"


def test_questions_assert_nothing_and_parentheticals_stand_alone():
    assert clauses("Is Redis down?") == []
    texts = [c.text for c in clauses("Token bug -> retry storm (Auth -> Redis).")]
    assert texts == ["Token bug -> retry storm", "Auth -> Redis"]


def test_a_condition_part_does_not_carry_the_clause():
    (c,) = clauses("Once the cluster is healthy again, Auth will keep rejecting tokens.")
    assert [p.condition for p in c.parts] == [True, False]


def test_trouble_and_order_deny_each_other_and_inability_follows_the_claim():
    timeouts = stance("Redis connection timeouts from Payment Service")
    assert relation(stance("Payment Service has no trouble reaching Redis"), timeouts) == -1
    assert relation(stance("Payment cannot reach Redis"), timeouts) == 1  # inability reports the failure
    assert relation(stance("Yjs cannot use a central server"), stance("Yjs runs with a central server")) == -1
    assert relation(stance("Auth traffic is normal tonight"), stance("Auth volume about 3x normal")) == -1


@given(st.lists(st.sampled_from(["not", "never", "the", "cache", "is", "down", "nobody", "fine"]), max_size=12))
def test_relation_is_symmetric_and_a_sign(words):
    text = " ".join(words)
    other = stance("the cache is down")
    assert relation(stance(text), other) == relation(other, stance(text)) in (-1, 1)


# -- causal direction --------------------------------------------------------------------------


def test_causal_chains_run_cause_first():
    assert chain(DONE_WHEN) == ["Redis unavailability", "The token bug is a downstream"]
    assert chain("Token bug -> retry storm -> Redis pool exhaustion") == ["Token bug", "retry storm",
                                                                         "Redis pool exhaustion"]
    assert chain("Auth is down because Redis is down") == ["Redis is down", "Auth is down"]
    assert chain("Tokens expire early") is None
    assert link("Redis didn't cause the auth problem") == (["Redis", "the auth problem"], "didn't")


def test_direction_places_cause_and_effect_on_the_claims_chain():
    h4 = ["Token bug", "retry storm", "Redis connection pool exhaustion"]
    assert direction(chain(DONE_WHEN), h4) == -1
    assert direction(chain("The retry storm is exhausting the Redis connection pool"), h4) == 1
    assert direction(["lunch", "dinner"], h4) == 0  # nothing in common: no reading


# -- anchoring on the scenarios (both similarities) ------------------------------------------


@pytest.mark.parametrize("similarity", SIMILARITIES)
def test_the_issue_example_is_rejected_naming_the_grounded_claim_it_reverses(p2, similarity):
    v = read(p2, DONE_WHEN, None, similarity)
    assert v.verdict == REJECT and "contradicts h4, which is grounded" in v.reason
    assert [f.literal for f in v.denied if f.verification.grounded] == ["h4"]
    assert v.denied[0].how == "reversed causation"
    assert "contradicts hypothesis h4, which is grounded" in v.flag(p2)


@pytest.mark.parametrize("similarity", SIMILARITIES)
@pytest.mark.parametrize("at,text,verdict,finding", [
    (13, "The 401s are token-expired errors, not session-lookup failures.", ACCEPT, ("asserts", "o9")),
    (13, "The 401s are session-lookup failures, not token-expired errors.", REJECT, ("denies", "o9")),
    (13, "Stripe is not returning any 429s.", REJECT, ("denies", "o7")),
    (13, "Blaming Redis for the auth failures is a red herring.", ACCEPT, ("denies", "h2")),
    (13, "Redis running out of connections is what causes the retry storm.", REJECT, ("denies", "h4")),
    (6, "Redis failing is what breaks Auth.", ACCEPT, ("asserts", "h2")),  # h2 still stood at T6
    (13, "Redis failing is what breaks Auth.", REJECT, None),
    (13, "The moon is made of cheese.", ABSTAIN, None),
])
def test_polarity_contrast_and_causation_decide_the_verdict(p2, similarity, at, text, verdict, finding):
    v = read(p2, text, at, similarity)
    assert v.verdict == verdict, v.to_json()
    if finding is not None:
        assert finding in [(f.stance, f.literal) for f in v.findings]


@pytest.mark.parametrize("similarity", SIMILARITIES)
def test_denying_a_literal_asserts_its_complement_when_some_argument_claims_it(p3, similarity):
    text = "The Q2 roadmap with long-running project documents is now confirmed."
    before = read(p3, text, 19, similarity)
    assert before.verdict == REJECT and "contradicts a3" in before.reason  # a3 (not confirmed) stood at T19
    after = read(p3, text, 20, similarity)
    assert after.verdict == ACCEPT
    assert ("asserts", "-a3") in [(f.stance, f.literal) for f in after.findings]


def test_the_embedding_model_finds_the_claim_a_paraphrase_restates(p2):
    text = "The flood of repeated sign-in attempts is what drained the cache's connection pool."
    embedded = read(p2, text, 13, "embed")
    assert embedded.verdict == ACCEPT and [f.literal for f in embedded.asserted] == ["h4"]
    lexical = read(p2, text, 13, "tfidf")
    # TF-IDF anchors the words to o10 ("connection pool"), an observation; the cleft "X is what drained Y"
    # states a cause, which is read as the hypothesis that proposed it
    assert [(f.literal, f.how) for f in lexical.asserted] == [("h4", "cause, read as h4")]


def test_names_the_conversation_never_used_raise_the_bar(p2):
    known = AnchorIndex(p2, 13, "tfidf")._known
    assert foreign_names("Our SSO provider had an outage, like Redis", known) == ["SSO"]
    assert acronyms(["Implement Operational Transformation from scratch.", "OT needs a server."]) == {
        "OT": "Operational Transformation"}


def test_one_index_answers_as_verify_text_does(p2):
    index = AnchorIndex(p2, at=6, similarity="tfidf")
    for text in (DONE_WHEN, "Redis failing is what breaks Auth.", "The moon is made of cheese."):
        assert index.verify(text) == verify_text(p2, text, at=6, similarity="tfidf")


def test_embed_switched_off_falls_back_to_tfidf(p2, monkeypatch):
    monkeypatch.setenv(embedding.ENV_SWITCH, "0")
    assert not embedding.enabled() and AnchorIndex(p2, 13).similarity == "tfidf"
    monkeypatch.setenv(embedding.ENV_SWITCH, "1")
    assert embedding.enabled() and AnchorIndex(p2, 13).similarity == "embed"


# -- the reader's revision: predicates, recommendations, pronouns, restriction, amounts, novelty --


def findings(v) -> list[tuple[str, str, str]]:
    return [(f.stance, f.literal, f.how) for f in v.findings]


@pytest.mark.parametrize("text,negated", [
    ("The Q2 documents are still unconfirmed", True),  # a prefix negates what the part says of its subject
    ("The session store was unreachable", True),
    ("Unthrottled Stripe requests pile up", False),  # a modifier, not the predicate
    ("The understanding is complete", False),  # 'under-' is no prefix
    ("ShareDB's ProseMirror integration is unclear", False),  # an evaluation of its own (trouble), no negator
])
def test_a_negating_prefix_counts_only_in_the_predicate(text, negated):
    assert stance(text).negated is negated


def test_with_trouble_and_order_in_one_part_the_predicate_decides():
    flat = stance("Auth's failure rate is flat")  # 'failure' names the subject, 'flat' is said of it
    assert flat.order and not flat.trouble
    assert relation(flat, stance("Auth failure rate elevated")) == -1
    assert relation(stance("The failure rate is elevated"), stance("Auth failure rate elevated")) == 1


@pytest.mark.parametrize("similarity", SIMILARITIES)
def test_a_facet_without_evaluation_takes_its_claims(p2, similarity):
    """mis_monitor's 'the alert is really about Redis' evaluates nothing; 'monitoring conflates the two' does."""
    v = read(p2, "The database alert is accurate.", 13, similarity)
    assert v.verdict == REJECT and ("denies", "mis_monitor", "opposite polarity") in findings(v)


def test_mood_tells_a_recommendation_and_a_course_of_action():
    assert imperative("Pick the cheaper option") and imperative("So, restart the cluster")
    assert not imperative("The cluster restarted") and not imperative("Picking is hard")
    assert directive("We should keep the hosted option") and directive("That is the route to take")
    assert not directive("The hosted option is expensive")
    assert proposal("position", ["OT: established"]) and proposal("hypothesis", ["Use Yjs (a CRDT library)."])
    assert not proposal("observation", ["ShareDB's ProseMirror integration is unclear."])


@pytest.mark.parametrize("similarity", SIMILARITIES)
def test_a_recommendation_asserts_the_course_of_action_it_names(p3, similarity):
    index = AnchorIndex(p3, 19, similarity)
    courses = {c for c, yes in zip(index.claims, index.proposals, strict=True) if yes}
    assert {"P1", "P2", "P3", "P4", "alpha18"} <= courses and "alpha19" not in courses
    v = index.verify("Go with ShareDB for the editor.")
    assert v.verdict == REJECT and [f.literal for f in v.asserted] == ["P4"]  # P4 is out of standing


def test_a_pronoun_is_read_as_the_last_name_of_the_sentence_before():
    names = known_names(["Ask Bob about Redis.", "The yjs-prosemirror binding helps Yjs.",
                         "We said Those would do; those did."])
    assert {"Redis", "Yjs", "Bob"} <= names
    assert "Ask" not in names and "Those" not in names  # first word; a word also written in lower case
    assert resolve(["Restart Redis", "once it is back, their queue drains"], names) == [
        "Restart Redis", "once Redis is back, Redis's queue drains"]
    assert resolve(["It is unclear", "it may rain"], names) == ["It is unclear", "it may rain"]  # no name before


@pytest.mark.parametrize("similarity", SIMILARITIES)
def test_a_resolved_pronoun_anchors_to_what_it_stands_for(p3, similarity):
    v = read(p3, "We tried Yjs last year; it cannot run behind a central server.", 19, similarity)
    assert v.verdict == REJECT and ("denies", "alpha7", "negation (cannot)") in findings(v)


@pytest.mark.parametrize("similarity", SIMILARITIES)
def test_a_cause_nobody_stated_has_no_anchor(p2, similarity):
    v = read(p2, "Payment timeouts to Redis are caused by a kernel upgrade on the payment hosts.", 13, similarity)
    assert v.verdict == ABSTAIN
    (f,) = v.asserted
    assert f.how == "unstated cause" and f.literal.startswith("unstated:a_kernel_upgrade") and \
        f.verification.status == "no_anchor"
    stated = read(p2, "The retry storm is exhausting Redis.", 13, similarity)  # on h4's chain
    assert stated.verdict == ACCEPT


def test_a_cause_sharing_only_a_name_with_a_chain_has_no_anchor(p2):
    v = read(p2, "The Stripe 429s are because Stripe had a regional outage.", 13, "embed")
    assert v.verdict == ABSTAIN and [f.how for f in v.asserted] == ["unstated cause"]


@pytest.mark.parametrize("similarity", SIMILARITIES)
def test_a_clause_anchored_nowhere_keeps_the_text_from_acceptance(p2, similarity):
    text = "The retry storm is exhausting Redis. Our marketing team redesigned the company logo last spring."
    v = read(p2, text, 13, similarity)
    assert v.verdict == ABSTAIN and "no anchor" in v.reason
    assert ("asserts", "h4", "causal direction") in findings(v)
    short = read(p2, "The retry storm is exhausting Redis. Root cause found.", 13, similarity)
    assert short.verdict == ACCEPT  # two content words: harmless


def test_only_restricts_to_the_words_after_it():
    assert restricted("only payments are failing") == {"payment"}
    assert restricted("Yjs can only run peer-to-peer") == {"peer"}
    assert restricted("It is not only Redis") == frozenset() and restricted("Redis is down") == frozenset()
    assert unrestricted("Only payments are failing") == "are failing"


@pytest.mark.parametrize("similarity", SIMILARITIES)
def test_only_denies_the_alternatives_that_stand(p2, similarity):
    v = read(p2, "Only payments are failing.", 13, similarity)
    assert v.verdict == REJECT and ("asserts", "o2", "similarity") in findings(v)
    assert any(s == "denies" and how.startswith("restriction (only payment)") for s, _, how in findings(v))
    assert read(p2, "Payments are failing.", 13, similarity).verdict == ACCEPT


def test_amounts_of_one_measure_meet_or_contradict():
    assert amounts("Our documents are typically 5-10 pages.") == {"pages": (5.0, 10.0)}
    assert conflict("hundreds of pages", "5-10 pages") == "pages"
    assert conflict("roughly three times its usual volume", "about 3x normal") is None
    assert conflict("roughly triple what we'd expect", "3x normal") is None
    assert conflict("six months", "six weeks") == "time" and conflict("a few days", "edited for months") == "time"
    assert conflict("six pages", "six weeks") is None  # different measures are never compared


@pytest.mark.parametrize("similarity", SIMILARITIES)
def test_another_amount_contradicts_the_claim(p3, similarity):
    v = read(p3, "Our documents are thousands of pages long.", 19, similarity)
    assert v.verdict == REJECT and ("denies", "a1", "another amount (pages)") in findings(v)
    assert read(p3, "Our documents are five to ten pages long.", 19, similarity).verdict == ACCEPT
    assert read(p3, "We have six months to ship this.", 19, similarity).verdict == REJECT  # timeline: six weeks


# -- the verdict rule ----------------------------------------------------------------------


def test_the_verdict_rule_on_given_literals(p2, p3):
    assert by_claim(p2, ["h4"], []).verdict == ACCEPT
    assert by_claim(p2, [], ["h2"]).verdict == ACCEPT  # denying what is out of standing
    stale = by_claim(p2, ["h4", "h2"], [])
    assert stale.verdict == REJECT and stale.reason == "asserts h2, which is not grounded: h2 abandoned at T9 by o9"
    contra = by_claim(p2, ["h2"], ["o7"])
    assert contra.verdict == REJECT and contra.reason.startswith("contradicts o7, which is grounded")
    assert by_claim(p2, [], []).verdict == ABSTAIN
    assert by_claim(p2, ["nobody_said_this"], []).verdict == ABSTAIN
    assert by_claim(p3, ["alpha18"], [], at=19).verdict == ACCEPT and by_claim(p3, ["alpha18"], []).verdict == REJECT
    assert by_claim(p2, ["h4"], [], text="x").exit_code == 0 and stale.exit_code == 1


# -- the command line ----------------------------------------------------------------------


def grounded(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """A real process: the model must load with the network closed, from a fresh interpreter."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    return subprocess.run([sys.executable, "-m", "grounded", *map(str, args)], capture_output=True, text=True,
                          timeout=180, env={**base, **(env or {})})


@pytest.mark.slow
def test_cli_done_when_offline_with_the_model_and_no_network():
    """The issue's example through the CLI, with every proxy and the hub pointed at a closed port."""
    dead = "http://127.0.0.1:9"
    env = {"HTTP_PROXY": dead, "HTTPS_PROXY": dead, "http_proxy": dead, "https_proxy": dead, "HF_ENDPOINT": dead,
           "HF_HUB_OFFLINE": "", "TRANSFORMERS_OFFLINE": ""}
    result = grounded("verify", PHASE2, "--text", DONE_WHEN, "--json", env=env)
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["verdict"] == "reject" and "all-MiniLM-L6-v2" in data["method"]
    assert data["denied"][0]["literal"] == "h4" and data["denied"][0]["grounded"] is True
    assert "contradicts hypothesis h4" in data["flag"]
    plain = here("verify", PHASE2, "--text", DONE_WHEN, "--anchor", "tfidf", drop_env=("OPENAI_",))
    assert plain.returncode == 1 and "verdict: REJECT" in plain.stdout and "denies h4 (reversed causation" in \
        plain.stdout and "read by: offline (TF-IDF)" in plain.stdout
    ok = here("verify", PHASE2, "--text", "The retry storm is exhausting Redis.", "--anchor", "tfidf",
              drop_env=("OPENAI_",))
    assert ok.returncode == 0 and "verdict: ACCEPT" in ok.stdout
    bad = here("verify", PHASE2, "--text", "x", "--anchor", "telepathy")
    assert bad.returncode == 2 and "--anchor: unknown 'telepathy'" in bad.stderr
