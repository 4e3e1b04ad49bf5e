"""MSU in the app: a run uploaded with human solutions gets a score per row, through each
extractor and embedder the settings choose, cached per solution; the pages and exports show it."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from django.test import Client
from django.urls import reverse

from grading.msu import HashedNotionEmbedder, LexicalExtractor, Notions, msu_score
from reviewer import services
from reviewer.item_filters import ItemFilters
from reviewer.models import Item, ItemMsu, MsuSolutionCache, Run
from reviewer.services.exports import formats
from reviewer.services.exports.rows import export_items, export_rows, export_schema
from tests.factories import ProjectFactory
from tests.msu_fake_endpoint import fake_openai_server
from tests.msu_tiny_model import write_tiny_model2vec

pytestmark = pytest.mark.django_db

HUMAN_PYTHAGORAS = (
    "By the Pythagorean theorem the hypotenuse satisfies $c^2 = 5^2 + 12^2 = 169$, "
    "so $c = \\boxed{13}$."
)
HUMAN_COMBINATIONS = "Count combinations: $\\binom{10}{3} = \\frac{720}{6} = \\boxed{120}$."
# Written for these tests: two models, two problems, each human solution on two rows.
ROWS = [
    ("p1", "Geometry", "Level 1", "13", HUMAN_PYTHAGORAS,
     "Using the Pythagorean theorem, $c^2 = 169$ and $c = \\boxed{13}$.", "model-a"),
    ("p1", "Geometry", "Level 1", "13", HUMAN_PYTHAGORAS,
     "I guess it is 13, by drawing a square.", "model-b"),
    ("p2", "Counting", "Level 2", "120", HUMAN_COMBINATIONS,
     "A binomial coefficient: $\\binom{10}{3} = \\boxed{120}$.", "model-a"),
    ("p2", "Counting", "Level 2", "120", HUMAN_COMBINATIONS,
     "By the Pythagorean theorem it is $\\boxed{121}$.", "model-b"),
    ("p3", "Counting", "Level 2", "1", "", "It is $\\boxed{1}$.", "model-a"),
]  # fmt: skip
MAPPING = {
    "id": "id",
    "subject": "subject",
    "gold": "gold",
    "solution": "solution",
    "output": "output",
    "model": "model",
}


def csv_bytes(rows=ROWS, solution_header="solution") -> bytes:
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(["id", "subject", "level", "gold", solution_header, "output", "model"])
    writer.writerows(rows)
    return out.getvalue().encode()


def upload(user, store_upload, content=None, mapping=MAPPING, **kwargs) -> Run:
    stored = store_upload(content or csv_bytes())
    return services.run_create(
        project=ProjectFactory(created_by=user),
        user=user,
        upload_token=stored.token,
        mapping=mapping,
        name="msu run",
        evaluators=["exact"],
        **kwargs,
    )


def compute(run: Run) -> None:
    """What the run's MSU tasks do, in this process."""
    ids = services.msu_rows_queue(run_id=run.pk)
    services.msu_chunk(run_id=run.pk, item_ids=ids)


def msu_of(run: Run) -> list[ItemMsu]:
    return list(ItemMsu.objects.filter(item__run=run).order_by("item__row_number"))


@pytest.fixture
def run(user, store_upload, django_capture_on_commit_callbacks) -> Run:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        created = upload(user, store_upload)
    assert len(callbacks) == 2  # grading, then MSU, sent after the commit
    compute(created)
    return created


# ---- upload and computation ------------------------------------------------------------


@pytest.mark.parametrize("header", ["solution", "human_solution", "Reference Solution"])
def test_the_solution_column_is_recognised_by_each_of_its_names(header):
    from grading.reader import guess_mapping

    mapping, _ = guess_mapping(("problem", "gold", header, "output"))
    assert mapping["solution"] == header


def test_each_row_gets_the_lexical_hashed_score_the_core_computes(run):
    # Given a run uploaded with human solutions and no MSU settings
    results = msu_of(run)

    # Then every row with a human solution is scored, labelled lexical and hashed
    assert [r.state for r in results] == ["scored"] * 4 + ["no_score"]
    assert results[4].note == "this row has no human solution"
    assert {(r.extractor, r.embedding_semantic) for r in results[:4]} == {("lexical", False)}
    assert results[0].embedding_model.startswith("hashed-bag-of-notions")

    # and each score is the one grading.msu computes from the two texts (a numpy cosine)
    extractor, embedder = LexicalExtractor(), HashedNotionEmbedder()
    for result, (_, _, _, _, human, output, _) in zip(results[:4], ROWS, strict=False):
        expected = msu_score(extractor.extract(output), extractor.extract(human), embedder)
        assert result.score == pytest.approx(expected.score, abs=1e-6)
        assert result.overlap == pytest.approx(expected.overlap)
        assert result.model_notions == list(expected.model_notions)
        assert result.human_notions == list(expected.human_notions)
    # the same method scores higher than unrelated reasoning on the same problem
    assert results[0].score > results[1].score


def test_the_score_is_the_cosine_of_the_mean_unit_vectors(run):
    embedder = HashedNotionEmbedder()
    result = msu_of(run)[0]

    def set_vector(notions):
        rows = embedder.embed(notions).astype(np.float64)
        rows = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        return rows.mean(axis=0)

    a, b = set_vector(result.model_notions), set_vector(result.human_notions)
    assert result.score == pytest.approx(a @ b / np.linalg.norm(a) / np.linalg.norm(b), abs=1e-6)


def test_a_solution_shared_by_rows_is_cached_once_and_recomputing_reuses_it(run):
    # Then each distinct text (4 outputs, 2 human solutions) has one cache entry
    assert MsuSolutionCache.objects.count() == 6
    before = [r.score for r in msu_of(run)]

    # When MSU is computed again
    ItemMsu.objects.filter(item__run=run).update(state=ItemMsu.State.PENDING)
    compute(run)

    # Then nothing new is cached and the scores are the same
    assert MsuSolutionCache.objects.count() == 6
    assert [r.score for r in msu_of(run)] == before


def test_a_run_without_solutions_gets_no_msu_and_says_why(
    user, store_upload, django_capture_on_commit_callbacks, member_client
):
    content = csv_bytes().replace(b"solution", b"notes")
    mapping = {k: v for k, v in MAPPING.items() if k != "solution"}
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        run = upload(user, store_upload, content, mapping)
    assert len(callbacks) == 1  # grading only
    assert services.msu_rows_queue(run_id=run.pk) == []
    page = member_client.get(reverse("run_detail", args=[run.pk])).content.decode()
    assert "has no human solution column" in page


def test_a_row_that_crashed_its_worker_three_times_is_an_error_not_pending(run):
    row = msu_of(run)[0]
    ItemMsu.objects.filter(pk=row.pk).update(state=ItemMsu.State.PENDING, attempts=3)
    services.msu_chunk(run_id=run.pk, item_ids=[row.pk])
    row.refresh_from_db()
    assert row.state == ItemMsu.State.ERROR and "3 attempts" in row.note


# ---- the configured extractor and embedder ------------------------------------------------


def notions_reply(messages):
    """The fake LLM: notions by what the solution mentions, as a JSON list in a code fence."""
    text = messages[-1]["content"]
    if "guess" in text:
        return "I cannot tell."
    notions = ["Pythagorean theorem"] if "Pythagorean" in text else []
    notions += ["binomial coefficient"] if "binom" in text else []
    return "```json\n" + json.dumps(notions or ["arithmetic"]) + "\n```"


def test_notions_through_a_chat_endpoint_are_recorded_with_the_model_and_prompt(
    user, store_upload, settings, django_capture_on_commit_callbacks
):
    with fake_openai_server(notions_reply) as server:
        settings.MATHJURY_MSU_BASE_URL = server.base_url
        settings.MATHJURY_MSU_MODEL = "notion-model"
        with django_capture_on_commit_callbacks(execute=False):
            run = upload(user, store_upload)
        compute(run)
        chats = [r for r in server.requests if r["path"].endswith("/chat/completions")]

    results = msu_of(run)
    # Then notions come from the reply's JSON, labelled with the model and the prompt version
    assert results[0].extractor == "llm:notion-model"
    assert results[0].extractor_version == "msu-notions-1"
    assert results[0].model_notions == ["pythagorean theorem"]
    assert results[0].score == pytest.approx(1.0)
    # a reply with no list is an error on its row that quotes the reply; the others go on
    assert results[1].state == "error" and "I cannot tell." in results[1].note
    assert results[3].state == "scored"
    # each distinct text is asked once (4 outputs and 2 human solutions), at temperature 0
    assert len(chats) == 6 and {c["temperature"] for c in chats} == {0}


def test_a_model2vec_directory_from_the_settings_embeds_the_notions(
    run_factory, settings, tmp_path
):
    words = "pythagorean theorem binomial coefficient combination fraction final answer".split()
    write_tiny_model2vec(tmp_path / "tiny-model", words)
    settings.MATHJURY_EMBEDDING_MODEL = str(tmp_path / "tiny-model")
    results = msu_of(run_factory())
    assert results[0].embedding_model.startswith("model2vec:tiny-model@")
    assert results[0].embedding_semantic is True
    assert results[0].state == "scored" and -1 <= results[0].score <= 1


def test_a_missing_model_directory_is_an_error_on_the_rows_naming_the_setting(
    run_factory, settings, tmp_path
):
    settings.MATHJURY_EMBEDDING_MODEL = str(tmp_path / "nowhere")
    results = msu_of(run_factory())
    assert {r.state for r in results} == {"error"}
    assert results[0].note.startswith("MATHJURY_EMBEDDING_MODEL:")
    assert "does not exist" in results[0].note


def test_an_embeddings_endpoint_from_the_settings_is_recorded_by_its_model(run_factory, settings):
    with fake_openai_server(notions_reply) as server:
        settings.MATHJURY_EMBEDDING_BASE_URL = server.base_url
        settings.MATHJURY_EMBEDDING_ENDPOINT_MODEL = "embed-small"
        results = msu_of(run_factory())
    assert results[0].embedding_model == "endpoint:embed-small"
    assert results[0].state == "scored"


@pytest.fixture
def run_factory(user, store_upload, django_capture_on_commit_callbacks):
    def make() -> Run:
        with django_capture_on_commit_callbacks(execute=False):
            created = upload(user, store_upload)
        compute(created)
        return created

    return make


# ---- pages and exports -------------------------------------------------------------------


@pytest.fixture
def member_client(client, user, settings) -> Client:
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    client.force_login(user)
    return client


def test_the_item_page_shows_both_keyword_lists_with_the_shared_notions_marked(run, member_client):
    item = run.items.get(row_number=1)
    page = member_client.get(reverse("item_detail", args=[item.pk])).content.decode()
    assert 'id="msu-keywords-model"' in page and 'id="msu-keywords-human"' in page
    assert '<mark class="msu-shared">pythagorean theorem</mark>' in page
    assert "lexical (read from the text, not the LLM method)" in page
    assert "not a semantic embedding" in page


def test_the_stats_page_shows_mean_msu_per_model_subject_and_level(run, member_client):
    Item.objects.filter(run=run).update(final_verdict="correct")
    page = member_client.get(reverse("run_stats", args=[run.pk])).content.decode()
    assert 'id="msu-by-model"' in page and 'data-model="model-a"' in page
    assert 'id="msu-by-subject"' in page and "Geometry" in page
    assert "Per level (level)" in page and "Level 2" in page
    assert 'id="msu-against-verdict"' in page


def test_msu_against_correctness_links_to_its_rows(run, member_client):
    # Given row 2 (right answer, no reasoning) and row 4 (wrong answer, a related method)
    Item.objects.filter(run=run).update(final_verdict="correct")
    Item.objects.filter(run=run, row_number=4).update(final_verdict="incorrect")
    low = msu_of(run)[1].score
    assert low < 0.4

    # When the run page lists right answers with low MSU
    url = reverse("run_detail", args=[run.pk]) + "?verdict=correct&msu=low&order=row"
    page = member_client.get(url).content.decode()

    # Then that row is listed, and the run page's MSU section links there
    assert f'href="/items/{run.items.get(row_number=2).pk}/' in page
    assert f"/runs/{run.pk}/?verdict=correct&amp;msu=low&amp;order=row" in page
    assert f'href="/items/{run.items.get(row_number=1).pk}/' not in page.split('id="msu"')[0]


def test_the_export_carries_the_msu_columns(run):
    schema = export_schema(run=run)
    rows = list(export_rows(items=export_items(run=run, filters=ItemFilters()), schema=schema))
    text = b"".join(formats.encode(rows, schema, format="csv")).decode()
    exported = list(csv.DictReader(io.StringIO(text)))
    assert {"msu", "msu_keywords_model", "msu_keywords_human", "msu_embedding_model"} <= set(
        exported[0]
    )
    first = msu_of(run)[0]
    assert float(exported[0]["msu"]) == pytest.approx(first.score)
    assert exported[0]["msu_keywords_model"] == "; ".join(first.model_notions)
    assert exported[0]["msu_extractor"] == "lexical"
    assert exported[0]["msu_embedding_model"].startswith("hashed-bag-of-notions")
    assert exported[0]["solution"] == HUMAN_PYTHAGORAS
    assert exported[4]["msu"] == ""  # no human solution on that row


def test_notions_from_different_extractors_are_not_mixed():
    with pytest.raises(ValueError):
        from grading.msu import msu_from_set_vectors

        msu_from_set_vectors(
            Notions(("a",), "lexical", "1"),
            None,
            Notions(("a",), "llm:x", "msu-notions-1"),
            None,
            embedding_model="m",
            embedding_is_semantic=False,
        )


def test_compute_msu_again_uses_the_settings_in_force_now(
    run, member_client, settings, tmp_path, django_capture_on_commit_callbacks
):
    # Given a run scored with the defaults, then a model directory configured
    write_tiny_model2vec(tmp_path / "tiny-model", ["pythagorean", "theorem", "hypotenuse"])
    settings.MATHJURY_EMBEDDING_MODEL = str(tmp_path / "tiny-model")

    # When its owner asks for MSU again and the task runs
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = member_client.post(reverse("run_msu_recompute", args=[run.pk]))
    assert response.status_code == 302 and len(callbacks) == 1
    assert {r.state for r in msu_of(run)} == {"pending"}
    compute(run)

    # Then every row is scored again and labelled with the model
    results = msu_of(run)
    assert {r.embedding_model.split("@")[0] for r in results} == {"model2vec:tiny-model"}
    assert results[0].state == "scored"
    # a row whose notions the three-word model does not know says so instead of scoring 0
    assert results[1].state == "no_score"
    assert "has an embedding in model2vec:tiny-model" in results[1].note


def test_parquet_and_jsonl_exports_keep_msu_as_a_number_and_the_keywords_as_lists(run):
    import pyarrow.parquet as pq

    schema = export_schema(run=run)

    def rows():
        return export_rows(items=export_items(run=run, filters=ItemFilters()), schema=schema)

    table = pq.read_table(io.BytesIO(b"".join(formats.encode(rows(), schema, format="parquet"))))
    assert str(table.schema.field("msu").type) == "double"
    assert table.column("msu_keywords_human").to_pylist()[0] == msu_of(run)[0].human_notions
    lines = b"".join(formats.encode(rows(), schema, format="jsonl")).decode().splitlines()
    first = json.loads(lines[0])
    assert first["msu"] == pytest.approx(msu_of(run)[0].score)
    assert first["msu_keywords_model"] == msu_of(run)[0].model_notions


def test_the_api_gives_a_rows_msu_and_null_without_one(run, member_client):
    scored = member_client.get(f"/api/items/{run.items.get(row_number=1).pk}/").json()
    assert scored["human_solution"] == HUMAN_PYTHAGORAS
    assert scored["msu"]["score"] == pytest.approx(msu_of(run)[0].score)
    assert scored["msu"]["extractor"] == "lexical"
    assert "pythagorean theorem" in scored["msu"]["human_notions"]
    ItemMsu.objects.filter(item__run=run, item__row_number=2).delete()
    missing = member_client.get(f"/api/items/{run.items.get(row_number=2).pk}/").json()
    assert missing["msu"] is None
