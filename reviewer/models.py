"""The reviewer's data: projects own runs and members, runs own items, items own evaluations
and reviews."""

from collections.abc import Mapping

from django.conf import settings
from django.db import models

from grading.types import Status


class Project(models.Model):
    name = models.CharField(max_length=200, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user's role in a project; what each role may do is decided in reviewer.access."""

    class Role(models.TextChoices):
        OWNER = "owner"
        ADJUDICATOR = "adjudicator"
        ANNOTATOR = "annotator"
        VIEWER = "viewer"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "user__username"]
        constraints = [
            models.UniqueConstraint(fields=["project", "user"], name="membership_unique_user")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.project_id}: {self.role}"


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


class Verdict(models.TextChoices):
    CORRECT = "correct"
    INCORRECT = "incorrect"


class ReviewVerdict(models.TextChoices):
    CORRECT = "correct"
    INCORRECT = "incorrect"
    GOLD_WRONG = "gold_wrong", "gold is wrong"
    UNCLEAR = "unclear"


class EvaluatorScore(models.TextChoices):
    """What one evaluator's result counts as in the statistics (``Item.evaluator_scores``)."""

    CORRECT = "c"
    # Also no answer or one that does not parse: the benchmark script an evaluator stands
    # in for would score the row 0.
    INCORRECT = "i"
    UNKNOWN = "x"  # timed out or crashed: says nothing about the row

    @classmethod
    def of_result(cls, *, status: str, verdict: str) -> "EvaluatorScore":
        """The score of an evaluation with this status and verdict."""
        if verdict == Verdict.CORRECT:
            return cls.CORRECT
        if status in (Status.OK, Status.NO_ANSWER, Status.PARSE_ERROR):
            return cls.INCORRECT
        return cls.UNKNOWN


def evaluator_scores_text(scores: Mapping[str, str]) -> str:
    """``Item.evaluator_scores`` of {evaluator: EvaluatorScore}: "name:score" pairs by name,
    e.g. "exact:i math_verify:c". Text, not JSON: PostgreSQL groups a 100,000-row run by it
    about twice as fast, which is what keeps the stats page quick."""
    return " ".join(f"{name}:{score}" for name, score in sorted(scores.items()))


def evaluator_scores_parse(text: str) -> dict[str, str]:
    """{evaluator: EvaluatorScore} from ``Item.evaluator_scores``."""
    return {name: score for name, _, score in (pair.rpartition(":") for pair in text.split())}


class Item(models.Model):
    """One row of a run: a model output, its gold answer, and what was decided about it."""

    class GradeState(models.TextChoices):
        PENDING = "pending"
        GRADED = "graded"
        QUARANTINED = "quarantined"  # crashed its worker too often; shown as an error row

    class FinalSource(models.TextChoices):
        AUTO = "auto"
        HUMAN = "human"

    class ReviewStage(models.TextChoices):
        OPEN = "", "open"  # the next human verdict is final
        BLIND = "blind", "blind double review"  # collecting its assignees' independent verdicts
        CONFLICT = "conflict", "reviews disagree"  # waiting for an adjudicator

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="items")
    row_number = models.PositiveIntegerField()  # 1-based data row in the source file
    source_line = models.PositiveIntegerField()  # line where the row starts in the source file
    external_id = models.CharField(max_length=200, blank=True)
    problem = models.TextField(blank=True)
    gold = models.TextField()
    output = models.TextField()
    model_name = models.CharField(max_length=200, blank=True)
    subject = models.CharField(max_length=200, blank=True)
    sample_index = models.IntegerField(null=True, blank=True)
    finish_reason = models.CharField(max_length=200, blank=True)  # "length": cut off
    extra = models.JSONField(default=dict, blank=True)

    grade_state = models.CharField(max_length=16, choices=GradeState, default=GradeState.PENDING)
    grade_attempts = models.PositiveSmallIntegerField(default=0)
    graded_generation = models.PositiveIntegerField(default=0)
    graded_at = models.DateTimeField(null=True, blank=True)
    answer_type = models.CharField(max_length=32, blank=True)
    auto_verdict = models.CharField(max_length=16, choices=Verdict, blank=True)
    needs_review = models.BooleanField(default=False)
    evaluators_disagree = models.BooleanField(default=False)
    review_reasons = models.JSONField(default=list, blank=True)  # [{"code", "message"}]
    # Each evaluator's EvaluatorScore (evaluator_scores_text), written with the evaluations,
    # so that agreement statistics aggregate the run's items instead of every evaluation.
    evaluator_scores = models.TextField(blank=True)

    final_verdict = models.CharField(max_length=16, choices=ReviewVerdict, blank=True)
    final_source = models.CharField(max_length=8, choices=FinalSource, blank=True)
    # Incremented on every human decision: clients send the version they saw.
    version = models.PositiveIntegerField(default=0)
    review_stage = models.CharField(
        max_length=16, choices=ReviewStage, default=ReviewStage.OPEN, blank=True
    )
    # grading.pairs.pair_key of the gold and the shown prediction: rows an equivalence ruling
    # decides together share it. Empty until graded.
    pair_key = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["row_number"]
        constraints = [
            models.UniqueConstraint(fields=["run", "row_number"], name="item_unique_row")
        ]
        indexes = [
            models.Index(fields=["run", "grade_state"]),
            models.Index(fields=["run", "needs_review", "row_number"]),
            models.Index(fields=["pair_key"]),
            # Few rows are under double review at a time: the audit trail looks them up.
            models.Index(
                fields=["review_stage"],
                condition=~models.Q(review_stage=""),
                name="item_under_double_review",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.run_id}:{self.row_number}"


class Evaluation(models.Model):
    """One evaluator's result on one item; re-grading overwrites it in place."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="evaluations")
    evaluator = models.CharField(max_length=64)
    evaluator_version = models.CharField(max_length=32)
    status = models.CharField(max_length=16)
    verdict = models.CharField(max_length=16, choices=Verdict, blank=True)
    extracted = models.TextField(blank=True)
    extracted_latex = models.TextField(blank=True)
    gold_latex = models.TextField(blank=True)
    ms = models.FloatField(default=0)
    signals = models.JSONField(default=list, blank=True)
    detail = models.TextField(blank=True)

    class Meta:
        ordering = ["evaluator"]
        constraints = [
            models.UniqueConstraint(fields=["item", "evaluator"], name="evaluation_unique")
        ]

    def __str__(self) -> str:
        return f"{self.item_id}:{self.evaluator}"


class Review(models.Model):
    """A human decision on an item. History is kept; the newest decides the final verdict,
    except blind ones, which decide only together (see services.item_review)."""

    class Kind(models.TextChoices):
        REVIEW = "review"
        BLIND = "blind", "blind review"  # one of a double review's independent verdicts
        ADJUDICATION = "adjudication"  # an adjudicator's decision on a conflict
        RULING = "ruling"  # applied by an equivalence ruling made on another row

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="reviews")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="reviews"
    )
    verdict = models.CharField(max_length=16, choices=ReviewVerdict)
    kind = models.CharField(max_length=16, choices=Kind, default=Kind.REVIEW)
    ruling = models.ForeignKey(
        "Ruling", null=True, blank=True, on_delete=models.CASCADE, related_name="reviews"
    )
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # A client's Idempotency-Key: the same decision sent again is recorded once.
    idempotency_key = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["item", "annotator", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="review_unique_idempotency_key",
            )
        ]

    def __str__(self) -> str:
        return f"{self.item_id}:{self.verdict}"


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
