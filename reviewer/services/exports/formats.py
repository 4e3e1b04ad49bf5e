"""File formats of adjudicated datasets: CSV (raw or spreadsheet-safe), JSONL and Parquet.

Plain Python with no Django import: rows come in as dicts keyed by column name, bytes come out
in chunks, so an export of any size is written (or streamed) with flat memory. The dataset
card that goes beside the file is in ``dataset_card``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import islice

import pyarrow as pa
import pyarrow.parquet as pq

FORMATS = ("csv", "jsonl", "parquet")
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "jsonl": "application/x-ndjson; charset=utf-8",
    "parquet": "application/vnd.apache.parquet",
}
# OWASP CSV injection: a spreadsheet treats a cell starting with one of these as a formula.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\n")
ROWS_PER_CHUNK = 500  # CSV and JSONL rows per yielded chunk of bytes
ROWS_PER_GROUP = 5000  # Parquet rows per row group: the writer holds one group in memory


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # "str", "int", "float", "bool", "datetime" or "list" (of strings)


# The source row under the canonical names the upload page guesses, so an export uploads again.
SOURCE_COLUMNS = (
    Column("item_id", "int"),
    Column("run_id", "int"),
    Column("row_number", "int"),
    Column("id", "str"),
    Column("problem", "str"),
    Column("gold", "str"),
    Column("output", "str"),
    Column("model", "str"),
    Column("subject", "str"),
    Column("sample_index", "int"),
    Column("finish_reason", "str"),
    Column("solution", "str"),
)
JURY_COLUMNS = (
    Column("grade_state", "str"),
    Column("answer_type", "str"),
    Column("jury_verdict", "str"),
    Column("jury_needs_review", "bool"),
    Column("jury_reasons", "list"),
    Column("evaluators_disagree", "bool"),
    Column("graded_at", "datetime"),
)
# MSU against the human solution (docs/msu.md): empty when the run has none. The extractor is
# "lexical" when notions were read from the text rather than by an LLM, and the embedding
# model "hashed-bag-of-notions-..." when no semantic embedding was configured.
MSU_COLUMNS = (
    Column("msu", "float"),
    Column("msu_overlap", "float"),
    Column("msu_keywords_model", "list"),
    Column("msu_keywords_human", "list"),
    Column("msu_extractor", "str"),
    Column("msu_extractor_version", "str"),
    Column("msu_embedding_model", "str"),
)
EVALUATOR_FIELDS = (("verdict", "str"), ("status", "str"), ("extracted", "str"))
DECISION_COLUMNS = (
    Column("final_verdict", "str"),
    Column("final_source", "str"),
    Column("reviewed_by", "str"),
    Column("review_note", "str"),
    Column("reviewed_at", "datetime"),
    Column("review_count", "int"),
)


@dataclass(frozen=True)
class DatasetSchema:
    """The columns of one run's export, and the column each extra (unmapped) source key gets."""

    columns: tuple[Column, ...]
    extra_columns: dict[str, str]  # source key -> column name
    evaluators: tuple[str, ...]


def evaluator_column(evaluator: str, part: str) -> str:
    return f"eval_{evaluator}_{part}"


def dataset_schema(*, evaluators: Sequence[str], extra_keys: Iterable[str]) -> DatasetSchema:
    """Fixed columns, then the source file's other columns, then one trio per evaluator.

    An extra key that collides with a fixed column is exported as ``extra_<key>``.
    """
    evaluator_columns = [
        Column(evaluator_column(name, part), kind)
        for name in evaluators
        for part, kind in EVALUATOR_FIELDS
    ]
    taken = {c.name for c in (*SOURCE_COLUMNS, *JURY_COLUMNS, *MSU_COLUMNS, *DECISION_COLUMNS)}
    taken.update(c.name for c in evaluator_columns)
    extra_columns: dict[str, str] = {}
    for key in sorted(set(extra_keys)):
        name = key
        while name in taken:
            name = f"extra_{name}"
        taken.add(name)
        extra_columns[key] = name
    columns = (
        *SOURCE_COLUMNS,
        *(Column(name, "str") for name in extra_columns.values()),
        *JURY_COLUMNS,
        *evaluator_columns,
        *MSU_COLUMNS,
        *DECISION_COLUMNS,
    )
    return DatasetSchema(tuple(columns), extra_columns, tuple(evaluators))


def encode(
    rows: Iterable[dict],
    schema: DatasetSchema,
    *,
    format: str,
    spreadsheet_safe: bool = False,
) -> Iterator[bytes]:
    """The rows as a file of ``format``, in chunks of bytes."""
    if format == "csv":
        return csv_chunks(rows, schema.columns, spreadsheet_safe=spreadsheet_safe)
    if format == "jsonl":
        return jsonl_chunks(rows, schema.columns)
    if format == "parquet":
        return parquet_chunks(rows, schema.columns)
    raise ValueError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}")


# CSV ------------------------------------------------------------------------------------


def neutralise(text: str) -> str:
    """Prefix ``'`` to a cell a spreadsheet would read as a formula (OWASP CSV injection)."""
    return f"'{text}" if text.startswith(FORMULA_TRIGGERS) else text


def csv_chunks(
    rows: Iterable[dict], columns: Sequence[Column], *, spreadsheet_safe: bool = False
) -> Iterator[bytes]:
    """RFC 4180 CSV in UTF-8. Raw: every text byte-exact (quoted newlines and CRs included).

    Spreadsheet-safe: a byte-order mark so Excel reads UTF-8, every cell quoted, and text cells
    that start like a formula prefixed with ``'``; numbers, booleans and times are ours and
    never start a formula.
    """
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL if spreadsheet_safe else csv.QUOTE_MINIMAL)
    header = [c.name for c in columns]
    writer.writerow([neutralise(name) for name in header] if spreadsheet_safe else header)
    prefix = b"\xef\xbb\xbf" if spreadsheet_safe else b""
    for count, row in enumerate(rows, 1):
        cells = []
        for column in columns:
            text = _csv_text(_coerce(row.get(column.name), column.kind), column.kind)
            is_text = column.kind in ("str", "list")
            cells.append(neutralise(text) if spreadsheet_safe and is_text else text)
        writer.writerow(cells)
        if count % ROWS_PER_CHUNK == 0:
            yield prefix + _drain(buffer)
            prefix = b""
    yield prefix + _drain(buffer)


def _csv_text(value, kind: str) -> str:
    if value is None:
        return ""
    if kind == "list":
        return "; ".join(value)
    if kind == "bool":
        return "true" if value else "false"
    if kind == "datetime":
        return value.isoformat()
    return str(value)


def _drain(buffer: io.StringIO) -> bytes:
    data = buffer.getvalue().encode("utf-8")
    buffer.seek(0)
    buffer.truncate()
    return data


# JSONL ----------------------------------------------------------------------------------


def jsonl_line(row: dict, columns: Sequence[Column]) -> str:
    """One row as one line of strict JSON: ASCII only, so U+2028, lone surrogates and newlines
    are escapes, and never NaN or Infinity (which ``json.loads`` elsewhere refuses)."""
    record = {}
    for column in columns:
        value = _coerce(row.get(column.name), column.kind)
        record[column.name] = value.isoformat() if isinstance(value, datetime) else value
    return json.dumps(record, ensure_ascii=True, allow_nan=False, separators=(",", ":"))


def jsonl_chunks(rows: Iterable[dict], columns: Sequence[Column]) -> Iterator[bytes]:
    lines: list[str] = []
    for row in rows:
        lines.append(jsonl_line(row, columns))
        if len(lines) >= ROWS_PER_CHUNK:
            yield ("\n".join(lines) + "\n").encode("ascii")
            lines = []
    if lines:
        yield ("\n".join(lines) + "\n").encode("ascii")


# Parquet --------------------------------------------------------------------------------

_ARROW_TYPES = {
    "str": pa.string(),
    "int": pa.int64(),
    "float": pa.float64(),
    "bool": pa.bool_(),
    "datetime": pa.timestamp("us", tz="UTC"),
    "list": pa.list_(pa.string()),
}


class _ChunkSink:
    """A write-only file for pyarrow whose bytes are handed on as they are written."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []
        self._position = 0
        self.closed = False

    def write(self, data) -> int:
        chunk = bytes(data)
        self._parts.append(chunk)
        self._position += len(chunk)
        return len(chunk)

    def tell(self) -> int:
        return self._position

    def flush(self) -> None:
        return None

    def close(self) -> None:
        self.closed = True

    def take(self) -> bytes:
        data = b"".join(self._parts)
        self._parts.clear()
        return data


def parquet_chunks(
    rows: Iterable[dict], columns: Sequence[Column], *, rows_per_group: int = ROWS_PER_GROUP
) -> Iterator[bytes]:
    """Parquet (zstd) with one row group per ``rows_per_group`` rows, yielded as each is done."""
    schema = pa.schema([pa.field(c.name, _ARROW_TYPES[c.kind]) for c in columns])
    sink = _ChunkSink()
    iterator = iter(rows)
    with pq.ParquetWriter(sink, schema, compression="zstd") as writer:
        while batch := list(islice(iterator, rows_per_group)):
            table = pa.Table.from_pylist(
                [{c.name: _coerce(row.get(c.name), c.kind) for c in columns} for row in batch],
                schema=schema,
            )
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
