"""Readers for uploaded CSV and JSONL files: encoding, delimiter, column mapping, validation.

Plain Python with no Django import, so the readers can be tested and benchmarked alone.
Every problem is reported with the line of the source file it was found on.
"""

from __future__ import annotations

import codecs
import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

CANONICAL_FIELDS = (
    "gold",
    "output",
    "problem",
    "id",
    "model",
    "subject",
    "sample_index",
    "finish_reason",
)
REQUIRED_FIELDS = ("gold", "output")
DELIMITERS = (",", "\t", ";", "|")  # in order of preference when the header fits several
SHORT_FIELDS = ("id", "model", "subject", "finish_reason")
SHORT_FIELD_MAX_CHARS = 200  # labels, stored in short columns
MAX_PROBLEMS = 50  # past this, listing more helps nobody

# Column names we recognise for each canonical field, after _normalise. "answer" is in both
# lists on purpose: some files use it for the model's answer, others for the reference.
_COLUMN_GUESSES: dict[str, tuple[str, ...]] = {
    "output": (
        "output",
        "prediction",
        "pred",
        "response",
        "completion",
        "model_output",
        "generation",
        "generated_text",
    ),
    "gold": ("gold", "gt", "ground_truth", "target", "gold_answer", "reference", "expected"),
    "problem": ("problem", "question", "prompt", "input", "query"),
    "id": ("id", "problem_id", "unique_id", "uid", "idx"),
    "model": ("model", "model_name"),
    "subject": ("subject", "category", "type", "topic"),
    "sample_index": ("sample_index", "sample_idx", "sample", "sample_id"),
    "finish_reason": ("finish_reason", "stop_reason"),
}
_AMBIGUOUS_COLUMN = "answer"

_UTF32_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_ENCODING_LABELS = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8 with BOM", "utf-16": "UTF-16"}


class IngestError(ValueError):
    """The file cannot be imported; ``problems`` says what is wrong and on which line."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class FilePreview:
    """What the upload page shows before the user confirms the column mapping."""

    format: str  # "csv" or "jsonl"
    encoding: str  # a label for people: "UTF-8", "UTF-8 with BOM", "UTF-16"
    delimiter: str | None  # None for JSONL
    columns: tuple[str, ...]
    rows: tuple[dict[str, str], ...]
    guessed_mapping: dict[str, str]  # canonical field -> column
    needs_confirmation: tuple[str, ...]  # fields whose guess rests on an ambiguous name


@dataclass(frozen=True)
class SourceRow:
    row_number: int  # 1-based data row
    source_line: int  # line of the file where the row starts
    fields: dict[str, str]  # every canonical field; "" when not mapped
    extra: dict[str, str]  # the columns that are not mapped


def guess_mapping(columns: tuple[str, ...]) -> tuple[dict[str, str], tuple[str, ...]]:
    """Guess canonical field -> column from common names, and which guesses need a person."""
    by_name = {_normalise(column): column for column in reversed(columns)}
    mapping: dict[str, str] = {}
    for field, names in _COLUMN_GUESSES.items():
        for name in names:
            if name in by_name and by_name[name] not in mapping.values():
                mapping[field] = by_name[name]
                break
    needs_confirmation: list[str] = []
    if _AMBIGUOUS_COLUMN in by_name:
        for field in ("output", "gold") if "gold" in mapping else ("gold", "output"):
            if field not in mapping:
                mapping[field] = by_name[_AMBIGUOUS_COLUMN]
                needs_confirmation.append(field)
                break
    ordered = {field: mapping[field] for field in CANONICAL_FIELDS if field in mapping}
    return ordered, tuple(needs_confirmation)


def preview_file(path: str | Path, *, delimiter: str | None = None, rows: int = 5) -> FilePreview:
    """Read the start of a file: its format, encoding, columns, first rows and a mapping guess."""
    path = Path(path)
    encoding = _detect_encoding(path)
    with _open_text(path, encoding) as stream:
        first_line = _first_nonblank_line(path, encoding, stream)
        stream.seek(0)
        if first_line.lstrip().startswith("{"):
            columns, preview_rows = _preview_jsonl(path, encoding, stream, rows)
            file_format, delimiter = "jsonl", None
        else:
            delimiter = _choose_delimiter(first_line, delimiter)
            columns, preview_rows = _preview_csv(path, encoding, stream, delimiter, rows)
            file_format = "csv"
    mapping, needs_confirmation = guess_mapping(columns)
    return FilePreview(
        format=file_format,
        encoding=_ENCODING_LABELS[encoding],
        delimiter=delimiter,
        columns=columns,
        rows=tuple(preview_rows),
        guessed_mapping=mapping,
        needs_confirmation=needs_confirmation,
    )


def read_rows(
    path: str | Path,
    *,
    mapping: dict[str, str],
    delimiter: str | None,
    max_field_bytes: int,
) -> Iterator[SourceRow]:
    """Yield every valid row, then raise IngestError listing all problems if there were any.

    Rows stop being yielded after the first problem, so a caller that writes inside a
    transaction and lets the error roll it back never keeps part of a bad file.
    """
    path = Path(path)
    encoding = _detect_encoding(path)
    with _open_text(path, encoding) as stream:
        first_line = _first_nonblank_line(path, encoding, stream)
        stream.seek(0)
        if first_line.lstrip().startswith("{"):
            records = _jsonl_records(path, encoding, stream, mapping)
        else:
            delimiter = _choose_delimiter(first_line, delimiter)
            records = _csv_records(path, encoding, stream, delimiter, mapping)
        validator = _RowValidator(mapping, max_field_bytes)
        row_number = 0
        for source_line, values in records:
            row_number += 1
            row = validator.check(row_number, source_line, values)
            if row is not None and not validator.problems:
                yield row
            if len(validator.problems) >= MAX_PROBLEMS:
                validator.problems.append(f"stopped after {MAX_PROBLEMS} problems")
                break
    if not validator.problems and row_number == 0:
        validator.problems.append("the file has a header but no data rows")
    if validator.problems:
        raise IngestError(validator.problems)


class _RowValidator:
    """Checks one row's values and turns them into a SourceRow, collecting problems."""

    def __init__(self, mapping: dict[str, str], max_field_bytes: int):
        self.column_to_field = {column: field for field, column in mapping.items()}
        self.max_field_bytes = max_field_bytes
        self.problems: list[str] = []

    def check(self, row_number: int, line: int, values: dict[str, str] | str) -> SourceRow | None:
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


def _normalise(column: str) -> str:
    return column.strip().lower().replace(" ", "_").replace("-", "_")


# Encoding -----------------------------------------------------------------------------


def _detect_encoding(path: Path) -> str:
    """UTF-8 unless a byte-order mark says UTF-8-with-BOM or UTF-16; nothing is guessed."""
    with path.open("rb") as raw:
        head = raw.read(4)
    if not head:
        raise IngestError(["the file is empty"])
    if head.startswith(_UTF32_BOMS):
        raise IngestError(["line 1: the file is UTF-32, which is not supported; save it as UTF-8"])
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith(_UTF16_BOMS):
        return "utf-16"
    return "utf-8"


def _open_text(path: Path, encoding: str) -> TextIO:
    # newline="" keeps \r\n and bare \r inside quoted fields exactly as they are in the file.
    return path.open("r", encoding=encoding, errors="strict", newline="")


def _decode_problem(path: Path, encoding: str) -> IngestError:
    """Find the first byte that does not decode and say which line it is on."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    offset = 0
    line_breaks = 0
    with path.open("rb") as raw:
        while chunk := raw.read(1 << 20):
            buffered = len(decoder.getstate()[0])
            try:
                text = decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                position = offset - buffered + exc.start
                pending = chunk[: max(0, exc.start - buffered)]
                text = codecs.decode(pending, encoding, errors="ignore")
                line = line_breaks + _count_line_breaks(text) + 1
                bad = exc.object[exc.start]
                return IngestError(
                    [
                        f"line {line}: byte 0x{bad:02X} at offset {position} is not valid "
                        f"{_ENCODING_LABELS[encoding]}; save the file as UTF-8 "
                        "(or UTF-16 with a byte-order mark)"
                    ]
                )
            line_breaks += _count_line_breaks(text)
            offset += len(chunk)
    return IngestError([f"the file ends in the middle of a {_ENCODING_LABELS[encoding]} character"])


def _count_line_breaks(text: str) -> int:
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def _decoded_lines(path: Path, encoding: str, stream: TextIO) -> Iterator[str]:
    """The stream's lines, turning a decoding failure into an IngestError naming the line."""
    try:
        # A plain loop, not ``yield from``: closing this generator must not close the file.
        for line in stream:  # noqa: UP028
            yield line
    except UnicodeDecodeError:
        raise _decode_problem(path, encoding) from None


def _first_nonblank_line(path: Path, encoding: str, stream: TextIO) -> str:
    for line in _decoded_lines(path, encoding, stream):
        if line.strip():
            return line
    raise IngestError(["the file is empty"])


# CSV ------------------------------------------------------------------------------------


def _choose_delimiter(header_line: str, requested: str | None) -> str:
    """The requested delimiter, or the allowed one that splits the header into most columns."""
    if requested:
        if requested not in DELIMITERS:
            allowed = ", ".join(repr(d) for d in DELIMITERS)
            raise IngestError([f"delimiter {requested!r} is not one of {allowed}"])
        return requested
    counts = {d: len(next(csv.reader([header_line], delimiter=d), [])) for d in DELIMITERS}
    return max(DELIMITERS, key=lambda d: (counts[d], -DELIMITERS.index(d)))


def _csv_rows(
    path: Path, encoding: str, stream: TextIO, delimiter: str
) -> Iterator[tuple[int, list[str]]]:
    """(line where the record starts, fields) for each non-blank record."""
    # The limit is process-wide; our own per-field check (in bytes) is the one users see.
    csv.field_size_limit(2**31 - 1)
    reader = csv.reader(_decoded_lines(path, encoding, stream), delimiter=delimiter, strict=True)
    last_line = 0
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise IngestError([f"line {last_line + 1}: {_describe_csv_error(exc)}"]) from None
        start, last_line = last_line + 1, reader.line_num
        if record:
            yield start, record


def _describe_csv_error(exc: csv.Error) -> str:
    message = str(exc)
    if "unexpected end of data" in message:
        return "a quoted field is not closed before the end of the file"
    return f"malformed CSV ({message})"


def _csv_header(rows: Iterator[tuple[int, list[str]]]) -> tuple[str, ...]:
    try:
        _, header = next(rows)
    except StopIteration:
        raise IngestError(["the file is empty"]) from None
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


def _preview_csv(
    path: Path, encoding: str, stream: TextIO, delimiter: str, limit: int
) -> tuple[tuple[str, ...], list[dict[str, str]]]:
    rows = _csv_rows(path, encoding, stream, delimiter)
    columns = _csv_header(rows)
    preview = []
    for _, record in rows:
        preview.append(dict(zip(columns, record, strict=False)))
        if len(preview) >= limit:
            break
    if not preview:
        raise IngestError(["the file has a header but no data rows"])
    return columns, preview


def _csv_records(
    path: Path, encoding: str, stream: TextIO, delimiter: str, mapping: dict[str, str]
) -> Iterator[tuple[int, dict[str, str]]]:
    rows = _csv_rows(path, encoding, stream, delimiter)
    columns = _csv_header(rows)
    _check_mapping(mapping, columns)
    expected = len(columns)
    for line, record in rows:
        if len(record) != expected:
            yield line, f"expected {expected} fields, found {len(record)}"
            continue
        yield line, dict(zip(columns, record, strict=True))


def _check_mapping(mapping: dict[str, str], columns: tuple[str, ...] | None) -> None:
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


# JSONL ----------------------------------------------------------------------------------


def _jsonl_objects(
    path: Path, encoding: str, stream: TextIO
) -> Iterator[tuple[int, dict[str, str] | str]]:
    """(line, object with text values) for each non-blank line, or (line, problem)."""
    for line_number, line in enumerate(_decoded_lines(path, encoding, stream), 1):
        text = line.strip()
        if not text:
            continue
        try:
            value = json.loads(text, object_pairs_hook=_unique_keys)
        except json.JSONDecodeError as exc:
            yield line_number, f"not valid JSON at column {exc.colno} ({exc.msg})"
            continue
        except _DuplicateKeyError as exc:
            yield line_number, f"key {exc.args[0]!r} appears twice"
            continue
        if not isinstance(value, dict):
            yield line_number, f"expected a JSON object, found {type(value).__name__}"
            continue
        yield line_number, {key: _as_text(item) for key, item in value.items()}


class _DuplicateKeyError(ValueError):
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


def _as_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _preview_jsonl(
    path: Path, encoding: str, stream: TextIO, limit: int
) -> tuple[tuple[str, ...], list[dict[str, str]]]:
    columns: dict[str, None] = {}
    preview = []
    for line, value in _jsonl_objects(path, encoding, stream):
        if isinstance(value, str):
            raise IngestError([f"line {line}: {value}"])
        columns.update(dict.fromkeys(value))
        preview.append(value)
        if len(preview) >= limit:
            break
    return tuple(columns), preview


def _jsonl_records(
    path: Path, encoding: str, stream: TextIO, mapping: dict[str, str]
) -> Iterator[tuple[int, dict[str, str]]]:
    _check_mapping(mapping, None)  # JSONL keys vary by line: each line is checked below
    required = [mapping[field] for field in REQUIRED_FIELDS]
    for line, value in _jsonl_objects(path, encoding, stream):
        if isinstance(value, dict):
            missing = [key for key in required if key not in value]
            if missing:
                value = "no " + " or ".join(repr(key) for key in missing) + " key"
        yield line, value
