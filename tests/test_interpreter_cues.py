"""The rules interpreter's cue lexicon is general English, and its operations name what they are about.

A cue token that also occurs in the texts the interpreter is measured on (scenarios/*.yaml, the
conversations of bench/corpus) was likely taken from them unless it is general English: a stop word or
a common word, Zipf frequency >= COMMON in the ``wordfreq`` package's English list (ten uses per million
words at 4, one at 3), with no digit.  "401" fails (a digit) and so does a domain noun ("amplicon",
"dashboard"); "think", "withdraw" and "nobody" pass.  The behaviour tests speak of beekeeping, a domain
none of those conversations has.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
from wordfreq import zipf_frequency

from grounded import Engine
from grounded.interpreter import cues as cue_module
from grounded.interpreter.cues import cues
from grounded.interpreter.rules import RuleInterpreter
from grounded.interpreter.session import interpret_turn
from grounded.interpreter.transcript import Said
from tests.yaml_strings import strings

ROOT = Path(__file__).resolve().parent.parent
COMMON = 3.5
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")


def measured_vocabulary() -> set[str]:
    """Every token of the scenarios' and the corpus conversations' texts (read, never printed)."""
    paths = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted((ROOT / "bench" / "corpus").glob("*.yaml"))
    assert len(paths) >= 12
    texts = [s for p in paths for s in strings(yaml.safe_load(p.read_text(encoding="utf-8")))]
    return {t for text in texts for t in _TOKEN.findall(text.lower())}


def general_english(token: str) -> bool:
    return token in ENGLISH_STOP_WORDS or (token.replace("'", "").isalpha() and zipf_frequency(token, "en") >= COMMON)


def taken(tokens: set[str], vocabulary: set[str]) -> set[str]:
    return {t for t in tokens & vocabulary if not general_english(t)}


def lexicon_tokens() -> set[str]:
    data = yaml.safe_load(cue_module.LEXICON.read_text(encoding="utf-8"))
    data.pop("source")
    patterns = [re.sub(r"\\[A-Za-z0-9]", " ", p) for p in strings(data)]  # escapes: \b, \s, \d, \w
    return {t for p in patterns for t in _TOKEN.findall(p.lower())}


@pytest.fixture(scope="module")
def vocabulary() -> set[str]:
    return measured_vocabulary()


def test_the_check_catches_numbers_and_domain_nouns(vocabulary):
    assert {"401", "amplicon"} <= vocabulary  # a status code of Phase 2, a noun of the qPCR conversation
    assert taken({"401", "amplicon", "dashboard", "think", "withdraw", "nobody", "the"}, vocabulary | {
        "dashboard", "think", "withdraw", "nobody"}) == {"401", "amplicon", "dashboard"}


def test_no_cue_is_a_token_of_the_measured_texts_that_is_not_general_english(vocabulary):
    tokens = lexicon_tokens()
    assert {"think", "suspect", "withdraw", "nobody"} <= tokens  # the patterns were read
    assert taken(tokens, vocabulary) == set()


def test_a_malformed_lexicon_is_an_error_naming_the_key(tmp_path, monkeypatch):
    bad = tmp_path / "cues.yaml"
    bad.write_text("source: test\nobserve: not a list\n", encoding="utf-8")
    monkeypatch.setattr(cue_module, "LEXICON", bad)
    cue_module.lexicon.cache_clear()
    try:
        with pytest.raises(ValueError, match="`observe` must be a list"):
            cue_module.lexicon()
    finally:
        monkeypatch.undo()
        cue_module.lexicon.cache_clear()


@pytest.mark.parametrize("sentence,expected", [
    ("I think the colony is being robbed by wasps.", {"hypothesize"}),
    ("My guess is a failing queen.", {"hypothesize"}),
    ("Scratch that.", {"revise"}),
    ("I withdraw the point about the queen.", {"revise"}),
    ("Nobody has mentioned the sugar feeder yet.", {"expand_awareness"}),
    ("The frames were checked twice.", set()),  # a plain report carries no cue
    ("I'd rather have kept the old hive.", set()),  # a preference, not a proposal
    ("Robbing it is, then.", {"resolve"}),
])
def test_general_english_cues(sentence, expected):
    assert cues(sentence) == expected


def apiary() -> Engine:
    return Engine({"agents": {"ada": {}, "bo": {}}})


def test_a_hypothesis_rests_on_the_reports_of_its_own_utterance():
    with apiary() as engine:
        rules = RuleInterpreter()
        said = "The hive lost two kilos in a week. There are dead bees at the entrance. I think wasps are robbing it."
        result = interpret_turn(engine, rules, Said(1, "ada", said))
        assert result.labels == ["observe", "hypothesize"]
        report, guess = result.proposal.ops
        # the two uncued sentences are one report, and the hypothesis names it as its Dep
        assert report["text"] == "The hive lost two kilos in a week. There are dead bees at the entrance."
        assert engine.dep(guess["claim"]) == [report["claim"]]
        assert guess["text"] == said  # "robbing it" points back: the text spells out what it is about


def test_a_later_hypothesis_rests_on_a_claim_it_overlaps_and_a_guess_naming_nothing_is_dropped():
    with apiary() as engine:
        rules = RuleInterpreter()
        interpret_turn(engine, rules, Said(1, "ada", "The hive lost two kilos in a week. Maybe wasps are robbing "
                                                     "the hive."))
        plan = interpret_turn(engine, rules, Said(2, "bo", "We could narrow the entrance of the hive so the wasps "
                                                           "cannot get in."))
        assert plan.labels == ["hypothesize"]
        assert engine.dep(plan.proposal.ops[0]["claim"]) == ["h1"]  # the robbing hypothesis, not the weight report
        vague = interpret_turn(engine, rules, Said(3, "ada", "Could be anything, honestly."))
        assert vague.labels == [] and not vague.rejections  # a hedge with no reference: no operation at all


def test_a_retraction_targets_the_speakers_own_claim():
    with apiary() as engine:
        rules = RuleInterpreter()
        interpret_turn(engine, rules, Said(1, "ada", "The hive lost two kilos in a week. I think the queen failed."))
        interpret_turn(engine, rules, Said(2, "bo", "There are dead bees at the entrance. I suspect wasps are "
                                                    "robbing the hive."))
        # bo's hypothesis is the most recent claim, but only ada's own can be what she takes back
        result = interpret_turn(engine, rules, Said(3, "ada", "Scratch that."))
        assert result.labels == ["revise"] and result.proposal.ops[0]["target"] == "h1"
        assert engine.standing("h1") == "abandoned" and engine.standing("h2") == "active"
        # a speaker with no claim of their own retracts nothing
        with apiary() as other:
            interpret_turn(other, rules, Said(1, "ada", "The hive lost two kilos in a week. I think the queen "
                                                        "failed."))
            assert "revise" not in interpret_turn(other, rules, Said(2, "bo", "Scratch that.")).labels


def test_im_assuming_claims_the_declared_assumption_it_names():
    header = {"agents": {"ada": {"authority": True}, "bo": {}}, "props": [
        {"id": "a_calm", "kind": "assumption", "text": "The weather stays calm through Saturday's inspection."}]}
    settle = "We agree, wasps are robbing the hive. I'm assuming the weather stays calm through Saturday."
    with Engine(header) as engine:
        rules = RuleInterpreter()
        interpret_turn(engine, rules, Said(1, "bo", "The hive lost two kilos in a week. I suspect wasps are robbing "
                                                    "the hive."))
        result = interpret_turn(engine, rules, Said(2, "ada", settle))
        # beside a settlement the assumption is claimed, not dropped as elaboration
        assert result.labels == ["observe", "resolve"] and result.proposal.ops[0]["claim"] == "a_calm"
        assert engine.verify("a_calm").grounded
        other = interpret_turn(engine, rules, Said(3, "bo", "I'm assuming the queen is laying."))
        assert "a_calm" not in {op.get("claim") for op in other.proposal.ops}  # it names another assumption


def test_a_negation_beside_a_new_hypothesis_is_its_ground_not_an_undermine():
    with apiary() as engine:
        rules = RuleInterpreter()
        interpret_turn(engine, rules, Said(1, "ada", "The hive lost two kilos in a week. I think the queen failed."))
        result = interpret_turn(engine, rules, Said(2, "bo", "A failed queen doesn't empty the stores that fast. "
                                                            "I suspect wasps are robbing the hive."))
        assert result.labels == ["observe", "hypothesize"] and engine.standing("h1") == "active"
        negation, rival = result.proposal.ops
        assert engine.dep(rival["claim"]) == [negation["claim"]]
