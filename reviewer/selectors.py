"""Reads: what the pages show, computed in SQL with a fixed number of queries."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.conf import settings
from django.db.models import (
    BooleanField,
    Case,
    Count,
    Exists,
    F,
    Func,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    TextField,
    Value,
    When,
)
from django.db.models.functions import Concat
from django.db.models.lookups import Contains, LessThan
from django.utils import timezone

from reviewer import access
from reviewer.item_filters import MSU_HIGH, MSU_LOW, ItemFilters
from reviewer.models import (
    Assignment,
    EvaluatorScore,
    GradingChunk,
    Item,
    Project,
    Run,
    Verdict,
)

STALL_SECONDS = 60  # pending rows with no progress for this long: no worker is running
# Knuth's multiplicative hash: consecutive ids land in unrelated buckets 0..99, the same in
# PostgreSQL and SQLite, with no column to add.
_HASH_MULTIPLIER = 2654435761
_HASH_MODULUS = 2**32
_QUEUE_RANK_STRIDE = 2**32  # more than any row number

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
class Neighbours:
    previous_id: int | None
    next_id: int | None
    next_flagged_unreviewed_id: int | None


def project_list(*, user) -> QuerySet[Project]:
    """The projects ``user`` is a member of, by name, each with ``role`` (theirs) and
    ``run_count``."""
    return access.projects_with_role(user).annotate(run_count=Count("runs")).order_by("name")


def run_list(*, user) -> QuerySet[Run]:
    """The runs ``user`` may see, newest first, with their item counts."""
    return (
        Run.objects.filter(project__in=access.projects_for(user))
        .select_related("project")
        .annotate(
            graded_count=Count("items", filter=~Q(items__grade_state=Item.GradeState.PENDING)),
            flagged_count=Count("items", filter=Q(items__needs_review=True)),
            reviewed_count=Count("items", filter=Q(items__final_source=Item.FinalSource.HUMAN)),
            my_to_do=Subquery(
                Item.objects.filter(run=OuterRef("pk"))
                .filter(still_to_review_by(user.pk))
                .values("run")
                .annotate(n=Count("pk"))
                .values("n")[:1]
            ),
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


def msu_band(band: str) -> Q:
    """Rows whose MSU is in a band of the "msu" filter (item_filters.MSU_LOW, MSU_HIGH)."""
    if band == "none":
        return Q(msu__score__isnull=True)
    bounds = {"low": (None, MSU_LOW), "middle": (MSU_LOW, MSU_HIGH), "high": (MSU_HIGH, None)}
    low, high = bounds[band]
    q = Q(msu__score__isnull=False)
    if low is not None:
        q &= Q(msu__score__gte=low)
    if high is not None:
        q &= Q(msu__score__lt=high)
    return q


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
    if filters.evaluator and filters.evaluator_verdict in Verdict.values:
        items = items.filter(
            evaluator_said(evaluator=filters.evaluator, verdict=filters.evaluator_verdict)
        )
    if filters.human_verdict:
        items = items.filter(_HUMAN, final_verdict=filters.human_verdict)
    if filters.reason:
        items = items.filter(HasReviewReason(filters.reason))
    if filters.msu:
        items = items.filter(msu_band(filters.msu))
    if filters.queue == "mine":
        items = items.filter(still_to_review_by(filters.user_id))
    elif filters.queue == "conflicts":
        items = items.filter(review_stage=Item.ReviewStage.CONFLICT)
    if filters.q.strip():
        q = filters.q.strip()
        items = items.filter(
            Q(problem__icontains=q)
            | Q(gold__icontains=q)
            | Q(output__icontains=q)
            | Q(external_id__iexact=q)
        )
    if filters.order != "row":
        items = items.annotate(queue_rank=_queue_rank())
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
        rank = item_queue_rank(item)
        after = Q(queue_rank=rank, row_number__gt=item.row_number) | Q(queue_rank__gt=rank)
    ordering = _ordering(filters)
    reversed_ordering = [key[1:] if key.startswith("-") else f"-{key}" for key in ordering]
    # In a queue, every row of the filter is still to do; elsewhere, flagged undecided rows.
    to_review = items if filters.queue else items.filter(needs_review=True).exclude(_HUMAN)
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


def still_to_review_by(user_id: int | None) -> Q:
    """Rows in ``user_id``'s queue they have not reviewed and nobody has decided for good since
    (an adjudicator or a ruling)."""
    open_assignment = Assignment.objects.filter(
        item=OuterRef("pk"), annotator_id=user_id, done_at=None
    )
    return Q(Exists(open_assignment)) & ~Q(
        final_source=Item.FinalSource.HUMAN, review_stage=Item.ReviewStage.OPEN
    )


def spot_check() -> Q:
    """Graded rows nobody flagged that fall in the spot check (MATHJURY_SPOT_CHECK_PERCENT of
    them), reviewed to measure how often the evaluators' consensus is wrong."""
    bucket = (F("pk") * _HASH_MULTIPLIER % _HASH_MODULUS) * 100 / _HASH_MODULUS
    return Q(grade_state=Item.GradeState.GRADED, needs_review=False, evaluators_disagree=False) & Q(
        LessThan(bucket, settings.MATHJURY_SPOT_CHECK_PERCENT)
    )


def item_queue_rank(item: Item) -> int:
    """The item's place in the review queue, as _queue_rank computes it in SQL."""
    if item.evaluators_disagree:
        return 0
    if item.needs_review:
        return 1
    bucket = (item.pk * _HASH_MULTIPLIER % _HASH_MODULUS) * 100 // _HASH_MODULUS
    if item.grade_state == Item.GradeState.GRADED and bucket < settings.MATHJURY_SPOT_CHECK_PERCENT:
        return 2
    return 3


def evaluator_said(*, evaluator: str, verdict: str) -> Q:
    """Rows where ``evaluator`` scored the output ``verdict``; "incorrect" includes a missing
    or unparseable answer, as it scores 0 (EvaluatorScore)."""
    score = EvaluatorScore.CORRECT if verdict == Verdict.CORRECT else EvaluatorScore.INCORRECT
    # Padded with spaces, so "strict:c" does not match inside "math_verify_strict:c".
    padded = Concat(Value(" "), "evaluator_scores", Value(" "), output_field=TextField())
    return Q(Contains(padded, f" {evaluator}:{score} "))


class HasReviewReason(Func):
    """True when the row's review_reasons list holds an entry with this code."""

    output_field = BooleanField()

    def __init__(self, code: str, reasons: str = "review_reasons"):
        super().__init__(F(reasons))
        self.code = code

    def as_sql(self, compiler, connection, **extra_context):
        reasons, params = compiler.compile(self.source_expressions[0])
        template = "EXISTS (SELECT 1 FROM json_each(%s) WHERE json_extract(value, '$.code') = %%s)"
        return template % reasons, (*params, self.code)

    def as_postgresql(self, compiler, connection, **extra_context):
        reasons, params = compiler.compile(self.source_expressions[0])
        return f"({reasons} @> %s::jsonb)", (*params, json.dumps([{"code": self.code}]))


def queue_position() -> F:
    """Each row's place in the review queue as one number (its rank, then its row), on a
    query that item_filter ordered by the queue."""
    return F("queue_rank") * _QUEUE_RANK_STRIDE + F("row_number")


def _queue_rank() -> Case:
    """Evaluators split first, then rows other detectors flagged, then the spot check."""
    return Case(
        When(evaluators_disagree=True, then=Value(0)),
        When(needs_review=True, then=Value(1)),
        When(spot_check(), then=Value(2)),
        default=Value(3),
    )


def _ordering(filters: ItemFilters) -> list[str]:
    return ["row_number"] if filters.order == "row" else ["queue_rank", "row_number"]


@dataclass(frozen=True)
class GradingHealth:
    """What the run page says about the workers while rows wait (see GradingChunk)."""

    heartbeat_age: float | None  # seconds since a worker last reported on this run's rows
    worker_age: float | None  # seconds since any worker last reported on any run
    problem: str  # "", "no_worker", "worker_silent" (its rows will be re-sent), "waiting"
    resent_rows: int  # rows of this grading re-sent by the reconciler
    resent_reason: str
    resent_at: object | None


def run_grading_health(*, run: Run) -> GradingHealth:
    """Heartbeats and re-sends of the run's current grading, in three queries."""
    chunks = GradingChunk.objects.filter(run=run, generation=run.grading_generation)
    now = timezone.now()
    row = chunks.aggregate(
        heartbeat=Max("heartbeat_at"),
        running=Count("pk", filter=Q(state=GradingChunk.State.RUNNING)),
    )
    any_heartbeat = GradingChunk.objects.aggregate(latest=Max("heartbeat_at"))["latest"]
    resent = list(
        chunks.filter(origin__in=_RESENT)
        .order_by("-sent_at")
        .values_list("origin", "sent_at", "item_ids")
    )

    def age(moment) -> float | None:
        return (now - moment).total_seconds() if moment else None

    heartbeat_age, worker_age = age(row["heartbeat"]), age(any_heartbeat)
    stale = settings.MATHJURY_GRADING_STALE_SECONDS
    problem = ""
    if worker_age is None or worker_age > max(stale, STALL_SECONDS):
        problem = "no_worker"
    elif row["running"] and heartbeat_age is not None and heartbeat_age > stale:
        problem = "worker_silent"
    elif not row["running"]:
        problem = "waiting"
    return GradingHealth(
        heartbeat_age=heartbeat_age,
        worker_age=worker_age,
        problem=problem,
        resent_rows=sum(len(ids) for _, _, ids in resent),
        resent_reason=GradingChunk.Origin(resent[0][0]).label if resent else "",
        resent_at=resent[0][1] if resent else None,
    )


_RESENT = (
    GradingChunk.Origin.NO_MESSAGE,
    GradingChunk.Origin.WORKER_LOST,
    GradingChunk.Origin.UNSENT,
)
