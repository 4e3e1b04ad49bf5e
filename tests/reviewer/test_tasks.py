"""The grading task called in this process (real engine, real sandbox), and enqueue-on-commit."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from billiard.pool import soft_timeout_sighandler
from django.db import transaction

from grading.types import Sample, Verdict
from reviewer import services
from reviewer.models import Evaluation, GradingChunk, Item, Run
from reviewer.services.grading import grading_pool
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


# A row whose comparison runs for minutes inside one big-integer operation, between two
# ordinary rows.
STUCK_CSV = (
    b"id,gold,output\n"
    b'a,4,"so \\boxed{4}"\n'
    b'b,1.3^{6472416997},"so \\boxed{1.3^{6472416997} + 10^{-10^{9}}}"\n'
    b'c,9,"so \\boxed{6}"\n'
)


def signal_once_a_row_is_graded(pool, rows_before: int) -> threading.Thread:
    """Send this process SIGUSR1 as soon as a child of ``pool`` has finished a row: the stuck
    row is then in a child, and the grading loop waits for it. The finished row counts whether
    or not its answer reached the parent: the stuck row holds the child's interpreter lock, so
    its writer thread may not send it for as long as the row runs."""

    def wait_and_signal() -> None:
        deadline = time.monotonic() + 300
        while pool.rows_finished() == rows_before and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGUSR1)

    thread = threading.Thread(target=wait_and_signal, daemon=True)
    thread.start()
    return thread


@pytest.mark.django_db(transaction=True)
def test_a_soft_time_limit_in_mid_batch_sends_the_rows_on_and_each_is_then_graded(  # B5
    user, store_upload, celery_broker, settings
):
    # Given a chunk of three rows, the middle one stuck for minutes (a row limit of 60 s keeps
    # it in its child), and Celery's soft-limit handler on SIGUSR1, as in a prefork worker
    settings.MATHJURY_GRADING_WORKERS = 1
    settings.MATHJURY_GRADING_TIMEOUT = 60
    run = create_run(user, store_upload, STUCK_CSV)
    first = GradingChunk.objects.get(run=run)
    pool = grading_pool()
    previous = signal.signal(signal.SIGUSR1, soft_timeout_sighandler)
    try:
        # When the soft limit fires while the batch is being graded
        signaller = signal_once_a_row_is_graded(pool, pool.rows_finished())
        saved = grade_chunk(first.pk)
        signaller.join()
    finally:
        signal.signal(signal.SIGUSR1, previous)

    # Then the task ended without an error, the interrupted batch saved nothing, and all its
    # rows were sent on as a new chunk with their attempt counted
    assert saved == 0
    first.refresh_from_db()
    assert first.state == GradingChunk.State.DONE
    sent_on = GradingChunk.objects.exclude(pk=first.pk).get(run=run)
    assert sent_on.origin == GradingChunk.Origin.SPLIT
    assert sorted(sent_on.item_ids) == item_ids(run)
    assert set(run.items.values_list("grade_state", "grade_attempts")) == {
        (Item.GradeState.PENDING, 1)
    }
    assert not Evaluation.objects.exists()
    # and the grading pool was left ready: its next call grades other rows normally
    [graded] = pool.grade([Sample("$3$", "so $\\boxed{3}$")])
    assert graded.auto_verdict is Verdict.CORRECT

    # When the sent-on chunk is delivered (with a 1 s row limit, so the stuck row ends soon)
    settings.MATHJURY_GRADING_TIMEOUT = 1
    grade_chunk(sent_on.pk)

    # Then every row is graded: the stuck one as a time-out sent to review, and the run is done
    items = {i.external_id: i for i in run.items.all()}
    assert {i.grade_state for i in items.values()} == {Item.GradeState.GRADED}
    assert (items["a"].auto_verdict, items["c"].auto_verdict) == ("correct", "incorrect")
    stuck = Evaluation.objects.get(item=items["b"], evaluator="math_verify")
    assert stuck.status == "timeout" and items["b"].needs_review
    run.refresh_from_db()
    assert run.status == Run.Status.DONE
