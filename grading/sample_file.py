"""Read a file of samples to grade (CSV or JSONL) for the command line.

A row that cannot be read becomes a ``RowError`` naming its line instead of stopping the
file; only a missing required column stops it, because then no row can be graded.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from grading.types import Sample

# Accepted names for each required field, the canonical name first.
OUTPUT_COLUMNS = ("output", "answer", "prediction", "response", "completion")
GOLD_COLUMNS = ("gold", "gt", "target", "gold_answer")
FINISH_REASON_COLUMN = "finish_reason"
PROBLEM_COLUMNS = ("problem", "question")
# Lone surrogates stand for bytes that were not UTF-8 (errors="surrogateescape").
_UNDECODABLE = re.compile("[\udc80-\udcff]")


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
    """Every row of ``path`` in file order; the format follows the extension."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return list(_read_csv(path))
    if suffix in (".jsonl", ".ndjson"):
        return list(_read_jsonl(path))
    raise ValueError(f"{path}: expected a .csv or .jsonl file")


def _required_columns(columns: list[str], where: str) -> tuple[str, str]:
    """The columns holding the gold and the output, by their accepted names."""
    gold = next((name for name in GOLD_COLUMNS if name in columns), None)
    output = next((name for name in OUTPUT_COLUMNS if name in columns), None)
    missing = [
        f"{names[0]} (or {', '.join(names[1:])})"
        for names, found in ((GOLD_COLUMNS, gold), (OUTPUT_COLUMNS, output))
        if found is None
    ]
    if missing:
        raise MissingColumnError(
            f"{where}: missing required column {' and '.join(missing)}; "
            f"columns found: {', '.join(columns) if columns else 'none'}"
        )
    return gold, output


def _read_csv(path: Path) -> Iterator[SampleRow | RowError]:
    # newline="" keeps quoted newlines and bare CRs exactly; utf-8-sig drops a BOM; bytes that
    # are not UTF-8 become lone surrogates, so the row that holds them can be named.
    csv.field_size_limit(sys.maxsize)
    with path.open(newline="", encoding="utf-8-sig", errors="surrogateescape") as file:
        reader = csv.reader(file)
        try:
            header = next(reader)
        except StopIteration:
            header = []
        gold_column, output_column = _required_columns(header, str(path))
        line = reader.line_num + 1
        while True:
            try:
                values = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                yield RowError(line, f"line {line}: {exc}")
                line = reader.line_num + 1
                continue
            start, line = line, reader.line_num + 1
            if not values:
                continue
            if len(values) != len(header):
                yield RowError(
                    start, f"line {start}: {len(values)} fields where the header has {len(header)}"
                )
                continue
            if any(_UNDECODABLE.search(value) for value in values):
                yield RowError(start, f"line {start}: not valid UTF-8")
                continue
            fields = dict(zip(header, values, strict=True))
            yield _checked_row(start, fields, gold_column, output_column)


def _read_jsonl(path: Path) -> Iterator[SampleRow | RowError]:
    columns: tuple[str, str] | None = None
    with path.open("rb") as file:
        for line, raw in enumerate(file, start=1):
            if line == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            if not raw.strip():
                continue
            try:
                fields = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
            except UnicodeDecodeError:
                yield RowError(line, f"line {line}: not valid UTF-8")
                continue
            except ValueError as exc:
                yield RowError(line, f"line {line}: not valid JSON ({exc})")
                continue
            if not isinstance(fields, dict):
                yield RowError(line, f"line {line}: expected a JSON object")
                continue
            if columns is None:  # the first object names the columns, as a CSV header would
                columns = _required_columns(list(fields), f"{path} line {line}")
            gold_column, output_column = columns
            missing = [name for name in columns if fields.get(name) is None]
            if missing:
                yield RowError(line, f"line {line}: no value for {', '.join(missing)}")
                continue
            yield _checked_row(line, fields, gold_column, output_column)


def _checked_row(
    line: int, fields: dict, gold_column: str, output_column: str
) -> SampleRow | RowError:
    # Databases downstream (PostgreSQL) refuse NUL, so it is refused here, with its line.
    if any(isinstance(value, str) and "\x00" in value for value in fields.values()):
        return RowError(line, f"line {line}: contains a NUL byte")
    finish_reason = fields.get(FINISH_REASON_COLUMN)
    problem = next((fields[c] for c in PROBLEM_COLUMNS if fields.get(c) is not None), "")
    sample = Sample(
        gold=_text(fields[gold_column]),
        output=_text(fields[output_column]),
        finish_reason=_text(finish_reason) if finish_reason is not None else "",
        problem=_text(problem),
    )
    return SampleRow(line=line, fields=fields, sample=sample)


def _text(value: object) -> str:
    """A JSON number or string as the text a grader reads (``42`` and ``"42"`` alike)."""
    return value if isinstance(value, str) else json.dumps(value)


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")
