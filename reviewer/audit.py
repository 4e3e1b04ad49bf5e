"""The audit trail: every change a person makes (and the system's re-grades) is written here
in the transaction that makes it, and read back for an item's or a project's history."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q, QuerySet

from reviewer import access
from reviewer.models import AuditEvent, Item, Project, Run

Action = AuditEvent.Action


def audit_event(
    action: str,
    *,
    actor,
    project: Project | None,
    summary: str,
    run: Run | None = None,
    item: Item | None = None,
    data: dict | None = None,
) -> AuditEvent:
    """An unsaved event; ``actor`` None is the system (a worker, or an operator's command)."""
    return AuditEvent(
        action=action,
        actor=actor if actor is not None and actor.is_authenticated else None,
        actor_name=actor.get_username() if actor is not None and actor.is_authenticated else "",
        project=project,
        project_name=project.name if project else "",
        run=run,
        item_id=item.pk if item is not None else None,
        summary=summary,
        data=data or {},
    )


def audit_record(action: str, **fields) -> AuditEvent:
    """Write one event (see audit_event for the fields)."""
    event = audit_event(action, **fields)
    event.save()
    return event


def audit_record_many(events: Iterable[AuditEvent]) -> int:
    """Write many events in batches; returns how many."""
    return len(AuditEvent.objects.bulk_create(list(events), batch_size=2000))


def verdict_change_data(*, before: str, after: str, source: str, **extra) -> dict:
    """The data of an event that changes a row's final verdict: ``after`` is always what the
    row's final verdict became, which is what the trail's last word on a row must match."""
    return {"before": before, "after": after, "source": source, **extra}


def item_events(*, item: Item, user, role: str | None) -> QuerySet[AuditEvent]:
    """The item's events, newest first, as ``user`` may see them: others' blind verdicts stay
    hidden while the item's blind double review is open."""
    events = AuditEvent.objects.filter(item_id=item.pk)
    if not access.sees_others_verdicts(item=item, role=role):
        events = events.exclude(Q(action=Action.BLIND_VERDICT) & ~Q(actor_id=user.pk))
    return events


def project_events(
    *, project: Project, user, role: str | None, run_id: int | None = None, action: str = ""
) -> QuerySet[AuditEvent]:
    """The project's events, newest first; for those who do not adjudicate, other people's
    blind verdicts on rows still under blind review are left out."""
    events = AuditEvent.objects.filter(project_id=project.pk)
    if run_id is not None:
        events = events.filter(run_id=run_id)
    if action:
        events = events.filter(action=action)
    if not access.allows(role, access.ADJUDICATE):
        still_blind = Item.objects.filter(
            run__project_id=project.pk, review_stage=Item.ReviewStage.BLIND
        ).values("pk")
        events = events.exclude(
            Q(action=Action.BLIND_VERDICT) & Q(item_id__in=still_blind) & ~Q(actor_id=user.pk)
        )
    return events
