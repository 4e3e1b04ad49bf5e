"""The rows of an export: which items, which columns, and each item as one flat dict, streamed
from the database in batches so memory stays flat; and where a finished export's files are."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import asdict, replace
from itertools import islice
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.db.models import QuerySet

from reviewer.item_filters import ROW_FILTER_NAMES, ItemFilters
from reviewer.models import Evaluation, Export, Item, Review, Run
from reviewer.models.items import RESULT_COLUMNS, UPLOAD_FIELD_COLUMNS
from reviewer.selectors import item_filter
from reviewer.services.exports import formats
from reviewer.services.exports.errors import ExportNotReadyError, ExportPartMissingError
from reviewer.services.exports.records import postgresql_extra_keys, postgresql_records
from reviewer.services.exports.row_text import postgresql_written
from reviewer.services.exports.written import WrittenRows

ROWS_PER_QUERY = 2000  # items fetched (with their evaluations and reviews) per round trip
PARTS = ("data", "errata", "card.md", "card.json")
CARD_MD = "dataset-card.md"
CARD_JSON = "dataset-card.json"


def export_list(*, run: Run) -> QuerySet[Export]:
    """The run's exports, newest first."""
    return Export.objects.filter(run=run).select_related("user").order_by("-created_at", "-id")


def export_filters_from(data: dict) -> ItemFilters:
    """ItemFilters from an export's stored filters (the table's filters, in row order)."""
    return ItemFilters(**{k: v for k, v in data.items() if k in ROW_FILTER_NAMES}, order="row")


def export_filters_data(filters: ItemFilters) -> dict:
    """The filters that narrow the rows, as JSON data; an empty dict means every row."""
    return {
        k: v for k, v in asdict(filters).items() if k in ROW_FILTER_NAMES and v not in (None, "")
    }


def export_filters_text(data: dict) -> str:
    if not data:
        return "all rows"
    return "; ".join(f"{name.replace('_', ' ')}: {_yes_no(v)}" for name, v in data.items())


def export_schema(*, run: Run) -> formats.DatasetSchema:
    """The run's columns: its evaluators and every extra source key of any of its rows."""
    keys: set[str] = set()
    if connection.vendor == "postgresql":
        keys.update(postgresql_extra_keys(run_id=run.pk))
    else:
        for extra in (
            Item.objects.filter(run=run).values_list("extra", flat=True).iterator(ROWS_PER_QUERY)
        ):
            keys.update(extra)
    return formats.dataset_schema(evaluators=run.evaluators, extra_keys=keys)


def export_items(*, run: Run, filters: ItemFilters) -> QuerySet[Item]:
    return item_filter(run=run, filters=replace(filters, order="row"))


def export_records(
    *,
    items: QuerySet[Item],
    schema: formats.DatasetSchema,
    format: str | None = None,
    spreadsheet_safe: bool = False,
) -> Iterator[tuple] | WrittenRows:
    """One record per item (a tuple in ``schema.columns`` order), streamed: on PostgreSQL by
    one COPY query (``records``), elsewhere from ``export_rows``.

    Given the file's ``format``, PostgreSQL writes the rows in it instead (``row_text``),
    which ``formats.encode_records`` turns into the same bytes.
    """
    if connection.vendor == "postgresql":
        if format is not None:
            return postgresql_written(
                items=items, schema=schema, format=format, spreadsheet_safe=spreadsheet_safe
            )
        return postgresql_records(items=items, schema=schema)
    return formats.records(export_rows(items=items, schema=schema), schema.columns)


def export_rows(*, items: QuerySet[Item], schema: formats.DatasetSchema) -> Iterator[dict]:
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


# MSU export column -> the row's ItemMsu field (docs/msu.md); None for rows without one.
MSU_EXPORT_FIELDS = {
    "msu": "msu__score",
    "msu_overlap": "msu__overlap",
    "msu_keywords_model": "msu__model_notions",
    "msu_keywords_human": "msu__human_notions",
    "msu_extractor": "msu__extractor",
    "msu_extractor_version": "msu__extractor_version",
    "msu_embedding_model": "msu__embedding_model",
}
_ITEM_FIELDS = (
    "id",
    "run_id",
    "row_number",
    *UPLOAD_FIELD_COLUMNS.values(),
    "extra",
    *RESULT_COLUMNS,
    "graded_at",
    *MSU_EXPORT_FIELDS.values(),
)
# Result columns under the names exports give them (the jury's, beside the final decision).
_EXPORT_NAMES = {
    "auto_verdict": "jury_verdict",
    "needs_review": "jury_needs_review",
    "review_reasons": "jury_reasons",
}


def _row(item: dict, schema: formats.DatasetSchema, evaluations: list, reviews: list) -> dict:
    reviewed_by, note, reviewed_at = reviews[0] if reviews else (None, None, None)
    row = {
        "item_id": item["id"],
        "run_id": item["run_id"],
        "row_number": item["row_number"],
        **{field: item[column] for field, column in UPLOAD_FIELD_COLUMNS.items()},
        **{_EXPORT_NAMES.get(column, column): item[column] for column in RESULT_COLUMNS},
        "graded_at": item["graded_at"],
        "reviewed_by": reviewed_by,
        "review_note": note,
        "reviewed_at": reviewed_at,
        "review_count": len(reviews),
        **{column: item[field] for column, field in MSU_EXPORT_FIELDS.items()},
    }
    row["jury_reasons"] = [reason["code"] for reason in item["review_reasons"]]
    for key, value in item["extra"].items():
        row[schema.extra_columns[key]] = value
    for evaluator, verdict, status, extracted in evaluations:
        row[formats.evaluator_column(evaluator, "verdict")] = verdict
        row[formats.evaluator_column(evaluator, "status")] = status
        row[formats.evaluator_column(evaluator, "extracted")] = extracted
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
        raise ExportPartMissingError(
            f"Export {exported.pk} has no {part} file (no row is marked gold-wrong)."
        )
    return folder / names[part]


def export_file_name(*, run: Run, format: str, variant: str, errata: bool = False) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", run.name.lower()).strip("-")[:60] or "run"
    # The variant is a CSV matter: JSONL and Parquet files are the same either way.
    spreadsheet = variant == "spreadsheet" and format == "csv"
    suffix = ("-gold-errata" if errata else "") + ("-spreadsheet" if spreadsheet else "")
    return f"run-{run.pk}-{slug}{suffix}.{format}"


def _yes_no(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
