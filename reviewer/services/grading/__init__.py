"""Grading a run's rows through Celery: ``chunks`` splits them into tasks and holds the lease
of the worker grading one, ``work`` is a task's work (batches saved as they are graded),
``results`` counts attempts and saves results, ``reconcile`` re-sends what no live task holds."""

from reviewer.services.grading.chunks import (
    GRADE_CHUNK_TASK,
    chunk_rows,
    chunks_send,
    grading_enqueue,
)
from reviewer.services.grading.reconcile import (
    ReconcileReport,
    broker_queue_depth,
    grading_reconcile,
)
from reviewer.services.grading.results import (
    grading_attempt_start,
    grading_results_save,
    run_finish_if_done,
)
from reviewer.services.grading.work import chunk_grade, grading_pool

__all__ = [
    "GRADE_CHUNK_TASK",
    "ReconcileReport",
    "broker_queue_depth",
    "chunk_grade",
    "chunk_rows",
    "chunks_send",
    "grading_attempt_start",
    "grading_enqueue",
    "grading_pool",
    "grading_reconcile",
    "grading_results_save",
    "run_finish_if_done",
]
