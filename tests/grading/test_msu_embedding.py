"""Embedders: a model2vec model the test writes itself, an endpoint, and the hashed fallback."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from grading.msu.embedding import (
    HASHED_NAME,
    EmbeddingModelError,
    EmbeddingReplyError,
    EndpointEmbedder,
    HashedNotionEmbedder,
    StaticModelEmbedder,
    load_local_embedder,
)
from grading.msu.notions import Notions
from grading.msu.score import msu_score
from tests.msu_fake_endpoint import fake_openai_server, http_embed
from tests.msu_tiny_model import write_tiny_model2vec

REPO_ROOT = Path(__file__).resolve().parents[2]
WORDS = ["right", "triangle", "pythagorean", "theorem", "modular", "arithmetic", "binomial"]


def lexical(*notions: str) -> Notions:
    return Notions(tuple(sorted(notions)), "lexical", "1")


@pytest.fixture
def tiny_model(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    folder = tmp_path / "tiny-potion"
    return folder, write_tiny_model2vec(folder, WORDS, dimensions=16, seed=3)


def test_the_model2vec_loader_reads_the_model_the_test_wrote(tiny_model):
    folder, vectors = tiny_model

    embedder = load_local_embedder(folder)
    rows = embedder.embed(["right triangle", "Theorem", "unheard-of words"])

    assert isinstance(embedder, StaticModelEmbedder)
    assert embedder.semantic is True
    assert embedder.name.startswith("model2vec:tiny-potion@")
    # model2vec's static embedding of a text is the mean of its tokens' vectors
    np.testing.assert_allclose(rows[0], (vectors["right"] + vectors["triangle"]) / 2, rtol=1e-6)
    np.testing.assert_allclose(rows[1], vectors["theorem"], rtol=1e-6)
    assert not rows[2].any()  # no known word: no vector
    assert os.environ["HF_HUB_OFFLINE"] == "1"


def test_the_model_name_changes_with_the_weights(tmp_path):
    first = load_local_embedder(_written(tmp_path / "a" / "potion", seed=1)).name
    second = load_local_embedder(_written(tmp_path / "b" / "potion", seed=2)).name
    again = load_local_embedder(_written(tmp_path / "c" / "potion", seed=1)).name

    assert first != second
    assert first == again


def _written(folder: Path, seed: int) -> Path:
    write_tiny_model2vec(folder, WORDS, seed=seed)
    return folder


def test_msu_with_the_model2vec_model(tiny_model):
    embedder = load_local_embedder(tiny_model[0])

    same = msu_score(lexical("right triangle"), lexical("right triangle"), embedder)
    unknown = msu_score(lexical("quaternion"), lexical("right triangle"), embedder)

    assert same.score == pytest.approx(1.0)
    assert same.embedding_model == embedder.name
    assert unknown.score is None
    assert (
        unknown.no_score_reason
        == f"none of the model's notions has an embedding in {embedder.name}"
    )


def test_a_missing_directory_is_an_error_and_nothing_is_downloaded(tmp_path):
    # A hub id: model2vec itself would try to download it.
    with pytest.raises(EmbeddingModelError, match="does not exist .* never downloaded"):
        load_local_embedder("minishlab/potion-base-8M")
    with pytest.raises(EmbeddingModelError, match="does not exist"):
        load_local_embedder(tmp_path / "nowhere")


def test_a_file_or_a_foreign_directory_is_not_a_model(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")

    with pytest.raises(EmbeddingModelError, match="is a file, not an embedding model directory"):
        load_local_embedder(tmp_path / "notes.txt")
    with pytest.raises(EmbeddingModelError, match="neither a model2vec model .* holds notes.txt"):
        load_local_embedder(tmp_path)


def test_a_model2vec_directory_missing_a_file_says_which(tiny_model):
    folder, _ = tiny_model
    (folder / "tokenizer.json").unlink()

    with pytest.raises(EmbeddingModelError, match="a model2vec model without tokenizer.json"):
        load_local_embedder(folder)


def test_corrupt_weights_or_config_are_an_error(tiny_model):
    folder, _ = tiny_model
    (folder / "model.safetensors").write_bytes(b"not safetensors")
    with pytest.raises(EmbeddingModelError, match="not a readable model2vec model"):
        load_local_embedder(folder)

    (folder / "config.json").write_text("{not json")
    with pytest.raises(EmbeddingModelError, match="config.json: not valid JSON"):
        load_local_embedder(folder)


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is not None,
    reason="sentence-transformers is installed here",
)
def test_a_sentence_transformers_model_without_the_package_says_what_to_install(tmp_path):
    (tmp_path / "modules.json").write_text("[]")

    with pytest.raises(EmbeddingModelError, match="sentence-transformers package is not installed"):
        load_local_embedder(tmp_path)


def test_the_hashed_embedder_is_labelled_as_not_semantic():
    embedder = HashedNotionEmbedder()

    assert embedder.name == f"{HASHED_NAME}-512/v1"
    assert embedder.semantic is False
    assert embedder.embed(["right triangle"]).shape == (1, 512)


def test_hashed_vectors_share_words_but_not_meaning():
    rows = HashedNotionEmbedder().embed(["right triangle", "isosceles triangle", "sine", "sin"])
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)

    assert unit[0] @ unit[1] > 0.2  # one word in common
    assert abs(unit[2] @ unit[3]) < 0.2  # the same notion, spelt differently


def test_hashed_vectors_are_the_same_in_every_process_whatever_the_hash_seed():
    notions = ["pythagorean theorem", "vieta's formulas", "modular arithmetic", "x" * 50]
    script = (
        "import json, sys; from grading.msu.embedding import HashedNotionEmbedder; "
        "print(json.dumps(HashedNotionEmbedder().embed(json.loads(sys.argv[1])).tolist()))"
    )
    here = HashedNotionEmbedder().embed(notions).tolist()

    for seed in ("0", "1", "12345"):
        environment = {**os.environ, "PYTHONHASHSEED": seed}
        output = subprocess.run(
            [sys.executable, "-c", script, json.dumps(notions)],
            cwd=REPO_ROOT,
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        ).stdout

        assert json.loads(output) == here


def test_the_endpoint_embedder_over_http():
    texts = [f"notion {i}" for i in range(600)]

    with fake_openai_server(lambda messages: "[]", dimensions=32) as endpoint:
        embedder = EndpointEmbedder(http_embed(endpoint.base_url, "fake-embed"), "fake-embed")
        rows = embedder.embed(texts)

    assert embedder.name == "endpoint:fake-embed"
    assert rows.shape == (600, 32)
    np.testing.assert_allclose(rows, HashedNotionEmbedder(32).embed(texts))
    assert [len(r["input"]) for r in endpoint.requests] == [256, 256, 88]


@pytest.mark.parametrize(
    ("vectors", "message"),
    [
        ([[1.0, 2.0]], "returned 1 vectors for 2 texts"),
        ([[1.0, 2.0], [1.0]], "not lists of numbers of one length"),
        ([[1.0, "a"], [1.0, 2.0]], "not lists of numbers of one length"),
        ([[1.0, math.nan], [1.0, 2.0]], "NaN or infinite"),
    ],
)
def test_a_bad_endpoint_answer_is_an_error(vectors, message):
    embedder = EndpointEmbedder(lambda texts: vectors, "fake-embed")

    with pytest.raises(EmbeddingReplyError, match=message):
        embedder.embed(["a", "b"])
