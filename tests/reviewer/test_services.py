"""Services: creating runs from uploads, reviews, and saving grading results."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from grading.evaluators import build_evaluators
from grading.pipeline import grade_sample
from grading.reader import IngestError
from grading.types import Sample
from reviewer import selectors, services, stats
from reviewer.models import (
    Evaluation,
    EvaluatorScore,
    Item,
    Review,
    Run,
    evaluator_scores_parse,
)
from reviewer.selectors import ItemFilters
from tests.factories import GradedItemFactory, ItemFactory, ProjectFactory, RunFactory

pytestmark = pytest.mark.django_db

CSV = (
    b"id,problem,gold,output,level\n"
    b'a,What is 2+2?,4,"so \\boxed{4}",easy\n'
    b'b,What is 3*3?,9,"so \\boxed{6}",easy\n'
    b'c,Half of 1?,\\frac{1}{2},"so \\boxed{0.5}",hard\n'
)
MAPPING = {"id": "id", "problem": "problem", "gold": "gold", "output": "output"}
EVALUATORS = ["math_verify", "exact"]


def graded(gold: str, output: str, evaluators=EVALUATORS):
    """The real engine's result for one sample (unsandboxed, in this process)."""
    return grade_sample(Sample(gold=gold, output=output), build_evaluators(evaluators))


def create_run(user, store_upload, content=CSV, project=None, **kwargs):
    stored = store_upload(content)
    return services.run_create(
        project=project or ProjectFactory(),
        user=user,
        upload_token=stored.token,
        mapping=MAPPING,
        name="my run",
        **{"evaluators": EVALUATORS, **kwargs},
    )


def test_run_create_stores_every_row_and_enqueues_grading_on_commit(
    user, store_upload, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        run = create_run(user, store_upload)
    assert run.total_rows == 3
    assert run.status == Run.Status.QUEUED
    items = list(run.items.order_by("row_number"))
    assert [i.external_id for i in items] == ["a", "b", "c"]
    assert [i.source_line for i in items] == [2, 3, 4]
    assert items[2].gold == "\\frac{1}{2}" and items[0].extra == {"level": "easy"}
    assert {i.grade_state for i in items} == {Item.GradeState.PENDING}
    assert len(callbacks) == 1  # the grading tasks are sent only after the commit


def test_run_create_with_a_bad_file_stores_nothing(user, store_upload):
    content = CSV + b"d,Broken row,1\n"
    with pytest.raises(IngestError) as caught:
        create_run(user, store_upload, content=content)
    assert caught.value.problems == ["line 5: expected 5 fields, found 3"]
    assert not Run.objects.exists() and not Item.objects.exists()


def test_same_file_twice_in_a_project_offers_the_existing_run(user, store_upload):  # C13
    project = ProjectFactory()
    first = create_run(user, store_upload, project=project)
    with pytest.raises(services.DuplicateRunError) as caught:
        create_run(user, store_upload, project=project)
    assert caught.value.run == first
    assert Run.objects.count() == 1 and Item.objects.count() == 3


def test_same_file_in_another_project_is_a_new_run(user, store_upload):
    create_run(user, store_upload)
    create_run(user, store_upload)
    assert Run.objects.count() == 2


def test_unknown_evaluator_is_refused(user, store_upload):
    with pytest.raises(services.UnknownEvaluatorsError, match="nonsense"):
        create_run(user, store_upload, evaluators=["math_verify", "nonsense"])
    assert not Run.objects.exists()


def test_review_becomes_the_final_verdict_and_keeps_history(user):
    item = GradedItemFactory(auto_verdict="correct", final_verdict="correct")
    services.item_review(item=item, user=user, verdict="incorrect", note="sign error")
    services.item_review(item=item, user=user, verdict="gold_wrong", expected_version=1)
    item.refresh_from_db()
    assert (item.final_verdict, item.final_source, item.version) == ("gold_wrong", "human", 2)
    assert [r.verdict for r in item.reviews.all()] == ["gold_wrong", "incorrect"]


def test_review_against_a_stale_version_is_refused_and_changes_nothing(user):  # F1
    item = GradedItemFactory()
    services.item_review(item=item, user=user, verdict="incorrect")
    with pytest.raises(services.StaleVersionError) as caught:
        services.item_review(item=item, user=user, verdict="correct", expected_version=0)
    assert caught.value.item.final_verdict == "incorrect"
    assert Review.objects.count() == 1


def test_results_saved_twice_leave_one_evaluation_per_evaluator():
    run = RunFactory(evaluators=EVALUATORS)
    item = ItemFactory(run=run, gold="4", output="so \\boxed{4}")
    result = graded("4", "so \\boxed{4}")
    for _ in range(2):  # a re-delivered task
        services.grading_results_save(run_id=run.pk, generation=1, results=[(item.pk, result)])
    item.refresh_from_db()
    assert (item.grade_state, item.auto_verdict, item.final_verdict) == (
        "graded",
        "correct",
        "correct",
    )
    assert sorted(item.evaluations.values_list("evaluator", flat=True)) == sorted(EVALUATORS)


def test_results_for_an_earlier_generation_write_nothing():
    run = RunFactory(evaluators=EVALUATORS, grading_generation=2)
    item = ItemFactory(run=run)
    saved = services.grading_results_save(
        run_id=run.pk, generation=1, results=[(item.pk, graded("42", "\\boxed{42}"))]
    )
    item.refresh_from_db()
    assert saved == 0 and item.grade_state == "pending" and not Evaluation.objects.exists()


def test_regrading_never_overwrites_a_human_review(user):  # A5
    run = RunFactory(evaluators=EVALUATORS)
    item = ItemFactory(run=run, gold="9", output="so \\boxed{6}")
    services.grading_results_save(
        run_id=run.pk, generation=1, results=[(item.pk, graded("9", "so \\boxed{6}"))]
    )
    services.item_review(item=item, user=user, verdict="gold_wrong", note="gold should be 6")

    run = services.run_regrade(run=run, evaluators=["exact"], user=user)
    item.refresh_from_db()
    assert (run.grading_generation, item.grade_state) == (2, "pending")
    regraded = graded("9", "so \\boxed{6}", evaluators=["exact"])
    services.grading_results_save(run_id=run.pk, generation=2, results=[(item.pk, regraded)])

    item.refresh_from_db()
    assert item.auto_verdict == "incorrect"
    assert (item.final_verdict, item.final_source) == ("gold_wrong", "human")
    assert item.reviews.get().note == "gold should be 6"
    # the evaluators dropped from the run are dropped from the item
    assert list(item.evaluations.values_list("evaluator", flat=True)) == ["exact"]


def test_saved_results_score_each_evaluator_on_the_item_and_a_regrade_replaces_them(user):
    # Given a row graded by math_verify (correct) and strict (no marker, so no answer)
    run = RunFactory(evaluators=["math_verify", "strict"])
    item = ItemFactory(run=run, gold="4", output="so \\boxed{4}")
    first = graded("4", "so \\boxed{4}", evaluators=["math_verify", "strict"])
    services.grading_results_save(run_id=run.pk, generation=1, results=[(item.pk, first)])

    # Then the item holds both scores (no answer scores incorrect) and the stats count them
    item.refresh_from_db()
    assert evaluator_scores_parse(item.evaluator_scores) == {"math_verify": "c", "strict": "i"}
    accuracy = {e.evaluator: e.accuracy for e in stats.run_stats(run=run).evaluator_accuracy}
    assert (accuracy["math_verify"].value, accuracy["strict"].value) == (1.0, 0.0)

    # When the run is re-graded with exact alone
    run = services.run_regrade(run=run, evaluators=["exact"], user=user)
    again = graded("4", "so \\boxed{4}", evaluators=["exact"])
    services.grading_results_save(run_id=run.pk, generation=2, results=[(item.pk, again)])

    # Then only exact's score is left, and no row is listed as strict's any more
    item.refresh_from_db()
    assert item.evaluator_scores == "exact:c"
    rows = ItemFilters(evaluator="strict", evaluator_verdict="incorrect")
    assert not selectors.item_filter(run=run, filters=rows).exists()


@pytest.mark.parametrize(
    ("status", "verdict", "score"),
    [
        ("ok", "correct", "c"),
        ("ok", "incorrect", "i"),
        ("no_answer", "", "i"),
        ("parse_error", "", "i"),
        ("timeout", "", "x"),
        ("error", "", "x"),
    ],
)
def test_a_missing_answer_scores_incorrect_and_a_time_out_is_unknown(status, verdict, score):
    assert EvaluatorScore.of_result(status=status, verdict=verdict) == score


def test_an_item_is_quarantined_after_three_attempts():  # A4
    run = RunFactory()
    poison, fine = ItemFactory(run=run, grade_attempts=3), ItemFactory(run=run, grade_attempts=1)
    started = services.grading_attempt_start(
        run_id=run.pk, generation=1, item_ids=[poison.pk, fine.pk]
    )
    poison.refresh_from_db()
    fine.refresh_from_db()
    assert [i.pk for i in started] == [fine.pk]
    assert (poison.grade_state, fine.grade_attempts) == ("quarantined", 2)
    run.refresh_from_db()
    assert run.status == Run.Status.GRADING and run.grading_started_at is not None


def test_run_is_done_when_no_row_waits():
    run = RunFactory(status=Run.Status.GRADING)
    GradedItemFactory(run=run)
    ItemFactory(run=run, grade_state=Item.GradeState.QUARANTINED)
    assert services.run_finish_if_done(run_id=run.pk, generation=1)
    run.refresh_from_db()
    assert run.status == Run.Status.DONE and run.grading_finished_at is not None


def test_demo_loads_once(user, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        run = services.demo_load(user=user)
    assert run.total_rows >= 45
    assert services.demo_load(user=user) == run


@override_settings(MATHJURY_UPLOAD_MAX_BYTES=10_000)
def test_upload_over_the_limit_gets_413_and_leaves_no_file(client, user, tmp_path, settings):  # C1
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path / "tmp")
    (tmp_path / "tmp").mkdir()
    client.force_login(user)
    big = b"gold,output\n" + b"1,2\n" * 10_000
    response = client.post("/runs/new/", {"file": SimpleUploadedFile("big.csv", big)})
    assert response.status_code == 413
    assert "upload limit" in response.content.decode()
    assert list((tmp_path / "tmp").iterdir()) == []
    assert list(settings.UPLOAD_DIR.iterdir()) == []
