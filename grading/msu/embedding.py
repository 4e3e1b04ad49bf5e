"""Embeddings of notions, each embedder named so a stored score says which model made it.

Three kinds: a local model directory (model2vec's static embeddings, or sentence-transformers if
that package is installed), an OpenAI-compatible ``/embeddings`` endpoint behind a callable, and,
with neither, a hashed bag of notions: signed feature hashing of each notion's words, which is
deterministic and needs nothing, but knows no meaning ("sine" and "sin" share nothing). Its name
says so, and ``semantic`` is False, so pages and exports can say it is not a semantic embedding.
Nothing here downloads: a missing or foreign directory is an error that says what was expected.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

HASHED_NAME = "hashed-bag-of-notions"
HASHED_VERSION = "1"
HASHED_DIMENSIONS = 512
MODEL2VEC_FILES = ("config.json", "model.safetensors", "tokenizer.json")
# Set before model2vec or sentence-transformers import huggingface_hub, which reads them once.
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")

EmbedFn = Callable[[list[str]], list[list[float]]]

_HASHED_WORD = re.compile(r"[a-z0-9]+")


class EmbeddingModelError(ValueError):
    """The model directory is missing, is not a model, or needs a package that is not installed."""


class EmbeddingReplyError(ValueError):
    """An embeddings endpoint answered with the wrong number of vectors or with non-numbers."""


class Embedder(Protocol):
    """Turns texts into one row each; ``name`` is stored with every score."""

    @property
    def name(self) -> str: ...

    @property
    def semantic(self) -> bool: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class HashedNotionEmbedder:
    """Signed feature hashing of each notion's words and of the whole notion (blake2b, not hash())."""

    semantic = False

    def __init__(self, dimensions: int = HASHED_DIMENSIONS) -> None:
        self.dimensions = dimensions
        self.name = f"{HASHED_NAME}-{dimensions}/v{HASHED_VERSION}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        matrix = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for column, sign in _hashed_features(text, self.dimensions):
                matrix[row, column] += sign
        return matrix


@lru_cache(maxsize=65_536)  # notions repeat from row to row
def _hashed_features(text: str, dimensions: int) -> tuple[tuple[int, float], ...]:
    """The (column, sign) of each feature: every word of the notion, and the notion itself."""
    lowered = text.lower()
    features = [f"w:{word}" for word in _HASHED_WORD.findall(lowered)]
    features.append(f"n:{' '.join(lowered.split())}")
    hashed = []
    for feature in features:
        value = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "big")
        hashed.append((value % dimensions, 1.0 if value >> 63 else -1.0))
    return tuple(hashed)


class StaticModelEmbedder:
    """A model2vec static-embedding model read from a local directory."""

    semantic = True

    def __init__(self, folder: Path) -> None:
        _stay_offline()
        from model2vec import StaticModel

        try:
            self._model = StaticModel.from_pretrained(folder, normalize=False)
        except Exception as error:  # safetensors and tokenizers raise their own types
            raise EmbeddingModelError(
                f"{folder}: not a readable model2vec model: {error}"
            ) from error
        self.name = f"model2vec:{folder.resolve().name}@{_fingerprint(folder, MODEL2VEC_FILES)}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._model.dim), dtype=np.float32)
        # No worker pool: Celery's prefork children may not start processes of their own.
        vectors = self._model.encode(list(texts), use_multiprocessing=False, normalize=False)
        return np.asarray(vectors, dtype=np.float32)


class SentenceTransformerEmbedder:
    """A sentence-transformers model read from a local directory, if that package is installed."""

    semantic = True

    def __init__(self, folder: Path) -> None:
        _stay_offline()
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as error:
            raise EmbeddingModelError(
                f"{folder} holds a sentence-transformers model, but the sentence-transformers "
                "package is not installed: install it, or use a model2vec model"
            ) from error
        try:
            self._model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        except Exception as error:  # torch, transformers and the hub raise many types
            raise EmbeddingModelError(
                f"{folder}: not a readable sentence-transformers model: {error}"
            ) from error
        weights = sorted(
            str(p.relative_to(folder))
            for p in folder.rglob("*")
            if p.suffix in (".safetensors", ".bin")
        )
        self.name = f"sentence-transformers:{folder.resolve().name}@{_fingerprint(folder, weights)}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self._model.encode(list(texts), convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)


class EndpointEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint behind ``embed(texts) -> vectors``."""

    semantic = True

    def __init__(self, embed: EmbedFn, model: str, batch_size: int = 256) -> None:
        self._embed = embed
        self._batch_size = batch_size
        self.name = f"endpoint:{model}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            batch = list(texts[start : start + self._batch_size])
            vectors = self._embed(batch)
            if len(vectors) != len(batch):
                raise EmbeddingReplyError(
                    f"{self.name} returned {len(vectors)} vectors for {len(batch)} texts"
                )
            rows.extend(vectors)
        try:
            matrix = np.asarray(rows, dtype=np.float64).reshape(len(texts), -1)
        except (TypeError, ValueError) as error:
            raise EmbeddingReplyError(
                f"{self.name} returned vectors that are not lists of numbers of one length"
            ) from error
        if not np.isfinite(matrix).all():
            raise EmbeddingReplyError(f"{self.name} returned NaN or infinite values")
        return matrix


def load_local_embedder(path: str | Path) -> StaticModelEmbedder | SentenceTransformerEmbedder:
    """The model in a local directory: model2vec if its config says so, else sentence-transformers."""
    folder = Path(path)
    if not folder.exists():
        raise EmbeddingModelError(
            f"embedding model directory {folder} does not exist (models are never downloaded: "
            "copy a model2vec or sentence-transformers model there)"
        )
    if not folder.is_dir():
        raise EmbeddingModelError(f"{folder} is a file, not an embedding model directory")
    if _model_type(folder) == "model2vec":
        missing = [name for name in MODEL2VEC_FILES if not (folder / name).is_file()]
        if missing:
            raise EmbeddingModelError(f"{folder}: a model2vec model without {', '.join(missing)}")
        return StaticModelEmbedder(folder)
    if (folder / "modules.json").is_file():
        return SentenceTransformerEmbedder(folder)
    found = ", ".join(sorted(p.name for p in folder.iterdir())[:10]) or "nothing"
    raise EmbeddingModelError(
        f"{folder} is neither a model2vec model (config.json with model_type 'model2vec', "
        f"model.safetensors, tokenizer.json) nor a sentence-transformers model (modules.json); "
        f"it holds {found}"
    )


def _model_type(folder: Path) -> str:
    config = folder / "config.json"
    if not config.is_file():
        return ""
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        raise EmbeddingModelError(f"{config}: not valid JSON: {error}") from error
    return str(data.get("model_type", "")) if isinstance(data, dict) else ""


def _fingerprint(folder: Path, names: Sequence[str]) -> str:
    """A short digest of the model's files, so two models in same-named directories differ."""
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0")
        with open(folder / name, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    return digest.hexdigest()[:10]


def _stay_offline() -> None:
    for variable in OFFLINE_VARIABLES:
        os.environ[variable] = "1"
