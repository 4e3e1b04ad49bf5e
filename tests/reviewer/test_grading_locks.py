"""The run's lock while grading (PostgreSQL): the worker processes grading one run start and
save batches side by side, and a re-grade, which changes the run's generation, waits for a
batch in the middle of its transaction. Real threads, each with its own connection; a
statement that would wait for a lock gives up after ``lock_timeout``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import OperationalError, connection, transaction

from grading.types import AnswerType, Evaluation, GradedSample, Status, Verdict
from reviewer import services
from reviewer.models import Item, Run
from reviewer.services.grading import grading_attempt_start, grading_results_save
from tests.factories import ItemFactory, RunFactory

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks are PostgreSQL's"),
]

CORRECT = GradedSample(
    answer_type=AnswerType.INTEGER,
    auto_verdict=Verdict.CORRECT,
    needs_review=False,
    review_reasons=(),
    evaluations=(Evaluation("exact", "1", Status.OK, Verdict.CORRECT, extracted="42"),),
)


class BatchInTransaction:
    """Another worker process in the middle of a batch's transaction: it has counted the
    attempt on ``item`` (holding what grading holds on the run) and not yet committed."""

    def __init__(self, run: Run, item: Item) -> None:
        self.run, self.item = run, item
        self.holding, self.release = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._hold)
        self.counted: list[Item] | None = None

    def __enter__(self) -> BatchInTransaction:
        self.thread.start()
        assert self.holding.wait(timeout=30), "the other batch never started"
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release.set()
        self.thread.join(timeout=60)

    def _hold(self) -> None:
        try:
            with transaction.atomic():
                self.counted = grading_attempt_start(
                    run_id=self.run.pk, generation=1, item_ids=[self.item.pk]
                )
                self.holding.set()
                self.release.wait(timeout=60)
        finally:
            self.holding.set()
            connection.close()


@contextmanager
def waiting_for_locks_at_most(seconds: int) -> Iterator[None]:
    with connection.cursor() as cursor:
        cursor.execute(f"SET lock_timeout = '{seconds}s'")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")


def test_a_batch_starts_and_saves_while_another_batch_of_the_run_is_in_its_transaction():
    run = RunFactory(status=Run.Status.GRADING)
    theirs, ours = ItemFactory(run=run), ItemFactory(run=run)
    with BatchInTransaction(run, theirs) as other, waiting_for_locks_at_most(5):
        started = grading_attempt_start(run_id=run.pk, generation=1, item_ids=[ours.pk])
        saved = grading_results_save(run_id=run.pk, generation=1, results=[(ours.pk, CORRECT)])
    assert [item.pk for item in started] == [ours.pk] and saved == 1
    assert [item.pk for item in other.counted] == [theirs.pk]
    ours.refresh_from_db()
    assert (ours.grade_state, ours.auto_verdict) == (Item.GradeState.GRADED, "correct")


def test_a_regrade_waits_for_a_batch_in_its_transaction(user):
    run = RunFactory(status=Run.Status.GRADING)
    item = ItemFactory(run=run)
    with BatchInTransaction(run, item), waiting_for_locks_at_most(1):
        with pytest.raises(OperationalError, match="lock timeout"):
            services.run_regrade(run=run, evaluators=["exact"], user=user)
    run.refresh_from_db()
    assert run.grading_generation == 1
