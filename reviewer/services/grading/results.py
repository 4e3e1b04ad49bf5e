"""Grading a run's rows in the database: counting attempts (and quarantining rows that keep
killing their worker), saving results idempotently, and finishing the run."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from grading.pairs import pair_key_of
from grading.types import GradedSample
from reviewer.audit import Action, audit_event, audit_record, audit_record_many, verdict_change_data
from reviewer.models import (
    Evaluation,
    EvaluatorScore,
    GenerationJob,
    Item,
    Run,
    evaluator_scores_text,
)
from reviewer.services.grading.chunks import chunk_lease_take
from reviewer.services.grading.writes import (
    commit_without_waiting_for_disk,
    evaluations_write,
    items_results_write,
)

logger = logging.getLogger(__name__)

GENERATING = (GenerationJob.Status.QUEUED, GenerationJob.Status.GENERATING)


def grading_attempt_start(
    *,
    run_id: int,
    generation: int,
    item_ids: Sequence[int],
    chunk_id: int | None = None,
    holder: str = "",
) -> list[Item] | None:
    """Count an attempt on each pending item and return those to grade now.

    Committed before grading starts, so a worker that dies mid-row still leaves the count
    behind; items that already used up their attempts are quarantined instead. With
    ``chunk_id``, the chunk's lease is taken or renewed for ``holder`` in the same
    transaction; None means the lease is not ours (lost, finished or held by a live
    delivery), and nothing was counted.
    """
    with transaction.atomic():
        commit_without_waiting_for_disk()
        run = _run_locked_for_grading(run_id)
        if run.grading_generation != generation:
            return []
        if chunk_id is not None and not chunk_lease_take(chunk_id=chunk_id, holder=holder):
            return None
        items = list(
            Item.objects.filter(run_id=run_id, pk__in=item_ids, grade_state=Item.GradeState.PENDING)
            .only("pk", "gold", "output", "finish_reason", "problem", "grade_attempts")
            .order_by("row_number")
        )
        exhausted = {
            i.pk for i in items if i.grade_attempts >= settings.MATHJURY_MAX_GRADE_ATTEMPTS
        }
        if exhausted:
            Item.objects.filter(pk__in=exhausted).update(
                grade_state=Item.GradeState.QUARANTINED,
                graded_generation=generation,
                graded_at=timezone.now(),
            )
            logger.warning("run %s: quarantined items %s", run_id, sorted(exhausted))
        to_grade = [i for i in items if i.pk not in exhausted]
        Item.objects.filter(pk__in=[i.pk for i in to_grade]).update(
            grade_attempts=F("grade_attempts") + 1
        )
    if run.status == Run.Status.QUEUED:
        # After the commit: updating the run while holding its shared lock would deadlock
        # with another worker process doing the same.
        Run.objects.filter(
            pk=run_id, grading_generation=generation, status=Run.Status.QUEUED
        ).update(status=Run.Status.GRADING, grading_started_at=timezone.now())
    return to_grade


def grading_results_save(
    *, run_id: int, generation: int, results: list[tuple[int, GradedSample]]
) -> int:
    """Upsert the evaluations and the jury's result of graded items; returns how many saved.

    Safe to repeat (a re-delivered task writes the same rows again), writes nothing for an
    earlier generation, and leaves human decisions alone. Two statements whatever the batch's
    size (reviewer.services.grading.writes).
    """
    if not results:
        return 0
    now = timezone.now()
    with transaction.atomic():
        commit_without_waiting_for_disk()
        run = _run_locked_for_grading(run_id)
        if run.grading_generation != generation:
            return 0
        item_ids = [item_id for item_id, _ in results]
        stored = Item.objects.filter(pk__in=item_ids).values_list(
            "pk", "gold", "final_verdict", "final_source"
        )
        golds, auto_before = {}, {}
        for item_id, gold, final_verdict, final_source in stored:
            golds[item_id] = gold
            if final_verdict and final_source != Item.FinalSource.HUMAN:
                auto_before[item_id] = final_verdict
        results = [(item_id, graded) for item_id, graded in results if item_id in golds]
        items_results_write(
            [
                _item_row(item_id, golds[item_id], graded, generation, now)
                for item_id, graded in results
            ]
        )
        if generation > 1:  # only a re-grade can leave evaluators the run no longer uses
            Evaluation.objects.filter(item_id__in=item_ids).exclude(
                evaluator__in=run.evaluators
            ).delete()
        evaluations_write(
            [
                (
                    item_id,
                    e.evaluator,
                    e.version,
                    e.status.value,
                    e.verdict.value if e.verdict else "",
                    e.extracted,
                    e.extracted_latex,
                    e.gold_latex,
                    e.ms,
                    list(e.signals),
                    e.detail,
                )
                for item_id, graded in results
                for e in graded.evaluations
            ]
        )
        audit_record_many(_auto_verdict_changes(run=run, before=auto_before, results=results))
    return len(results)


def _item_row(item_id: int, gold: str, graded: GradedSample, generation: int, now) -> tuple:
    """The item's values in the order of writes.ITEM_RESULT_FIELDS, after its id."""
    scores = {
        e.evaluator: EvaluatorScore.of_result(status=e.status, verdict=e.verdict or "")
        for e in graded.evaluations
    }
    return (
        item_id,
        Item.GradeState.GRADED.value,
        generation,
        now,
        graded.answer_type.value,
        graded.auto_verdict.value,
        graded.needs_review,
        any(r.code == "evaluators_disagree" for r in graded.review_reasons),
        [r.to_dict() for r in graded.review_reasons],
        evaluator_scores_text(scores),
        pair_key_of(gold, graded.evaluations),
    )


def _run_locked_for_grading(run_id: int) -> Run:
    """The run, locked against a re-grade and the reconciler (which take its exclusive lock
    to change the generation or re-send rows) but not against the other worker processes
    starting and saving batches of the same run: on PostgreSQL ``FOR SHARE``; SQLite lets one
    transaction write at a time anyway."""
    if connection.vendor != "postgresql":
        return Run.objects.get(pk=run_id)
    table = connection.ops.quote_name(Run._meta.db_table)
    return Run.objects.raw(f"SELECT * FROM {table} WHERE id = %s FOR SHARE", [run_id])[0]  # noqa: S608 (the model's table)


def _auto_verdict_changes(*, run: Run, before: dict[int, str], results) -> Iterable:
    """Events for rows whose automatic final verdict a re-grade changed (a first grading only
    sets them, and the upload's event stands for that)."""
    if not before:
        return
    rows = dict(
        Item.objects.filter(pk__in=list(before), final_source=Item.FinalSource.AUTO).values_list(
            "pk", "row_number"
        )
    )
    for item_id, graded in results:
        after = str(graded.auto_verdict)
        if item_id in rows and before[item_id] != after:
            yield audit_event(
                Action.VERDICT,
                actor=None,
                project=run.project,
                run=run,
                item=Item(pk=item_id),
                summary=f"Row {rows[item_id]}: re-grading changed the automatic verdict to "
                f"“{after}”",
                data=verdict_change_data(
                    before=before[item_id],
                    after=after,
                    source=Item.FinalSource.AUTO,
                    generation=run.grading_generation,
                ),
            )


def run_finish_if_done(*, run_id: int, generation: int) -> bool:
    """Mark the run done when no item of this generation is left to grade."""
    with transaction.atomic():
        run = Run.objects.select_for_update(of=("self",)).select_related("project").get(pk=run_id)
        if run.grading_generation != generation or run.status == Run.Status.DONE:
            return run.status == Run.Status.DONE
        if run.items.filter(grade_state=Item.GradeState.PENDING).exists():
            return False
        if GenerationJob.objects.filter(run_id=run_id, status__in=GENERATING).exists():
            return False  # more rows are on their way (reviewer.services.generation_work)
        run.status = Run.Status.DONE
        run.grading_finished_at = timezone.now()
        run.save(update_fields=["status", "grading_finished_at"])
        counts = run.items.aggregate(
            flagged=Count("pk", filter=Q(needs_review=True)),
            quarantined=Count("pk", filter=Q(grade_state=Item.GradeState.QUARANTINED)),
        )
        audit_record(
            Action.GRADED,
            actor=None,
            project=run.project,
            run=run,
            summary=f"Run “{run.name}” graded: {run.total_rows} rows, {counts['flagged']} "
            f"flagged, {counts['quarantined']} could not be graded",
            data={"generation": generation, **counts},
        )
    return True
