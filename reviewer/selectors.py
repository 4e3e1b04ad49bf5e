"""Reads: what the pages show, computed in SQL with a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone

from reviewer.access import projects_for
from reviewer.models import Item, Run

STALL_SECONDS = 60  # pending rows with no progress for this long: no worker is running

_HUMAN = Q(final_source=Item.FinalSource.HUMAN)
_COUNTS = {
    "total": Count("pk"),
    "graded": Count("pk", filter=Q(grade_state=Item.GradeState.GRADED)),
    "quarantined": Count("pk", filter=Q(grade_state=Item.GradeState.QUARANTINED)),
    "auto_correct": Count("pk", filter=Q(auto_verdict="correct")),
    "auto_incorrect": Count("pk", filter=Q(auto_verdict="incorrect")),
    "flagged": Count("pk", filter=Q(needs_review=True)),
    "reviewed": Count("pk", filter=_HUMAN),
    "final_correct": Count("pk", filter=Q(final_verdict="correct")),
    "final_incorrect": Count("pk", filter=Q(final_verdict="incorrect")),
}


@dataclass(frozen=True)
class RunCounts:
    total: int
    graded: int
    quarantined: int
    auto_correct: int
    auto_incorrect: int
    flagged: int
    reviewed: int
    final_correct: int
    final_incorrect: int

    @property
    def final_accuracy(self) -> float | None:
        """Correct among rows with a correct/incorrect final verdict (gold-wrong and unclear
        rows are left out); None before any row has one."""
        decided = self.final_correct + self.final_incorrect
        return self.final_correct / decided if decided else None


@dataclass(frozen=True)
class RunProgress:
    graded: int  # rows with a result for the current grading, quarantined ones included
    total: int
    rows_per_second: float | None
    seconds_left: float | None
    stalled: bool  # rows wait and nothing was graded for STALL_SECONDS

    @property
    def done(self) -> bool:
        return self.graded >= self.total

    @property
    def percent(self) -> int:
        return int(100 * self.graded / self.total) if self.total else 100


@dataclass(frozen=True)
class ItemFilters:
    """The run table's filters; None or "" means "any"."""

    needs_review: bool | None = None
    disagree: bool | None = None
    verdict: str = ""  # a final verdict, or "none" for rows without one
    answer_type: str = ""
    reviewed: bool | None = None
    q: str = ""
    order: str = "flagged"  # "flagged": flagged rows first, then by row; "row": by row


@dataclass(frozen=True)
class Neighbours:
    previous_id: int | None
    next_id: int | None
    next_flagged_unreviewed_id: int | None


def run_list(*, user) -> QuerySet[Run]:
    """The runs ``user`` may see, newest first, with their item counts."""
    return (
        Run.objects.filter(project__in=projects_for(user))
        .select_related("project")
        .annotate(
            graded_count=Count("items", filter=~Q(items__grade_state=Item.GradeState.PENDING)),
            flagged_count=Count("items", filter=Q(items__needs_review=True)),
            reviewed_count=Count("items", filter=Q(items__final_source=Item.FinalSource.HUMAN)),
        )
        .order_by("-created_at", "-pk")
    )


def run_counts(*, run: Run) -> RunCounts:
    """The run page's counts, in one query."""
    return RunCounts(**Item.objects.filter(run=run).aggregate(**_COUNTS))


def run_progress(*, run: Run) -> RunProgress:
    """How far grading of the current generation is, how fast it goes, and whether it stalled."""
    row = Item.objects.filter(run=run).aggregate(
        total=Count("pk"),
        pending=Count("pk", filter=Q(grade_state=Item.GradeState.PENDING)),
        graded_now=Count(
            "pk",
            filter=~Q(grade_state=Item.GradeState.PENDING)
            & Q(graded_generation=run.grading_generation),
        ),
        last_graded_at=Max("graded_at", filter=Q(graded_generation=run.grading_generation)),
    )
    total, pending = row["total"], row["pending"]
    now = timezone.now()
    rate = None
    started = run.grading_started_at
    if started and row["graded_now"] and row["last_graded_at"]:
        elapsed = (row["last_graded_at"] - started).total_seconds()
        rate = row["graded_now"] / elapsed if elapsed > 0 else None
    last_activity = max(
        (t for t in (row["last_graded_at"], started, run.grading_queued_at) if t),
        default=run.created_at,
    )
    return RunProgress(
        graded=total - pending,
        total=total,
        rows_per_second=rate,
        seconds_left=pending / rate if rate and pending else (0.0 if not pending else None),
        stalled=pending > 0 and (now - last_activity).total_seconds() > STALL_SECONDS,
    )


def item_filter(*, run: Run, filters: ItemFilters) -> QuerySet[Item]:
    """The run's items that match ``filters``, in the table's order."""
    items = Item.objects.filter(run=run)
    if filters.needs_review is not None:
        items = items.filter(needs_review=filters.needs_review)
    if filters.disagree is not None:
        items = items.filter(evaluators_disagree=filters.disagree)
    if filters.verdict == "none":
        items = items.filter(final_verdict="")
    elif filters.verdict:
        items = items.filter(final_verdict=filters.verdict)
    if filters.answer_type:
        items = items.filter(answer_type=filters.answer_type)
    if filters.reviewed is not None:
        items = items.filter(_HUMAN) if filters.reviewed else items.exclude(_HUMAN)
    if filters.q.strip():
        q = filters.q.strip()
        items = items.filter(
            Q(problem__icontains=q)
            | Q(gold__icontains=q)
            | Q(output__icontains=q)
            | Q(external_id__iexact=q)
        )
    return items.order_by(*_ordering(filters))


def item_neighbours(*, item: Item, filters: ItemFilters) -> Neighbours:
    """The items before and after ``item`` in the filtered order, and the next one to review.

    Works from sort keys, so it also answers for an item that has just left the filter
    (for example one that was reviewed under "not reviewed").
    """
    items = item_filter(run=item.run, filters=filters).exclude(pk=item.pk)
    if filters.order == "row":
        after = Q(row_number__gt=item.row_number)
    else:
        after = Q(needs_review=item.needs_review, row_number__gt=item.row_number)
        if item.needs_review:
            after |= Q(needs_review=False)
    ordering = _ordering(filters)
    reversed_ordering = [key[1:] if key.startswith("-") else f"-{key}" for key in ordering]
    to_review = items.filter(needs_review=True).exclude(_HUMAN)
    next_to_review = to_review.filter(after).values_list("pk", flat=True).first()
    if next_to_review is None:  # wrap around to the first one still waiting
        next_to_review = to_review.values_list("pk", flat=True).first()
    return Neighbours(
        previous_id=items.exclude(after)
        .order_by(*reversed_ordering)
        .values_list("pk", flat=True)
        .first(),
        next_id=items.filter(after).values_list("pk", flat=True).first(),
        next_flagged_unreviewed_id=next_to_review,
    )


def _ordering(filters: ItemFilters) -> list[str]:
    return ["row_number"] if filters.order == "row" else ["-needs_review", "row_number"]
