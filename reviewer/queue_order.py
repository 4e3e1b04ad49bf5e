"""The review queue's order (the run table's "flagged" order): rows whose evaluators split, then
rows other detectors flagged, then the spot check, then the rest, each by row number.

Each row stores its place as one number, ``Item.queue_position`` = rank * QUEUE_STRIDE +
row_number, written by a database trigger (migration 0009) whenever the row is inserted or
its flags or grading state change, so the queue is a range of the (run, queue_position)
index. The spot check depends on a setting, so the trigger reads the share from the run
(``Run.spot_check_percent``); when MATHJURY_SPOT_CHECK_PERCENT changes, the first read of a
run's queue re-places its rows (``queue_order_current``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.db.models import F

from reviewer.models import Item, Run

QUEUE_STRIDE = 2**32  # more than any row number
SPLIT, FLAGGED, SPOT_CHECK, REST = range(4)  # the ranks


def queue_order_current(*, run: Run) -> bool:
    """Make the run's stored queue follow MATHJURY_SPOT_CHECK_PERCENT; True if it moved rows.

    Rows can only move between the spot check and the rest: graded, unflagged rows whose
    evaluators agree. Rewriting those rows' position makes the trigger compute it again with
    the run's new share; the run's row is updated first, so a concurrent caller finds it
    changed and leaves the rows to this one."""
    percent = settings.MATHJURY_SPOT_CHECK_PERCENT
    if run.spot_check_percent == percent:
        return False
    with transaction.atomic():
        changed = (
            Run.objects.filter(pk=run.pk)
            .exclude(spot_check_percent=percent)
            .update(spot_check_percent=percent)
        )
        if changed:
            Item.objects.filter(
                run_id=run.pk,
                grade_state=Item.GradeState.GRADED,
                needs_review=False,
                evaluators_disagree=False,
            ).update(queue_position=F("queue_position"))
    run.spot_check_percent = percent
    return bool(changed)
