"""The grading task called in this process (real engine, real sandbox), and enqueue-on-commit."""

from __future__ import annotations

import pytest
from django.db import transaction

from reviewer import services
from reviewer.models import Evaluation, GradingChunk, Item, Run
from reviewer.services.grading.chunks import chunks_record
from reviewer.tasks import grade_chunk
from tests.factories import ProjectFactory

CSV = (
    b"id,gold,output\n"
    b'a,4,"so \\boxed{4}"\n'
    b'b,9,"so \\boxed{6}"\n'
    b'c,\\frac{1}{2},"so \\boxed{0.5}"\n'
    b'd,7,"I am not sure."\n'
)
MAPPING = {"id": "id", "gold": "gold", "output": "output"}
EVALUATORS = ["math_verify", "exact"]


def create_run(user, store_upload, content=CSV):
    stored = store_upload(content)
    return services.run_create(
        project=ProjectFactory(),
        user=user,
        upload_token=stored.token,
        mapping=MAPPING,
        name="task run",
        evaluators=EVALUATORS,
    )


def item_ids(run):
    return list(run.items.order_by("row_number").values_list("pk", flat=True))


def chunk(run, ids, generation=1) -> int:
    """A chunk recorded as the upload records it (the test sends no message)."""
    (recorded,) = chunks_record(
        run_id=run.pk, generation=generation, item_ids=ids, origin=GradingChunk.Origin.UPLOAD
    )
    return recorded.pk


@pytest.mark.django_db
def test_grade_chunk_grades_saves_and_finishes_the_run(user, store_upload):
    run = create_run(user, store_upload)
    saved = grade_chunk(chunk(run, item_ids(run)))
    run.refresh_from_db()
    items = {i.external_id: i for i in run.items.all()}
    assert saved == 4 and run.status == Run.Status.DONE
    assert (items["a"].auto_verdict, items["b"].auto_verdict) == ("correct", "incorrect")
    assert items["d"].needs_review and "no_answer" in {r["code"] for r in items["d"].review_reasons}
    assert Evaluation.objects.filter(item__run=run).count() == 4 * len(EVALUATORS)
    assert {i.grade_attempts for i in items.values()} == {1}


@pytest.mark.django_db
def test_a_redelivered_chunk_grades_only_what_is_left(user, store_upload):
    run = create_run(user, store_upload)
    first, *rest = item_ids(run)
    grade_chunk(chunk(run, [first]))
    # given the earlier delivery of the whole chunk died after counting its attempts
    Item.objects.filter(pk__in=rest).update(grade_attempts=1)
    grade_chunk(chunk(run, [first, *rest]))
    attempts = dict(run.items.values_list("pk", "grade_attempts"))
    assert attempts[first] == 1 and all(attempts[pk] == 2 for pk in rest)
    assert Evaluation.objects.filter(item__run=run).count() == 4 * len(EVALUATORS)


@pytest.mark.django_db
def test_a_task_from_an_earlier_grading_does_nothing(user, store_upload):
    run = create_run(user, store_upload)
    services.run_regrade(run=run, evaluators=["exact"], user=user)
    assert grade_chunk(chunk(run, item_ids(run))) == 0
    assert not Evaluation.objects.exists()
    assert set(run.items.values_list("grade_attempts", flat=True)) == {0}


def queued_tasks(broker) -> int:
    return broker.llen("grading")  # reviewer.settings.CELERY_TASK_ROUTES


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_transaction_sends_no_task(user, store_upload, celery_broker):  # A6
    # When a run is created in a transaction that then fails
    with pytest.raises(RuntimeError), transaction.atomic():
        create_run(user, store_upload)
        raise RuntimeError("something later in the request failed")
    assert not Run.objects.exists()
    # Then no task was sent
    assert queued_tasks(celery_broker) == 0
    # and the zero is not because the app sends elsewhere (an exported CELERY_BROKER_URL): the
    # same upload, committed, queues its chunk on the broker this test watches
    create_run(user, store_upload)
    assert queued_tasks(celery_broker) == 1, "the app sent its task to another broker"


@pytest.mark.django_db(transaction=True)
def test_a_committed_run_sends_one_task_per_chunk(user, store_upload, celery_broker, settings):
    settings.MATHJURY_CHUNK_SIZE = 3
    run = create_run(user, store_upload)
    assert run.total_rows == 4
    assert queued_tasks(celery_broker) == 2
