"""Writers for adjudicated datasets: CSV (raw or spreadsheet-safe), JSONL, Parquet, and the
dataset card that goes beside them.

Plain Python with no Django import: rows come in as dicts keyed by column name, bytes come out
in chunks, so an export of any size is written (or streamed) with flat memory.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
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
VERDICTS = ("correct", "incorrect", "gold_wrong", "unclear")


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # "str", "int", "bool", "datetime" or "list" (of strings)


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
    taken = {c.name for c in (*SOURCE_COLUMNS, *JURY_COLUMNS, *DECISION_COLUMNS)}
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
    if kind == "bool":
        return bool(value)
    if kind == "list":
        return [str(part) for part in value]
    if kind == "datetime":
        if not isinstance(value, datetime):
            raise TypeError(f"expected a datetime, got {type(value).__name__}")
        return value
    raise ValueError(f"unknown column kind {kind!r}")


# Dataset card ---------------------------------------------------------------------------


@dataclass
class CardTally:
    """Counts for the dataset card, gathered while the rows stream past (one pass, flat memory)."""

    evaluators: Sequence[str]
    rows: int = 0
    graded: int = 0
    not_graded: int = 0
    flagged: int = 0
    human: int = 0
    jury: Counter = field(default_factory=Counter)
    final: Counter = field(default_factory=Counter)
    reviewers: Counter = field(default_factory=Counter)
    first_review: datetime | None = None
    last_review: datetime | None = None
    # evaluator -> rows where it and the final verdict are both correct/incorrect, and agree
    compared: Counter = field(default_factory=Counter)
    agreed: Counter = field(default_factory=Counter)
    answered: Counter = field(default_factory=Counter)
    unanimous: int = 0
    split: int = 0

    def counted(self, rows: Iterable[dict]) -> Iterator[dict]:
        """Pass ``rows`` through, counting each."""
        for row in rows:
            self.add(row)
            yield row

    def add(self, row: dict) -> None:
        self.rows += 1
        state = row.get("grade_state")
        self.graded += state == "graded"
        self.not_graded += state == "quarantined"
        self.flagged += bool(row.get("jury_needs_review"))
        self.jury[row.get("jury_verdict") or "none"] += 1
        final = row.get("final_verdict") or "none"
        self.final[final] += 1
        if row.get("final_source") == "human":
            self.human += 1
            self.reviewers[row.get("reviewed_by") or "(deleted user)"] += 1
            at = row.get("reviewed_at")
            if at is not None:
                self.first_review = min(at, self.first_review or at)
                self.last_review = max(at, self.last_review or at)
        verdicts = []
        for name in self.evaluators:
            verdict = row.get(evaluator_column(name, "verdict")) or ""
            if verdict in ("correct", "incorrect"):
                verdicts.append(verdict)
                self.answered[name] += 1
                if final in ("correct", "incorrect"):
                    self.compared[name] += 1
                    self.agreed[name] += verdict == final
        if len(verdicts) >= 2:
            if len(set(verdicts)) == 1:
                self.unanimous += 1
            else:
                self.split += 1

    def card(self, *, about: dict, evaluator_versions: dict[str, list[str]]) -> dict:
        """The card as plain JSON data; ``about`` says which run, export and filters."""
        before = _ratio(self.jury["correct"], self.jury["correct"] + self.jury["incorrect"])
        after = _ratio(self.final["correct"], self.final["correct"] + self.final["incorrect"])
        return {
            **about,
            "counts": {
                "rows": self.rows,
                "graded": self.graded,
                "not_graded": self.not_graded,
                "flagged_for_review": self.flagged,
                "reviewed_by_a_person": self.human,
                "jury_verdicts": _verdict_counts(self.jury, ("correct", "incorrect")),
                "final_verdicts": _verdict_counts(self.final, VERDICTS),
                "gold_errata": self.final["gold_wrong"],
            },
            "accuracy": {
                "before_adjudication": before,
                "after_adjudication": after,
                "note": "correct / (correct + incorrect); before = the jury's verdicts, after = "
                "the final verdicts (gold-wrong and unclear rows are left out)",
            },
            "evaluator_agreement": {
                "all_evaluators_agree": _ratio(self.unanimous, self.unanimous + self.split),
                "rows_with_two_or_more_verdicts": self.unanimous + self.split,
                "with_final_verdict": {
                    name: {
                        "agreement": _ratio(self.agreed[name], self.compared[name]),
                        "rows_compared": self.compared[name],
                        "rows_answered": self.answered[name],
                    }
                    for name in self.evaluators
                },
            },
            "review": {
                "reviewers": dict(self.reviewers.most_common()),
                "first_review_at": _iso(self.first_review),
                "last_review_at": _iso(self.last_review),
            },
            "evaluator_versions": evaluator_versions,
        }


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 6) if whole else None


def _verdict_counts(counter: Counter, verdicts: Sequence[str]) -> dict[str, int]:
    return {**{v: counter[v] for v in verdicts}, "none": counter["none"]}


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def card_json(card: dict) -> bytes:
    return (json.dumps(card, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()


def card_markdown(card: dict) -> str:
    """The card for people: what the dataset is, how it was decided, and by whom."""
    counts, accuracy = card["counts"], card["accuracy"]
    agreement, review = card["evaluator_agreement"], card["review"]
    lines = [
        f"# {card['run']['name']}",
        "",
        "Adjudicated dataset exported from MathJury: model outputs to math problems, graded by "
        "several evaluators, combined by a jury, and reviewed by people where the jury asked.",
        "",
        "| | |",
        "|---|---|",
        f"| project | {_md(card['run']['project'])} |",
        f"| model | {_md(card['run']['model'] or '–')} |",
        f"| dataset | {_md(card['run']['dataset'] or '–')} |",
        f"| source file | {_md(card['run']['source_filename'])} (SHA-256 "
        f"`{card['run']['source_sha256'][:16]}…`) |",
        f"| exported | {card['export']['created_at']} as {card['export']['format']} |",
        f"| rows chosen | {_md(card['export']['filters_text'])} |",
        "",
        "## Counts",
        "",
        "| rows | graded | not graded | flagged for review | reviewed by a person | gold errata |",
        "|---:|---:|---:|---:|---:|---:|",
        f"| {counts['rows']} | {counts['graded']} | {counts['not_graded']} | "
        f"{counts['flagged_for_review']} | {counts['reviewed_by_a_person']} | "
        f"{counts['gold_errata']} |",
        "",
        "| final verdict | rows |",
        "|---|---:|",
        *(f"| {verdict} | {n} |" for verdict, n in counts["final_verdicts"].items()),
        "",
        "## Accuracy",
        "",
        f"- before adjudication (the jury): {_percent(accuracy['before_adjudication'])}",
        f"- after adjudication (final verdicts): {_percent(accuracy['after_adjudication'])}",
        "",
        "Accuracy is correct / (correct + incorrect); rows whose gold is wrong or that are "
        "unclear are left out.",
        "",
        "## Evaluator agreement",
        "",
        f"All evaluators that gave a verdict agree on "
        f"{_percent(agreement['all_evaluators_agree'])} of the "
        f"{agreement['rows_with_two_or_more_verdicts']} rows with two or more verdicts.",
        "",
        "| evaluator | version | agrees with the final verdict | rows compared |",
        "|---|---|---:|---:|",
        *(
            f"| {name} | {', '.join(card['evaluator_versions'].get(name, [])) or '–'} | "
            f"{_percent(stats['agreement'])} | {stats['rows_compared']} |"
            for name, stats in agreement["with_final_verdict"].items()
        ),
        "",
        "## Review",
        "",
    ]
    if review["reviewers"]:
        lines += [
            f"Reviewed between {review['first_review_at']} and {review['last_review_at']}.",
            "",
            "| reviewer | rows decided |",
            "|---|---:|",
            *(f"| {_md(name)} | {n} |" for name, n in review["reviewers"].items()),
        ]
    else:
        lines.append("No row was reviewed by a person: every final verdict is the jury's.")
    lines += [
        "",
        "## Columns",
        "",
        "`id`, `problem`, `gold`, `output` and the source file's other columns as uploaded; "
        "`jury_verdict` and `jury_reasons` from the automatic grading; "
        "`eval_<evaluator>_verdict|status|extracted` per evaluator; `final_verdict` with "
        "`final_source` (`auto` or `human`), and the newest review's `reviewed_by`, "
        "`review_note` and `reviewed_at`.",
        "",
    ]
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _md(text: str) -> str:
    """Text inside a Markdown table cell: no pipes or line breaks to break the table."""
    return " ".join(str(text).replace("|", "\\|").split())
