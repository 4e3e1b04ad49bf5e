"""Runs: creating one from a stored upload (validated whole, inserted in bulk, graded after
commit) and grading it again with other evaluators."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import partial

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from grading.evaluators import AVAILABLE, DEFAULT_EVALUATORS
from grading.reader import read_rows
from reviewer.audit import Action, audit_record
from reviewer.models import Item, Project, Run
from reviewer.services.grading import grading_enqueue
from reviewer.services.items_insert import items_insert
from reviewer.services.msu import msu_enqueue
from reviewer.services.upload_store import upload_get, upload_limits

logger = logging.getLogger(__name__)
MAX_SKIPPED_KEPT = 10_000  # lines listed on a run; the count in the audit event is exact


class DuplicateRunError(Exception):
    """This file is already a run of the project; ``run`` is that run."""

    def __init__(self, *, run: Run):
        self.run = run
        super().__init__(f"this file was already uploaded to the project as run {run.pk}")


class UnknownEvaluatorsError(ValueError):
    pass


def run_create(
    *,
    project: Project,
    user,
    upload_token: str,
    mapping: dict[str, str],
    name: str,
    model_name: str = "",
    dataset: str = "",
    evaluators: Sequence[str] | None = None,
    delimiter: str | None = None,
    encoding: str | None = None,
    skip_bad_lines: bool = False,
) -> Run:
    """Validate every row of a stored upload, store them as a run of ``project`` and enqueue
    its grading; reviewer.services.uploads.run_upload is the path from a request to here.

    With ``skip_bad_lines``, rows with a problem are left out and kept on the run as
    ``skipped_lines``. With no ``model_name``, a mapped model column holding one value names
    the run's model. Raises IngestError (nothing is stored) or DuplicateRunError (same file,
    same project).
    """
    stored = upload_get(token=upload_token)
    evaluator_names = checked_evaluators(evaluators)
    existing = Run.objects.filter(project=project, source_sha256=stored.sha256).first()
    if existing is not None:
        raise DuplicateRunError(run=existing)
    with transaction.atomic():
        try:
            with transaction.atomic():
                run = Run.objects.create(
                    project=project,
                    name=name.strip() or stored.filename,
                    model_name=model_name,
                    dataset=dataset,
                    uploaded_by=user,
                    source_filename=stored.filename,
                    source_sha256=stored.sha256,
                    column_mapping=dict(mapping),
                    evaluators=evaluator_names,
                    grading_queued_at=timezone.now(),
                )
        except IntegrityError:
            # A concurrent upload of the same file (double click, client retry) won the race.
            run = Run.objects.get(project=project, source_sha256=stored.sha256)
            raise DuplicateRunError(run=run) from None
        skipped: list[tuple[int, str]] | None = [] if skip_bad_lines else None
        rows = read_rows(
            stored.path,
            mapping=mapping,
            delimiter=delimiter,
            max_field_bytes=settings.MATHJURY_MAX_FIELD_BYTES,
            encoding=encoding,
            skipped=skipped,
            limits=upload_limits(),
        )
        run.total_rows = items_insert(run_id=run.pk, rows=rows)
        run.skipped_lines = [
            {"line": line, "problem": problem} for line, problem in (skipped or [])
        ][:MAX_SKIPPED_KEPT]
        if not run.model_name and mapping.get("model"):
            models = list(run.items.order_by().values_list("model_name", flat=True).distinct()[:2])
            if len(models) == 1 and models[0].strip():
                run.model_name = models[0].strip()[:200]
        run.save(update_fields=["total_rows", "skipped_lines", "model_name"])
        audit_record(
            Action.UPLOAD,
            actor=user,
            project=project,
            run=run,
            summary=f"Run “{run.name}” uploaded from {run.source_filename}: "
            f"{run.total_rows} rows, graded by {', '.join(evaluator_names)}",
            data={
                "file": run.source_filename,
                "sha256": run.source_sha256,
                "rows": run.total_rows,
                "evaluators": evaluator_names,
                "skipped_lines": len(skipped or []),
            },
        )
        transaction.on_commit(partial(grading_enqueue, run_id=run.pk, generation=1))
        if mapping.get("solution"):
            transaction.on_commit(partial(msu_enqueue, run_id=run.pk))
    logger.info("run %s created by %s: %s rows", run.pk, user, run.total_rows)
    return run


def run_regrade(*, run: Run, evaluators: Sequence[str], user) -> Run:
    """Grade the run again with ``evaluators``; human reviews are kept as they are."""
    evaluator_names = checked_evaluators(evaluators)
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run.pk)
        run.grading_generation += 1
        run.evaluators = evaluator_names
        run.status = Run.Status.QUEUED
        run.grading_queued_at = timezone.now()
        run.grading_started_at = None
        run.grading_finished_at = None
        run.error_message = ""
        run.save()
        Item.objects.filter(run=run).update(grade_state=Item.GradeState.PENDING, grade_attempts=0)
        audit_record(
            Action.REGRADE,
            actor=user,
            project=run.project,
            run=run,
            summary=f"Run “{run.name}” re-graded with {', '.join(evaluator_names)}",
            data={"evaluators": evaluator_names, "generation": run.grading_generation},
        )
        transaction.on_commit(
            partial(grading_enqueue, run_id=run.pk, generation=run.grading_generation)
        )
    logger.info("run %s re-graded by %s with %s", run.pk, user, ", ".join(evaluator_names))
    return run


def checked_evaluators(evaluators: Sequence[str] | None) -> list[str]:
    """The evaluators by name, each once (all by default); UnknownEvaluatorsError otherwise."""
    names = list(dict.fromkeys(evaluators)) if evaluators is not None else list(DEFAULT_EVALUATORS)
    unknown = [name for name in names if name not in AVAILABLE]
    if unknown or not names:
        raise UnknownEvaluatorsError(
            f"unknown evaluator(s) {', '.join(unknown) or '(none chosen)'}; "
            f"available: {', '.join(AVAILABLE)}"
        )
    return names
