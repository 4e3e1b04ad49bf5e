"""Celery tasks: thin, idempotent wrappers that load ids and call services."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from grading.batch import grade_many, shared_pool
from grading.types import Sample
from reviewer import services
from reviewer.models import Item, Run
from reviewer.services import exports


@shared_task(name="reviewer.grade_chunk")
def grade_chunk(run_id: int, generation: int, item_ids: list[int]) -> int:
    """Grade one chunk of a run's items; a re-delivered or stale task writes nothing twice.

    If an earlier delivery died (some item already has an attempt), rows are graded one at a
    time, so only a row that really kills the worker runs out of attempts.
    """
    run = Run.objects.filter(pk=run_id).only("grading_generation", "evaluators").first()
    if run is None or run.grading_generation != generation:
        return 0
    pending = list(
        Item.objects.filter(
            run_id=run_id, pk__in=item_ids, grade_state=Item.GradeState.PENDING
        ).values_list("pk", "grade_attempts")
    )
    retried = any(attempts for _, attempts in pending)
    ids = [pk for pk, _ in pending]
    groups = [[pk] for pk in ids] if retried else [ids]
    saved = 0
    for group in groups:
        items = services.grading_attempt_start(run_id=run_id, generation=generation, item_ids=group)
        if not items:
            continue
        graded = grade_many(
            [Sample(i.gold, i.output, i.finish_reason, i.problem) for i in items],
            evaluators=run.evaluators,
            timeout=settings.MATHJURY_GRADING_TIMEOUT,
            pool=shared_pool(
                settings.MATHJURY_GRADING_WORKERS,
                timeout=settings.MATHJURY_GRADING_TIMEOUT,
                memory_mb=settings.MATHJURY_GRADING_MEMORY_MB,
            ),
        )
        saved += services.grading_results_save(
            run_id=run_id,
            generation=generation,
            results=[(item.pk, result) for item, result in zip(items, graded, strict=True)],
        )
    services.run_finish_if_done(run_id=run_id, generation=generation)
    return saved


@shared_task(name="reviewer.export_run")
def export_run_task(export_id: int) -> int:
    """Write one export's files; a re-delivered task writes them again, a finished one nothing."""
    return exports.export_write(export_id=export_id).rows_done
