"""The MSU score: cosine of the keyword-set vectors against a reference computed with numpy."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

import numpy as np
import pytest
from sklearn.metrics.pairwise import cosine_similarity

from grading.msu.embedding import HashedNotionEmbedder
from grading.msu.lexical import LexicalExtractor
from grading.msu.notions import Notions
from grading.msu.score import cosine, msu_cache_key, msu_score


class TableEmbedder:
    """An embedder whose vectors the test chooses, so the reference can be computed by hand."""

    semantic = True

    def __init__(self, table: dict[str, np.ndarray], name: str = "table") -> None:
        self.table = table
        self.name = name

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([self.table[text] for text in texts])


def notions(*items: str, extractor: str = "lexical", version: str = "1") -> Notions:
    return Notions(tuple(sorted(items)), extractor, version)


def reference_msu(model: list[np.ndarray], human: list[np.ndarray]) -> float:
    """The method's formula written out: mean of unit keyword vectors per set, then the cosine."""
    model_mean = np.mean([v / np.linalg.norm(v) for v in model], axis=0)
    human_mean = np.mean([v / np.linalg.norm(v) for v in human], axis=0)
    return float(
        np.dot(model_mean, human_mean) / (np.linalg.norm(model_mean) * np.linalg.norm(human_mean))
    )


@pytest.mark.parametrize("seed", range(5))
def test_the_score_equals_a_numpy_reference(seed):
    rng = np.random.default_rng(seed)
    words = [f"notion {i}" for i in range(12)]
    table = {word: rng.normal(size=24) * rng.uniform(0.1, 10) for word in words}
    model, human = words[:7], words[4:]

    result = msu_score(notions(*model), notions(*human), TableEmbedder(table))

    expected = reference_msu([table[w] for w in model], [table[w] for w in human])
    assert result.score == pytest.approx(expected, abs=1e-12)
    best = [max(cosine_similarity([table[m]], [table[h]])[0, 0] for h in human) for m in model]
    assert result.notion_match == pytest.approx(float(np.mean(best)), abs=1e-12)


def test_cosine_matches_numpy_and_scikit_learn():
    rng = np.random.default_rng(7)
    for _ in range(20):
        a, b = rng.normal(size=50), rng.normal(size=50)
        reference = np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))

        assert cosine(a, b) == pytest.approx(reference, abs=1e-12)
        assert cosine(a, b) == pytest.approx(cosine_similarity([a], [b])[0, 0], abs=1e-12)


def test_cosine_of_a_zero_vector_is_no_value_never_nan():
    assert cosine(np.zeros(3), np.ones(3)) is None
    assert cosine(np.ones(3), np.ones(3) * 2) == 1.0
    assert cosine(np.ones(3), -np.ones(3)) == -1.0


def test_identical_sets_score_one_and_disjoint_orthogonal_sets_zero():
    table = {"a": np.array([1.0, 0.0]), "b": np.array([0.0, 1.0])}

    same = msu_score(notions("a"), notions("a"), TableEmbedder(table))
    apart = msu_score(notions("a"), notions("b"), TableEmbedder(table))

    assert same.score == pytest.approx(1.0)
    assert (apart.score, apart.overlap, apart.shared_notions) == (0.0, 0.0, ())


def test_overlap_is_the_jaccard_index_and_lists_the_shared_notions():
    model = notions("fraction", "probability", "binomial coefficient")
    human = notions("probability", "binomial coefficient", "complementary counting", "factorial")

    result = msu_score(model, human, HashedNotionEmbedder())

    assert result.overlap == pytest.approx(2 / 5)
    assert result.shared_notions == ("binomial coefficient", "probability")
    assert result.model_notions == model.notions and result.human_notions == human.notions


@pytest.mark.parametrize(
    ("model", "human", "reason", "overlap"),
    [
        ((), ("probability",), "no notions were found in the model's solution", 0.0),
        (("probability",), (), "no notions were found in the human solution", 0.0),
        ((), (), "no notions were found in the human solution", None),
    ],
)
def test_an_empty_keyword_set_gives_no_score_with_a_reason(model, human, reason, overlap):
    result = msu_score(notions(*model), notions(*human), HashedNotionEmbedder())

    assert (result.score, result.no_score_reason, result.overlap) == (None, reason, overlap)
    assert result.notion_match is None


def test_zero_vectors_give_no_score_never_nan():
    table = {"known": np.array([1.0, 2.0]), "unknown": np.zeros(2)}

    result = msu_score(notions("known"), notions("unknown"), TableEmbedder(table))

    assert result.score is None
    assert (
        result.no_score_reason == "none of the human solution's notions has an embedding in table"
    )
    json.dumps(result.to_dict(), allow_nan=False)


def test_vectors_that_cancel_out_give_no_score():
    table = {
        "up": np.array([1.0, 0.0]),
        "down": np.array([-1.0, 0.0]),
        "side": np.array([0.0, 1.0]),
    }

    result = msu_score(notions("up", "down"), notions("side"), TableEmbedder(table))

    assert result.score is None
    assert result.no_score_reason == "the two keyword sets' vectors cancel out to zero"


def test_unknown_notions_do_not_count_against_the_known_ones():
    table = {"a": np.array([1.0, 0.0]), "b": np.array([0.0, 1.0]), "unknown": np.zeros(2)}

    with_unknown = msu_score(notions("a", "unknown"), notions("a", "b"), TableEmbedder(table))
    without = msu_score(notions("a"), notions("a", "b"), TableEmbedder(table))

    assert with_unknown.score == pytest.approx(without.score)
    assert with_unknown.notion_match == pytest.approx(without.notion_match) == 1.0


def test_notions_from_different_extractors_are_not_compared():
    with pytest.raises(ValueError, match="different extractors"):
        msu_score(notions("a"), notions("a", extractor="llm:gpt"), HashedNotionEmbedder())
    with pytest.raises(ValueError, match="different extractors"):
        msu_score(notions("a"), notions("a", version="2"), HashedNotionEmbedder())


def test_the_result_records_how_it_was_made_and_is_frozen_and_json_safe():
    extractor = LexicalExtractor()
    model = extractor.extract(r"By the Pythagorean theorem, $c = 5$, so $\boxed{5}$.")
    human = extractor.extract(r"In the right triangle, $c = \sqrt{25} = 5$. $\boxed{5}$")

    result = msu_score(model, human, HashedNotionEmbedder())

    assert (result.extractor, result.extractor_version) == ("lexical", extractor.version)
    assert result.embedding_model == "hashed-bag-of-notions-512/v1"
    assert result.embedding_is_semantic is False
    assert 0 < result.score < 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.score = 1.0  # type: ignore[misc]
    assert json.loads(json.dumps(result.to_dict(), allow_nan=False)) == result.to_dict()


def test_the_cache_key_changes_with_each_part_and_nothing_else():
    key = msu_cache_key("solution", "lexical", "1+abc", "model2vec:potion@123")

    assert key == msu_cache_key("solution", "lexical", "1+abc", "model2vec:potion@123")
    variants = {
        key,
        msu_cache_key("solution ", "lexical", "1+abc", "model2vec:potion@123"),
        msu_cache_key("solution", "llm:gpt", "1+abc", "model2vec:potion@123"),
        msu_cache_key("solution", "lexical", "1+abd", "model2vec:potion@123"),
        msu_cache_key("solution", "lexical", "1+abc", "hashed-bag-of-notions-512/v1"),
    }
    assert len(variants) == 5
    # fields are delimited, so text cannot slide from one field into the next
    assert msu_cache_key("ab", "c", "", "") != msu_cache_key("a", "bc", "", "")


@pytest.mark.parametrize("seed", range(5))
def test_the_score_from_stored_set_vectors_equals_the_numpy_reference(seed):
    # Given set vectors computed once per solution, as the app stores them (float32)
    from grading.msu.score import msu_from_set_vectors, notion_set_vectors

    rng = np.random.default_rng(seed)
    words = [f"notion {i}" for i in range(12)]
    table = {word: rng.normal(size=24) * rng.uniform(0.1, 10) for word in words}
    model, human = notions(*words[:7]), notions(*words[4:])
    embedder = TableEmbedder(table)
    model_vector, human_vector = (
        v.astype(np.float32) for v in notion_set_vectors([model.notions, human.notions], embedder)
    )

    # When the score is taken from them
    result = msu_from_set_vectors(
        model,
        model_vector,
        human,
        human_vector,
        embedding_model="table",
        embedding_is_semantic=True,
    )

    # Then it is the method's formula, and what msu_score gives from the notions
    expected = reference_msu([table[w] for w in words[:7]], [table[w] for w in words[4:]])
    assert result.score == pytest.approx(expected, abs=1e-6)
    assert result.score == pytest.approx(msu_score(model, human, embedder).score, abs=1e-6)
    assert result.overlap == pytest.approx(3 / 12)


def test_stored_set_vectors_give_the_same_reasons_for_no_score():
    from grading.msu.score import msu_from_set_vectors, notion_set_vectors

    embedder = TableEmbedder({"known": np.ones(4), "unknown": np.zeros(4)})
    sets = [("known",), ("unknown",), ()]
    known, unknown, empty = notion_set_vectors(sets, embedder)
    assert unknown is None and empty is None

    def reason(model, model_vector, human, human_vector) -> str:
        result = msu_from_set_vectors(
            notions(*model), model_vector, notions(*human), human_vector,
            embedding_model="table", embedding_is_semantic=True,
        )  # fmt: skip
        assert result.score is None
        return result.no_score_reason

    assert reason((), None, ("known",), known) == "no notions were found in the model's solution"
    assert reason(("known",), known, (), None) == "no notions were found in the human solution"
    assert reason(("unknown",), None, ("known",), known) == (
        "none of the model's notions has an embedding in table"
    )
