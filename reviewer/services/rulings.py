"""Equivalence rulings: one person's verdict on a (gold, prediction) pair, applied to every
other row of the project with the same normalised pair that no human has decided, and undone
row by row where nobody has changed the row since."""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from grading.pairs import shown_prediction
from reviewer import access
from reviewer.audit import Action, audit_event, audit_record, audit_record_many, verdict_change_data
from reviewer.models import Item, Review, ReviewVerdict, Ruling, RulingChange


class RulingError(ValueError):
    """The ruling cannot be applied or undone; the message says why."""


def ruling_candidates(*, item: Item) -> QuerySet[Item]:
    """The other rows of ``item``'s project with its gold and prediction that a ruling would
    decide: graded, not decided by a human, and not under double review."""
    if not item.pair_key:
        return Item.objects.none()
    return (
        Item.objects.filter(
            run__project_id=item.run.project_id,
            pair_key=item.pair_key,
            grade_state=Item.GradeState.GRADED,
            review_stage=Item.ReviewStage.OPEN,
        )
        .exclude(final_source=Item.FinalSource.HUMAN)
        .exclude(pk=item.pk)
    )


def ruling_pair(*, item: Item) -> tuple[str, str]:
    """(gold, prediction) as the ruling records them: what the reviewer saw."""
    shown = shown_prediction(item.evaluations.all())
    prediction = (shown.extracted_latex or shown.extracted) if shown else ""
    return item.gold.strip(), prediction


def ruling_apply(*, item: Item, user) -> Ruling:
    """Apply ``item``'s human verdict to its ruling_candidates; the caller checked the role."""
    with transaction.atomic():
        # Every row of the pair, the source among them, is locked in one statement in id
        # order: the order item_review, ruling_undo and run_assign also take rows in, so two
        # rulings from different rows of one pair (or a ruling and a review) cannot deadlock.
        # FOR NO KEY UPDATE lets other transactions insert rows that refer to these
        # (reviews, audit events) while the lock is held.
        pair = Item.objects.values("pair_key", "run__project_id").get(pk=item.pk)
        same_pair = Q(pk=item.pk)
        if pair["pair_key"]:
            same_pair |= Q(run__project_id=pair["run__project_id"], pair_key=pair["pair_key"])
        locked = {
            row.pk: row
            for row in Item.objects.filter(same_pair)
            .select_for_update(of=("self",), no_key=True)
            .select_related("run__project")
            .order_by("pk")
        }
        source = locked[item.pk]
        if source.final_source != Item.FinalSource.HUMAN or source.review_stage:
            raise RulingError(
                "decide this row first: a ruling applies a verdict a person gave to it"
            )
        candidates = set(ruling_candidates(item=source).values_list("pk", flat=True))
        rows = [row for pk, row in locked.items() if pk in candidates]
        if not rows:
            raise RulingError("no other row of this project has this gold and prediction undecided")
        gold, prediction = ruling_pair(item=source)
        verdict = source.final_verdict
        label = ReviewVerdict(verdict).label
        ruling = Ruling.objects.create(
            project=source.run.project,
            source_item=source,
            pair_key=source.pair_key,
            gold=gold,
            prediction=prediction,
            verdict=verdict,
            user=user,
            rows_applied=len(rows),
        )
        RulingChange.objects.bulk_create(
            [
                RulingChange(
                    ruling=ruling,
                    item_id=row.pk,
                    previous_verdict=row.final_verdict,
                    previous_source=row.final_source,
                    version_after=row.version + 1,
                )
                for row in rows
            ],
            batch_size=2000,
        )
        Review.objects.bulk_create(
            [
                Review(
                    item_id=row.pk,
                    annotator=user,
                    verdict=verdict,
                    kind=Review.Kind.RULING,
                    ruling=ruling,
                    note=f"Ruling {ruling.pk}, made on row {source.row_number} of "
                    f"“{source.run.name}”",
                )
                for row in rows
            ],
            batch_size=2000,
        )
        Item.objects.filter(pk__in=[row.pk for row in rows]).update(
            final_verdict=verdict, final_source=Item.FinalSource.HUMAN, version=F("version") + 1
        )
        audit_record(
            Action.RULING,
            actor=user,
            project=source.run.project,
            run=source.run,
            item=source,
            summary=f"Ruling {ruling.pk}: “{label}” for gold {gold} with prediction "
            f"{prediction}, applied to {len(rows)} other rows",
            data={"ruling": ruling.pk, "verdict": verdict, "rows": len(rows)},
        )
        audit_record_many(
            audit_event(
                Action.VERDICT,
                actor=user,
                project=source.run.project,
                run=row.run,
                item=row,
                summary=f"Row {row.row_number}: “{label}” by ruling {ruling.pk} (made on row "
                f"{source.row_number} of “{source.run.name}”)",
                data=verdict_change_data(
                    before=row.final_verdict,
                    after=verdict,
                    source=Item.FinalSource.HUMAN,
                    ruling=ruling.pk,
                ),
            )
            for row in rows
        )
    return ruling


def ruling_undo(*, ruling: Ruling, user) -> Ruling:
    """Put back the rows the ruling decided, except those someone has changed since; returns
    the ruling with ``rows_restored`` set."""
    with transaction.atomic():
        ruling = (
            Ruling.objects.select_for_update(of=("self",), no_key=True)
            .select_related("project", "source_item__run")
            .get(pk=ruling.pk)
        )
        if ruling.undone_at is not None:
            raise RulingError(f"ruling {ruling.pk} was already undone")
        changes = {change.item_id: change for change in ruling.changes.all()}
        rows = list(
            Item.objects.select_for_update(of=("self",), no_key=True)
            .select_related("run")
            .filter(pk__in=list(changes))
            .order_by("pk")
            .only("pk", "row_number", "final_verdict", "version", "run__name")
        )
        restored = [row for row in rows if row.version == changes[row.pk].version_after]
        # One UPDATE per earlier state (usually one or two), not one per row.
        by_state = defaultdict(list)
        for row in restored:
            change = changes[row.pk]
            by_state[(change.previous_verdict, change.previous_source)].append(row.pk)
        for (verdict, source), item_ids in by_state.items():
            Item.objects.filter(pk__in=item_ids).update(
                final_verdict=verdict, final_source=source, version=F("version") + 1
            )
        Review.objects.filter(ruling=ruling, item_id__in=[row.pk for row in restored]).delete()
        ruling.undone_at = timezone.now()
        ruling.undone_by = user
        ruling.rows_restored = len(restored)
        ruling.save(update_fields=["undone_at", "undone_by", "rows_restored"])
        kept = len(changes) - len(restored)
        audit_record(
            Action.RULING_UNDO,
            actor=user,
            project=ruling.project,
            run=ruling.source_item.run if ruling.source_item else None,
            item=ruling.source_item,
            summary=f"Ruling {ruling.pk} undone: {len(restored)} rows put back"
            + (f", {kept} kept because someone changed them since" if kept else ""),
            data={"ruling": ruling.pk, "restored": len(restored), "kept": kept},
        )
        audit_record_many(
            audit_event(
                Action.VERDICT,
                actor=user,
                project=ruling.project,
                run=row.run,
                item=row,
                summary=f"Row {row.row_number}: ruling {ruling.pk} undone, back to "
                + _state_text(changes[row.pk]),
                data=verdict_change_data(
                    before=ruling.verdict,
                    after=changes[row.pk].previous_verdict,
                    source=changes[row.pk].previous_source,
                    ruling=ruling.pk,
                ),
            )
            for row in restored
        )
    return ruling


def _state_text(change: RulingChange) -> str:
    """What a row was before a ruling, for the trail: "“Incorrect” (auto)"."""
    if not change.previous_verdict:
        return "no verdict"
    label = ReviewVerdict(change.previous_verdict).label
    return f"“{label}” ({change.previous_source or 'no source'})"


def rulings_undoable_by(*, user, role: str | None, ruling_ids) -> set[int]:
    """Which of these rulings ``user`` may undo now (access.ruling_for's rule, for a list)."""
    rulings = Ruling.objects.filter(pk__in=[pk for pk in ruling_ids if pk], undone_at=None)
    if not access.allows(role, access.RULE):
        return set()
    if not access.allows(role, access.ADJUDICATE):
        rulings = rulings.filter(user=user)
    return set(rulings.values_list("pk", flat=True))
