"""The MSU score of one row: how close a model's solution is to the human one in the notions it uses.

The method's formula (its authors' README) is the cosine similarity of the two keyword-set
vectors. Their code embeds each keyword on its own, so a set becomes one vector here as the mean
of its keywords' unit embeddings: every notion counts once, however long its name. The same code
then scores each model keyword by its best cosine to a human keyword and averages those; that
figure is reported beside the score as ``notion_match``. The keyword overlap (Jaccard, and the
shared notions) needs no embedding at all.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from grading.msu.embedding import Embedder
from grading.msu.notions import Notions


@dataclass(frozen=True)
class MsuResult:
    """One row's MSU: ``score`` is None exactly when ``no_score_reason`` says why."""

    score: float | None  # cosine of the two keyword-set vectors, in [-1, 1]
    no_score_reason: str
    notion_match: float | None  # mean over model notions of the best cosine to a human notion
    overlap: float | None  # Jaccard index of the two notion sets; None when both are empty
    shared_notions: tuple[str, ...]
    model_notions: tuple[str, ...]
    human_notions: tuple[str, ...]
    extractor: str
    extractor_version: str
    embedding_model: str
    embedding_is_semantic: bool

    def to_dict(self) -> dict:
        data = asdict(self)
        for key in ("shared_notions", "model_notions", "human_notions"):
            data[key] = list(data[key])
        return data


def msu_score(model: Notions, human: Notions, embedder: Embedder) -> MsuResult:
    """Scores the model's notions against the human's; both must come from the same extractor."""
    if (model.extractor, model.extractor_version) != (human.extractor, human.extractor_version):
        raise ValueError(
            f"notions from different extractors cannot be compared: {model.extractor} "
            f"{model.extractor_version} against {human.extractor} {human.extractor_version}"
        )
    shared = tuple(sorted(set(model.notions) & set(human.notions)))
    union = set(model.notions) | set(human.notions)

    def result(
        score: float | None = None, reason: str = "", notion_match: float | None = None
    ) -> MsuResult:
        return MsuResult(
            score=score,
            no_score_reason=reason,
            notion_match=notion_match,
            overlap=len(shared) / len(union) if union else None,
            shared_notions=shared,
            model_notions=model.notions,
            human_notions=human.notions,
            extractor=model.extractor,
            extractor_version=model.extractor_version,
            embedding_model=embedder.name,
            embedding_is_semantic=embedder.semantic,
        )

    if not human.notions:
        return result(reason="no notions were found in the human solution")
    if not model.notions:
        return result(reason="no notions were found in the model's solution")
    vectors = unit_rows(embedder.embed([*model.notions, *human.notions]))
    if vectors.shape[0] != len(model.notions) + len(human.notions):
        expected = len(model.notions) + len(human.notions)
        raise ValueError(f"{embedder.name} returned {vectors.shape[0]} vectors for {expected}")
    model_rows, human_rows = vectors[: len(model.notions)], vectors[len(model.notions) :]
    for rows, whose in ((model_rows, "the model's"), (human_rows, "the human solution's")):
        if not rows.any():
            return result(reason=f"none of {whose} notions has an embedding in {embedder.name}")
    score = cosine(model_rows.mean(axis=0), human_rows.mean(axis=0))
    if score is None:
        return result(reason="the two keyword sets' vectors cancel out to zero")
    return result(score=score, notion_match=best_match_mean(model_rows, human_rows))


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1, in float64; rows of zeros (nothing known) stay zero."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim != 2:
        raise ValueError(f"expected one vector per notion, got an array of shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def cosine(a: np.ndarray, b: np.ndarray) -> float | None:
    """Cosine similarity clamped to [-1, 1]; None when either vector is zero (never NaN)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    norm = float(np.linalg.norm(a)) * float(np.linalg.norm(b))
    if norm == 0.0 or not np.isfinite(norm):
        return None
    return max(-1.0, min(1.0, float(a @ b) / norm))


def best_match_mean(model_rows: np.ndarray, human_rows: np.ndarray) -> float | None:
    """The authors' code's figure: each model notion's best cosine to a human notion, averaged."""
    model_rows = model_rows[model_rows.any(axis=1)]
    human_rows = human_rows[human_rows.any(axis=1)]
    if not len(model_rows) or not len(human_rows):
        return None
    return float(np.clip((model_rows @ human_rows.T).max(axis=1), -1.0, 1.0).mean())


def msu_cache_key(
    solution: str, extractor: str, extractor_version: str, embedding_model: str
) -> str:
    """A key for one solution's notions and vectors: the text, the extractor and the model."""
    fields = json.dumps([solution, extractor, extractor_version, embedding_model])
    return hashlib.sha256(fields.encode()).hexdigest()


def notion_set_vectors(
    notion_sets: Sequence[tuple[str, ...]], embedder: Embedder
) -> list[np.ndarray | None]:
    """Each keyword set's vector as ``msu_score`` makes it (the mean of the notions' unit
    embeddings, unknown notions left out), or None when no notion has an embedding. Every
    distinct notion is embedded once, in one call; stored per solution, so a solution shared
    by many rows is embedded once."""
    distinct = list(dict.fromkeys(n for notions in notion_sets for n in notions))
    if not distinct:
        return [None] * len(notion_sets)
    rows = unit_rows(embedder.embed(distinct))
    if rows.shape[0] != len(distinct):
        raise ValueError(f"{embedder.name} returned {rows.shape[0]} vectors for {len(distinct)}")
    index = {notion: i for i, notion in enumerate(distinct)}
    vectors: list[np.ndarray | None] = []
    for notions in notion_sets:
        known = rows[[index[n] for n in notions]] if notions else rows[:0]
        known = known[known.any(axis=1)]
        vectors.append(known.mean(axis=0) if len(known) else None)
    return vectors


def msu_from_set_vectors(
    model: Notions,
    model_vector: np.ndarray | None,
    human: Notions,
    human_vector: np.ndarray | None,
    *,
    embedding_model: str,
    embedding_is_semantic: bool,
) -> MsuResult:
    """The score from two stored keyword-set vectors (``notion_set_vectors``): the same score
    and reasons as ``msu_score``; ``notion_match`` needs every notion's vector and is None."""
    if (model.extractor, model.extractor_version) != (human.extractor, human.extractor_version):
        raise ValueError(
            f"notions from different extractors cannot be compared: {model.extractor} "
            f"{model.extractor_version} against {human.extractor} {human.extractor_version}"
        )
    shared = tuple(sorted(set(model.notions) & set(human.notions)))
    union = set(model.notions) | set(human.notions)
    score, reason = None, ""
    if not human.notions:
        reason = "no notions were found in the human solution"
    elif not model.notions:
        reason = "no notions were found in the model's solution"
    elif model_vector is None:
        reason = f"none of the model's notions has an embedding in {embedding_model}"
    elif human_vector is None:
        reason = f"none of the human solution's notions has an embedding in {embedding_model}"
    else:
        score = cosine(model_vector, human_vector)
        if score is None:
            reason = "the two keyword sets' vectors cancel out to zero"
    return MsuResult(
        score=score,
        no_score_reason=reason,
        notion_match=None,
        overlap=len(shared) / len(union) if union else None,
        shared_notions=shared,
        model_notions=model.notions,
        human_notions=human.notions,
        extractor=model.extractor,
        extractor_version=model.extractor_version,
        embedding_model=embedding_model,
        embedding_is_semantic=embedding_is_semantic,
    )
