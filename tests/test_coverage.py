"""The coverage check: accept only what grounded claims cover, reject on a positive finding, abstain otherwise.

The conversation (tests/data/coverage_plant.yaml) and every sentence here are written for these tests: one
regression test per failure shape the text reader had (a claim's own negation read as a denial, a denial
spreading to a neighbouring claim, opposite states, swapped roles, a new fact pinned to a known subject, a
citation carrying a contradiction), each with a sentence of its own.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounded.interpreter import wordnet
from grounded.interpreter.anchor import AnchorIndex
from grounded.interpreter.cited import CitedContinuation, verify_cited
from grounded.interpreter.coverage import causal_pairs, clauses, read
from grounded.interpreter.verdict import ABSTAIN, ACCEPT, REJECT
from grounded.scenario import Scenario
from tests.inprocess import grounded as run_grounded
from tests.phases import replayed

PLANT = Path(__file__).resolve().parent / "data" / "coverage_plant.yaml"


@pytest.fixture(scope="module")
def plant():
    engine = replayed(Scenario.load(PLANT))
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def reader(plant):
    return AnchorIndex(plant, None)


def verdict(reader: AnchorIndex, text: str):
    return reader.verify(text)


# -- the failure shapes ---------------------------------------------------------------------------------------


def test_a_claims_own_negation_restated_is_covered_not_denied(reader):
    v = verdict(reader, "With B2 shut, no coolant reached loop 2.")
    assert v.verdict == ACCEPT and [f.literal for f in v.asserted] == ["o_bypass"] and v.denied == ()
    flipped = verdict(reader, "With the bypass valve B2 shut, coolant still reached loop 2.")
    assert flipped.verdict != ACCEPT


def test_a_denial_does_not_spread_to_the_corrected_figure(reader):
    v = verdict(reader, "The old 9% scrap estimate was wrong.")
    assert [f.literal for f in v.denied] == ["h_scrap"] and v.verdict == ACCEPT  # h_scrap is out of standing
    assert "o_scrap" not in {f.literal for f in v.findings}
    assert verdict(reader, "Scrap on line 4 runs at 14% this week.").verdict == ACCEPT


def test_opposite_states_are_not_accepted(reader):
    assert verdict(reader, "Valve V5 stayed open during the night shift.").verdict != ACCEPT
    v = verdict(reader, "Valve V5 was open during the night shift.")
    assert v.verdict == REJECT and "antonym" in v.reason and "o_valve" in v.reason
    assert verdict(reader, "Valve V5 was closed during the night shift.").verdict == ACCEPT


def test_swapped_roles_are_not_accepted(reader):
    v = verdict(reader, "Fan F2 failed first and overloaded fan F1.")
    assert v.verdict == REJECT and "roles swapped" in v.reason
    assert verdict(reader, "Fan F1 failed first and overloaded fan F2.").verdict == ACCEPT


def test_a_new_fact_pinned_to_a_known_subject_abstains_naming_what_is_not_covered(reader):
    v = verdict(reader, "The worn bearing on fan F1 was shipped from the Northgate warehouse.")
    assert v.verdict == ABSTAIN and "'northgate'" in v.reason and "'warehouse'" in v.reason


def test_another_value_of_the_same_measure_rejects_naming_both(reader):
    v = verdict(reader, "The inlet gauge on line 4 read 6.3 bar at noon.")
    assert v.verdict == REJECT and "text says 6.3 bar, o_gauge says 3.6 bar" in v.reason
    assert verdict(reader, "At noon the inlet gauge on line 4 read 3.6 bar.").verdict == ACCEPT


def test_a_stale_claim_restated_rejects(reader):
    v = verdict(reader, "Scrap on line 4 runs at 9% this week.")
    assert v.verdict == REJECT and "h_scrap, which is not grounded" in v.reason


def test_a_causal_clause_needs_a_hypothesis_stating_that_direction(reader):
    assert verdict(reader, "Line 4 overheated because fan F1 failed first and overloaded fan F2.").verdict == ACCEPT
    v = verdict(reader, "Line 4 overheating is what made fan F1 fail.")
    assert v.verdict != ACCEPT
    nobody = verdict(reader, "The inlet gauge read 3.6 bar because loop 2 had no coolant.")
    assert nobody.verdict == ABSTAIN and "no hypothesis in standing" in nobody.reason


# -- citations ------------------------------------------------------------------------------------------------


def test_a_citation_never_carries_a_contradiction(plant, reader):
    text = "The inlet gauge on line 4 read 6.3 bar at noon."
    v = verify_cited(plant, CitedContinuation(text=text, asserts=["o_gauge"]), None, reader=reader)
    assert v.claims.verdict == ACCEPT  # by claim alone it passes
    assert v.verdict == REJECT and "text says 6.3 bar, o_gauge says 3.6 bar" in v.reason
    opposite = verify_cited(plant, CitedContinuation(text="Valve V5 was open during the night shift.",
                                                     asserts=["o_valve"]), None, reader=reader)
    assert opposite.verdict == REJECT and "antonym" in opposite.reason
    fine = verify_cited(plant, CitedContinuation(text="Valve V5 was closed during the night shift.",
                                                 asserts=["o_valve"]), None, reader=reader)
    assert fine.verdict == ACCEPT


def test_a_citation_covers_only_what_it_cites(plant, reader):
    text = "Valve V5 was closed during the night shift. Scrap on line 4 runs at 14% this week."
    short = verify_cited(plant, CitedContinuation(text=text, asserts=["o_valve"]), None, reader=reader)
    assert short.verdict == ABSTAIN and "the cited claims do not cover 'Scrap on line 4" in short.reason
    full = verify_cited(plant, CitedContinuation(text=text, asserts=["o_valve", "o_scrap"]), None, reader=reader)
    assert full.verdict == ACCEPT


# -- an invariant: a word no claim has is never accepted ------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["Valve V5 was closed during the night shift", "Scrap on line 4 runs at 14% this week",
                        "With the bypass valve B2 shut, no coolant reached loop 2"]),
       st.sampled_from(["Quillfield", "Brannock", "zeolite", "tarpaulin"]), st.integers(0, 8))
def test_a_word_no_claim_has_keeps_the_text_from_acceptance(reader, claim_text, stranger, at):
    words = claim_text.split()
    at = min(at, len(words))
    text = " ".join(words[:at] + [stranger] + words[at:]) + "."
    assert verdict(reader, text).verdict != ACCEPT


# -- the pieces -----------------------------------------------------------------------------------------------


def test_clauses_amounts_and_polarity():
    assert clauses("K. Berg left at 3.6 bar; then it fell, not rose") == ["K. Berg left at 3.6 bar", "then it fell",
                                                                            "not rose"]
    w = read("The pump no longer runs at 3.6 bar for two weeks")
    assert not w.negated and "no-longer" in w.content  # a negation of the claim's own content
    assert [(a.written, a.measure) for a in w.amounts] == [("3.6 bar", "pressure"), ("two weeks", "time")]
    assert read("It didn't reach loop 2").negated and not read("It never wasn't there").negated
    assert read("two weeks").amounts[0].value != read("two days").amounts[0].value
    assert causal_pairs("A bug -> retries -> exhaustion") == [("A bug", "retries"), ("A bug", "exhaustion"),
                                                              ("retries", "exhaustion")]


def test_wordnet_relations():
    lex = wordnet.lexicon()
    assert "fall" in lex.bases("fell") and "weaken" in lex.bases("weakened")
    assert "closed" in lex.antonyms("open") and "early" in lex.antonyms("late")
    assert lex.synsets("valve")


def test_lexnames_is_read_from_the_manual_page(tmp_path):
    table = wordnet.lexnames()
    rows = table.splitlines()
    assert len(rows) == 45 and rows[0] == "00\tadj.all\t3" and rows[3] == "03\tnoun.Tops\t1"
    bad = tmp_path / "lexnames.5WN.gz"
    with gzip.open(bad, "wt") as f:
        f.write("nothing here\n")
    with pytest.raises(wordnet.WordNetMissing, match="expected the 45 lexicographer files"):
        wordnet.lexnames(bad)


def test_a_missing_wordnet_is_named_with_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(wordnet, "data_path", lambda: [tmp_path])
    with pytest.raises(wordnet.WordNetMissing, match=f"not on NLTK's data path \\({tmp_path}\\): apt-get install"):
        wordnet._corpus_root()
    with pytest.raises(wordnet.WordNetMissing, match="apt-get install wordnet-base wordnet-sense-index"):
        wordnet.Lexicon(tmp_path / "relations.sqlite")
    with pytest.raises(wordnet.WordNetMissing, match="wordnet-base wordnet-sense-index"):
        wordnet.install(source=tmp_path, man_page=tmp_path / "none.gz", target=tmp_path / "out")


def test_cli_verify_text_by_coverage():
    ok = run_grounded("verify", PLANT, "--text", "Valve V5 was closed during the night shift.",
                      drop_env=("OPENAI_",))
    assert ok.returncode == 0 and "verdict: ACCEPT" in ok.stdout
    bad = run_grounded("verify", PLANT, "--text", "The inlet gauge on line 4 read 6.3 bar at noon.",
                       drop_env=("OPENAI_",))
    assert bad.returncode == 1 and "text says 6.3 bar, o_gauge says 3.6 bar" in bad.stdout


def test_a_reading_past_its_deadline_stops_between_clauses(reader):
    import time

    with pytest.raises(TimeoutError, match="past its deadline"):
        reader.read("Valve V5 was closed during the night shift. Scrap runs at 14%.", time.monotonic() - 1)


@pytest.mark.slow
def test_the_installer_runs_as_a_module_without_a_warning():
    """``make setup`` runs it: ``python -m`` of a module the package had already imported warned (runpy)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-m", "grounded.interpreter.setup_wordnet"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "WordNet 3.0 installed in" in done.stdout and not done.stderr, done.stderr
