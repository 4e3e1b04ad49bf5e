"""The SQL behind the statistics. Every function groups rows in the database, so Python gets
counts per distinct value, never the rows of a run."""

from __future__ import annotations

from typing import NamedTuple

from django.db.models import (
    BooleanField,
    Case,
    CharField,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    Max,
    OuterRef,
    Q,
    Subquery,
    Value,
    When,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Concat

from reviewer.models import Item, Review, Run, Verdict
from reviewer.selectors import spot_check

DEFAULT_BREAKDOWN = "answer_type"
# breakdown key -> (label, the item field grouped by)
ITEM_BREAKDOWNS = {
    "answer_type": ("answer type", "answer_type"),
    "subject": ("subject", "subject"),
    "model": ("model", "model_name"),
    "sample_index": ("sample index", "sample_index"),
    "finish_reason": ("finish reason", "finish_reason"),
}
REASON_BREAKDOWN = "reason"
EXTRA_PREFIX = "extra:"  # extra:<column> groups by another column of the uploaded file
DECIDED = (Verdict.CORRECT, Verdict.INCORRECT)


class ItemCell(NamedTuple):
    """The rows of a run that share evaluator scores, verdicts, flag and breakdown value."""

    scores: str  # Item.evaluator_scores
    auto: str
    final: str
    human: bool  # the final verdict is a person's
    flagged: bool
    group: str  # the breakdown's value
    answer_type: str  # which evaluators apply to these rows (the jury's panels)
    rows: int
    graded: int
    pending: int
    quarantined: int
    disagree: int  # graded, with evaluators that disagree
    spot_check: int  # in the spot check


def breakdown_options(*, run: Run) -> tuple[tuple[str, str], ...]:
    """(key, label) of every breakdown: item fields, review reason and the file's other columns."""
    extra = Item.objects.filter(run=run).values_list("extra", flat=True).first() or {}
    return (
        *((key, label) for key, (label, _) in ITEM_BREAKDOWNS.items()),
        (REASON_BREAKDOWN, "review reason"),
        *((f"{EXTRA_PREFIX}{column}", column) for column in sorted(extra)),
    )


def item_cells(*, run: Run, breakdown: str) -> list[ItemCell]:
    """The run's items counted by evaluator scores, verdicts, flag and breakdown value.

    Everything the page shows about items except the review reasons comes from this one
    pass; a jury gives a few thousand cells at most, however large the run. Grading state and
    spot check are counted per cell rather than grouped by: with fewer keys PostgreSQL
    estimates few groups and aggregates in a hash table instead of sorting the run on disk.
    """
    state = Item.GradeState
    cells = (
        Item.objects.filter(run=run)
        .values_list(
            "evaluator_scores",
            "auto_verdict",
            "final_verdict",
            ExpressionWrapper(Q(final_source=Item.FinalSource.HUMAN), BooleanField()),
            "needs_review",
            _group_expression(breakdown),
            "answer_type",
        )
        .annotate(
            rows=Count("pk"),
            graded=Count("pk", filter=Q(grade_state=state.GRADED)),
            pending=Count("pk", filter=Q(grade_state=state.PENDING)),
            quarantined=Count("pk", filter=Q(grade_state=state.QUARANTINED)),
            disagree=Count("pk", filter=Q(grade_state=state.GRADED, evaluators_disagree=True)),
            spot_check=Count("pk", filter=spot_check()),
        )
        .order_by()
    )
    return [
        ItemCell(
            scores,
            auto,
            final,
            human,
            flagged,
            "" if group is None else str(group),
            answer_type,
            *counts,
        )
        for scores, auto, final, human, flagged, group, answer_type, *counts in cells
    ]


def reason_groups(*, run: Run) -> list[dict]:
    """Graded rows that carry review reasons, counted by their list of reasons and verdicts: a
    jury gives few distinct lists, so this is a few hundred groups however large the run."""
    return list(
        Item.objects.filter(run=run, grade_state=Item.GradeState.GRADED)
        .exclude(review_reasons=[])
        .values("review_reasons", "needs_review", "auto_verdict", "final_verdict", "final_source")
        .annotate(rows=Count("pk"))
        .order_by()
    )


def annotator_pairs(*, run: Run) -> list[dict]:
    """Pairs of people's newest verdicts on the same row, counted by (people, verdicts, how
    many people reviewed the row); only rows reviewed by two or more people appear."""
    newer = Review.objects.filter(item=OuterRef("item"), annotator=OuterRef("annotator")).filter(
        Q(created_at__gt=OuterRef("created_at"))
        | Q(created_at=OuterRef("created_at"), pk__gt=OuterRef("pk"))
    )
    newest = Review.objects.filter(annotator__isnull=False).exclude(Exists(newer))
    # The people on a row are those with a newest review of it: whoever reviewed it at all.
    people_on_row = (
        Review.objects.filter(item=OuterRef("item"), annotator__isnull=False)
        .values("item")
        .annotate(people=Count("annotator", distinct=True))
        .values("people")
    )
    return list(
        newest.filter(
            item__run=run,
            # the other review is on the same row, so it needs no second join to the run's items
            item__reviews__in=newest.values("pk"),
            item__reviews__annotator__gt=F("annotator"),
        )
        .values(
            "annotator__username",
            "item__reviews__annotator__username",
            "verdict",
            "item__reviews__verdict",
        )
        .annotate(people=Subquery(people_on_row), rows=Count("pk"))
        .order_by()
    )


def verdicts_by_problem(*, run_a: Run, run_b: Run):
    """Per problem id (row number when a file had none): how many rows each run has for it,
    and the final verdict and item of each; a query set to aggregate or list further."""
    return (
        Item.objects.filter(run__in=[run_a, run_b])
        .annotate(
            key=Case(
                When(external_id="", then=Concat(Value("row "), Cast("row_number", CharField()))),
                default=F("external_id"),
            )
        )
        .values("key")
        .annotate(
            rows_a=Count("pk", filter=Q(run=run_a)),
            rows_b=Count("pk", filter=Q(run=run_b)),
            verdict_a=Max("final_verdict", filter=Q(run=run_a)),
            verdict_b=Max("final_verdict", filter=Q(run=run_b)),
            item_a=Max("pk", filter=Q(run=run_a)),
            item_b=Max("pk", filter=Q(run=run_b)),
        )
        .order_by()
    )


def final_verdict_counts(*, runs: list[Run]) -> dict[int, dict]:
    """Run id -> rows, final correct and final incorrect."""
    return {
        row["run"]: row
        for row in Item.objects.filter(run__in=runs)
        .values("run")
        .annotate(
            rows=Count("pk"),
            correct=Count("pk", filter=Q(final_verdict=Verdict.CORRECT)),
            incorrect=Count("pk", filter=Q(final_verdict=Verdict.INCORRECT)),
        )
        .order_by()
    }


def _group_expression(breakdown: str):
    """The breakdown's value of a row (a plain column where it can be: PostgreSQL's statistics
    know how many values a column has, not an expression)."""
    if breakdown in ITEM_BREAKDOWNS:
        return F(ITEM_BREAKDOWNS[breakdown][1])
    if breakdown.startswith(EXTRA_PREFIX):
        return KeyTextTransform(breakdown.removeprefix(EXTRA_PREFIX), "extra")
    return Value("")
