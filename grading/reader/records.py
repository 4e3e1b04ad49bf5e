"""A file's records, each with the line it starts on: the encoding from its byte-order mark,
CSV with a chosen or detected delimiter, or JSONL. A record that cannot be read is a problem
naming its line, never a silently changed value.

Bytes that are not valid in the file's encoding are kept as lone surrogates
(``surrogateescape``), so the row that holds them can be named and the others still read.
"""

from __future__ import annotations

import codecs
import csv
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from grading.reader.errors import IngestError

DELIMITERS = (",", "\t", ";", "|")  # in order of preference when the header fits several
ENCODING_LABELS = {
    "utf-8": "UTF-8",
    "utf-8-sig": "UTF-8 with BOM",
    "utf-16": "UTF-16",
    "cp1252": "Windows-1252",
    "latin-1": "Latin-1 (ISO-8859-1)",
}
# Encodings a person may choose for a file that is not UTF-8 (never guessed silently).
CHOSEN_ENCODINGS = ("cp1252", "latin-1")
_UTF32_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_UNDECODABLE = re.compile("[\udc80-\udcff]")

# (line where the record starts, its values by column, or what is wrong with it)
Record = tuple[int, "dict[str, object] | str"]


@dataclass(frozen=True)
class Limits:
    """What one upload may hold, checked as the file is read so no row costs more than this."""

    columns: int = 1000
    header_chars: int = 64 * 1024
    field_bytes: int = 1024 * 1024

    @property
    def record_chars(self) -> int:
        """The longest record (one row, with its quoted line breaks) that is read at all."""
        return 4 * self.field_bytes + self.header_chars


DEFAULT_LIMITS = Limits()


def detect_encoding(path: Path, requested: str | None = None) -> str:
    """UTF-8 unless a byte-order mark says UTF-8-with-BOM or UTF-16, or the person chose one of
    CHOSEN_ENCODINGS for a file without a byte-order mark; nothing is guessed."""
    with path.open("rb") as raw:
        head = raw.read(4)
    if not head:
        raise IngestError(["the file is empty"])
    if requested and requested not in ("utf-8", *CHOSEN_ENCODINGS):
        raise IngestError([f"encoding {requested!r} is not one of utf-8, cp1252, latin-1"])
    if head.startswith(_UTF32_BOMS):
        raise IngestError(["line 1: the file is UTF-32, which is not supported; save it as UTF-8"])
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith(_UTF16_BOMS):
        return "utf-16"
    return requested or "utf-8"


def open_text(path: Path, encoding: str) -> TextIO:
    # newline="" keeps \r\n and bare \r inside quoted fields exactly as they are in the file.
    return path.open("r", encoding=encoding, errors="surrogateescape", newline="")


def undecodable(text: str, encoding: str) -> str | None:
    """What is wrong with text that holds bytes the encoding could not decode, or None."""
    found = _UNDECODABLE.search(text)
    if found is None:
        return None
    byte = ord(found.group()) - 0xDC00
    return (
        f"byte 0x{byte:02X} is not valid {ENCODING_LABELS[encoding]}; save the file as UTF-8 "
        "(or UTF-16 with a byte-order mark)"
    )


def first_nonblank_line(stream: TextIO, limits: Limits = DEFAULT_LIMITS) -> str:
    """The header (or first JSON line), read no further than the header limit."""
    line_number = 0
    while line := stream.readline(limits.header_chars + 1):
        line_number += 1
        if len(line) > limits.header_chars and not line.endswith(("\n", "\r")):
            if line.lstrip().startswith("{"):
                return line  # a JSONL row, checked against the record limit
            raise IngestError(
                [
                    f"line {line_number}: the header is longer than "
                    f"{limits.header_chars:,} characters; is this a CSV file with a header?"
                ]
            )
        if line.strip():
            return line
    raise IngestError(["the file is empty"])


def is_jsonl(first_line: str) -> bool:
    return first_line.lstrip().startswith("{")


# CSV ------------------------------------------------------------------------------------


def choose_delimiter(
    header_line: str, requested: str | None, limits: Limits = DEFAULT_LIMITS
) -> str:
    """The requested delimiter, or the allowed one that splits the header into most columns;
    refused when the header has more columns than the limit."""
    if requested and requested not in DELIMITERS:
        allowed = ", ".join(repr(d) for d in DELIMITERS)
        raise IngestError([f"delimiter {requested!r} is not one of {allowed}"])
    csv.field_size_limit(max(limits.header_chars, limits.record_chars))  # a header is one line
    counts = {d: len(next(csv.reader([header_line], delimiter=d), [])) for d in DELIMITERS}
    chosen = requested or max(DELIMITERS, key=lambda d: (counts[d], -DELIMITERS.index(d)))
    if counts[chosen] > limits.columns:
        raise IngestError(
            [f"line 1: the header has {counts[chosen]:,} columns; the limit is {limits.columns:,}"]
        )
    return chosen


def _csv_rows(stream: TextIO, delimiter: str, limits: Limits) -> Iterator[tuple[int, list[str]]]:
    """(line where the record starts, fields) for each non-blank record.

    Parsed leniently, as spreadsheets write it: text after a closing quote (``"x" ,``) is kept
    in the field. A quoted field still open at the end of the file is refused, as it would
    otherwise swallow every line after it.
    """
    # The limit is process-wide, and every reader sets it from its own limits: no field is
    # read past the record limit, so one field cannot take hundreds of MB.
    csv.field_size_limit(limits.record_chars)
    lines = _TakenLines(stream, limits.record_chars)
    reader = csv.reader(lines, delimiter=delimiter, strict=False)
    last_line = 0
    held: tuple[int, list[str], str] | None = None  # the record read, until the next one is
    while True:
        try:
            record = next(reader)
        except StopIteration:
            break
        except RecordTooLongError as exc:
            raise MalformedCsvError(last_line + 1, str(exc)) from None
        except csv.Error as exc:
            raise MalformedCsvError(last_line + 1, _describe_csv_error(exc, limits)) from None
        start, last_line = last_line + 1, reader.line_num
        raw = lines.take()
        if not record:
            continue
        if held is not None:
            yield held[0], held[1]
        held = (start, record, raw)
    if held is not None:
        start, record, raw = held
        try:
            list(csv.reader([raw], delimiter=delimiter, strict=True))
        except csv.Error as exc:
            if "unexpected end of data" in str(exc):
                raise MalformedCsvError(start, _describe_csv_error(exc, limits)) from None
        yield start, record


class RecordTooLongError(ValueError):
    """One record (a row with its quoted line breaks) is longer than the record limit."""


class _TakenLines:
    """The stream's lines, remembering those read since the last ``take``; a record longer
    than ``limit`` characters is refused before more of it is read."""

    def __init__(self, stream: TextIO, limit: int):
        self._stream = stream
        self._limit = limit
        self._taken: list[str] = []
        self._taken_chars = 0

    def __iter__(self) -> _TakenLines:
        return self

    def __next__(self) -> str:
        line = self._stream.readline(self._limit + 1)
        if not line:
            raise StopIteration
        self._taken_chars += len(line)
        if self._taken_chars > self._limit:
            raise RecordTooLongError(_too_long(self._limit))
        self._taken.append(line)
        return line

    def take(self) -> str:
        text = "".join(self._taken)
        self._taken.clear()
        self._taken_chars = 0
        return text


def _too_long(limit: int) -> str:
    return (
        f"the row is longer than {limit:,} characters, more than its fields may hold "
        "(MATHJURY_MAX_FIELD_BYTES); is a quote left open?"
    )


class MalformedCsvError(IngestError):
    """A record the CSV parser cannot get past; nothing after ``line`` can be read."""

    def __init__(self, line: int, problem: str):
        self.line = line
        super().__init__([f"line {line}: {problem}"])


def _describe_csv_error(exc: csv.Error, limits: Limits) -> str:
    message = str(exc)
    if "unexpected end of data" in message:
        return "a quoted field is not closed before the end of the file"
    if "field larger than field limit" in message:
        return _too_long(limits.record_chars)
    return f"malformed CSV ({message})"


def _csv_header(rows: Iterator[tuple[int, list[str]]], encoding: str) -> tuple[str, ...]:
    try:
        _, header = next(rows)
    except StopIteration:
        raise IngestError(["the file is empty"]) from None
    problem = undecodable("".join(header), encoding)
    if problem:
        raise IngestError([f"line 1: {problem}"])
    columns = tuple(name.strip() or f"column {i}" for i, name in enumerate(header, 1))
    seen: dict[str, int] = {}
    problems = []
    for position, name in enumerate(columns, 1):
        if name in seen:
            problems.append(
                f"line 1: column {name!r} appears twice (columns {seen[name]} and {position})"
            )
        seen.setdefault(name, position)
    if problems:
        raise IngestError(problems)
    return columns


def csv_records(
    stream: TextIO,
    *,
    encoding: str,
    delimiter: str,
    ragged_ok: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[tuple[str, ...], Iterator[Record]]:
    """The header's columns, and each data record as {column: text} or a problem; with
    ``ragged_ok`` (a preview), a record with too few or too many fields is shown as it is."""
    rows = _csv_rows(stream, delimiter, limits)
    columns = _csv_header(rows, encoding)

    def records() -> Iterator[Record]:
        expected = len(columns)
        for line, values in rows:
            if len(values) > limits.columns:
                yield line, f"{len(values):,} fields; the limit is {limits.columns:,}"
            elif len(values) != expected and not ragged_ok:
                yield line, f"expected {expected} fields, found {len(values)}"
            elif problem := undecodable("".join(values), encoding):
                yield line, problem
            else:
                yield line, dict(zip(columns, values, strict=False))

    return columns, records()


# JSONL ----------------------------------------------------------------------------------


def _bounded_lines(stream: TextIO, limit: int) -> Iterator[str | None]:
    """Each line, or None for a line longer than ``limit`` (skipped without keeping it)."""
    while line := stream.readline(limit + 1):
        if len(line) <= limit or line.endswith("\n"):
            yield line
            continue
        while (rest := stream.readline(limit)) and not rest.endswith("\n"):
            pass
        yield None


def jsonl_records(
    stream: TextIO, *, encoding: str, limits: Limits = DEFAULT_LIMITS
) -> Iterator[Record]:
    """Each non-blank line as the JSON object it holds (values as parsed), or a problem."""
    for line_number, line in enumerate(_bounded_lines(stream, limits.record_chars), 1):
        if line is None:
            yield line_number, _too_long(limits.record_chars)
            continue
        text = line.strip()
        if not text:
            continue
        problem = undecodable(text, encoding)
        if problem:
            yield line_number, problem
            continue
        try:
            value = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_refuse)
        except json.JSONDecodeError as exc:
            yield line_number, f"not valid JSON at column {exc.colno} ({exc.msg})"
            continue
        except _DuplicateKeyError as exc:
            yield line_number, f"key {exc.args[0]!r} appears twice"
            continue
        except _NotJsonError as exc:
            yield line_number, f"not valid JSON ({exc.args[0]} is not a JSON value)"
            continue
        if not isinstance(value, dict):
            yield line_number, f"expected a JSON object, found {type(value).__name__}"
            continue
        if len(value) > limits.columns:
            yield line_number, f"{len(value):,} keys; the limit is {limits.columns:,}"
            continue
        yield line_number, value


class _DuplicateKeyError(ValueError):
    pass


class _NotJsonError(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKeyError(key)
            seen.add(key)
    return result


def _refuse(name: str) -> None:
    """NaN and Infinity are Python's, not JSON's."""
    raise _NotJsonError(name)


def as_text(value: object) -> str:
    """A JSON value as the text a row stores: ``42`` and ``"42"`` alike, null as empty."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
