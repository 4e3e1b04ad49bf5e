"""A run: one uploaded file of model outputs, graded as a unit."""

from django.conf import settings
from django.db import models

from reviewer.models.projects import Project


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
