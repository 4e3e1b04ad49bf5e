"""A run: one uploaded file of model outputs, graded as a unit."""

from django.conf import settings
from django.db import models

from reviewer.models.projects import Project


def spot_check_percent_now() -> int:
    """The spot check share a new run starts with."""
    return settings.MATHJURY_SPOT_CHECK_PERCENT


class Run(models.Model):
    """One uploaded file of model outputs, graded as a unit."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        GRADING = "grading"
        DONE = "done"
        FAILED = "failed"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="runs")
    name = models.CharField(max_length=200)
    model_name = models.CharField(max_length=200, blank=True)
    # Rows left out because the uploader chose "skip bad lines": [{"line", "problem"}, ...]
    skipped_lines = models.JSONField(default=list, blank=True)
    dataset = models.CharField(max_length=200, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    source_filename = models.CharField(max_length=255)
    source_sha256 = models.CharField(max_length=64)
    # canonical field name (gold, output, problem, id, ...) -> column name in the file
    column_mapping = models.JSONField(default=dict)
    evaluators = models.JSONField(default=list)
    status = models.CharField(max_length=16, choices=Status, default=Status.QUEUED)
    # Bumped by every re-grade, so a late task from an earlier grading writes nothing.
    grading_generation = models.PositiveIntegerField(default=1)
    total_rows = models.PositiveIntegerField(default=0)
    # The spot check share (MATHJURY_SPOT_CHECK_PERCENT) the rows' Item.queue_position was
    # computed with; reviewer.queue_order moves the rows when the setting changes.
    spot_check_percent = models.PositiveSmallIntegerField(default=spot_check_percent_now)
    # Annotators who review each flagged row blind when the queue is split (1: single review).
    reviews_per_flagged_row = models.PositiveSmallIntegerField(default=1)
    error_message = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # When the current generation was enqueued: with no graded row since, a worker is missing.
    grading_queued_at = models.DateTimeField(null=True, blank=True)
    grading_started_at = models.DateTimeField(null=True, blank=True)
    grading_finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "source_sha256"], name="run_unique_source_per_project"
            )
        ]

    def __str__(self) -> str:
        return self.name


# RunTally's counts: each the number of the run's items for which the condition (SQL on an
# item row, in PostgreSQL and SQLite alike) holds. The migration that creates the triggers
# keeps its own copy, as migrations must.
TALLY_COUNTS = {
    "total": "TRUE",
    "pending": "grade_state = 'pending'",
    "graded": "grade_state = 'graded'",
    "quarantined": "grade_state = 'quarantined'",
    "auto_correct": "auto_verdict = 'correct'",
    "auto_incorrect": "auto_verdict = 'incorrect'",
    "flagged": "needs_review",
    "reviewed": "final_source = 'human'",
    "final_correct": "final_verdict = 'correct'",
    "final_incorrect": "final_verdict = 'incorrect'",
}


class RunTally(models.Model):
    """A change to a run's counts, written by database triggers on its items, reviews and
    assignments in the same statement as the change; a run's counts are the sums of its
    tallies.

    Each statement adds a row rather than updating one per run, so annotators saving at once
    never wait for each other's lock; reviewer.tallies folds a run's rows into one now and
    then. On SQLite, which has one writer at a time, the triggers update the run's newest row.
    """

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="tallies")
    # Items (and reviews) written: the run's state changed when the sum did (a cache key).
    changes = models.BigIntegerField(db_default=0)
    total = models.BigIntegerField(db_default=0)
    pending = models.BigIntegerField(db_default=0)
    graded = models.BigIntegerField(db_default=0)
    quarantined = models.BigIntegerField(db_default=0)
    auto_correct = models.BigIntegerField(db_default=0)
    auto_incorrect = models.BigIntegerField(db_default=0)
    flagged = models.BigIntegerField(db_default=0)
    reviewed = models.BigIntegerField(db_default=0)
    final_correct = models.BigIntegerField(db_default=0)
    final_incorrect = models.BigIntegerField(db_default=0)
    # Assignments of the run's rows (reviewer.models.Assignment): above 0, its queue is split.
    assigned = models.BigIntegerField(db_default=0)
    # The newest grading generation among the rows graded, and when the last of them was.
    graded_generation = models.PositiveIntegerField(null=True)
    last_graded_at = models.DateTimeField(null=True)

    def __str__(self) -> str:
        return f"{self.run_id}: {self.changes} changes"
