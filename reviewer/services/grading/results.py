"""Grading a run's rows in the database: counting attempts (and quarantining rows that keep
killing their worker), saving results idempotently, and finishing the run."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from functools import partial

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, DateTimeField, F, JSONField, Q
from django.utils import timezone

from grading.pairs import pair_key_of
from grading.types import GradedSample
from reviewer.audit import Action, audit_event, audit_record, audit_record_many, verdict_change_data
from reviewer.models import Evaluation, EvaluatorScore, Item, Run, evaluator_scores_text
from reviewer.services.grading.chunks import chunk_lease_take

logger = logging.getLogger(__name__)

# The item columns a result sets (besides the final verdict, which a human decision keeps).
_ITEM_RESULT_FIELDS = (
    "grade_state",
    "graded_generation",
    "graded_at",
    "answer_type",
    "auto_verdict",
    "needs_review",
    "evaluators_disagree",
    "review_reasons",
    "evaluator_scores",
    "pair_key",
)
_EVALUATION_FIELDS = (
    "evaluator_version",
    "status",
    "verdict",
    "extracted",
    "extracted_latex",
    "gold_latex",
    "ms",
    "signals",
    "detail",
)


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
        run = Run.objects.select_for_update().get(pk=run_id)
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
            run.status = Run.Status.GRADING
            run.grading_started_at = timezone.now()
            run.save(update_fields=["status", "grading_started_at"])
    return to_grade


def grading_results_save(
    *, run_id: int, generation: int, results: list[tuple[int, GradedSample]]
) -> int:
    """Upsert the evaluations and the jury's result of graded items; returns how many saved.

    Safe to repeat (a re-delivered task writes the same rows again), writes nothing for an
    earlier generation, and leaves human decisions alone. Two statements, each prepared once
    and executed per row, whatever the batch's size.
    """
    if not results:
        return 0
    now = timezone.now()
    with transaction.atomic():
        run = Run.objects.select_for_update(of=("self",)).select_related("project").get(pk=run_id)
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
        _items_update(
            [
                (
                    item_id,
                    {
                        "grade_state": Item.GradeState.GRADED,
                        "graded_generation": generation,
                        "graded_at": now,
                        "answer_type": str(graded.answer_type),
                        "auto_verdict": str(graded.auto_verdict),
                        "needs_review": graded.needs_review,
                        "evaluators_disagree": any(
                            r.code == "evaluators_disagree" for r in graded.review_reasons
                        ),
                        "review_reasons": [r.to_dict() for r in graded.review_reasons],
                        "evaluator_scores": evaluator_scores_text(
                            {
                                e.evaluator: EvaluatorScore.of_result(
                                    status=e.status, verdict=e.verdict or ""
                                )
                                for e in graded.evaluations
                            }
                        ),
                        "pair_key": pair_key_of(golds[item_id], graded.evaluations),
                    },
                )
                for item_id, graded in results
            ]
        )
        if generation > 1:  # only a re-grade can leave evaluators the run no longer uses
            Evaluation.objects.filter(item_id__in=item_ids).exclude(
                evaluator__in=run.evaluators
            ).delete()
        _evaluations_upsert(
            [
                (
                    item_id,
                    e.evaluator,
                    {
                        "evaluator_version": e.version,
                        "status": str(e.status),
                        "verdict": str(e.verdict) if e.verdict else "",
                        "extracted": e.extracted,
                        "extracted_latex": e.extracted_latex,
                        "gold_latex": e.gold_latex,
                        "ms": e.ms,
                        "signals": list(e.signals),
                        "detail": e.detail,
                    },
                )
                for item_id, graded in results
                for e in graded.evaluations
            ]
        )
        audit_record_many(_auto_verdict_changes(run=run, before=auto_before, results=results))
    return len(results)


def _items_update(rows: list[tuple[int, dict]]) -> None:
    """Set each item's result columns, and its final verdict unless a human decided it: one
    UPDATE per row, so a human decision committed meanwhile is never replaced."""
    quote = connection.ops.quote_name
    final_verdict, final_source = quote("final_verdict"), quote("final_source")
    human = f"{final_source} = '{Item.FinalSource.HUMAN}'"
    columns = _columns(Item, _ITEM_RESULT_FIELDS)
    assignments = [f"{quote(column)} = {placeholder}" for column, placeholder, _ in columns]
    assignments += [
        f"{final_verdict} = CASE WHEN {human} THEN {final_verdict} ELSE %s END",
        f"{final_source} = CASE WHEN {human} THEN {final_source} "
        f"ELSE '{Item.FinalSource.AUTO}' END",
    ]
    table, pk = quote(Item._meta.db_table), quote(Item._meta.pk.column)
    sql = f"UPDATE {table} SET {', '.join(assignments)} WHERE {pk} = %s"  # noqa: S608 (names from the model)
    params = [
        [prepare(values[name]) for _, _, (name, prepare) in columns]
        + [values["auto_verdict"], item_id]
        for item_id, values in rows
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


def _evaluations_upsert(rows: list[tuple[int, str, dict]]) -> None:
    """Insert each (item, evaluator) evaluation, or overwrite the one a delivery before wrote."""
    if not rows:
        return
    quote = connection.ops.quote_name
    columns = _columns(Evaluation, _EVALUATION_FIELDS)
    names = ["item_id", "evaluator", *(column for column, _, _ in columns)]
    placeholders = ["%s", "%s", *(placeholder for _, placeholder, _ in columns)]
    updates = ", ".join(f"{quote(c)} = excluded.{quote(c)}" for c, _, _ in columns)
    table, values = quote(Evaluation._meta.db_table), ", ".join(placeholders)
    sql = f"INSERT INTO {table} ({', '.join(map(quote, names))}) VALUES ({values}) "  # noqa: S608 (names from the model)
    sql += f"ON CONFLICT (item_id, evaluator) DO UPDATE SET {updates}"
    params = [
        [item_id, evaluator, *(prepare(values[name]) for _, _, (name, prepare) in columns)]
        for item_id, evaluator, values in rows
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


def _columns(model, names: tuple[str, ...]) -> list[tuple[str, str, tuple]]:
    """(column, placeholder, (field name, prepare)) for raw statements: JSON is encoded here
    (Django's per-value preparation costs more than the statement) and cast on PostgreSQL;
    dates go through Django; text, numbers and booleans as they are."""
    columns = []
    for name in names:
        field = model._meta.get_field(name)
        placeholder, prepare = "%s", _as_is
        if isinstance(field, JSONField):
            prepare = _json
            if connection.vendor == "postgresql":
                placeholder = "%s::jsonb"
        elif isinstance(field, DateTimeField):
            prepare = partial(field.get_db_prep_save, connection=connection)
        columns.append((field.column, placeholder, (name, prepare)))
    return columns


def _as_is(value):
    return value


def _json(value) -> str:
    return json.dumps(value)  # as JSONField writes it


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
