"""Export files from rows the database has already written as text (plain Python, no Django).

On PostgreSQL the export query writes each row itself (``row_text``): a CSV record for a CSV
file, a CSV record of plain values for Parquet, a JSON array of the values for JSONL, each
with the key the dataset card counts the row by. What is left here is cheap work per chunk
of rows: CSV line ends as Python's csv module writes them, JSON objects through orjson,
escaped to ASCII as the json module escapes them, and Parquet row groups parsed by Arrow.
"""

from __future__ import annotations

import codecs
import io
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from json.encoder import encode_basestring_ascii
from operator import itemgetter

import orjson
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from reviewer.services.exports.schema import Column

KEY_SEPARATOR = "\x1f"  # between the values of a row's key (ASCII unit separator)


@dataclass(frozen=True)
class WrittenRows:
    """Rows of an export written by the database for a ``format`` file, one message per row:
    for CSV and Parquet, bytes: the key as the first field of a CSV record ending in a line
    feed; for JSONL, a tuple of texts: the key, a JSON array of the values that are not text,
    and the text values (``jsonl_layout``)."""

    format: str
    spreadsheet_safe: bool
    messages: Iterable[bytes | tuple]

    def __iter__(self) -> Iterator[bytes | tuple]:
        return iter(self.messages)

    def passing(self, through) -> WrittenRows:
        """The same rows with their messages passed through ``through`` (a generator function
        that yields each message it is given, counting or reporting on the way)."""
        return WrittenRows(self.format, self.spreadsheet_safe, through(self.messages))

    def close(self) -> None:
        """Give up the messages' source (a COPY left half read must be closed first)."""
        close = getattr(self.messages, "close", None)
        if close is not None:
            close()


def message_key(format: str) -> Callable[[bytes | tuple], bytes]:
    """A function giving the key of a message of a ``format`` file."""
    if format == "jsonl":
        return lambda message: message[0].encode()
    return lambda message: _split_csv(message)[0]


def jsonl_layout(columns: Sequence[Column]) -> tuple[list[int], list[int]]:
    """Where a JSONL row's values come from: the positions of the text columns, sent as they
    are, and of the others, sent as one JSON array."""
    texts = [n for n, column in enumerate(columns) if column.kind == "str"]
    return texts, [n for n, column in enumerate(columns) if column.kind != "str"]


def _split_csv(message: bytes) -> tuple[bytes, bytes]:
    if message[:1] != b'"':
        key, _, text = message.partition(b",")
        return key, text
    # COPY quoted the key (it holds a comma, quote or line break): it ends at the quote that
    # is not doubled.
    end = 1
    while True:
        end = message.index(b'"', end)
        if message[end + 1 : end + 2] != b'"':
            return message[1:end].replace(b'""', b'"'), message[end + 2 :]
        end += 2


def written_chunks(
    rows: WrittenRows,
    columns: Sequence[Column],
    *,
    header: bytes,
    rows_per_chunk: int,
    rows_per_group: int,
) -> Iterator[bytes]:
    """The file's bytes, in chunks; ``header`` opens a CSV file (as ``formats`` writes it)."""
    if rows.format == "csv":
        return _csv_chunks(iter(rows), header=header, rows_per_chunk=rows_per_chunk)
    if rows.format == "jsonl":
        return _jsonl_chunks(iter(rows), columns, rows_per_chunk=rows_per_chunk)
    if rows.format == "parquet":
        return _parquet_chunks(iter(rows), columns, rows_per_group=rows_per_group)
    raise ValueError(f"unknown format {rows.format!r}")


def _records(batch: list[bytes]) -> list[bytes]:
    """The CSV records of a batch of messages, each without its key."""
    if any(message[:1] == b'"' for message in batch):
        return [_split_csv(message)[1] for message in batch]
    return [message.partition(b",")[2] for message in batch]


def _csv_chunks(messages: Iterator[bytes], *, header: bytes, rows_per_chunk: int):
    # COPY ends each record with LF, Python's csv module with CRLF; a message is one record,
    # so its last byte is the record's end (quoted line breaks inside stay as they are).
    first = header
    while batch := list(islice(messages, rows_per_chunk)):
        yield first + b"\r\n".join([record[:-1] for record in _records(batch)]) + b"\r\n"
        first = b""
    if first:
        yield first


# ---- JSONL ----------------------------------------------------------------------------------


def _json_escapes(error: UnicodeEncodeError) -> tuple[str, int]:
    """The codec error handler writing characters past ASCII as json.dumps does (\\uXXXX,
    surrogate pairs past U+FFFF)."""
    return encode_basestring_ascii(error.object[error.start : error.end])[1:-1], error.end


codecs.register_error("mathjury_json_escapes", _json_escapes)


def _ascii_json(line: bytes) -> bytes:
    """A line of UTF-8 JSON as json.dumps(ensure_ascii=True) writes it: DEL and every
    character past ASCII escaped (orjson writes them as they are)."""
    if line.isascii() and b"\x7f" not in line:
        return line
    return (
        line.decode("utf-8")
        .replace("\x7f", "\\u007f")
        .encode("ascii", errors="mathjury_json_escapes")
    )


def _jsonl_chunks(messages: Iterator[tuple], columns: Sequence[Column], *, rows_per_chunk: int):
    """Each row as the object json.dumps writes (``formats.jsonl_record_chunks``), through
    orjson: it escapes ASCII as json does; other characters and DEL are escaped after it, and
    the rare row with a float orjson writes otherwise (below 1e-4) goes through json."""
    names = [column.name for column in columns]
    texts, others = jsonl_layout(columns)
    # (text values…, other values…) -> schema order
    in_order = itemgetter(*[[*texts, *others].index(n) for n in range(len(columns))])
    floats = [others.index(n) for n, column in enumerate(columns) if column.kind == "float"]
    exact = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    while batch := list(islice(messages, rows_per_chunk)):
        arrays = orjson.loads("[" + ",".join([message[1] for message in batch]) + "]")
        lines = []
        for message, values in zip(batch, arrays, strict=True):
            row = dict(zip(names, in_order(message[2:] + tuple(values)), strict=True))
            if any(values[n] and abs(values[n]) < 1e-4 for n in floats):
                line = exact.encode(row).encode()
            else:
                line = orjson.dumps(row)
            lines.append(_ascii_json(line))
        yield b"\n".join(lines) + b"\n"


# ---- Parquet --------------------------------------------------------------------------------

PARQUET_TYPES = {
    "str": pa.string(),
    "int": pa.int64(),
    "float": pa.float64(),
    "bool": pa.bool_(),
    "datetime": pa.timestamp("us", tz="UTC"),
    "list": pa.list_(pa.string()),
}
# How each kind is read from PostgreSQL's CSV (``row_text``): lists as JSON arrays (read by
# orjson), everything else as itself.
PARQUET_CSV_TYPES = {**PARQUET_TYPES, "list": pa.string()}


def _parquet_chunks(messages: Iterator[bytes], columns: Sequence[Column], *, rows_per_group: int):
    schema = pa.schema([pa.field(c.name, PARQUET_TYPES[c.kind]) for c in columns])
    names = [f"c{n}" for n in range(len(columns))]
    convert = pa_csv.ConvertOptions(
        column_types={n: PARQUET_CSV_TYPES[c.kind] for n, c in zip(names, columns, strict=True)},
        # NULL is an empty field, an empty text a quoted one ("").
        null_values=[""],
        strings_can_be_null=True,
        quoted_strings_can_be_null=False,
        true_values=["t"],
        false_values=["f"],
    )
    parse = pa_csv.ParseOptions(newlines_in_values=True)
    sink = ChunkSink()
    with pq.ParquetWriter(sink, schema, compression="zstd") as writer:
        while batch := list(islice(messages, rows_per_group)):
            text = b"".join(_records(batch))
            del batch
            # One block, so each column is one array, as pa.array makes it: the writer's
            # pages, and so the file's bytes, follow the arrays' boundaries.
            read = pa_csv.ReadOptions(
                column_names=names, use_threads=False, block_size=len(text) + 1
            )
            table = pa_csv.read_csv(
                io.BytesIO(text), read_options=read, parse_options=parse, convert_options=convert
            )
            del text
            arrays = [_parquet_array(table.column(n), field.type) for n, field in enumerate(schema)]
            del table
            writer.write_table(
                pa.Table.from_arrays(arrays, schema=schema), row_group_size=rows_per_group
            )
            del arrays
            # Arrow's allocator keeps what a row group freed; without this a process peaked
            # about 30 MB higher.
            pa.default_memory_pool().release_unused()
            yield sink.take()
    yield sink.take()


def _parquet_array(column: pa.ChunkedArray, arrow_type) -> pa.Array:
    (array,) = column.chunks
    if array.type == arrow_type:
        return array
    # Lists repeat (a few kinds of jury reasons in a whole run): each distinct JSON text is
    # read once and the rows take theirs.
    encoded = array.dictionary_encode()
    lists = [orjson.loads(text) for text in encoded.dictionary.to_pylist()]
    return pa.array(lists, type=arrow_type).take(encoded.indices)


class ChunkSink:
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
