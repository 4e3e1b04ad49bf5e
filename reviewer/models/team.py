"""Team review: annotators' queues and equivalence rulings with what they changed."""

from django.conf import settings
from django.db import models

from reviewer.models.items import Item, ReviewVerdict
from reviewer.models.projects import Project


class Assignment(models.Model):
    """A row in an annotator's queue. Done once they have given it a verdict."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["item__row_number", "annotator__username"]
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="assignment_unique")
        ]
        indexes = [models.Index(fields=["annotator", "done_at"])]

    def __str__(self) -> str:
        return f"{self.item_id} to {self.annotator_id}"


class Ruling(models.Model):
    """An equivalence ruling: one verdict for every row of a project with the same gold and
    prediction (``Item.pair_key``) that no human had decided."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="rulings")
    source_item = models.ForeignKey(
        Item, null=True, on_delete=models.SET_NULL, related_name="rulings_made"
    )
    pair_key = models.CharField(max_length=64)
    gold = models.TextField()
    prediction = models.TextField()
    verdict = models.CharField(max_length=16, choices=ReviewVerdict)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    rows_applied = models.PositiveIntegerField(default=0)
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    rows_restored = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"ruling {self.pk}: {self.verdict} on {self.rows_applied} rows"


class RulingChange(models.Model):
    """What a ruling changed on one row, so that undoing it can put the row back."""

    ruling = models.ForeignKey(Ruling, on_delete=models.CASCADE, related_name="changes")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="+")
    previous_verdict = models.CharField(max_length=16, blank=True)
    previous_source = models.CharField(max_length=8, blank=True)
    version_after = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["ruling", "item"], name="ruling_change_unique")
        ]

    def __str__(self) -> str:
        return f"ruling {self.ruling_id} on {self.item_id}"
