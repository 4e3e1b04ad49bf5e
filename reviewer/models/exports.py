"""Export jobs of a run."""

from django.conf import settings
from django.db import models

from reviewer.models.runs import Run


class Export(models.Model):
    """A run (or a filtered part of it) written to a file by a Celery task, with progress."""

    class Format(models.TextChoices):
        CSV = "csv"
        JSONL = "jsonl"
        PARQUET = "parquet"

    class Variant(models.TextChoices):
        RAW = "raw"  # byte-exact text, for code
        SPREADSHEET = "spreadsheet", "spreadsheet-safe"  # formula-looking cells neutralised

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="exports")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    format = models.CharField(max_length=16, choices=Format)
    variant = models.CharField(max_length=16, choices=Variant, default=Variant.RAW)
    filters = models.JSONField(default=dict, blank=True)  # reviewer.selectors.ItemFilters fields
    status = models.CharField(max_length=16, choices=Status, default=Status.QUEUED)
    rows_done = models.PositiveIntegerField(default=0)
    rows_total = models.PositiveIntegerField(default=0)
    errata_rows = models.PositiveIntegerField(default=0)
    # File names inside the export's own folder under MATHJURY_EXPORT_DIR.
    file_name = models.CharField(max_length=255, blank=True)
    errata_file_name = models.CharField(max_length=255, blank=True)
    card = models.JSONField(default=dict, blank=True)
    error_message = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"export {self.pk} of run {self.run_id} ({self.format})"
