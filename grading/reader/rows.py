"""Reading an uploaded file for the web app: a preview to confirm the column mapping, then every
row validated and turned into a ``SourceRow``, or every problem listed with its line."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from grading.reader.columns import CANONICAL_FIELDS, REQUIRED_FIELDS, guess_mapping
from grading.reader.errors import IngestError
from grading.reader.kinds import check_utf8, container_kind
from grading.reader.records import (
    DEFAULT_LIMITS,
    ENCODING_LABELS,
    Limits,
    Record,
    as_text,
    choose_delimiter,
    csv_records,
    detect_encoding,
    first_nonblank_line,
    is_jsonl,
    jsonl_records,
    open_text,
)
from grading.reader.workbook import xlsx_records

SHORT_FIELDS = ("id", "model", "subject", "finish_reason")
SHORT_FIELD_MAX_CHARS = 200  # labels, stored in short columns
MAX_PROBLEMS = 50  # past this, listing more helps nobody


@dataclass(frozen=True)
class FilePreview:
    """What the upload page shows before the user confirms the column mapping."""

    format: str  # "csv", "jsonl" or "xlsx"
    encoding: str  # a label for people: "UTF-8", "UTF-8 with BOM", "UTF-16", "Windows-1252"
    delimiter: str | None  # None for JSONL
    columns: tuple[str, ...]
    rows: tuple[dict[str, str], ...]
    guessed_mapping: dict[str, str]  # canonical field -> column
    needs_confirmation: tuple[str, ...]  # fields whose guess rests on the name "answer" alone


@dataclass(frozen=True)
class SourceRow:
    row_number: int  # 1-based data row
    source_line: int  # line of the file where the row starts
    fields: dict[str, str]  # every canonical field; "" when not mapped
    extra: dict[str, str]  # the columns that are not mapped


@dataclass(frozen=True)
class _Opened:
    format: str
    encoding: str  # the label shown to people
    delimiter: str | None
    columns: tuple[str, ...] | None  # None for JSONL, whose keys vary by line
    records: Iterator[Record]


@contextmanager
def _opened(
    path: Path, *, delimiter: str | None, encoding: str | None, limits: Limits, ragged_ok: bool
) -> Iterator[_Opened]:
    """The file's records, whatever its kind: an .xlsx workbook, JSONL or CSV text."""
    if container_kind(path) == "xlsx":
        columns, records = xlsx_records(path, limits=limits)
        yield _Opened("xlsx", "Excel workbook", None, columns, records)
        return
    detected = detect_encoding(path, encoding)
    if detected == "utf-8" and not encoding:
        check_utf8(path)  # a file that is not UTF-8 is offered another encoding, never read
    with open_text(path, detected) as stream:
        first_line = first_nonblank_line(stream, limits)
        stream.seek(0)
        label = ENCODING_LABELS[detected]
        if is_jsonl(first_line):
            yield _Opened(
                "jsonl", label, None, None, jsonl_records(stream, encoding=detected, limits=limits)
            )
            return
        delimiter = choose_delimiter(first_line, delimiter, limits)
        columns, records = csv_records(
            stream, encoding=detected, delimiter=delimiter, ragged_ok=ragged_ok, limits=limits
        )
        yield _Opened("csv", label, delimiter, columns, records)


def preview_file(
    path: str | Path,
    *,
    delimiter: str | None = None,
    encoding: str | None = None,
    rows: int = 5,
    limits: Limits = DEFAULT_LIMITS,
) -> FilePreview:
    """Read the start of a file: its format, encoding, columns, first rows and a mapping guess.

    ``encoding`` None reads UTF-8 (or what a byte-order mark says) and raises EncodingError,
    naming the encoding that would read the file, when it is not UTF-8.
    """
    path = Path(path)
    with _opened(
        path, delimiter=delimiter, encoding=encoding, limits=limits, ragged_ok=True
    ) as opened:
        columns: dict[str, None] = dict.fromkeys(opened.columns or ())
        preview = []
        for line, values in opened.records:
            if isinstance(values, str):
                raise IngestError([f"line {line}: {values}"])
            columns.update(dict.fromkeys(values))
            if len(columns) > limits.columns:
                raise IngestError(
                    [f"line {line}: more than {limits.columns:,} different keys so far"]
                )
            preview.append({key: as_text(value) for key, value in values.items()})
            if len(preview) >= rows:
                break
    if not preview:
        raise IngestError(["the file has a header but no data rows"])
    mapping, needs_confirmation = guess_mapping(tuple(columns))
    return FilePreview(
        format=opened.format,
        encoding=opened.encoding,
        delimiter=opened.delimiter,
        columns=tuple(columns),
        rows=tuple(preview),
        guessed_mapping=mapping,
        needs_confirmation=needs_confirmation,
    )


def read_rows(
    path: str | Path,
    *,
    mapping: dict[str, str],
    delimiter: str | None,
    max_field_bytes: int,
    encoding: str | None = None,
    skipped: list[tuple[int, str]] | None = None,
    limits: Limits | None = None,
) -> Iterator[SourceRow]:
    """Yield every valid row, then raise IngestError listing all problems if there were any.

    Rows stop being yielded after the first problem, so a caller that writes inside a
    transaction and lets the error roll it back never keeps part of a bad file. With
    ``skipped`` (a list the caller keeps), a bad row is left out and (line, problem) added to
    it instead; a file with no good row, or one that cannot be read past a line, still raises.
    """
    path = Path(path)
    limits = limits or Limits(field_bytes=max_field_bytes)
    with _opened(
        path, delimiter=delimiter, encoding=encoding, limits=limits, ragged_ok=False
    ) as opened:
        records = opened.records
        if opened.columns is None:
            check_mapping(mapping, None)  # JSONL keys vary by line: each line is checked below
            records = _with_required_keys(records, mapping)
        else:
            check_mapping(mapping, opened.columns)
        validator = _RowValidator(mapping, max_field_bytes)
        good = 0
        for source_line, values in records:
            row = validator.check(good + 1, source_line, values)
            if skipped is not None and validator.problems:
                skipped.extend((source_line, problem) for problem in validator.problems)
                validator.problems.clear()
                continue
            if row is not None and not validator.problems:
                good += 1
                yield row
            if len(validator.problems) >= MAX_PROBLEMS:
                validator.problems.append(f"stopped after {MAX_PROBLEMS} problems")
                break
    if not validator.problems and good == 0:
        validator.problems.append(
            "every row has a problem" if skipped else "the file has a header but no data rows"
        )
    if validator.problems:
        raise IngestError(validator.problems)


def check_mapping(mapping: dict[str, str], columns: tuple[str, ...] | None) -> None:
    """Raise unless the mapping names real fields, both required ones, and (for CSV) columns."""
    problems = []
    for field in mapping:
        if field not in CANONICAL_FIELDS:
            problems.append(f"{field!r} is not a field; fields are {', '.join(CANONICAL_FIELDS)}")
    for field in REQUIRED_FIELDS:
        if not mapping.get(field):
            problems.append(f"no column is chosen for {field}")
    used: dict[str, str] = {}
    for field, column in mapping.items():
        if columns is not None and column and column not in columns:
            problems.append(
                f"column {column!r} (chosen for {field}) is not in the file; "
                f"its columns are {', '.join(columns)}"
            )
        if column in used:
            problems.append(f"column {column!r} is chosen for both {used[column]} and {field}")
        used[column] = field
    if problems:
        raise IngestError(problems)


def _with_required_keys(records: Iterator[Record], mapping: dict[str, str]) -> Iterator[Record]:
    """JSONL records as text, or a problem when a line lacks a required key."""
    required = [mapping[field] for field in REQUIRED_FIELDS]
    for line, value in records:
        if isinstance(value, dict):
            missing = [key for key in required if key not in value]
            if missing:
                value = "no " + " or ".join(repr(key) for key in missing) + " key"
            else:
                value = {key: as_text(item) for key, item in value.items()}
        yield line, value


class _RowValidator:
    """Checks one row's values and turns them into a SourceRow, collecting problems."""

    def __init__(self, mapping: dict[str, str], max_field_bytes: int):
        self.column_to_field = {column: field for field, column in mapping.items()}
        self.max_field_bytes = max_field_bytes
        self.problems: list[str] = []

    def check(self, row_number: int, line: int, values: dict | str) -> SourceRow | None:
        """The row, or None after recording why it is bad (``values`` may be that reason)."""
        if isinstance(values, str):
            self.problems.append(f"line {line}: {values}")
            return None
        fields = dict.fromkeys(CANONICAL_FIELDS, "")
        extra: dict[str, str] = {}
        ok = True
        for column, value in values.items():
            # Fast path: most fields are short and clean, so the exact checks rarely run.
            if "\x00" in value or len(value) * 4 > self.max_field_bytes:
                ok = self._check_value(line, column, value) and ok
            field = self.column_to_field.get(column)
            if field is None:
                extra[column] = value
            else:
                fields[field] = value
        if not fields["gold"].strip():
            self.problems.append(f"line {line}: the gold answer is empty")
            ok = False
        for field in SHORT_FIELDS:
            if len(fields[field]) > SHORT_FIELD_MAX_CHARS:
                self.problems.append(
                    f"line {line}: {field} is longer than {SHORT_FIELD_MAX_CHARS} characters"
                )
                ok = False
        index = fields["sample_index"].strip()
        if index and not _is_whole_number(index):
            self.problems.append(f"line {line}: sample_index {index[:20]!r} is not a whole number")
            ok = False
        return SourceRow(row_number, line, fields, extra) if ok else None

    def _check_value(self, line: int, column: str, value: str) -> bool:
        if "\x00" in value:
            self.problems.append(
                f"line {line}, column {column!r}: contains a NUL byte, which cannot be stored"
            )
            return False
        size = len(value.encode("utf-8", "surrogatepass"))
        if size > self.max_field_bytes:
            self.problems.append(
                f"line {line}, column {column!r}: field is {size:,} bytes, "
                f"more than the limit of {self.max_field_bytes:,}"
            )
            return False
        return True


def _is_whole_number(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True
