"""Selectors: the counts, progress, filters and neighbours the review pages show."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from reviewer import selectors
from reviewer.models import Item, Run
from reviewer.selectors import ItemFilters
from tests.factories import GradedItemFactory, ItemFactory, RunFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def run():
    """Six rows: 1 correct, 2 flagged incorrect (one disagreeing), 3 reviewed, 5 pending, 6 quarantined."""
    run = RunFactory(status=Run.Status.GRADING, grading_started_at=timezone.now())
    GradedItemFactory(run=run, row_number=1)
    GradedItemFactory(
        run=run,
        row_number=2,
        auto_verdict="incorrect",
        final_verdict="incorrect",
        needs_review=True,
        evaluators_disagree=True,
        answer_type="expression",
    )
    GradedItemFactory(
        run=run,
        row_number=3,
        auto_verdict="incorrect",
        final_verdict="incorrect",
        needs_review=True,
    )
    GradedItemFactory(
        run=run,
        row_number=4,
        auto_verdict="incorrect",
        final_verdict="correct",
        final_source=Item.FinalSource.HUMAN,
        needs_review=True,
        output="the answer is 12 apples",
    )
    ItemFactory(run=run, row_number=5)
    ItemFactory(run=run, row_number=6, grade_state=Item.GradeState.QUARANTINED, graded_generation=1)
    return run


def rows(run, **filters):
    return [i.row_number for i in selectors.item_filter(run=run, filters=ItemFilters(**filters))]


def test_run_counts_in_one_query(run, django_assert_num_queries):
    with django_assert_num_queries(1):
        counts = selectors.run_counts(run=run)
    assert (counts.total, counts.graded, counts.quarantined) == (6, 4, 1)
    assert (counts.auto_correct, counts.auto_incorrect) == (1, 3)
    assert (counts.flagged, counts.reviewed) == (3, 1)
    assert (counts.final_correct, counts.final_incorrect) == (2, 2)
    assert counts.final_accuracy == 0.5


def test_progress_counts_quarantined_rows_as_done(run):
    progress = selectors.run_progress(run=run)
    assert (progress.graded, progress.total, progress.percent) == (5, 6, 83)
    assert not progress.done and not progress.stalled


def test_progress_warns_when_rows_wait_a_minute_with_no_worker():
    long_ago = timezone.now() - timedelta(minutes=5)
    run = RunFactory(grading_queued_at=long_ago)
    ItemFactory(run=run)
    progress = selectors.run_progress(run=run)
    assert progress.stalled and progress.rows_per_second is None and progress.seconds_left is None


def test_progress_estimates_speed_and_time_left():
    started = timezone.now() - timedelta(seconds=10)
    run = RunFactory(status=Run.Status.GRADING, grading_started_at=started)
    for row in range(1, 21):
        GradedItemFactory(run=run, row_number=row, graded_at=started + timedelta(seconds=10))
    for row in range(21, 41):
        ItemFactory(run=run, row_number=row)
    progress = selectors.run_progress(run=run)
    assert progress.rows_per_second == pytest.approx(2.0)
    assert progress.seconds_left == pytest.approx(10.0)


def test_flagged_rows_come_first_by_default(run):
    assert rows(run) == [2, 3, 4, 1, 5, 6]
    assert rows(run, order="row") == [1, 2, 3, 4, 5, 6]


def test_filters_narrow_the_table(run):
    assert rows(run, needs_review=True, reviewed=False) == [2, 3]
    assert rows(run, disagree=True) == [2]
    assert rows(run, verdict="correct") == [4, 1]
    assert rows(run, verdict="none") == [5, 6]
    assert rows(run, answer_type="expression") == [2]
    assert rows(run, reviewed=True) == [4]
    assert rows(run, q="APPLES") == [4]


def test_neighbours_follow_the_filtered_order(run):
    item = run.items.get(row_number=3)
    neighbours = selectors.item_neighbours(item=item, filters=ItemFilters())
    by_row = dict(run.items.values_list("pk", "row_number"))
    assert by_row[neighbours.previous_id] == 2
    assert by_row[neighbours.next_id] == 4
    assert by_row[neighbours.next_flagged_unreviewed_id] == 2  # wraps to the first waiting


def test_neighbours_of_a_row_that_just_left_the_filter(run):
    # given the "needs review, not reviewed" filter and row 2 just reviewed (so outside it)
    filters = ItemFilters(needs_review=True, reviewed=False)
    item = run.items.get(row_number=2)
    item.final_source = Item.FinalSource.HUMAN
    item.save()
    neighbours = selectors.item_neighbours(item=item, filters=filters)
    assert neighbours.previous_id is None
    assert run.items.get(pk=neighbours.next_id).row_number == 3


def test_run_list_counts_without_a_query_per_run(run, user, django_assert_num_queries):
    RunFactory.create_batch(3)
    with django_assert_num_queries(1):
        runs = list(selectors.run_list(user=user))
        names = [r.project.name for r in runs]
    assert len(names) == 4
    listed = next(r for r in runs if r.pk == run.pk)
    assert (listed.graded_count, listed.flagged_count, listed.reviewed_count) == (5, 3, 1)
