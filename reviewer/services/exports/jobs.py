"""Export jobs: started by a person or a pipeline, written by a Celery task from one snapshot
of the run, downloaded later; and small exports streamed at once without a job."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.utils import timezone

from reviewer import access
from reviewer.audit import Action, audit_record
from reviewer.celery import app as celery_app
from reviewer.models import Evaluation, Export, Run
from reviewer.selectors import ItemFilters
from reviewer.services.exports import dataset_card, formats
from reviewer.services.exports.errata import ErrataSpool
from reviewer.services.exports.errors import ExportTooLargeToStreamError
from reviewer.services.exports.rows import (
    CARD_JSON,
    CARD_MD,
    ROWS_PER_QUERY,
    export_file_name,
    export_filters_data,
    export_filters_from,
    export_filters_text,
    export_items,
    export_records,
    export_schema,
)

logger = logging.getLogger(__name__)

EXPORT_WRITE_TASK = "reviewer.export_run"  # reviewer.tasks.export_run_task


@dataclass(frozen=True)
class StreamedExport:
    filename: str
    content_type: str
    chunks: Iterator[bytes]


def export_stream(
    *, run: Run, user, format: str, variant: str, filters: ItemFilters
) -> StreamedExport:
    """A small export as a stream of bytes, for a direct download without a job.

    Raises ExportTooLargeToStreamError past MATHJURY_EXPORT_STREAM_MAX_ROWS matching rows.
    """
    items = export_items(run=run, filters=filters)
    rows = items.count()
    limit = settings.MATHJURY_EXPORT_STREAM_MAX_ROWS
    if rows > limit:
        raise ExportTooLargeToStreamError(rows=rows, limit=limit)
    _export_audit(run=run, user=user, format=format, variant=variant, filters=filters, rows=rows)
    schema = export_schema(run=run)
    return StreamedExport(
        filename=export_file_name(run=run, format=format, variant=variant),
        content_type=formats.CONTENT_TYPES[format],
        chunks=_streamed_in_snapshot(
            items=items,
            schema=schema,
            format=format,
            spreadsheet_safe=variant == Export.Variant.SPREADSHEET,
        ),
    )


def _streamed_in_snapshot(*, items, schema, format: str, spreadsheet_safe: bool):
    """The export's bytes, every batch read from the one snapshot opened at the first chunk
    (rows are read ROWS_PER_QUERY at a time, so without it a review saved mid-download could
    show a row's old verdict beside its new review)."""
    with _snapshot():
        yield from formats.encode_records(
            export_records(
                items=items, schema=schema, format=format, spreadsheet_safe=spreadsheet_safe
            ),
            schema,
            format=format,
            spreadsheet_safe=spreadsheet_safe,
        )


def export_start(
    *,
    run: Run,
    user,
    format: str,
    variant: str,
    filters: ItemFilters,
    in_background: bool = True,
) -> Export:
    """Record an export job and send it to a worker once the record is committed; without
    ``in_background`` the caller writes it with ``export_write`` (the command line)."""
    if format not in Export.Format.values:
        raise ValueError(f"unknown format {format!r}; choose one of {Export.Format.values}")
    if variant not in Export.Variant.values:
        raise ValueError(f"unknown variant {variant!r}; choose one of {Export.Variant.values}")
    with transaction.atomic():
        job = Export.objects.create(
            run=run,
            user=user,
            format=format,
            variant=variant if format == Export.Format.CSV else Export.Variant.RAW,
            filters=export_filters_data(filters),
        )
        _export_audit(
            run=run, user=user, format=format, variant=job.variant, filters=filters, job=job
        )
        if in_background:
            transaction.on_commit(partial(_export_enqueue, export_id=job.pk))
    logger.info("export %s of run %s started by %s", job.pk, run.pk, user)
    return job


def _export_audit(
    *,
    run: Run,
    user,
    format: str,
    variant: str,
    filters: ItemFilters,
    job: Export | None = None,
    rows: int | None = None,
) -> None:
    what = export_filters_text(export_filters_data(filters))
    how = f"export {job.pk}" if job else f"download of {rows} rows"
    audit_record(
        Action.EXPORT,
        actor=user,
        project=run.project,
        run=run,
        summary=f"Run “{run.name}” exported as {format} ({variant}), {how}: {what}",
        data={
            "format": format,
            "variant": variant,
            "filters": export_filters_data(filters),
            "export": job.pk if job else None,
            "rows": rows,
        },
    )


def export_write(*, export_id: int) -> Export:
    """Write an export's data, gold errata and dataset card from one snapshot of the run, if
    the user who asked for it may still export (an export with no user is the command line's).

    Safe to run again (a re-delivered task rewrites the same files); a finished export is left
    as it is. Progress is committed on a second connection while the snapshot stays open.
    """
    job = Export.objects.select_related("run__project", "user").get(pk=export_id)
    if job.status == Export.Status.DONE:
        return job
    # Checked again when the work starts: the user may have lost the role since asking.
    if job.user is not None and not access.allows(
        access.role_in(job.user, job.run.project), access.EXPORT
    ):
        Export.objects.filter(pk=job.pk).update(
            status=Export.Status.FAILED,
            error_message=f"{job.user.username} may no longer export this project's runs.",
            finished_at=timezone.now(),
        )
        logger.warning("export %s refused: %s may no longer export", job.pk, job.user)
        job.refresh_from_db()
        return job
    Export.objects.filter(pk=job.pk).update(
        status=Export.Status.RUNNING, started_at=timezone.now(), rows_done=0, error_message=""
    )
    folder = Path(settings.MATHJURY_EXPORT_DIR) / str(job.pk)
    run, filters = job.run, export_filters_from(job.filters)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with _snapshot(), _progress(job.pk) as progress:
            items = export_items(run=run, filters=filters)
            rows_total = items.count()
            progress(0, rows_total)
            schema = export_schema(run=run)
            tally = dataset_card.CardTally(evaluators=schema.evaluators)
            file_name = export_file_name(run=run, format=job.format, variant=job.variant)
            written = partial(
                export_records,
                schema=schema,
                format=job.format,
                spreadsheet_safe=job.variant == Export.Variant.SPREADSHEET,
            )
            # Closed before the snapshot ends, even on an error: a COPY left half-read
            # would make the rollback wait for ever.
            with closing(written(items=items)) as records, closing(ErrataSpool()) as errata:
                rows = tally.counted_records(records, schema.columns)
                rows = errata.picking(rows, schema.columns)
                rows = _reporting(rows, progress, rows_total)
                _write(folder / file_name, job, rows, schema)
                errata_name = ""
                if tally.final["gold_wrong"]:
                    errata_name = export_file_name(
                        run=run, format=job.format, variant=job.variant, errata=True
                    )
                    _write(folder / errata_name, job, errata.rows(), schema)
            card = tally.card(
                about=_card_about(job, rows_total), evaluator_versions=_evaluator_versions(run)
            )
            card["files"] = {"data": file_name, "gold_errata": errata_name or None}
    except Exception as exc:
        Export.objects.filter(pk=job.pk).update(
            status=Export.Status.FAILED,
            error_message=f"{type(exc).__name__}: {exc}"[:2000],
            finished_at=timezone.now(),
        )
        logger.exception("export %s failed", job.pk)
        raise
    _replace(folder / CARD_JSON, dataset_card.card_json(card))
    _replace(folder / CARD_MD, dataset_card.card_markdown(card).encode())
    Export.objects.filter(pk=job.pk).update(
        status=Export.Status.DONE,
        rows_done=tally.rows,
        rows_total=rows_total,
        errata_rows=tally.final["gold_wrong"],
        file_name=file_name,
        errata_file_name=errata_name,
        card=card,
        finished_at=timezone.now(),
    )
    job.refresh_from_db()
    logger.info("export %s done: %s rows", job.pk, tally.rows)
    return job


@contextmanager
def _snapshot():
    """One consistent view of the run for the whole export, while reviewers keep saving.

    PostgreSQL: a REPEATABLE READ, READ ONLY transaction. Inside a caller's transaction, that
    transaction is the snapshot. SQLite (development) has no such level; its exports read
    committed rows as they go.
    """
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


@contextmanager
def _progress(export_id: int):
    """``report(done, total)`` writing through its own autocommit connection, so pollers see
    progress while the export's snapshot transaction is still open.

    SQLite inside a caller's transaction, which no poller sees before it commits: progress
    goes through the caller's connection, as a second connection would wait for that
    transaction's write lock until it timed out. (On PostgreSQL the export's own snapshot is a
    transaction, read-only, so progress always has its own connection there.)"""
    table = Export._meta.db_table
    if connection.vendor == "sqlite" and connection.in_atomic_block:
        side = connection
    else:
        side = connections.create_connection(DEFAULT_DB_ALIAS)

    def report(done: int, total: int) -> None:
        with side.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} SET rows_done = %s, rows_total = %s WHERE id = %s",  # noqa: S608
                [done, total, export_id],
            )

    try:
        yield report
    finally:
        if side is not connection:
            side.close()


def _reporting(rows, report, total: int):
    """The rows (records, or rows the database wrote), reporting progress as they pass."""
    if isinstance(rows, formats.WrittenRows):
        return rows.passing(partial(_reporting, report=report, total=total))
    return _reported(rows, report, total)


def _reported(rows: Iterator[tuple], report, total: int) -> Iterator[tuple]:
    done = 0
    for row in rows:
        done += 1
        if done % ROWS_PER_QUERY == 0:
            report(done, total)
        yield row


def _write(path: Path, job: Export, rows: Iterator[tuple], schema: formats.DatasetSchema) -> None:
    """Write to a temporary name and rename, so a download never sees half a file."""
    partial_path = path.with_name(path.name + ".part")
    with partial_path.open("wb") as target:
        for chunk in formats.encode_records(
            rows,
            schema,
            format=job.format,
            spreadsheet_safe=job.variant == Export.Variant.SPREADSHEET,
        ):
            target.write(chunk)
    os.replace(partial_path, path)


def _replace(path: Path, data: bytes) -> None:
    partial_path = path.with_name(path.name + ".part")
    partial_path.write_bytes(data)
    os.replace(partial_path, path)


def _card_about(job: Export, rows_total: int) -> dict:
    run = job.run
    return {
        "run": {
            "id": run.pk,
            "name": run.name,
            "project": run.project.name,
            "model": run.model_name,
            "dataset": run.dataset,
            "source_filename": run.source_filename,
            "source_sha256": run.source_sha256,
            "evaluators": list(run.evaluators),
            "total_rows": run.total_rows,
        },
        "export": {
            "id": job.pk,
            "format": job.format,
            "variant": job.variant,
            "filters": job.filters,
            "filters_text": export_filters_text(job.filters),
            "rows": rows_total,
            "created_at": job.created_at.isoformat(),
            "written_at": timezone.now().isoformat(),
        },
    }


def _evaluator_versions(run: Run) -> dict[str, list[str]]:
    pairs = (
        Evaluation.objects.filter(item__run=run)
        .values_list("evaluator", "evaluator_version")
        .distinct()
        .order_by("evaluator", "evaluator_version")
    )
    versions: dict[str, list[str]] = {}
    for name, version in pairs:
        versions.setdefault(name, []).append(version)
    return versions


def _export_enqueue(*, export_id: int) -> None:
    """Send the export's task by name (called after commit)."""
    celery_app.send_task(EXPORT_WRITE_TASK, args=(export_id,))
