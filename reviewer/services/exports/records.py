"""An export's records read straight from PostgreSQL: one query builds every column of every
row (evaluations pivoted, the newest review joined) and ``COPY … TO STDOUT`` streams it in
binary, so a row costs no model, no dict and no second round trip.

The records are exactly what ``formats.records`` makes of ``rows.export_rows``'s dicts (the
portable path, which SQLite uses); tests/reviewer/test_export_records.py holds them equal.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import QuerySet

from reviewer.models import Evaluation, Item, ItemMsu, Review
from reviewer.models.items import UPLOAD_FIELD_COLUMNS
from reviewer.services.exports import formats

# The PostgreSQL type each column kind is read as.
_SQL_TYPES = {
    "str": "text",
    "int": "int8",
    "float": "float8",
    "bool": "bool",
    "datetime": "timestamptz",
    "list": "text[]",
}


def _notions(column: str) -> str:
    """A JSON list of notions as text[], NULL (not empty) where the row has no MSU record."""
    return (
        f"CASE WHEN m.item_id IS NULL THEN NULL "
        f"ELSE ARRAY(SELECT jsonb_array_elements_text({column})) END"
    )


# Item columns under their export names (formats.SOURCE_COLUMNS and JURY_COLUMNS).
_ITEM_COLUMNS = {
    "item_id": "i.id",
    "run_id": "i.run_id",
    "row_number": "i.row_number",
    **{field: f"i.{column}" for field, column in UPLOAD_FIELD_COLUMNS.items()},
    "grade_state": "i.grade_state",
    "answer_type": "i.answer_type",
    "jury_verdict": "i.auto_verdict",
    "jury_needs_review": "i.needs_review",
    # The reasons' codes in their stored order.
    "jury_reasons": "ARRAY(SELECT r.value ->> 'code' FROM jsonb_array_elements(i.review_reasons)"
    " WITH ORDINALITY AS r (value, n) ORDER BY r.n)",
    "evaluators_disagree": "i.evaluators_disagree",
    "graded_at": "i.graded_at",
    "final_verdict": "i.final_verdict",
    "final_source": "i.final_source",
    "reviewed_by": "rv.username",
    "review_note": "rv.note",
    "reviewed_at": "rv.created_at",
    "review_count": "coalesce(rv.reviews, 0)",
    # MSU (rows.MSU_EXPORT_FIELDS): empty where the row has no MSU record.
    "msu": "m.score",
    "msu_overlap": "m.overlap",
    "msu_keywords_model": _notions("m.model_notions"),
    "msu_keywords_human": _notions("m.human_notions"),
    "msu_extractor": "m.extractor",
    "msu_extractor_version": "m.extractor_version",
    "msu_embedding_model": "m.embedding_model",
}


@dataclass(frozen=True)
class ExportQuery:
    """The export's query in parts: each column's value as SQL of its kind's type (with its
    parameters), and the FROM … ORDER BY clause that reads the items in row order."""

    values: tuple[tuple[str, tuple], ...]  # in schema.columns order
    source: str
    source_params: tuple

    def sql(self, select: Sequence[tuple[str, Sequence]]) -> tuple[str, list]:
        """``SELECT`` the given expressions (each SQL with its parameters) over the rows."""
        params = [param for _sql, params in select for param in params]
        columns = ", ".join(sql for sql, _params in select)
        return f"SELECT {columns} {self.source}", [*params, *self.source_params]


def export_query(*, items: QuerySet[Item], schema: formats.DatasetSchema) -> ExportQuery:
    """The query giving every column of every item of ``items``, in row order."""
    extra_keys = {name: key for key, name in schema.extra_columns.items()}
    evaluator_columns = {
        formats.evaluator_column(evaluator, part): (evaluator, part)
        for evaluator in schema.evaluators
        for part, _kind in formats.EVALUATOR_FIELDS
    }
    values, pivot, pivot_params = [], [], []
    for column in schema.columns:
        kind = _SQL_TYPES[column.kind]
        if column.name in extra_keys:
            # Uploads store every extra value as text (grading.reader); ->> reads it as is.
            values.append((f"(i.extra ->> %s)::{kind}", (extra_keys[column.name],)))
        elif column.name in evaluator_columns:
            evaluator, part = evaluator_columns[column.name]
            values.append((f"(ev.c{len(pivot)})::{kind}", ()))
            pivot.append(f"max(e.{part}) FILTER (WHERE e.evaluator = %s) AS c{len(pivot)}")
            pivot_params.append(evaluator)
        else:
            values.append((f"({_ITEM_COLUMNS[column.name]})::{kind}", ()))
    chosen, chosen_params = items.order_by().values_list("pk", "row_number").query.sql_with_params()
    evaluations = Evaluation._meta.db_table
    reviews, users = Review._meta.db_table, get_user_model()._meta.db_table
    # Table names come from the models and values are parameters: no text is interpolated.
    parts = [
        f"FROM ({chosen}) AS chosen (id, row_number)",
        f"JOIN {Item._meta.db_table} i ON i.id = chosen.id",
        f"LEFT JOIN {ItemMsu._meta.db_table} m ON m.item_id = i.id",
        # The newest review decides the reviewer columns; the window counts them all.
        "LEFT JOIN LATERAL (SELECT u.username, r.note, r.created_at,",
        f"count(*) OVER () AS reviews FROM {reviews} r",  # noqa: S608
        f"LEFT JOIN {users} u ON u.id = r.annotator_id WHERE r.item_id = i.id",
        "ORDER BY r.created_at DESC, r.id DESC LIMIT 1) rv ON true",
    ]
    if pivot:
        parts.append(
            f"LEFT JOIN LATERAL (SELECT {', '.join(pivot)} FROM {evaluations} e "  # noqa: S608
            "WHERE e.item_id = i.id) ev ON true"
        )
    parts.append("ORDER BY chosen.row_number, chosen.id")
    return ExportQuery(tuple(values), " ".join(parts), (*chosen_params, *pivot_params))


def export_records_sql(
    *, items: QuerySet[Item], schema: formats.DatasetSchema
) -> tuple[str, list, list[str]]:
    """The query giving one record per item of ``items`` in row order, its parameters, and
    the type of each column."""
    query = export_query(items=items, schema=schema)
    sql, params = query.sql(query.values)
    return sql, params, [_SQL_TYPES[column.kind] for column in schema.columns]


def postgresql_records(*, items: QuerySet[Item], schema: formats.DatasetSchema) -> Iterator[tuple]:
    """The records of ``items``, streamed with one ``COPY … TO STDOUT (FORMAT binary)``.

    Reads in the caller's transaction when there is one (the export job's snapshot).
    """
    sql, params, types = export_records_sql(items=items, schema=schema)
    with connection.cursor() as cursor:
        # The plan's cost is high enough to start JIT compilation, which took longer than the
        # whole query at 20,000 rows; is_local: only this transaction (none in autocommit).
        cursor.execute("SELECT set_config('jit', 'off', true)")
        with cursor.cursor.copy(f"COPY ({sql}) TO STDOUT (FORMAT binary)", params) as copy:
            copy.set_types(types)
            yield from copy.rows()


def postgresql_extra_keys(*, run_id: int) -> list[str]:
    """Every key of the extra (unmapped) source columns of the run's items, in one query."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT jsonb_object_keys(extra) FROM {Item._meta.db_table} "  # noqa: S608
            "WHERE run_id = %s",
            [run_id],
        )
        return [key for (key,) in cursor.fetchall()]
