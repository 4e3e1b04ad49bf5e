"""File formats of adjudicated datasets: CSV (raw or spreadsheet-safe), JSONL and Parquet.

Plain Python with no Django import: rows come in as dicts keyed by column name, bytes come out
in chunks, so an export of any size is written (or streamed) with flat memory. The dataset
card that goes beside the file is in ``dataset_card``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from itertools import islice

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from reviewer.services.exports.schema import (  # noqa: F401 (re-exported: formats.Column, ...)
    DECISION_COLUMNS,
    EVALUATOR_FIELDS,
    JURY_COLUMNS,
    MSU_COLUMNS,
    SOURCE_COLUMNS,
    Column,
    DatasetSchema,
    dataset_schema,
    evaluator_column,
)
from reviewer.services.exports.written import (
    PARQUET_TYPES,
    ChunkSink,
    WrittenRows,
    written_chunks,
)

FORMATS = ("csv", "jsonl", "parquet")
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "jsonl": "application/x-ndjson; charset=utf-8",
    "parquet": "application/vnd.apache.parquet",
}
# OWASP CSV injection: a spreadsheet treats a cell starting with one of these as a formula.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\n")
_TRIGGER_SET = frozenset(FORMULA_TRIGGERS)
# A number a spreadsheet reads as a number, sign and exponent included: never a formula.
PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
ROWS_PER_CHUNK = 500  # CSV and JSONL rows per yielded chunk of bytes
ROWS_PER_GROUP = 5000  # Parquet rows per row group: the writer holds one group in memory


def encode(
    rows: Iterable[dict],
    schema: DatasetSchema,
    *,
    format: str,
    spreadsheet_safe: bool = False,
) -> Iterator[bytes]:
    """The rows as a file of ``format``, in chunks of bytes."""
    return encode_records(
        records(rows, schema.columns), schema, format=format, spreadsheet_safe=spreadsheet_safe
    )


def encode_records(
    values: Iterable[tuple],
    schema: DatasetSchema,
    *,
    format: str,
    spreadsheet_safe: bool = False,
) -> Iterator[bytes]:
    """Records (one tuple per row, in column order, of the column's type) as a file of
    ``format``, in chunks of bytes; or rows the database has already written in that format
    (``WrittenRows``), with the same bytes."""
    if isinstance(values, WrittenRows):
        if (values.format, values.spreadsheet_safe) != (
            format,
            spreadsheet_safe and format == "csv",
        ):
            raise ValueError(
                f"rows written as {values.format} (spreadsheet-safe: "
                f"{values.spreadsheet_safe}) cannot be encoded as {format}"
            )
        return written_chunks(
            values,
            schema.columns,
            header=csv_header(schema.columns, spreadsheet_safe=spreadsheet_safe),
            rows_per_chunk=ROWS_PER_CHUNK,
            rows_per_group=ROWS_PER_GROUP,
        )
    if format == "csv":
        return csv_record_chunks(values, schema.columns, spreadsheet_safe=spreadsheet_safe)
    if format == "jsonl":
        return jsonl_record_chunks(values, schema.columns)
    if format == "parquet":
        return parquet_record_chunks(values, schema.columns, rows_per_group=ROWS_PER_GROUP)
    raise ValueError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}")


def records(rows: Iterable[dict], columns: Sequence[Column]) -> Iterator[tuple]:
    """Each row dict as a record: a tuple in column order, each value of its column's type."""
    for row in rows:
        yield tuple(_coerce(row.get(column.name), column.kind) for column in columns)


# CSV ------------------------------------------------------------------------------------


def neutralise(text: str) -> str:
    """Prefix ``'`` to a cell a spreadsheet would read as a formula (OWASP CSV injection);
    a plain number such as ``-4``, ``-0.5``, ``-1e3`` or ``+3`` is a number, not a formula."""
    if text.startswith(FORMULA_TRIGGERS) and not PLAIN_NUMBER.fullmatch(text):
        return f"'{text}"
    return text


def csv_chunks(
    rows: Iterable[dict], columns: Sequence[Column], *, spreadsheet_safe: bool = False
) -> Iterator[bytes]:
    """The rows as CSV (see ``csv_record_chunks``)."""
    return csv_record_chunks(records(rows, columns), columns, spreadsheet_safe=spreadsheet_safe)


def csv_record_chunks(
    values: Iterable[tuple], columns: Sequence[Column], *, spreadsheet_safe: bool = False
) -> Iterator[bytes]:
    """RFC 4180 CSV in UTF-8. Raw: every text byte-exact (quoted newlines and CRs included).

    Spreadsheet-safe: a byte-order mark so Excel reads UTF-8, every cell quoted, and cells
    that start like a formula prefixed with ``'`` (plain numbers are left alone).

    The bytes are those of Python's ``csv.writer`` (QUOTE_MINIMAL, or QUOTE_ALL when
    spreadsheet-safe), written by ``_csv_record_line`` instead: the csv module reads long texts a
    character at a time, which made it the slowest step of an export.
    """
    first = csv_header(columns, spreadsheet_safe=spreadsheet_safe)
    as_text = _csv_converter(columns)
    line = _csv_record_line(columns, quote_all=spreadsheet_safe)
    iterator = iter(values)
    while batch := list(islice(iterator, ROWS_PER_CHUNK)):
        cells = map(as_text, batch) if as_text else batch
        if spreadsheet_safe:
            cells = map(_neutralise_row, cells)
        text = "".join(map(line, cells))
        yield first + text.encode("utf-8")
        first = b""
    if first:  # no rows: the header alone
        yield first


def csv_header(columns: Sequence[Column], *, spreadsheet_safe: bool = False) -> bytes:
    """The first line of a CSV file, after a byte-order mark when spreadsheet-safe."""
    header = [c.name for c in columns]
    if spreadsheet_safe:
        header = [neutralise(name) for name in header]
    header_line = _csv_record_line([Column(n, "str") for n in header], quote_all=spreadsheet_safe)
    return (b"\xef\xbb\xbf" if spreadsheet_safe else b"") + header_line(header).encode()


def _csv_record_line(columns: Sequence[Column], *, quote_all: bool):
    """A function writing one record of ``columns`` as ``csv.writer`` would (excel dialect):
    None is an empty cell, a cell holding a comma, quote, CR or LF is quoted (every cell with
    ``quote_all``), quotes doubled, and a lone empty cell is ``""``. Only text columns are
    checked: numbers, flags and times as written never need quoting."""
    texts = [i for i, column in enumerate(columns) if column.kind in ("str", "list")]
    lone = len(columns) == 1

    def line(cells) -> str:
        out = ["" if v is None else v if v.__class__ is str else str(v) for v in cells]
        if quote_all:
            return '"' + '","'.join([t.replace('"', '""') for t in out]) + '"\r\n'
        for i in texts:
            text = out[i]
            if '"' in text:
                out[i] = '"' + text.replace('"', '""') + '"'
            elif "," in text or "\n" in text or "\r" in text:
                out[i] = '"' + text + '"'
        if lone and not out[0]:
            return '""\r\n'
        return ",".join(out) + "\r\n"

    return line


def _csv_converter(columns: Sequence[Column]):
    """A function giving a record's cells as CSV text, or None when the csv module's own
    conversion (None as an empty cell, str of an int) is already right for every column."""
    fixed = [(i, c.kind) for i, c in enumerate(columns) if c.kind in ("bool", "list", "datetime")]
    if not fixed:
        return None

    def as_text(record: tuple) -> list:
        cells = list(record)
        for i, kind in fixed:
            value = cells[i]
            if value is not None:
                if kind == "bool":
                    cells[i] = "true" if value else "false"
                elif kind == "list":
                    cells[i] = "; ".join(value)
                else:
                    cells[i] = value.isoformat()
        return cells

    return as_text


def _neutralise_row(cells) -> list:
    return [
        neutralise(cell) if cell.__class__ is str and cell[:1] in _TRIGGER_SET else cell
        for cell in cells
    ]


# JSONL ----------------------------------------------------------------------------------

# Strict JSON: ASCII only, so U+2028, lone surrogates and newlines are escapes, and never NaN
# or Infinity (which ``json.loads`` elsewhere refuses).
_JSON = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def jsonl_line(row: dict, columns: Sequence[Column]) -> str:
    """One row as one line of strict JSON."""
    (line,) = _jsonl_lines(records([row], columns), columns)
    return line


def jsonl_chunks(rows: Iterable[dict], columns: Sequence[Column]) -> Iterator[bytes]:
    return jsonl_record_chunks(records(rows, columns), columns)


def jsonl_record_chunks(values: Iterable[tuple], columns: Sequence[Column]) -> Iterator[bytes]:
    iterator = iter(values)
    while batch := list(islice(iterator, ROWS_PER_CHUNK)):
        yield ("\n".join(_jsonl_lines(batch, columns)) + "\n").encode("ascii")


def _jsonl_lines(values: Iterable[tuple], columns: Sequence[Column]) -> Iterator[str]:
    names = [c.name for c in columns]
    times = [i for i, c in enumerate(columns) if c.kind == "datetime"]
    floats = [i for i, c in enumerate(columns) if c.kind == "float"]
    for record in values:
        exact = False
        if times or floats:
            record = list(record)
            for i in times:
                if record[i] is not None:
                    record[i] = record[i].isoformat()
            for i in floats:
                value = record[i]
                if value is not None:
                    if not math.isfinite(value):  # strict JSON has no NaN: null, as orjson has it
                        record[i] = None
                    elif value and abs(value) < 1e-4:  # orjson writes 1e-05 as 0.00001
                        exact = True
        row = dict(zip(names, record, strict=True))
        yield _JSON.encode(row) if exact else _json_object(row)


def _json_object(value: dict) -> str:
    """``_JSON.encode(value)``, through orjson when that gives the same bytes: orjson escapes
    ASCII the way json does, but writes other characters (and DEL) as UTF-8, and refuses lone
    surrogates and integers past 64 bits; those rows go through json itself. (Floats below
    1e-4 are written differently too; ``_jsonl_lines`` sends those rows to json.)"""
    try:
        fast = orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError
        return _JSON.encode(value)
    if fast.isascii() and b"\x7f" not in fast:
        return fast.decode("ascii")
    return _JSON.encode(value)


# Parquet --------------------------------------------------------------------------------


def parquet_chunks(
    rows: Iterable[dict], columns: Sequence[Column], *, rows_per_group: int = ROWS_PER_GROUP
) -> Iterator[bytes]:
    return parquet_record_chunks(records(rows, columns), columns, rows_per_group=rows_per_group)


def parquet_record_chunks(
    values: Iterable[tuple], columns: Sequence[Column], *, rows_per_group: int = ROWS_PER_GROUP
) -> Iterator[bytes]:
    """Parquet (zstd) with one row group per ``rows_per_group`` rows, yielded as each is done."""
    schema = pa.schema([pa.field(c.name, PARQUET_TYPES[c.kind]) for c in columns])
    sink = ChunkSink()
    iterator = iter(values)
    with pq.ParquetWriter(sink, schema, compression="zstd") as writer:
        while batch := list(islice(iterator, rows_per_group)):
            arrays = [
                pa.array(column, type=field.type)
                for column, field in zip(zip(*batch, strict=True), schema, strict=True)
            ]
            table = pa.Table.from_arrays(arrays, schema=schema)
            writer.write_table(table, row_group_size=rows_per_group)
            yield sink.take()
    yield sink.take()


def _coerce(value, kind: str):
    """The value as its column's type; None stays None (an empty cell, null)."""
    if value is None:
        return None
    if kind == "str":
        return value if isinstance(value, str) else str(value)
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    if kind == "bool":
        return bool(value)
    if kind == "list":
        return [str(part) for part in value]
    if kind == "datetime":
        if not isinstance(value, datetime):
            raise TypeError(f"expected a datetime, got {type(value).__name__}")
        return value
    raise ValueError(f"unknown column kind {kind!r}")
