"""Excel workbooks (.xlsx): the first sheet read as a table with openpyxl in read-only mode,
its first row the header, each later row a record as a CSV row would be.

The archive's declared sizes are checked before any XML is read, so a small workbook that
expands to gigabytes is refused by name.
"""

from __future__ import annotations

import datetime as dt
import zipfile
from collections.abc import Iterator
from pathlib import Path

from grading.reader.errors import IngestError
from grading.reader.records import Limits, Record

MAX_EXPANDED_BYTES = 500 * 1024 * 1024  # the sheets' XML once unzipped
MAX_RATIO = 200  # unzipped size over zipped size


def xlsx_records(path: Path, *, limits: Limits) -> tuple[tuple[str, ...], Iterator[Record]]:
    """The first sheet's header and each later non-empty row as {column: text}, or a problem.
    Records are numbered by the sheet's row numbers, which Excel shows."""
    import openpyxl  # only workbooks pay for the import

    _check_archive(path)
    # Opened by us: openpyxl judges a path by its extension, and stored uploads have none.
    source = path.open("rb")
    try:
        book = openpyxl.load_workbook(source, read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - openpyxl raises many kinds for a broken file
        source.close()
        raise IngestError([f"the Excel workbook cannot be read ({exc})"]) from None
    sheet = book.worksheets[0]
    rows = sheet.iter_rows(values_only=True, max_col=limits.columns + 1)
    header = next(rows, None)
    if header is None:
        _close(book, source)
        raise IngestError(["the file is empty (its first sheet has no rows)"])
    while header and header[-1] is None:
        header = header[:-1]
    if len(header) > limits.columns:
        _close(book, source)
        raise IngestError([f"row 1: more than {limits.columns:,} columns; that is the limit"])
    columns = tuple(_text(name).strip() or f"column {i}" for i, name in enumerate(header, 1))
    seen: dict[str, int] = {}
    problems = []
    for position, name in enumerate(columns, 1):
        if name in seen:
            problems.append(
                f"row 1: column {name!r} appears twice (columns {seen[name]} and {position})"
            )
        seen.setdefault(name, position)
    if problems:
        _close(book, source)
        raise IngestError(problems)

    def records() -> Iterator[Record]:
        try:
            for number, values in enumerate(rows, 2):
                texts = [_text(value) for value in values]
                if not any(text.strip() for text in texts):
                    continue
                if any(texts[len(columns) :]):
                    yield number, f"a value past the last column ({len(columns)} columns)"
                    continue
                yield (
                    number,
                    dict(zip(columns, texts, strict=False))
                    | {column: "" for column in columns[len(texts) :]},
                )
        finally:
            _close(book, source)

    return columns, records()


def _text(value: object) -> str:
    """A cell as the text it shows: whole numbers without ``.0``, dates in ISO form."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    return str(value)


def _check_archive(path: Path) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except zipfile.BadZipFile:
        raise IngestError(["the Excel workbook is damaged (not a valid zip archive)"]) from None
    expanded = sum(member.file_size for member in members)
    packed = max(1, sum(member.compress_size for member in members))
    if expanded > MAX_EXPANDED_BYTES or expanded / packed > MAX_RATIO:
        raise IngestError(
            [
                f"the Excel workbook expands to {expanded:,} bytes ({expanded / packed:,.0f} "
                "times its size); save the sheet as CSV instead"
            ]
        )


def _close(book, source) -> None:
    book.close()
    source.close()
