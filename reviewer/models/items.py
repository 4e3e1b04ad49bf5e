"""A run's rows (items), each evaluator's result on them, and the humans' verdicts."""

from collections.abc import Mapping

from django.conf import settings
from django.db import models

from grading.types import Status
from reviewer.models.runs import Run


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

    # No index of its own: item_unique_row (run, row_number) and the other indexes that start
    # with the run serve every lookup by run, and one index less is one less to write per row.
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="items", db_index=False)
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
    # The human (reference) solution, when the file has one: MSU compares the output with it.
    human_solution = models.TextField(blank=True)

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
    # The row's place in the review queue (the "flagged" order) as one number, rank * 2**32 +
    # row_number, the rank being 0 evaluators split, 1 flagged, 2 spot check, 3 the rest. Set
    # by a database trigger whenever the row is written (reviewer.queue_order), so the queue
    # and a row's neighbours in it are ranges of the (run, queue_position) index.
    queue_position = models.BigIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["row_number"]
        constraints = [
            models.UniqueConstraint(fields=["run", "row_number"], name="item_unique_row")
        ]
        indexes = [
            models.Index(fields=["run", "grade_state"]),
            models.Index(fields=["run", "needs_review", "row_number"]),
            models.Index(fields=["run", "queue_position"], name="item_queue_order"),
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


# The Item column each field of an upload (grading.reader.CANONICAL_FIELDS) is stored in, in
# the order the API and exports list them; exports name them by the field, so they upload again.
UPLOAD_FIELD_COLUMNS = {
    "id": "external_id",
    "problem": "problem",
    "gold": "gold",
    "output": "output",
    "model": "model_name",
    "subject": "subject",
    "sample_index": "sample_index",
    "finish_reason": "finish_reason",
    "solution": "human_solution",
}
# What grading and people decided about an item, as the API and exports show it.
RESULT_COLUMNS = (
    "grade_state",
    "answer_type",
    "auto_verdict",
    "needs_review",
    "evaluators_disagree",
    "review_reasons",
    "final_verdict",
    "final_source",
)


class Evaluation(models.Model):
    """One evaluator's result on one item; re-grading overwrites it in place."""

    # No index of its own: evaluation_unique (item, evaluator) serves every lookup by item.
    item = models.ForeignKey(
        Item, on_delete=models.CASCADE, related_name="evaluations", db_index=False
    )
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
