"""The reconciler: the database is the source of truth about which rows wait to be graded;
one pass re-sends those that no live task holds (``manage.py reconcile``, every minute)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial

from django.db import transaction
from django.utils import timezone
from kombu.exceptions import ChannelError, OperationalError

from reviewer.celery import app as celery_app
from reviewer.models import GradingChunk, Item, Run
from reviewer.services.grading.chunks import (
    GRADE_CHUNK_TASK,
    chunks_dispatch,
    chunks_record,
    holder_is_gone,
    stale_before,
)
from reviewer.services.grading.results import run_finish_if_done

logger = logging.getLogger(__name__)

# Finished chunks are kept this long, for the run page, then deleted.
KEEP_FINISHED = timedelta(days=1)


@dataclass
class ReconcileReport:
    """What one pass found and did."""

    broker_messages: int | None = None  # None: the broker could not be reached
    runs_checked: int = 0
    runs_finished: list[int] = field(default_factory=list)
    rows_resent: dict[int, int] = field(default_factory=dict)  # run id -> rows

    def summary(self) -> str:
        if self.broker_messages is None:
            return "the broker cannot be reached: nothing re-sent"
        resent = sum(self.rows_resent.values())
        text = (
            f"{self.runs_checked} run(s) grading, {self.broker_messages} message(s) in the "
            f"broker, {resent} row(s) re-sent"
        )
        if self.rows_resent:
            text += " (" + ", ".join(f"run {r}: {n}" for r, n in self.rows_resent.items()) + ")"
        if self.runs_finished:
            text += f"; finished run(s) {', '.join(map(str, self.runs_finished))}"
        return text


def broker_queue_depth() -> int | None:
    """Messages waiting in the grading queue, or None if the broker cannot be reached.
    Messages a worker has taken and not yet acknowledged are not counted."""
    routes = celery_app.conf.task_routes or {}
    queue = routes.get(GRADE_CHUNK_TASK, {}).get("queue", celery_app.conf.task_default_queue)
    try:
        with celery_app.connection_for_read() as connection:
            connection.ensure_connection(max_retries=1)
            with connection.channel() as channel:
                try:
                    return channel.queue_declare(queue=queue, passive=True).message_count
                except ChannelError:  # Redis: the queue's list is gone once it is empty
                    return 0
    except (OperationalError, OSError) as error:
        logger.warning("reconcile: the broker cannot be reached: %s", error)
        return None


def grading_reconcile() -> ReconcileReport:
    """One pass over the runs being graded: re-send the pending rows that no live task holds,
    and finish runs that have none left. Safe to run at any time and from several places.

    A running chunk is held while its heartbeat is fresh; a queued one while the broker has
    messages waiting or it was sent less than MATHJURY_GRADING_STALE_SECONDS ago. Lost chunks
    are marked abandoned, so their message, if it turns up after all, does nothing.
    """
    report = ReconcileReport(broker_messages=broker_queue_depth())
    if report.broker_messages is None:
        return report
    runs = Run.objects.filter(status__in=(Run.Status.QUEUED, Run.Status.GRADING))
    for run_id in runs.values_list("pk", flat=True):
        report.runs_checked += 1
        resent, finished = _run_reconcile(run_id=run_id, broker_messages=report.broker_messages)
        if resent:
            report.rows_resent[run_id] = resent
        if finished:
            report.runs_finished.append(run_id)
    GradingChunk.objects.filter(finished_at__lt=timezone.now() - KEEP_FINISHED).delete()
    if report.rows_resent or report.runs_finished:
        logger.warning("reconcile: %s", report.summary())
    return report


def _run_reconcile(*, run_id: int, broker_messages: int) -> tuple[int, bool]:
    """Re-send one run's stranded rows under the run's lock (which workers take to start a
    batch); returns the rows re-sent and whether the run was finished."""
    with transaction.atomic():
        run = Run.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status not in (Run.Status.QUEUED, Run.Status.GRADING):
            return 0, False
        generation = run.grading_generation
        pending = set(
            Item.objects.filter(run=run, grade_state=Item.GradeState.PENDING).values_list(
                "pk", flat=True
            )
        )
        if not pending:
            return 0, run_finish_if_done(run_id=run_id, generation=generation)
        fresh_after = stale_before()
        held: set[int] = set()
        lost: dict[str, set[int]] = {}
        chunks = GradingChunk.objects.filter(
            run=run,
            generation=generation,
            state__in=(GradingChunk.State.QUEUED, GradingChunk.State.RUNNING),
        )
        abandoned = []
        for chunk in chunks:
            if chunk.state == GradingChunk.State.RUNNING:
                alive = (
                    chunk.heartbeat_at is not None
                    and chunk.heartbeat_at >= fresh_after
                    and not holder_is_gone(chunk.holder)
                )
                reason = GradingChunk.Origin.WORKER_LOST
            else:
                alive = broker_messages > 0 or chunk.sent_at >= fresh_after
                reason = GradingChunk.Origin.NO_MESSAGE
            if alive:
                held.update(chunk.item_ids)
            else:
                abandoned.append(chunk.pk)
                lost.setdefault(reason, set()).update(chunk.item_ids)
        stranded = pending - held
        if run.grading_queued_at and run.grading_queued_at >= fresh_after:
            # Queued just now: its first chunks may not be recorded yet (they are sent when
            # the upload commits); only rows of lost chunks are stranded.
            stranded &= set().union(*lost.values())
        if not stranded:
            return 0, False
        GradingChunk.objects.filter(pk__in=abandoned).update(
            state=GradingChunk.State.ABANDONED, finished_at=timezone.now()
        )
        count = len(stranded)
        new_chunks = []
        for origin in (GradingChunk.Origin.WORKER_LOST, GradingChunk.Origin.NO_MESSAGE):
            rows = stranded & lost.get(origin, set())
            stranded -= rows
            new_chunks += _record(run_id, generation, rows, origin)
        new_chunks += _record(run_id, generation, stranded, GradingChunk.Origin.UNSENT)
        transaction.on_commit(partial(chunks_dispatch, new_chunks))
    return count, False


def _record(run_id: int, generation: int, rows: set[int], origin: str) -> list[int]:
    if not rows:
        return []
    ordered = sorted(rows)  # ids follow the file's row order
    chunks = chunks_record(run_id=run_id, generation=generation, item_ids=ordered, origin=origin)
    return [chunk.pk for chunk in chunks]
