"""Reading a problem set: problems with their gold answers (and optional id, human solution,
subject, level), from the same CSV and JSONL files, encodings and limits as runs.

A problem file has no model output, so its columns are guessed from their own table: in a
problem file a column named ``answer`` is the gold answer (MATH's ``problem, solution,
answer, subject, level, unique_id`` reads as it is).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grading.reader.columns import COLUMN_ALIASES, normalise
from grading.reader.errors import IngestError
from grading.reader.records import (
    as_text,
    choose_delimiter,
    csv_records,
    detect_encoding,
    first_nonblank_line,
    is_jsonl,
    jsonl_records,
    open_text,
)
from grading.reader.rows import MAX_PROBLEMS, SHORT_FIELD_MAX_CHARS

PROBLEM_FIELDS = ("problem", "gold", "id", "solution", "subject", "level")
PROBLEM_REQUIRED = ("problem", "gold")
PROBLEM_ALIASES: dict[str, tuple[str, ...]] = {
    "problem": COLUMN_ALIASES["problem"],
    "gold": (*COLUMN_ALIASES["gold"], "answer", "final_answer"),
    "id": COLUMN_ALIASES["id"],
    "solution": ("solution", "human_solution", "reference_solution", "rationale"),
    "subject": COLUMN_ALIASES["subject"],
    "level": ("level", "difficulty"),
}
_SHORT = ("id", "subject", "level")


@dataclass(frozen=True)
class ProblemRow:
    position: int  # 0-based order in the file
    source_line: int
    fields: dict[str, str]  # every PROBLEM_FIELDS name; "" when absent


def guess_problem_mapping(columns: tuple[str, ...]) -> dict[str, str]:
    """Field -> column for a problem file, from PROBLEM_ALIASES."""
    by_name = {normalise(column): column for column in reversed(columns)}
    mapping: dict[str, str] = {}
    for field, names in PROBLEM_ALIASES.items():
        for name in names:
            if name in by_name and by_name[name] not in mapping.values():
                mapping[field] = by_name[name]
                break
    return mapping


def read_problems(
    path: str | Path,
    *,
    mapping: dict[str, str] | None = None,
    delimiter: str | None = None,
    max_field_bytes: int,
) -> list[ProblemRow]:
    """Every problem of the file, or IngestError listing every problem with its line.

    ``mapping`` (field -> column) overrides the guess for the fields it names.
    """
    path = Path(path)
    encoding = detect_encoding(path)
    problems: list[str] = []
    rows: list[ProblemRow] = []
    with open_text(path, encoding) as stream:
        first_line = first_nonblank_line(stream)
        stream.seek(0)
        if is_jsonl(first_line):
            columns: tuple[str, ...] | None = None
            records = jsonl_records(stream, encoding=encoding)
        else:
            delimiter = choose_delimiter(first_line, delimiter)
            columns, records = csv_records(stream, encoding=encoding, delimiter=delimiter)
        chosen = dict(mapping or {})
        if columns is not None:
            chosen = {**guess_problem_mapping(columns), **chosen}
            _check_columns(chosen, columns)
        for line, values in records:
            if isinstance(values, str):
                problems.append(f"line {line}: {values}")
            else:
                if columns is None:
                    line_mapping = {**guess_problem_mapping(tuple(values)), **chosen}
                else:
                    line_mapping = chosen
                row = _row(len(rows), line, values, line_mapping, max_field_bytes, problems)
                if row is not None:
                    rows.append(row)
            if len(problems) >= MAX_PROBLEMS:
                problems.append(f"stopped after {MAX_PROBLEMS} problems")
                break
    if not problems and not rows:
        problems.append("the file has a header but no data rows")
    if problems:
        raise IngestError(problems)
    return rows


def _check_columns(mapping: dict[str, str], columns: tuple[str, ...]) -> None:
    problems = [
        f"{field!r} is not a problem field; fields are {', '.join(PROBLEM_FIELDS)}"
        for field in mapping
        if field not in PROBLEM_FIELDS
    ]
    problems += [
        f"column {column!r} (chosen for {field}) is not in the file; "
        f"its columns are {', '.join(columns)}"
        for field, column in mapping.items()
        if column and column not in columns
    ]
    problems += [
        f"no column looks like the {field} (columns found: {', '.join(columns)})"
        for field in PROBLEM_REQUIRED
        if not mapping.get(field)
    ]
    if problems:
        raise IngestError(problems)


def _row(
    position: int,
    line: int,
    values: dict,
    mapping: dict[str, str],
    max_field_bytes: int,
    problems: list[str],
) -> ProblemRow | None:
    fields = dict.fromkeys(PROBLEM_FIELDS, "")
    ok = True
    for field, column in mapping.items():
        if field not in fields or not column or column not in values:
            continue
        value = as_text(values[column])
        if "\x00" in value:
            problems.append(f"line {line}, column {column!r}: contains a NUL byte")
            ok = False
        elif len(value.encode("utf-8", "surrogatepass")) > max_field_bytes:
            problems.append(
                f"line {line}, column {column!r}: field is longer than {max_field_bytes:,} bytes"
            )
            ok = False
        fields[field] = value
    for field in PROBLEM_REQUIRED:
        if not fields[field].strip():
            problems.append(f"line {line}: the {field} is empty")
            ok = False
    for field in _SHORT:
        if len(fields[field]) > SHORT_FIELD_MAX_CHARS:
            problems.append(
                f"line {line}: {field} is longer than {SHORT_FIELD_MAX_CHARS} characters"
            )
            ok = False
    return ProblemRow(position, line, fields) if ok else None
