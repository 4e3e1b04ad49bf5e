"""Inserting an upload's rows as a run's items: COPY on PostgreSQL, one prepared INSERT
executed per row elsewhere.

Both take their columns from the Item model: the upload's fields go where
``UPLOAD_FIELD_COLUMNS`` says, every other column gets the model's default. psycopg is
imported on PostgreSQL only: importing it costs about 0.2 s of CPU, which every
``manage.py import_run`` on SQLite paid before its first row.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from enum import Enum

from django.db import connection

from grading.reader import SourceRow
from reviewer.models import Item
from reviewer.models.items import UPLOAD_FIELD_COLUMNS
from reviewer.queue_order import QUEUE_STRIDE, REST
from reviewer.services.batches import batches

_INSERT_BATCH = 5000


def items_insert(*, run_id: int, rows: Iterable[SourceRow]) -> int:
    """Insert rows in large batches (COPY on PostgreSQL); returns how many."""
    if connection.vendor == "postgresql":
        return _items_copy(run_id=run_id, rows=rows)
    return _items_executemany(run_id=run_id, rows=rows)


def _item_values(run_id: int, row: SourceRow) -> dict[str, object]:
    """The columns an upload sets on a new item, by attribute name: with its place in the
    review queue, where an ungraded row goes (the trigger's value, so SQLite's trigger does
    not write the row again; migration 0011)."""
    values: dict[str, object] = {
        "run_id": run_id,
        "row_number": row.row_number,
        "source_line": row.source_line,
        "extra": row.extra,
        "queue_position": REST * QUEUE_STRIDE + row.row_number,
    }
    for field, column in UPLOAD_FIELD_COLUMNS.items():
        values[column] = row.fields[field]
    index = row.fields["sample_index"].strip()
    values["sample_index"] = int(index) if index else None
    return values


def _items_copy(*, run_id: int, rows: Iterable[SourceRow]) -> int:
    """COPY is several times faster than multi-row INSERT for large uploads."""
    from psycopg.types.json import Jsonb

    columns = [field for field in Item._meta.concrete_fields if not field.primary_key]
    defaults = {field.attname: _copy_value(field.get_default()) for field in columns}
    count = 0
    with connection.cursor() as cursor:
        # lz4 compresses long outputs several times faster than the default pglz (PostgreSQL
        # 14+, when built with lz4); it more than doubles the insert rate of long outputs.
        cursor.execute(
            "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' "
            "AND 'lz4' = ANY(enumvals)"
        )
        if cursor.fetchone():
            cursor.execute("SET LOCAL default_toast_compression = 'lz4'")
        names = ", ".join(field.column for field in columns)
        copy_sql = f"COPY {Item._meta.db_table} ({names}) FROM STDIN"
        with cursor.cursor.copy(copy_sql) as copy:
            for row in rows:
                values = _item_values(run_id, row)
                values["extra"] = Jsonb(row.extra)
                copy.write_row(
                    [
                        values[f.attname] if f.attname in values else defaults[f.attname]
                        for f in columns
                    ]
                )
                count += 1
    return count


def _items_executemany(*, run_id: int, rows: Iterable[SourceRow]) -> int:
    """One INSERT prepared once (bulk_create spends longer building its SQL than SQLite
    spends running it)."""
    columns = [field for field in Item._meta.concrete_fields if not field.primary_key]
    defaults = {field.attname: _insert_value(field) for field in columns}
    quote = connection.ops.quote_name
    names, values = ", ".join(quote(f.column) for f in columns), ", ".join(["%s"] * len(columns))
    sql = f"INSERT INTO {quote(Item._meta.db_table)} ({names}) VALUES ({values})"  # noqa: S608 (names from the model)
    count = 0
    with connection.cursor() as cursor:
        for batch in batches(rows, _INSERT_BATCH):
            params = []
            for row in batch:
                values = _item_values(run_id, row)
                values["extra"] = json.dumps(row.extra)
                params.append([values.get(f.attname, defaults[f.attname]) for f in columns])
            cursor.executemany(sql, params)
            count += len(batch)
    return count


def _insert_value(field) -> object:
    """A model default as a parameter of a plain INSERT."""
    value = _plain(field.get_default())
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return field.get_db_prep_save(value, connection)


def _copy_value(value: object) -> object:
    """A model default as COPY takes it: JSON wrapped, choices as their plain value."""
    from psycopg.types.json import Jsonb

    value = _plain(value)
    return Jsonb(value) if isinstance(value, (dict, list)) else value


def _plain(value: object) -> object:
    """Choices as their plain value."""
    return value.value if isinstance(value, Enum) else value
