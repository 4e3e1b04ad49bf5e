"""Exports of adjudicated runs: the reads that stream a run's rows, and the writes that run an
export job (started by a person or a pipeline, written by a Celery task, downloaded later).

The file formats themselves are in reviewer.export, which knows nothing of Django.
"""

from __future__ import annotations

import logging
import os
import re
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields, replace
from functools import partial
from itertools import islice
from pathlib import Path

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone

from reviewer import access, export
from reviewer.audit import Action, audit_record
from reviewer.models import Evaluation, Export, Item, Review, ReviewVerdict, Run
from reviewer.selectors import ItemFilters, item_filter

logger = logging.getLogger(__name__)

ROWS_PER_QUERY = 2000  # items fetched (with their evaluations and reviews) per round trip
PARTS = ("data", "errata", "card.md", "card.json")
CARD_MD = "dataset-card.md"
CARD_JSON = "dataset-card.json"
# The filters an export records; the order is always the file's, and the queues are a
# person's to-do list, not part of a dataset.
_FILTER_NAMES = tuple(
    f.name for f in fields(ItemFilters) if f.name not in ("order", "queue", "user_id")
)


class ExportTooLargeToStreamError(Exception):
    """More rows than stream in one response; start an export job instead."""

    def __init__(self, *, rows: int, limit: int):
        self.rows, self.limit = rows, limit
        super().__init__(
            f"{rows:,} rows match, more than the {limit:,} that download directly; "
            "start an export job, which runs in the background and reports its progress"
        )


class ExportNotReadyError(Exception):
    """The export's files are not written yet (or writing them failed)."""

    def __init__(self, *, export: Export):
        self.export = export
        if export.status == Export.Status.FAILED:
            message = f"export {export.pk} failed: {export.error_message}"
        else:
            message = (
                f"export {export.pk} is {export.status} ({export.rows_done:,} of "
                f"{export.rows_total:,} rows written); poll it until its status is done"
            )
        super().__init__(message)


@dataclass(frozen=True)
class StreamedExport:
    filename: str
    content_type: str
    chunks: Iterator[bytes]


# ---- reads ------------------------------------------------------------------------------


def export_list(*, run: Run) -> QuerySet[Export]:
    """The run's exports, newest first."""
    return Export.objects.filter(run=run).select_related("user").order_by("-created_at", "-id")


def export_filters_from(data: dict) -> ItemFilters:
    """ItemFilters from an export's stored filters (the table's filters, in row order)."""
    return ItemFilters(**{k: v for k, v in data.items() if k in _FILTER_NAMES}, order="row")


def export_filters_data(filters: ItemFilters) -> dict:
    """The filters that narrow the rows, as JSON data; an empty dict means every row."""
    return {k: v for k, v in asdict(filters).items() if k in _FILTER_NAMES and v not in (None, "")}


def export_filters_text(data: dict) -> str:
    if not data:
        return "all rows"
    return "; ".join(f"{name.replace('_', ' ')}: {_yes_no(v)}" for name, v in data.items())


def export_schema(*, run: Run) -> export.DatasetSchema:
    """The run's columns: its evaluators and every extra source key of any of its rows."""
    keys: set[str] = set()
    for extra in (
        Item.objects.filter(run=run).values_list("extra", flat=True).iterator(ROWS_PER_QUERY)
    ):
        keys.update(extra)
    return export.dataset_schema(evaluators=run.evaluators, extra_keys=keys)


def export_items(*, run: Run, filters: ItemFilters) -> QuerySet[Item]:
    return item_filter(run=run, filters=replace(filters, order="row"))


def export_rows(*, items: QuerySet[Item], schema: export.DatasetSchema) -> Iterator[dict]:
    """One flat dict per item, streamed from the database ROWS_PER_QUERY items at a time, each
    batch with its evaluations and reviews in two more queries, so memory stays flat.

    Plain values, not model instances: building a model per evaluation cost more than
    everything else an export does.
    """
    rows = items.values(*_ITEM_FIELDS).iterator(chunk_size=ROWS_PER_QUERY)
    while batch := list(islice(rows, ROWS_PER_QUERY)):
        ids = [item["id"] for item in batch]
        evaluations: dict[int, list[tuple]] = defaultdict(list)
        for item_id, *result in Evaluation.objects.filter(
            item_id__in=ids, evaluator__in=schema.evaluators
        ).values_list("item_id", "evaluator", "verdict", "status", "extracted"):
            evaluations[item_id].append(result)
        reviews: dict[int, list[tuple]] = defaultdict(list)  # newest first
        for item_id, *review in (
            Review.objects.filter(item_id__in=ids)
            .order_by("item_id", "-created_at", "-id")
            .values_list("item_id", "annotator__username", "note", "created_at")
        ):
            reviews[item_id].append(review)
        for item in batch:
            yield _row(item, schema, evaluations[item["id"]], reviews[item["id"]])


_ITEM_FIELDS = (
    "id",
    "run_id",
    "row_number",
    "external_id",
    "problem",
    "gold",
    "output",
    "model_name",
    "subject",
    "sample_index",
    "finish_reason",
    "extra",
    "grade_state",
    "answer_type",
    "auto_verdict",
    "needs_review",
    "review_reasons",
    "evaluators_disagree",
    "graded_at",
    "final_verdict",
    "final_source",
)


def _row(item: dict, schema: export.DatasetSchema, evaluations: list, reviews: list) -> dict:
    reviewed_by, note, reviewed_at = reviews[0] if reviews else (None, None, None)
    row = {
        "item_id": item["id"],
        "run_id": item["run_id"],
        "row_number": item["row_number"],
        "id": item["external_id"],
        "problem": item["problem"],
        "gold": item["gold"],
        "output": item["output"],
        "model": item["model_name"],
        "subject": item["subject"],
        "sample_index": item["sample_index"],
        "finish_reason": item["finish_reason"],
        "grade_state": item["grade_state"],
        "answer_type": item["answer_type"],
        "jury_verdict": item["auto_verdict"],
        "jury_needs_review": item["needs_review"],
        "jury_reasons": [reason["code"] for reason in item["review_reasons"]],
        "evaluators_disagree": item["evaluators_disagree"],
        "graded_at": item["graded_at"],
        "final_verdict": item["final_verdict"],
        "final_source": item["final_source"],
        "reviewed_by": reviewed_by,
        "review_note": note,
        "reviewed_at": reviewed_at,
        "review_count": len(reviews),
    }
    for key, value in item["extra"].items():
        row[schema.extra_columns[key]] = value
    for evaluator, verdict, status, extracted in evaluations:
        row[export.evaluator_column(evaluator, "verdict")] = verdict
        row[export.evaluator_column(evaluator, "status")] = status
        row[export.evaluator_column(evaluator, "extracted")] = extracted
    return row


def export_path(exported: Export, part: str) -> Path:
    """Where one part of a finished export is on disk: the data, the gold errata or the card."""
    folder = Path(settings.MATHJURY_EXPORT_DIR) / str(exported.pk)
    names = {
        "data": exported.file_name,
        "errata": exported.errata_file_name,
        "card.md": CARD_MD if exported.file_name else "",
        "card.json": CARD_JSON if exported.file_name else "",
    }
    if part not in names:
        raise ValueError(f"unknown part {part!r}; choose one of {', '.join(PARTS)}")
    if exported.status != Export.Status.DONE:
        raise ExportNotReadyError(export=exported)
    if not names[part]:
        raise Http404(f"Export {exported.pk} has no {part} file (no row is marked gold-wrong).")
    return folder / names[part]


def export_file_name(*, run: Run, format: str, variant: str, errata: bool = False) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", run.name.lower()).strip("-")[:60] or "run"
    suffix = ("-gold-errata" if errata else "") + (
        "-spreadsheet" if variant == "spreadsheet" else ""
    )
    return f"run-{run.pk}-{slug}{suffix}.{format}"


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
    chunks = export.encode(
        export_rows(items=items, schema=schema),
        schema,
        format=format,
        spreadsheet_safe=variant == Export.Variant.SPREADSHEET,
    )
    return StreamedExport(
        filename=export_file_name(run=run, format=format, variant=variant),
        content_type=export.CONTENT_TYPES[format],
        chunks=chunks,
    )


# ---- writes -----------------------------------------------------------------------------


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
            tally = export.CardTally(evaluators=schema.evaluators)
            file_name = export_file_name(run=run, format=job.format, variant=job.variant)
            rows = tally.counted(export_rows(items=items, schema=schema))
            _write(folder / file_name, job, _reporting(rows, progress, rows_total), schema)
            errata = items.filter(final_verdict=ReviewVerdict.GOLD_WRONG)
            errata_name = ""
            if tally.final["gold_wrong"]:
                errata_name = export_file_name(
                    run=run, format=job.format, variant=job.variant, errata=True
                )
                _write(folder / errata_name, job, export_rows(items=errata, schema=schema), schema)
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
    _replace(folder / CARD_JSON, export.card_json(card))
    _replace(folder / CARD_MD, export.card_markdown(card).encode())
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
    progress while the export's snapshot transaction is still open."""
    side = connections.create_connection(DEFAULT_DB_ALIAS)
    table = Export._meta.db_table

    def report(done: int, total: int) -> None:
        with side.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} SET rows_done = %s, rows_total = %s WHERE id = %s",  # noqa: S608
                [done, total, export_id],
            )

    try:
        yield report
    finally:
        side.close()


def _reporting(rows: Iterator[dict], report, total: int) -> Iterator[dict]:
    done = 0
    for row in rows:
        done += 1
        if done % ROWS_PER_QUERY == 0:
            report(done, total)
        yield row


def _write(path: Path, job: Export, rows: Iterator[dict], schema: export.DatasetSchema) -> None:
    """Write to a temporary name and rename, so a download never sees half a file."""
    partial_path = path.with_name(path.name + ".part")
    with partial_path.open("wb") as target:
        for chunk in export.encode(
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


def _yes_no(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _export_enqueue(*, export_id: int) -> None:
    from reviewer.tasks import export_run_task  # tasks import this module

    export_run_task.delay(export_id)
