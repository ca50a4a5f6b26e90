"""all-MiniLM-L6-v2's forward pass in NumPy: the same weights, without torch.

Importing torch and sentence-transformers took most of a ``grounded verify
--text`` call (8-35 s per process on the shared machine); the model itself is a
6-layer BERT encoder of 22 M parameters that NumPy runs in milliseconds for a
sentence.  This module reads what the model package ships and nothing else:

* ``config.json``: the encoder's shape (layers, hidden size, heads, LayerNorm
  epsilon, activation), checked against what is implemented here;
* ``sentence_bert_config.json``: the truncation length (256 word pieces);
* ``1_Pooling/config.json`` and ``modules.json``: mean pooling over the
  attention mask, then L2 normalisation (the only pipeline implemented; any
  other is refused rather than silently misread);
* ``tokenizer.json``: the word-piece tokenizer, run by the Rust ``tokenizers``
  library (the one sentence-transformers itself uses), with truncation set
  from the sentence-transformers config and padding to each batch's longest text;
* ``model.safetensors``: the weights, read by ``safetensors.numpy``.

``tests/test_bert_numpy.py`` holds the vectors equal to sentence-transformers'
(cosine >= 0.9999) on short, long (truncated), Unicode and empty texts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from grounded.core.errors import GroundedError

BATCH = 64
"""Texts per forward pass: sentence-transformers' default, which bounds memory (64 x 256 x 1536 floats)."""
PAD_SLACK = 1.25
"""A batch's longest text is at most this many times its shortest (in word pieces)."""
BLAS_THREADS = 1
"""The matrices are small (a sentence is tens of rows by 384): on a shared machine OpenBLAS's worker threads
spin for a core and cost far more than they bring (one sentence measured at 4.0 s wall with the default
threads and 0.02 s with one, load average 11 on 2 cores)."""


class ModelFormatError(GroundedError):
    """The model directory holds something this runtime does not implement (named, with the file): the CLI
    says so in one line and exits 2, as for any error it can name."""


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelFormatError(f"{path}: cannot read ({exc})") from exc


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's "gelu": the exact form x * Phi(x), not the tanh approximation (NumPy has no erf; SciPy's is
    already imported by the TF-IDF half of the text reader)."""
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / np.float32(np.sqrt(2.0))))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """torch.nn.Linear's convention: weight is (out, in)."""
    return x @ weight.T + bias


def _batches(lengths: list[int]) -> list[list[int]]:
    """Indices grouped by token count, at most BATCH each, a new batch when a text is over PAD_SLACK times the
    batch's shortest: the work is rows x longest, so mixing 5- and 26-piece texts would double it."""
    batches: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        if not batches or len(batches[-1]) == BATCH or lengths[i] > PAD_SLACK * lengths[batches[-1][0]]:
            batches.append([])
        batches[-1].append(i)
    return batches


@dataclass(frozen=True)
class _Shape:
    layers: int
    hidden: int
    heads: int
    eps: float
    max_length: int


def _shape(model_dir: Path) -> _Shape:
    """The encoder's shape from config.json, and the pipeline from the sentence-transformers files, checked."""
    config = _json(model_dir / "config.json")
    where = model_dir / "config.json"
    if config.get("model_type") != "bert":
        raise ModelFormatError(f"{where}: model_type {config.get('model_type')!r}, only 'bert' is implemented")
    if config.get("hidden_act") != "gelu" or config.get("position_embedding_type", "absolute") != "absolute":
        raise ModelFormatError(f"{where}: hidden_act {config.get('hidden_act')!r} / position_embedding_type "
                               f"{config.get('position_embedding_type')!r}: only gelu / absolute are implemented")
    modules = [m.get("type", "").rsplit(".", 1)[-1] for m in _json(model_dir / "modules.json")]
    if modules != ["Transformer", "Pooling", "Normalize"]:
        raise ModelFormatError(f"{model_dir / 'modules.json'}: modules {modules}, only Transformer, Pooling, "
                               "Normalize is implemented")
    pooling = _json(model_dir / "1_Pooling" / "config.json")
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode") and v)
    if modes != ["pooling_mode_mean_tokens"]:
        raise ModelFormatError(f"{model_dir / '1_Pooling' / 'config.json'}: pooling {modes}, only mean tokens "
                               "is implemented")
    st_config = _json(model_dir / "sentence_bert_config.json")
    max_length = min(int(st_config.get("max_seq_length") or config["max_position_embeddings"]),
                     int(config["max_position_embeddings"]))
    hidden, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
    if hidden % heads:
        raise ModelFormatError(f"{where}: hidden_size {hidden} is not a multiple of num_attention_heads {heads}")
    return _Shape(int(config["num_hidden_layers"]), hidden, heads, float(config["layer_norm_eps"]), max_length)


class Encoder:
    """The sentence encoder: texts in, unit vectors out (float32, one row per text)."""

    def __init__(self, model_dir: Path) -> None:
        from safetensors import SafetensorError
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.shape = _shape(model_dir)
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # tokenizer.json carries its own truncation (128) and fixed padding; sentence-transformers overrides
        # both on every call (truncate at max_seq_length, pad to the batch's longest), and so does this.
        self.tokenizer.enable_truncation(max_length=self.shape.max_length)
        self.tokenizer.no_padding()  # each batch is padded here, to its own longest text
        pad_id = self.tokenizer.token_to_id("[PAD]")
        self.pad_id = 0 if pad_id is None else pad_id
        try:
            self.w = load_file(str(model_dir / "model.safetensors"))
        except (OSError, SafetensorError) as exc:
            raise ModelFormatError(f"{model_dir / 'model.safetensors'}: cannot read ({exc})") from exc
        self.w = {k.removeprefix("bert."): v for k, v in self.w.items()}
        missing = [k for k in self._names() if k not in self.w]
        if missing:
            raise ModelFormatError(f"{model_dir / 'model.safetensors'}: missing tensors {missing[:3]}")

    def _names(self) -> list[str]:
        names = ["embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
                 "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight"]
        for i in range(self.shape.layers):
            p = f"encoder.layer.{i}."
            names += [p + s + ".weight" for s in ("attention.self.query", "attention.self.key", "attention.self.value",
                                                  "attention.output.dense", "attention.output.LayerNorm",
                                                  "intermediate.dense", "output.dense", "output.LayerNorm")]
        return names

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors for ``texts``, one row each (float32)."""
        from threadpoolctl import threadpool_limits

        out = np.zeros((len(texts), self.shape.hidden), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(list(texts))
        with threadpool_limits(limits=BLAS_THREADS, user_api="blas"):
            for batch in _batches([len(e.ids) for e in encodings]):
                out[batch] = self._batch([encodings[i] for i in batch])
        return out

    def _batch(self, encodings: list[Any]) -> np.ndarray:
        """Mean-pooled, normalised vectors of one batch, padded to its longest text."""
        length = max(len(e.ids) for e in encodings)
        ids = np.full((len(encodings), length), self.pad_id, dtype=np.int64)
        types = np.zeros((len(encodings), length), dtype=np.int64)
        mask = np.zeros((len(encodings), length), dtype=np.float32)
        for row, e in enumerate(encodings):
            ids[row, :len(e.ids)], types[row, :len(e.ids)], mask[row, :len(e.ids)] = e.ids, e.type_ids, 1.0
        tokens = self._forward(ids, types, mask)
        summed = (tokens * mask[:, :, None]).sum(axis=1)
        pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, 1e-12)

    def _forward(self, ids: np.ndarray, types: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The last hidden state, (batch, length, hidden): embeddings, then each encoder layer."""
        w, s = self.w, self.shape
        batch, length = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], s.eps)
        # Padding gets the most negative float added before the softmax, as transformers does: weight 0.
        additive = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        head = s.hidden // s.heads

        def split(t: np.ndarray) -> np.ndarray:  # (batch, length, hidden) -> (batch, heads, length, head)
            return t.reshape(batch, length, s.heads, head).transpose(0, 2, 1, 3)

        for i in range(s.layers):
            p = f"encoder.layer.{i}."

            def lin(name: str, t: np.ndarray, p: str = p) -> np.ndarray:
                return _linear(t, w[p + name + ".weight"], w[p + name + ".bias"])

            q, k, v = (split(lin(f"attention.self.{n}", x)) for n in ("query", "key", "value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(head)) + additive
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            probs = scores / scores.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, s.hidden)
            x = _layer_norm(lin("attention.output.dense", context) + x,
                            w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"],
                            s.eps)
            ff = lin("output.dense", _gelu(lin("intermediate.dense", x)))
            x = _layer_norm(ff + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], s.eps)
        return x


__all__ = ["BATCH", "Encoder", "ModelFormatError"]
