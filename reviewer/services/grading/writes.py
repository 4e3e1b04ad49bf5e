"""Writing a batch of grading results in a few statements, whatever the batch's size.

Django's bulk_update and bulk_create spend longer building their SQL than the database spends
running it (a CASE per row and column). Here each statement is written once: on PostgreSQL it
takes the whole batch as one JSON document (``json_to_recordset``), which orjson encodes in C,
sent as a parameter apart from the statement (Django's cursors would quote the document into
the SQL in Python, about as long again); arrays, one per column, cost more than the
database's work, as psycopg quotes every element in Python. On SQLite it is prepared once and
executed per row (``executemany``, a loop in C). Rows come as tuples in the order of the
field lists below, so no row is built twice.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import orjson
from django.db import connection
from django.db.models import DateTimeField, FloatField, JSONField, Model

from reviewer.models import Evaluation, Item

ITEM_RESULT_FIELDS = (
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
EVALUATION_FIELDS = (
    "item_id",
    "evaluator",
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


@dataclass(frozen=True)
class _Column:
    name: str  # the field's attribute name (item_id for item)
    column: str
    sql_type: str  # PostgreSQL: the type its JSON value is read as
    prepare: Callable[[object], object]  # SQLite: the value as the statement takes it


def commit_without_waiting_for_disk() -> None:
    """In the current transaction, PostgreSQL's commit does not wait for the write-ahead log
    to reach the disk. Grading commits a few times a second; if the server crashed before
    the log was written, the last results and attempt counts are lost, their rows are still
    pending, and ``manage.py reconcile`` sends them again. SQLite already runs with
    ``synchronous=NORMAL`` (reviewer.settings)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


def items_results_write(rows: list[tuple]) -> None:
    """Set each item's ITEM_RESULT_FIELDS, rows being (item id, *values in that order), and
    its final verdict to the automatic one unless a human decided it: decided per row as it
    is written, so a human decision committed meanwhile is never replaced."""
    if not rows:
        return
    quote = connection.ops.quote_name
    columns = _columns(Item, ITEM_RESULT_FIELDS)
    table, pk = quote(Item._meta.db_table), quote(Item._meta.pk.column)
    if connection.vendor == "postgresql":
        sets = ", ".join(f"{quote(c.column)} = v.{quote(c.column)}" for c in columns)
        final = _final_verdict(quote, item="i.", auto_verdict=f"v.{quote('auto_verdict')}")
        record = ", ".join(
            [f"{quote('_id')} bigint"] + [f"{quote(c.column)} {c.sql_type}" for c in columns]
        )
        sql = f"UPDATE {table} AS i SET {sets}, {final} FROM json_to_recordset(%s::json) AS v({record}) WHERE i.{pk} = v.{quote('_id')}"  # noqa: S608 (names from the model)
        _execute_with_document(sql, ["_id", *(c.column for c in columns)], rows)
        return
    sets = ", ".join(f"{quote(c.column)} = %s" for c in columns)
    final = _final_verdict(quote, item="", auto_verdict="%s")
    sql = f"UPDATE {table} SET {sets}, {final} WHERE {pk} = %s"  # noqa: S608 (names from the model)
    verdict = 1 + ITEM_RESULT_FIELDS.index("auto_verdict")
    params = [[*_prepared(columns, row[1:]), row[verdict], row[0]] for row in rows]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


def _final_verdict(quote: Callable[[str], str], *, item: str, auto_verdict: str) -> str:
    """SET clauses: the automatic verdict becomes final unless the row's is a human's."""
    verdict, source = f"{item}{quote('final_verdict')}", f"{item}{quote('final_source')}"
    human = f"{source} = '{Item.FinalSource.HUMAN.value}'"
    return (
        f"{quote('final_verdict')} = CASE WHEN {human} THEN {verdict} ELSE {auto_verdict} END, "
        f"{quote('final_source')} = CASE WHEN {human} THEN {source} "
        f"ELSE '{Item.FinalSource.AUTO.value}' END"
    )


def evaluations_write(rows: list[tuple]) -> None:
    """Insert each (item, evaluator) evaluation, rows being values in the order of
    EVALUATION_FIELDS, or overwrite the one a delivery before wrote."""
    if not rows:
        return
    quote = connection.ops.quote_name
    columns = _columns(Evaluation, EVALUATION_FIELDS)
    names = ", ".join(quote(c.column) for c in columns)
    updates = ", ".join(
        f"{quote(c.column)} = excluded.{quote(c.column)}"
        for c in columns
        if c.name not in ("item_id", "evaluator")
    )
    table = quote(Evaluation._meta.db_table)
    conflict = f"ON CONFLICT (item_id, evaluator) DO UPDATE SET {updates}"
    if connection.vendor == "postgresql":
        record = ", ".join(f"{quote(c.column)} {c.sql_type}" for c in columns)
        sql = f"INSERT INTO {table} ({names}) SELECT * FROM json_to_recordset(%s::json) AS v({record}) {conflict}"  # noqa: S608 (names from the model)
        _execute_with_document(sql, [c.column for c in columns], rows)
        return
    placeholders = ", ".join(["%s"] * len(columns))
    sql = f"INSERT INTO {table} ({names}) VALUES ({placeholders}) {conflict}"  # noqa: S608 (names from the model)
    params = [_prepared(columns, row) for row in rows]
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


def _execute_with_document(sql: str, keys: list[str], rows: list[tuple]) -> None:
    """Run ``sql`` with the rows as its one parameter, a JSON array of objects by column name
    (``json_to_recordset`` reads a nested value into a jsonb column, dates as RFC 3339), bound
    by the server: a psycopg cursor of Django's connection, in its transaction, with
    Django's database errors. (psycopg is imported here, as only PostgreSQL needs it.)"""
    import psycopg

    document = _json([dict(zip(keys, row, strict=True)) for row in rows])
    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, [document])


def _prepared(columns: list[_Column], values: tuple) -> list:
    """SQLite: the values as the statement takes them."""
    return [c.prepare(v) for c, v in zip(columns, values, strict=True)]


def _json(rows: list[dict]) -> str:
    try:
        return orjson.dumps(rows).decode()
    except TypeError:  # a lone surrogate, which orjson refuses (and the database too)
        return json.dumps(rows, ensure_ascii=False, default=str)


def _columns(model: type[Model], names: tuple[str, ...]) -> list[_Column]:
    """JSON is encoded here as JSONField would (its per-value preparation costs more than the
    statement), dates go through Django, text, numbers and booleans as they are."""
    columns = []
    for name in names:
        field = model._meta.get_field(name)
        prepare: Callable[[object], object] = _as_is
        if isinstance(field, JSONField):
            prepare = json.dumps
        elif isinstance(field, DateTimeField):
            prepare = _datetime_preparer(field)
        elif isinstance(field, FloatField):
            prepare = float  # an array takes one type: 0 and 1.5 are both floats
        sql_type = field.rel_db_type(connection) if field.is_relation else field.db_type(connection)
        columns.append(_Column(name=name, column=field.column, sql_type=sql_type, prepare=prepare))
    return columns


def _datetime_preparer(field: DateTimeField) -> Callable[[object], object]:
    def prepare(value: object) -> object:
        return field.get_db_prep_save(value, connection)

    return prepare


def _as_is(value: object) -> object:
    return value
