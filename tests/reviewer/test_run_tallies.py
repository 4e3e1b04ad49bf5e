"""Counts kept by the database (RunTally) and the review queue stored on each row
(Item.queue_position): after each kind of write they say what counting and sorting the rows
would, on PostgreSQL and on SQLite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.db.models import Count, Q
from django.urls import reverse

from reviewer import selectors, services
from reviewer.models import Assignment, Item, Run, RunTally
from reviewer.queue_order import QUEUE_STRIDE
from reviewer.selectors import ItemFilters, RunCounts
from reviewer.tallies import FOLD_ABOVE, run_queue_split, run_tally
from tests.factories import (
    AssignmentFactory,
    GradedItemFactory,
    ItemFactory,
    ReviewFactory,
    RunFactory,
    grade_in_process,
)

pytestmark = pytest.mark.django_db

REPO_ROOT = Path(__file__).resolve().parents[2]
# Outputs the jury grades differently: right, wrong, no answer, two answers; each twice, so
# that a ruling on one row has another row with the same pair to decide.
OUTPUTS = [
    "6 times 7 is 42, so the answer is $\\boxed{42}$.",
    "I get $\\boxed{41}$.",
    "I could not work it out.",
    "It is either 42 or 24.",
] * 2


@pytest.fixture(autouse=True)
def _static_urls_without_manifest(settings) -> None:
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def reviewer_client(client, user):
    client.force_login(user)
    return client


def recount(run: Run) -> RunCounts:
    """The run's counts as the pages used to compute them: every row counted."""
    human = Q(final_source=Item.FinalSource.HUMAN)
    return RunCounts(
        **Item.objects.filter(run=run).aggregate(
            total=Count("pk"),
            graded=Count("pk", filter=Q(grade_state=Item.GradeState.GRADED)),
            quarantined=Count("pk", filter=Q(grade_state=Item.GradeState.QUARANTINED)),
            auto_correct=Count("pk", filter=Q(auto_verdict="correct")),
            auto_incorrect=Count("pk", filter=Q(auto_verdict="incorrect")),
            flagged=Count("pk", filter=Q(needs_review=True)),
            reviewed=Count("pk", filter=human),
            final_correct=Count("pk", filter=Q(final_verdict="correct")),
            final_incorrect=Count("pk", filter=Q(final_verdict="incorrect")),
        )
    )


def queue_order(run: Run) -> list[int]:
    """The run's rows sorted as the review queue sorts them, from each row's fields."""
    rows = Item.objects.filter(run=run)
    return [
        i.row_number
        for i in sorted(rows, key=lambda i: (selectors.item_queue_rank(i), i.row_number))
    ]


def walk(run: Run, direction: str) -> list[int]:
    """Row numbers met following the item page's next (or previous) link from the queue's first
    (or last) row."""
    queue = selectors.item_filter(run=run, filters=ItemFilters())
    item = queue.first() if direction == "next_id" else queue.last()
    seen = []
    while item is not None:
        seen.append(item.row_number)
        step = getattr(selectors.item_neighbours(item=item, filters=ItemFilters()), direction)
        item = Item.objects.select_related("run").get(pk=step) if step else None
    return seen


# ---- counts ----------------------------------------------------------------------------------


def test_counts_match_a_recount_after_grading_reviews_rulings_and_regrading(user):
    # Given a run whose rows wait to be graded
    run = RunFactory(evaluators=["math_verify", "exact"], total_rows=len(OUTPUTS))
    items = [
        ItemFactory(run=run, row_number=n, output=output)
        for n, output in enumerate(OUTPUTS, start=1)
    ]
    assert selectors.run_counts(run=run) == recount(run)
    assert selectors.run_progress(run=run).graded == 0

    # When half of them are graded, then the rest
    grade_in_process(run, [item.pk for item in items[:4]])
    assert selectors.run_counts(run=run) == recount(run)
    progress = selectors.run_progress(run=run)
    assert (progress.graded, progress.total) == (4, 8)
    grade_in_process(run, [item.pk for item in items[4:]])
    counts = selectors.run_counts(run=run)
    assert counts == recount(run) and counts.graded == 8
    assert counts.flagged > 0  # the jury flagged the unclear rows
    assert selectors.run_progress(run=run).done

    # When a person reviews a row, and a ruling applies their verdict to its twin
    source = Item.objects.get(run=run, row_number=2)
    services.item_review(item=source, user=user, verdict="correct")
    assert selectors.run_counts(run=run) == recount(run)
    ruling = services.ruling_apply(item=source, user=user)
    counts = selectors.run_counts(run=run)
    assert counts == recount(run) and counts.reviewed == 2

    # When the ruling is undone
    services.ruling_undo(ruling=ruling, user=user)
    counts = selectors.run_counts(run=run)
    assert counts == recount(run) and counts.reviewed == 1

    # When the run is re-graded: every row waits again, then is graded again
    run = services.run_regrade(run=run, evaluators=["exact"], user=user)
    counts = selectors.run_counts(run=run)
    assert counts == recount(run) and counts.graded == 0
    assert selectors.run_progress(run=run).graded == 0
    grade_in_process(run)
    counts = selectors.run_counts(run=run)
    assert counts == recount(run) and counts.graded == 8
    progress = selectors.run_progress(run=run)
    assert progress.done and progress.seconds_left == 0.0


def test_grading_progress_knows_when_the_current_grading_last_saved_a_row(user):
    # Given a run graded once, then re-graded, with no row graded again yet
    run = RunFactory(evaluators=["exact"])
    items = [ItemFactory(run=run, row_number=n, output=o) for n, o in enumerate(OUTPUTS, 1)]
    grade_in_process(run)
    assert run_tally(run=run).last_graded_at is not None
    run = services.run_regrade(run=run, evaluators=["exact"], user=user)

    # Then nothing is graded for the new generation
    assert run_tally(run=run).last_graded_at is None

    # When one row is graded again, its time is the new generation's last
    grade_in_process(run, [items[0].pk])
    graded_at = Item.objects.get(pk=items[0].pk).graded_at
    assert run_tally(run=run).last_graded_at == graded_at


def test_a_run_written_many_times_keeps_its_counts_when_its_tallies_are_folded(user):
    # Given a run whose rows were written one statement at a time, more times than a read
    # sums before folding
    run = RunFactory()
    items = GradedItemFactory.create_batch(5, run=run)
    for n in range(FOLD_ABOVE + 5):
        Item.objects.filter(pk=items[n % 5].pk).update(needs_review=n % 2 == 0)
    changes = RunTally.objects.filter(run=run).count()

    # When the counts are read twice
    first, second = run_tally(run=run), run_tally(run=run)

    # Then they are the recount both times, and the tallies were folded into a few rows
    assert first == second
    assert selectors.run_counts(run=run) == recount(run)
    if connection.vendor == "postgresql":  # SQLite's triggers keep one row per run anyway
        assert RunTally.objects.filter(run=run).count() <= 2 < FOLD_ABOVE < changes


def test_a_review_alone_changes_the_runs_change_count():
    # Given a graded run
    run = RunFactory()
    item = GradedItemFactory(run=run, needs_review=True)
    before = run_tally(run=run).changes

    # When a blind review is recorded, which changes no count and not the row
    ReviewFactory(item=item, kind="blind")

    # Then the run counts one more change (the statistics depend on reviews too)
    assert run_tally(run=run).changes > before


def test_the_statistics_page_shows_a_review_made_after_it_was_last_computed(reviewer_client, user):
    # Given a graded run whose statistics page was opened
    run = RunFactory(project__created_by=user)
    item = GradedItemFactory(run=run, needs_review=True)
    GradedItemFactory(run=run)
    url = reverse("run_stats", args=[run.pk])
    assert reviewer_client.get(url).context["stats"].summary.reviewed == 0

    # When a person reviews a row
    services.item_review(item=item, user=user, verdict="incorrect")

    # Then the page, opened again, counts it
    assert reviewer_client.get(url).context["stats"].summary.reviewed == 1


def test_a_run_knows_its_queue_is_split_while_it_has_assignments():
    # Given a run whose rows nobody was assigned
    run = RunFactory()
    rows = GradedItemFactory.create_batch(3, run=run, needs_review=True)
    other_run = RunFactory()
    AssignmentFactory(item=GradedItemFactory(run=other_run))
    assert not run_queue_split(run_id=run.pk)

    # When two of its rows are assigned, then the assignments are withdrawn
    for row in rows[:2]:
        AssignmentFactory(item=row)
    assert run_queue_split(run_id=run.pk) and run_tally(run=run).assigned == 2
    Assignment.objects.filter(item__run=run).delete()

    # Then it is split only while they exist
    assert not run_queue_split(run_id=run.pk) and run_tally(run=run).assigned == 0
    assert run_queue_split(run_id=other_run.pk)


def test_deleting_a_run_deletes_its_tallies(user):
    run = RunFactory()
    GradedItemFactory.create_batch(3, run=run)
    ReviewFactory(item=run.items.first())

    run.delete()

    assert not RunTally.objects.filter(run_id=run.pk).exists()


# ---- the review queue ------------------------------------------------------------------------


def test_the_queue_and_its_neighbours_follow_split_flagged_spot_check_then_the_rest(settings):
    # Given rows of every rank, in mixed row order, half of the unflagged ones in the spot
    # check
    settings.MATHJURY_SPOT_CHECK_PERCENT = 50
    run = RunFactory()
    for n in range(1, 25):
        GradedItemFactory(
            run=run, row_number=n, needs_review=n % 5 == 0, evaluators_disagree=n % 7 == 0
        )
    ItemFactory(run=run, row_number=25)  # not graded yet: never in the spot check
    expected = queue_order(run)
    ranks = {selectors.item_queue_rank(i) for i in Item.objects.filter(run=run)}
    assert ranks == {0, 1, 2, 3}

    # Then the table lists them in queue order, each stored position says so, and the item
    # page's next and previous links walk the same order both ways
    rows = selectors.item_filter(run=run, filters=ItemFilters())
    assert [i.row_number for i in rows] == expected
    assert all(
        i.queue_position == selectors.item_queue_rank(i) * QUEUE_STRIDE + i.row_number for i in rows
    )
    assert walk(run, "next_id") == expected
    assert walk(run, "previous_id") == expected[::-1]


def test_rows_move_in_the_queue_when_grading_flags_them_and_a_regrade_resets_them(user):
    # Given rows waiting to be graded: the queue is row order
    run = RunFactory(evaluators=["math_verify", "exact"])
    for n, output in enumerate(OUTPUTS, start=1):
        ItemFactory(run=run, row_number=n, output=output)
    assert queue_order(run) == list(range(1, 9))

    # When they are graded, the flagged ones come first; re-graded, they keep their flags
    grade_in_process(run)
    graded_order = queue_order(run)
    assert graded_order != list(range(1, 9))
    assert [i.row_number for i in selectors.item_filter(run=run, filters=ItemFilters())] == (
        graded_order
    )
    services.run_regrade(run=run, evaluators=["exact"], user=user)
    assert [i.row_number for i in selectors.item_filter(run=run, filters=ItemFilters())] == (
        queue_order(run)
    )


def test_the_queue_follows_a_changed_spot_check_share(settings):
    # Given a run placed with no spot check: a row still waiting, then graded unflagged rows
    run = RunFactory()
    ItemFactory(run=run, row_number=1)
    for n in range(2, 6):
        GradedItemFactory(run=run, row_number=n)
    assert [i.row_number for i in selectors.item_filter(run=run, filters=ItemFilters())] == [
        1,
        2,
        3,
        4,
        5,
    ]

    # When every unflagged graded row is to be spot checked
    settings.MATHJURY_SPOT_CHECK_PERCENT = 100

    # Then the queue puts them before the waiting row, and the run remembers the share
    rows = selectors.item_filter(run=run, filters=ItemFilters())
    assert [i.row_number for i in rows] == [2, 3, 4, 5, 1]
    assert Run.objects.get(pk=run.pk).spot_check_percent == 100


def test_the_next_row_to_review_from_past_the_flagged_rows_wraps_to_the_first_undecided(user):
    # Given flagged rows, the first one decided, and unflagged rows after them
    run = RunFactory()
    decided = GradedItemFactory(run=run, row_number=1, needs_review=True)
    waiting = GradedItemFactory(run=run, row_number=2, needs_review=True)
    plain = GradedItemFactory(run=run, row_number=3)
    services.item_review(item=decided, user=user, verdict="correct")

    # When the reviewer is on the unflagged row
    neighbours = selectors.item_neighbours(
        item=Item.objects.select_related("run").get(pk=plain.pk), filters=ItemFilters()
    )

    # Then the next row to review is the first flagged one still undecided
    assert neighbours.next_flagged_unreviewed_id == waiting.pk
    assert (neighbours.previous_id, neighbours.next_id) == (waiting.pk, None)


# ---- the same on SQLite ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("MATHJURY_TALLY_SQLITE") == "1", reason="this is the run")
def test_the_same_tests_pass_on_sqlite(tmp_path):
    # The triggers are written twice, once per database: run this module on SQLite too
    done = subprocess.run(
        [sys.executable, "-m", "pytest", __file__, "-q", "-p", "no:cacheprovider"],
        cwd=REPO_ROOT,
        env={
            **os.environ,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
            "MATHJURY_DATA_DIR": str(tmp_path / "data"),
            "MATHJURY_TALLY_SQLITE": "1",
        },
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
