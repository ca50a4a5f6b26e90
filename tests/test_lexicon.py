"""The reader's word lists are data with a source, and hold no token of a scenario or a verifier item.

A lexicon entry that is a number ("401") or a rare English word ("conflates") and also occurs in the texts
the reader is measured on (scenarios/*.yaml, bench/data/verifier.yaml) was taken from them: it makes the
reader look better on those texts than on a conversation it was not written on.  Common English words
("failing", "because") occur there too and are allowed.  A word is rare when neither it nor a base form of it
(less an inflection: "exhausts" -> "exhaust", "throttling" -> "throttle") reaches Zipf frequency RARE in the
word frequencies the ``wordfreq`` package ships (a word used once per million words has Zipf 3).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from wordfreq import zipf_frequency

from grounded.interpreter import lexicon
from tests.yaml_strings import strings

ROOT = Path(__file__).resolve().parent.parent
RARE = 3.0
_TOKEN = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")


def measured_vocabulary() -> set[str]:
    """Every token of the shipped scenarios' texts and of the verifier items' texts."""
    texts: list[str] = []
    for path in sorted((ROOT / "scenarios").glob("*.yaml")):
        texts += strings(yaml.safe_load(path.read_text(encoding="utf-8")), keys=True)
    items = yaml.safe_load((ROOT / "bench" / "data" / "verifier.yaml").read_text(encoding="utf-8"))["items"]
    texts += [str(i["text"]) for i in items]
    return {t for text in texts for t in _TOKEN.findall(text.lower())}


def forms(word: str) -> set[str]:
    """The word and its base forms less an inflection (-s, -es, -ed, -d, -ing, with or without a final e)."""
    out = {word}
    for suffix in ("s", "es", "ed", "d", "ing"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            out |= {stem, stem + "e"}
    return out


def frequency(word: str) -> float:
    return max(zipf_frequency(w, "en") for w in forms(word))


def taken(entries: set[str], vocabulary: set[str]) -> set[str]:
    """The entries that are a number or a rare word of the measured texts."""
    return {e for e in entries & vocabulary if any(ch.isdigit() for ch in e) or frequency(e) < RARE}


def entries(name: str) -> set[str]:
    """The tokens of one lexicon file's entries (its `source` note aside; a pattern's words included)."""
    data = dict(lexicon.load(name))
    data.pop("source")
    texts = [re.sub(r"\\[0-9A-Za-z]", " ", s) for s in strings(data, keys=True)]  # a pattern's escapes (\1, \d, \b)
    return {t for s in texts for t in _TOKEN.findall(s.lower())}


@pytest.fixture(scope="module")
def vocabulary() -> set[str]:
    return measured_vocabulary()


def test_the_check_finds_scenario_tokens(vocabulary):
    # what the issue found in the cue lists before they became data: numbers and rare words of a scenario
    assert taken({"401", "429", "503", "conflates", "mislabels"}, vocabulary) == {
        "401", "429", "503", "conflates", "mislabels"}
    # common English words of the same texts are not flagged
    assert taken({"failing", "because", "not", "timeout", "normal"}, vocabulary) == set()


@pytest.mark.parametrize("name", lexicon.FILES)
def test_no_lexicon_holds_a_number_or_rare_word_of_the_measured_texts(name, vocabulary):
    assert entries(name), name
    assert taken(entries(name), vocabulary) == set()


@pytest.mark.parametrize("name", lexicon.FILES)
def test_every_lexicon_says_where_its_entries_come_from(name):
    assert len(lexicon.load(name)["source"].split()) >= 10


def test_an_unknown_lexicon_is_an_error():
    with pytest.raises(KeyError, match="no lexicon 'slang'"):
        lexicon.load("slang")
