"""Writes a tiny model2vec model in model2vec's own folder layout, for tests and bench/msu.py.

``StaticModel.from_pretrained`` reads three files from a local folder: ``config.json``,
``tokenizer.json`` (a Hugging Face tokenizers file) and ``model.safetensors`` (one tensor,
``embeddings``, a row per vocabulary entry). The model here is word-level: each word has a
random vector, and an unknown word has none, as in model2vec's own word-level models.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

UNKNOWN = "[UNK]"


def write_tiny_model2vec(
    folder: Path, words: list[str], dimensions: int = 16, seed: int = 0
) -> dict[str, np.ndarray]:
    """Writes the model into ``folder`` and returns each word's vector (the unknown token's is 0)."""
    folder.mkdir(parents=True, exist_ok=True)
    vocabulary = {UNKNOWN: 0, **{word: i for i, word in enumerate(dict.fromkeys(words), start=1)}}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocabulary, unk_token=UNKNOWN))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))

    vectors = np.random.default_rng(seed).normal(size=(len(vocabulary), dimensions))
    vectors[0] = 0.0
    embeddings = vectors.astype(np.float32)
    save_file({"embeddings": embeddings}, str(folder / "model.safetensors"))
    config = {
        "model_type": "model2vec",
        "architectures": ["StaticModel"],
        "hidden_dim": dimensions,
        "normalize": False,
    }
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return {word: embeddings[index] for word, index in vocabulary.items()}
