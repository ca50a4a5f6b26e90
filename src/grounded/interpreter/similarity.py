"""Lexical similarity between short texts: TF-IDF over stemmed content words.

One scorer serves the three places that match text to claims: the rule-based
interpreter linking an utterance to existing claims, Verify-from-text finding
the claim a continuation asserts, and scoring aligning extracted claims to gold
ones.  Stemming (Snowball) lets "failing", "failure" and "fails" meet;
sublinear term frequency keeps one repeated word from dominating a sentence.
No embedding model is used: none ships its weights in a PyPI package this
project could depend on offline.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from grounded.core.extras import require

_text = require("interpreter", "sklearn.feature_extraction.text")
ENGLISH_STOP_WORDS, TfidfVectorizer = _text.ENGLISH_STOP_WORDS, _text.TfidfVectorizer
normalize = require("interpreter", "sklearn.preprocessing").normalize
snowballstemmer = require("interpreter", "snowballstemmer")

_WORD = re.compile(r"[a-z0-9]+")
_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _STEMMER.stemWord(word)


def stem(word: str) -> str:
    """A word's Snowball stem (lower case)."""
    return _stem(word.lower())


def terms(text: str) -> list[str]:
    """The stemmed content words of ``text``: what similarity is computed over."""
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in ENGLISH_STOP_WORDS]


class TextIndex:
    """A fixed set of texts, each under a key, queried by cosine similarity.

    A query's words that no indexed text has still count in its length (with
    the weight of a word no document contains), so a query that shares one
    word with a claim and says much else scores low, not 1.0.
    """

    def __init__(self, keys: Sequence[str], texts: Sequence[str]):
        if len(keys) != len(texts):
            raise ValueError("one text per key")
        self.keys = list(keys)
        self._vectorizer = TfidfVectorizer(analyzer=terms, sublinear_tf=True, norm=None)
        self._matrix = None
        if any(terms(t) for t in texts):
            self._matrix = normalize(self._vectorizer.fit_transform(texts))
            self._unseen_idf = float(np.log(1 + len(texts)) + 1)  # smooth idf of document frequency 0

    def scores(self, query: str) -> np.ndarray:
        """Cosine similarity of ``query`` to every text, in key order (zeros if nothing is shared)."""
        if self._matrix is None:
            return np.zeros(len(self.keys))
        q = self._vectorizer.transform([query])
        vocabulary = self._vectorizer.vocabulary_
        counts = Counter(t for t in terms(query) if t not in vocabulary)
        unseen = sum(((1 + np.log(c)) * self._unseen_idf) ** 2 for c in counts.values())
        norm = np.sqrt(q.multiply(q).sum() + unseen)
        if norm == 0:
            return np.zeros(len(self.keys))
        return (self._matrix @ q.T).toarray().ravel() / norm

    def ranked(self, query: str, among: set[str] | None = None) -> list[tuple[str, float]]:
        """(key, score) pairs, best first, restricted to ``among`` when given; ties keep key order."""
        s = self.scores(query)
        pairs = [(k, float(s[i])) for i, k in enumerate(self.keys) if among is None or k in among]
        return sorted(pairs, key=lambda p: -p[1])

    def best(self, query: str, among: set[str] | None = None) -> tuple[str, float] | None:
        ranked = self.ranked(query, among)
        return ranked[0] if ranked else None


def similarity_matrix(left: Sequence[str], right: Sequence[str]) -> np.ndarray:
    """Cosine similarity of every text of ``left`` to every text of ``right`` (one shared vocabulary)."""
    texts = list(left) + list(right)
    if not left or not right or not any(terms(t) for t in texts):
        return np.zeros((len(left), len(right)))
    matrix = TfidfVectorizer(analyzer=terms, sublinear_tf=True).fit_transform(texts)
    return (matrix[: len(left)] @ matrix[len(left):].T).toarray()
