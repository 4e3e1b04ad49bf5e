"""The one reader of uploaded files (CSV, JSONL or an .xlsx workbook), used by the web app and the grading command
line: encodings (UTF-8, with or without a byte-order mark, and UTF-16), the CSV delimiter,
line-numbered problems, limits on columns, header, records and fields, and one table of column names.

Plain Python with no Django import. ``preview_file`` and ``read_rows`` validate a whole file for
an upload (``IngestError`` lists every problem); ``sample_file.read_sample_file`` reads a file
for ``python -m grading grade``, where a bad row becomes an error row and the rest go on.
"""

from grading.reader.columns import (
    CANONICAL_FIELDS,
    COLUMN_ALIASES,
    REQUIRED_FIELDS,
    guess_mapping,
)
from grading.reader.errors import IngestError
from grading.reader.kinds import EncodingError
from grading.reader.problems import PROBLEM_FIELDS, ProblemRow, read_problems
from grading.reader.records import (
    CHOSEN_ENCODINGS,
    DEFAULT_LIMITS,
    DELIMITERS,
    Limits,
)
from grading.reader.rows import FilePreview, SourceRow, preview_file, read_rows

__all__ = [
    "CANONICAL_FIELDS",
    "COLUMN_ALIASES",
    "CHOSEN_ENCODINGS",
    "DEFAULT_LIMITS",
    "DELIMITERS",
    "EncodingError",
    "Limits",
    "REQUIRED_FIELDS",
    "PROBLEM_FIELDS",
    "FilePreview",
    "IngestError",
    "ProblemRow",
    "SourceRow",
    "guess_mapping",
    "preview_file",
    "read_problems",
    "read_rows",
]
