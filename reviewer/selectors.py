"""Reads: what the pages show, computed in SQL with a fixed number of queries."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.conf import settings
from django.db.models import (
    BooleanField,
    Count,
    Exists,
    F,
    Func,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    TextField,
    Value,
)
from django.db.models.functions import Coalesce, Concat
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
    RunTally,
    Verdict,
)
from reviewer.queue_order import (
    FLAGGED,
    QUEUE_STRIDE,
    REST,
    SPLIT,
    SPOT_CHECK,
    queue_order_current,
)
from reviewer.tallies import run_tally

STALL_SECONDS = 60  # pending rows with no progress for this long: no worker is running
# Knuth's multiplicative hash: consecutive ids land in unrelated buckets 0..99, the same in
# PostgreSQL and SQLite, with no column to add.
_HASH_MULTIPLIER = 2654435761
_HASH_MODULUS = 2**32

_HUMAN = Q(final_source=Item.FinalSource.HUMAN)


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
    """The runs ``user`` may see, newest first, with their item counts (from their tallies)."""
    return (
        Run.objects.filter(project__in=access.projects_for(user))
        .select_related("project")
        .annotate(
            graded_count=_tally_sum("total") - _tally_sum("pending"),
            flagged_count=_tally_sum("flagged"),
            reviewed_count=_tally_sum("reviewed"),
            # still_to_review_by, counted from the user's open assignments (one per row at
            # most) rather than by probing every row of every run
            my_to_do=Subquery(
                Assignment.objects.filter(
                    annotator_id=user.pk, done_at=None, item__run=OuterRef("pk")
                )
                .exclude(
                    item__final_source=Item.FinalSource.HUMAN,
                    item__review_stage=Item.ReviewStage.OPEN,
                )
                .values("item__run")
                .annotate(n=Count("pk"))
                .values("n")[:1]
            ),
        )
        .order_by("-created_at", "-pk")
    )


def _tally_sum(name: str) -> Coalesce:
    """The sum of a count over each run's tallies, as an annotation of runs."""
    sums = (
        RunTally.objects.filter(run=OuterRef("pk")).values("run").annotate(n=Sum(name)).values("n")
    )
    return Coalesce(Subquery(sums), 0)


def run_counts(*, run: Run) -> RunCounts:
    """The run page's counts, from the run's tallies (reviewer.tallies)."""
    tally = run_tally(run=run)
    return RunCounts(**{name: getattr(tally, name) for name in RunCounts.__dataclass_fields__})


def run_progress(*, run: Run) -> RunProgress:
    """How far grading of the current generation is, how fast it goes, and whether it stalled.

    Re-grading sets every row back to pending, and a row leaves pending only with the
    generation that graded it, so the rows not pending are the current generation's."""
    tally = run_tally(run=run)
    total, pending, last_graded_at = tally.total, tally.pending, tally.last_graded_at
    graded_now = total - pending
    now = timezone.now()
    rate = None
    started = run.grading_started_at
    if started and graded_now and last_graded_at:
        elapsed = (last_graded_at - started).total_seconds()
        rate = graded_now / elapsed if elapsed > 0 else None
    last_activity = max(
        (t for t in (last_graded_at, started, run.grading_queued_at) if t),
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
        queue_order_current(run=run)
    return items.order_by(_ordering(filters))


def item_neighbours(*, item: Item, filters: ItemFilters) -> Neighbours:
    """The items before and after ``item`` in the filtered order, and the next one to review,
    in one query.

    Works from the item's sort key (its row number, or its stored queue position), so it also
    answers for an item that has just left the filter (for example one that was reviewed
    under "not reviewed"); each neighbour is a range of an index from that key, asked as a
    subquery of the run's row.
    """
    key = _ordering(filters)
    if key == "queue_position" and queue_order_current(run=item.run):
        item.refresh_from_db(fields=["queue_position"])  # the queue was re-placed just now
    items = item_filter(run=item.run, filters=filters).exclude(pk=item.pk)
    here = getattr(item, key)
    after, before = Q(**{f"{key}__gt": here}), Q(**{f"{key}__lt": here})
    # In a queue, every row of the filter is still to do; elsewhere, flagged undecided rows,
    # which the queue order puts before every other row.
    to_review = items if filters.queue else items.filter(needs_review=True).exclude(_HUMAN)
    if key == "queue_position" and not filters.queue:
        to_review = to_review.filter(queue_position__lt=(FLAGGED + 1) * QUEUE_STRIDE)

    def first(rows: QuerySet[Item]) -> Subquery:
        return Subquery(rows.values("pk")[:1])

    found = (
        Run.objects.filter(pk=item.run_id)
        .values(
            previous_id=first(items.filter(before).order_by(f"-{key}")),
            next_id=first(items.filter(after)),
            # after this row, else wrapped around to the first one still waiting
            next_flagged_unreviewed_id=Coalesce(first(to_review.filter(after)), first(to_review)),
        )
        .get()
    )
    return Neighbours(**found)


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
    """The item's rank in the review queue (reviewer.queue_order), from its fields: what the
    database trigger stores in its queue_position once the run follows the setting."""
    if item.evaluators_disagree:
        return SPLIT
    if item.needs_review:
        return FLAGGED
    bucket = (item.pk * _HASH_MULTIPLIER % _HASH_MODULUS) * 100 // _HASH_MODULUS
    if item.grade_state == Item.GradeState.GRADED and bucket < settings.MATHJURY_SPOT_CHECK_PERCENT:
        return SPOT_CHECK
    return REST


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


def _ordering(filters: ItemFilters) -> str:
    """The item field the filter's order sorts by: each is unique within a run."""
    return "row_number" if filters.order == "row" else "queue_position"


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
