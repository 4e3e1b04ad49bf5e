"""Read a file of samples to grade (CSV or JSONL, by extension) for the command line, with the
reader the web app uses (grading.reader): the same encodings, delimiters and column names.

A row that cannot be read becomes a ``RowError`` naming its line instead of stopping the file;
only a missing required column stops it, because then no row can be graded.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from grading.reader.columns import COLUMN_ALIASES, REQUIRED_FIELDS, guess_mapping
from grading.reader.records import (
    MalformedCsvError,
    Record,
    as_text,
    choose_delimiter,
    csv_records,
    detect_encoding,
    first_nonblank_line,
    jsonl_records,
    open_text,
)
from grading.types import Sample


class MissingColumnError(ValueError):
    """The file lacks a required column; the message lists the columns it has."""


@dataclass(frozen=True)
class SampleRow:
    line: int  # where the row starts in the file, from 1
    fields: dict  # every column of the row, carried through to the output
    sample: Sample


@dataclass(frozen=True)
class RowError:
    line: int
    error: str  # "line N: what was wrong"


def read_sample_file(path: Path) -> list[SampleRow | RowError]:
    """Every row of ``path`` in file order; the format follows the extension. Raises
    MissingColumnError, or grading.reader.IngestError for a file that cannot be read at all."""
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".jsonl", ".ndjson"):
        raise ValueError(f"{path}: expected a .csv or .jsonl file")
    encoding = detect_encoding(path)
    with open_text(path, encoding) as stream:
        if suffix == ".csv":
            delimiter = choose_delimiter(first_nonblank_line(stream), None)
            stream.seek(0)
            header, records = csv_records(stream, encoding=encoding, delimiter=delimiter)
            return list(_rows(records, _columns(header, str(path))))
        return list(_rows(jsonl_records(stream, encoding=encoding), None, path=path))


def _rows(
    records: Iterator[Record], columns: dict[str, str] | None, *, path: Path | None = None
) -> Iterator[SampleRow | RowError]:
    try:
        for line, values in records:
            if isinstance(values, str):
                yield RowError(line, f"line {line}: {values}")
                continue
            if columns is None:  # the first object names the columns, as a CSV header would
                columns = _columns(tuple(values), f"{path} line {line}")
            yield _checked_row(line, values, columns)
    except MalformedCsvError as exc:  # the parser cannot get past it: the file ends here
        yield RowError(exc.line, exc.problems[0])


def _columns(columns: tuple[str, ...], where: str) -> dict[str, str]:
    """Field -> column for the fields a sample uses, guessed as for an upload."""
    mapping, _ = guess_mapping(columns)
    missing = [
        f"{field} (or {', '.join(COLUMN_ALIASES[field][1:])})"
        for field in REQUIRED_FIELDS
        if field not in mapping
    ]
    if missing:
        raise MissingColumnError(
            f"{where}: missing required column {' and '.join(missing)}; "
            f"columns found: {', '.join(columns) if columns else 'none'}"
        )
    return mapping


def _checked_row(line: int, fields: dict, columns: dict[str, str]) -> SampleRow | RowError:
    missing = [columns[f] for f in REQUIRED_FIELDS if fields.get(columns[f]) is None]
    if missing:
        return RowError(line, f"line {line}: no value for {', '.join(missing)}")
    # Databases downstream (PostgreSQL) refuse NUL, so it is refused here, with its line.
    if any(isinstance(value, str) and "\x00" in value for value in fields.values()):
        return RowError(line, f"line {line}: contains a NUL byte")

    def text(field: str) -> str:
        return as_text(fields.get(columns[field])) if field in columns else ""

    sample = Sample(
        gold=text("gold"),
        output=text("output"),
        finish_reason=text("finish_reason"),
        problem=text("problem"),
    )
    return SampleRow(line=line, fields=fields, sample=sample)
