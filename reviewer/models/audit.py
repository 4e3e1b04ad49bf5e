"""The append-only audit trail."""

from django.conf import settings
from django.db import models

from reviewer.models.items import Item
from reviewer.models.projects import Project
from reviewer.models.runs import Run


class AuditEvent(models.Model):
    """One entry of the append-only audit trail; the database refuses to change or delete it
    (migration 0005's triggers).

    Its links carry no foreign-key constraint and cascade nothing, so the trail outlives the
    projects, runs, rows and users it mentions; the names are copied for that reason.
    """

    class Action(models.TextChoices):
        UPLOAD = "upload"
        REGRADE = "regrade"
        GRADED = "graded", "grading finished"
        VERDICT = "verdict", "verdict changed"
        BLIND_VERDICT = "blind_verdict", "blind verdict"
        CONFLICT = "conflict", "reviews disagree"
        RULING = "ruling", "ruling applied"
        RULING_UNDO = "ruling_undo", "ruling undone"
        ASSIGNMENT = "assignment", "queue split"
        EXPORT = "export"
        PROJECT_CREATE = "project_create", "project created"
        PROJECT_DELETE = "project_delete", "project deleted"
        MEMBER_SET = "member_set", "member role set"
        MEMBER_REMOVE = "member_remove", "member removed"

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    actor_name = models.CharField(max_length=150, blank=True)  # "" for the system
    action = models.CharField(max_length=32, choices=Action)
    project = models.ForeignKey(
        Project, null=True, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    project_name = models.CharField(max_length=200, blank=True)
    run = models.ForeignKey(
        Run, null=True, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    item = models.ForeignKey(
        Item, null=True, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    summary = models.TextField()
    # The facts behind the summary: verdicts before and after, counts, ids.
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["project", "-at"]),
            models.Index(fields=["item", "-at"]),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name or 'system'}: {self.summary}"
