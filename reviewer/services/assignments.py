"""Splitting a run's review queue among annotators, and how far each has got."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q, QuerySet

from reviewer import access, selectors
from reviewer.audit import Action, audit_record
from reviewer.models import Assignment, Item, Review, Run

MAX_REVIEWS_PER_FLAGGED_ROW = 5


class Scope:
    """Which rows a split hands out."""

    QUEUE = "queue"  # flagged rows and the spot check
    FLAGGED = "flagged"
    ALL = "all"

    choices = [
        (QUEUE, "flagged rows and the spot check"),
        (FLAGGED, "flagged rows only"),
        (ALL, "every row"),
    ]


class AssignmentError(ValueError):
    """The split cannot be made as asked; the message says why."""


@dataclass(frozen=True)
class QueueProgress:
    """One annotator's queue in a run."""

    username: str
    assigned: int
    done: int

    @property
    def to_do(self) -> int:
        return self.assigned - self.done

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.assigned) if self.assigned else 100


@dataclass(frozen=True)
class SplitResult:
    rows: int  # rows handed out (or still waiting for blind verdicts)
    per_annotator: dict[str, int]  # new rows in each queue
    blind_rows: int  # rows under blind double review


def run_assign(
    *,
    run: Run,
    shares: Mapping,
    reviews_per_flagged_row: int = 1,
    scope: str = Scope.QUEUE,
    by,
) -> SplitResult:
    """Hand the run's undecided rows in ``scope`` to the annotators in ``shares`` ({user:
    weight}), each row to the annotators with the least work for their weight.

    With ``reviews_per_flagged_row`` k > 1, each flagged row goes to k different annotators,
    who review it blind. Splitting again replaces the open assignments; rows people already
    reviewed stay theirs, and decided rows are not handed out.
    """
    weights = {user: int(weight) for user, weight in shares.items() if int(weight) > 0}
    with transaction.atomic():
        run = (
            Run.objects.select_for_update(of=("self",), no_key=True)
            .select_related("project")
            .get(pk=run.pk)
        )
        _check_split(run=run, weights=weights, k=reviews_per_flagged_row, scope=scope)
        # The run's rows before their assignments, in id order, as reviews and rulings take
        # them: a review holds its row, then marks its assignment done, so taking the
        # assignments first could deadlock with it.
        list(
            Item.objects.filter(run=run)
            .select_for_update(of=("self",), no_key=True)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        Assignment.objects.filter(item__run=run, done_at=None).delete()
        rows = list(
            _rows_in_scope(run=run, scope=scope)
            .exclude(final_source=Item.FinalSource.HUMAN, review_stage=Item.ReviewStage.OPEN)
            .exclude(review_stage=Item.ReviewStage.CONFLICT)
            .only("pk", "run", "needs_review", "review_stage", "row_number")
        )
        done_by = defaultdict(set)
        for item_id, annotator_id in Assignment.objects.filter(item__run=run).values_list(
            "item_id", "annotator_id"
        ):
            done_by[item_id].add(annotator_id)
        blind_reviewed = set(
            Review.objects.filter(item__run=run, kind=Review.Kind.BLIND).values_list(
                "item_id", flat=True
            )
        )
        load = dict.fromkeys(weights, 0)
        new: list[Assignment] = []
        to_blind, to_open = [], []
        for row in rows:
            wanted = reviews_per_flagged_row if row.needs_review else 1
            if row.review_stage == Item.ReviewStage.BLIND and row.pk in blind_reviewed:
                wanted = max(wanted, 2)  # a double review under way stays one
            if wanted > 1 and row.review_stage != Item.ReviewStage.BLIND:
                to_blind.append(row.pk)
            elif wanted == 1 and row.review_stage == Item.ReviewStage.BLIND:
                to_open.append(row.pk)
            candidates = [user for user in weights if user.pk not in done_by[row.pk]]
            candidates.sort(key=lambda user: ((load[user] + 1) / weights[user], user.username))
            for user in candidates[: max(0, wanted - len(done_by[row.pk]))]:
                load[user] += 1
                new.append(Assignment(item_id=row.pk, annotator=user, assigned_by=by))
        Assignment.objects.bulk_create(new, batch_size=2000)
        Item.objects.filter(pk__in=to_blind).update(review_stage=Item.ReviewStage.BLIND)
        Item.objects.filter(pk__in=to_open).update(review_stage=Item.ReviewStage.OPEN)
        run.reviews_per_flagged_row = reviews_per_flagged_row
        run.save(update_fields=["reviews_per_flagged_row"])
        per_annotator = {user.username: load[user] for user in sorted(weights, key=_name)}
        blind_rows = run.items.filter(review_stage=Item.ReviewStage.BLIND).count()
        audit_record(
            Action.ASSIGNMENT,
            actor=by,
            project=run.project,
            run=run,
            summary=f"Review queue of “{run.name}” split: "
            + ", ".join(f"{name} {count} rows" for name, count in per_annotator.items())
            + (
                f"; flagged rows reviewed blind by {reviews_per_flagged_row}"
                if reviews_per_flagged_row > 1
                else ""
            ),
            data={
                "scope": scope,
                "shares": {user.username: weight for user, weight in weights.items()},
                "assigned": per_annotator,
                "reviews_per_flagged_row": reviews_per_flagged_row,
                "blind_rows": blind_rows,
            },
        )
    return SplitResult(rows=len(rows), per_annotator=per_annotator, blind_rows=blind_rows)


def queue_progress(*, run: Run) -> list[QueueProgress]:
    """Each annotator's queue in the run, by name."""
    rows = (
        Assignment.objects.filter(item__run=run)
        .values("annotator__username")
        .annotate(assigned=Count("pk"), done=Count("pk", filter=_done()))
        .order_by("annotator__username")
    )
    return [
        QueueProgress(username=r["annotator__username"], assigned=r["assigned"], done=r["done"])
        for r in rows
    ]


def my_queue(*, run: Run, user) -> QueueProgress | None:
    """``user``'s queue in the run, or None when they have none."""
    counts = Assignment.objects.filter(item__run=run, annotator=user).aggregate(
        assigned=Count("pk"), done=Count("pk", filter=_done())
    )
    if not counts["assigned"]:
        return None
    return QueueProgress(username=user.get_username(), **counts)


def conflict_count(*, run: Run) -> int:
    return run.items.filter(review_stage=Item.ReviewStage.CONFLICT).count()


def _done() -> Q:
    """An assignment counts as done once its annotator reviewed the row, or someone decided it
    for good (an adjudicator, or a ruling)."""
    return Q(done_at__isnull=False) | Q(
        item__final_source=Item.FinalSource.HUMAN, item__review_stage=Item.ReviewStage.OPEN
    )


def _rows_in_scope(*, run: Run, scope: str) -> QuerySet[Item]:
    items = run.items.filter(grade_state=Item.GradeState.GRADED)
    if scope == Scope.FLAGGED:
        items = items.filter(needs_review=True)
    elif scope == Scope.QUEUE:
        items = items.filter(Q(needs_review=True) | selectors.spot_check())
    return items.order_by("row_number")


def _check_split(*, run: Run, weights: dict, k: int, scope: str) -> None:
    if scope not in (Scope.QUEUE, Scope.FLAGGED, Scope.ALL):
        raise AssignmentError(f"unknown scope {scope!r}; choose queue, flagged or all")
    if not weights:
        raise AssignmentError("choose at least one annotator, with a share above 0")
    if not 1 <= k <= MAX_REVIEWS_PER_FLAGGED_ROW:
        raise AssignmentError(
            f"reviews per flagged row must be between 1 and {MAX_REVIEWS_PER_FLAGGED_ROW}"
        )
    if k > len(weights):
        raise AssignmentError(
            f"{k} blind reviews per flagged row need at least {k} annotators; {len(weights)} chosen"
        )
    cannot = sorted(
        user.get_username()
        for user in weights
        if not access.allows(access.role_in(user, run.project), access.REVIEW)
    )
    if cannot:
        raise AssignmentError(
            f"{', '.join(cannot)} cannot review in this project; make them annotators first"
        )
    if run.status in (Run.Status.QUEUED, Run.Status.GRADING):
        raise AssignmentError(
            "the run is still being graded, so which rows are flagged is not known yet; "
            "split its queue once grading finishes"
        )


def _name(user) -> str:
    return user.get_username()
