"""Human verdicts on items: a review, a blind review of a double review, an adjudication; and
how a blind double review settles into a final verdict or a conflict."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from reviewer import access
from reviewer.audit import Action, audit_record, verdict_change_data
from reviewer.models import Assignment, Item, Review, ReviewVerdict


class StaleVersionError(Exception):
    """Someone else decided this item first; ``item`` holds what they decided."""

    def __init__(self, *, item: Item):
        self.item = item
        super().__init__(f"item {item.pk} changed since you loaded it (now version {item.version})")


def item_review(
    *,
    item: Item,
    user,
    verdict: str,
    note: str = "",
    expected_version: int | None = None,
    idempotency_key: str = "",
    role: str | None = None,
) -> Review:
    """Record a human verdict on an item, of the kind access.review_kind allows ``user``.

    A review or an adjudication becomes the final verdict. A blind review counts once all
    of the row's assignees have given theirs: if they agree, that is the final verdict; if not,
    the row waits for an adjudicator (stage "conflict").

    With ``expected_version`` (the version the reviewer saw), raises StaleVersionError if
    someone decided in between, so no decision is overwritten unseen; blind reviews skip the
    check, as they overwrite nobody's. A request repeated with the same ``idempotency_key`` (a
    client's retry) returns the review it already made. ``role`` defaults to ``user``'s role
    in the item's project.
    """
    if verdict not in ReviewVerdict.values:
        raise ValueError(f"unknown verdict {verdict!r}; choose one of {ReviewVerdict.values}")
    with transaction.atomic():
        current = (
            Item.objects.select_for_update(of=("self",), no_key=True)
            .select_related("run__project")
            .get(pk=item.pk)
        )
        if idempotency_key:
            earlier = Review.objects.filter(
                item=current, annotator=user, idempotency_key=idempotency_key
            ).first()
            if earlier is not None:
                return earlier
        if role is None:
            role = access.role_in(user, current.run.project)
        kind = access.review_kind(item=current, user=user, role=role)
        if (
            kind != Review.Kind.BLIND
            and expected_version is not None
            and current.version != expected_version
        ):
            raise StaleVersionError(item=current)
        review = Review.objects.create(
            item=current,
            annotator=user,
            verdict=verdict,
            kind=kind,
            note=note,
            idempotency_key=idempotency_key,
        )
        Assignment.objects.filter(item=current, annotator=user, done_at=None).update(
            done_at=timezone.now()
        )
        if kind == Review.Kind.BLIND:
            audit_record(
                Action.BLIND_VERDICT,
                actor=user,
                project=current.run.project,
                run=current.run,
                item=current,
                summary=f"Row {current.row_number}: blind verdict “{review.get_verdict_display()}”",
                data={"verdict": verdict, "note": note},
            )
            blind_review_settle(item=current)
        else:
            _final_verdict_set(
                current,
                verdict=verdict,
                actor=user,
                summary=f"Row {current.row_number}: "
                + ("adjudicated" if kind == Review.Kind.ADJUDICATION else "reviewed")
                + f" as “{review.get_verdict_display()}”",
                data={"kind": kind, "note": note},
            )
    return review


def blind_review_settle(*, item: Item) -> str:
    """Close the blind double review of a locked ``item`` once each assignee has a verdict:
    agreeing verdicts become final, differing ones make a conflict. Returns the stage."""
    if item.review_stage != Item.ReviewStage.BLIND:
        return item.review_stage
    assignees = set(Assignment.objects.filter(item=item).values_list("annotator_id", flat=True))
    if not assignees:  # everyone it waited on left the project: back to the ordinary queue
        item.review_stage = Item.ReviewStage.OPEN
        item.save(update_fields=["review_stage"])
        return item.review_stage
    latest: dict[int, str] = {}
    for annotator_id, verdict in (
        Review.objects.filter(item=item, kind=Review.Kind.BLIND, annotator_id__in=assignees)
        .order_by("created_at", "id")
        .values_list("annotator_id", "verdict")
    ):
        latest[annotator_id] = verdict
    if set(latest) != assignees:
        return item.review_stage
    verdicts = set(latest.values())
    names = dict(get_user_model().objects.filter(pk__in=assignees).values_list("pk", "username"))
    said = {names[pk]: verdict for pk, verdict in sorted(latest.items(), key=lambda p: names[p[0]])}
    if len(verdicts) == 1:
        (agreed,) = verdicts
        _final_verdict_set(
            item,
            verdict=agreed,
            actor=None,
            summary=f"Row {item.row_number}: the {len(said)} blind verdicts agree: "
            f"“{ReviewVerdict(agreed).label}”",
            data={"kind": "blind_agreement", "verdicts": said},
        )
        return item.review_stage
    item.review_stage = Item.ReviewStage.CONFLICT
    item.version += 1
    item.save(update_fields=["review_stage", "version"])
    audit_record(
        Action.CONFLICT,
        actor=None,
        project=item.run.project,
        run=item.run,
        item=item,
        summary=f"Row {item.row_number}: blind verdicts disagree ("
        + ", ".join(f"{name}: {ReviewVerdict(v).label}" for name, v in said.items())
        + "); an adjudicator decides",
        data={"verdicts": said},
    )
    return item.review_stage


def _final_verdict_set(item: Item, *, verdict: str, actor, summary: str, data: dict) -> None:
    """Make ``verdict`` the locked item's final, human verdict, ending any double review, and
    record the change."""
    before = item.final_verdict
    item.final_verdict = verdict
    item.final_source = Item.FinalSource.HUMAN
    item.review_stage = Item.ReviewStage.OPEN
    item.version += 1
    item.save(update_fields=["final_verdict", "final_source", "review_stage", "version"])
    audit_record(
        Action.VERDICT,
        actor=actor,
        project=item.run.project,
        run=item.run,
        item=item,
        summary=summary,
        data=verdict_change_data(
            before=before, after=verdict, source=Item.FinalSource.HUMAN, **data
        ),
    )
