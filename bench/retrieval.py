"""The one deterministic retriever both retrieval arms share (paper, App. G).

TF-IDF (scikit-learn, default settings) fitted once on the full stream;
cosine similarity to the question; top k.  The arms differ only in the
candidates: the verifier arm ranks the active set, transcript-RAG the whole
stream.  Ties go to the older fact (stable sort), so a run is reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer


class TfidfRetriever:
    def __init__(self, documents: Sequence[str]):
        self.vectorizer = TfidfVectorizer()
        self.matrix = self.vectorizer.fit_transform(documents)  # rows L2-normalised

    def top_k(self, query: str, k: int, candidates: np.ndarray | None = None) -> list[int]:
        """Indices of the k documents most similar to ``query``, best first.

        ``candidates`` (sorted document indices) restricts the ranking to them.
        """
        q = self.vectorizer.transform([query])
        rows = self.matrix if candidates is None else self.matrix[candidates]
        scores = np.asarray((rows @ q.T).todense()).ravel()
        order = np.argsort(-scores, kind="stable")[:k]
        index = order if candidates is None else candidates[order]
        return [int(i) for i in index]
