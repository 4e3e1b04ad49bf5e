"""The command line: ``python -m grading grade INPUT -o OUTPUT`` and ``python -m grading cases``.

Exit status 0 when the run finished (rows that could not be read or graded are reported in
the output, not by the status), 2 for a usage error: an unknown evaluator, an unreadable
input file or a missing required column.
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO

import orjson

from grading import stage_profile
from grading.batch import grade_many
from grading.evaluators import AVAILABLE, DEFAULT_EVALUATORS
from grading.reader import IngestError
from grading.sample_file import MissingColumnError, RowError, SampleRow, read_sample_file
from grading.sandbox import DEFAULT_TIMEOUT, SandboxPool
from grading.types import GradedSample

USAGE_ERROR = 2


class UsageError(Exception):
    """A problem with the command line or its input file, reported with exit status 2."""


def main(argv: Sequence[str] | None = None) -> int:
    stage_profile.start("parent")
    args = _parser().parse_args(argv)
    try:
        return args.handler(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print("\ninterrupted; nothing written", file=sys.stderr)
        return 130
    finally:
        stage_profile.dump()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m grading", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    grade = commands.add_parser(
        "grade",
        help="grade a CSV or JSONL file of model outputs into a JSONL file",
        description="Grade every row of INPUT (CSV or JSONL, by extension) and write one JSON "
        "object per row to OUTPUT, in input order, with the input fields carried through.",
    )
    grade.add_argument("input", type=Path, metavar="INPUT")
    grade.add_argument("-o", "--output", type=Path, required=True, metavar="OUTPUT")
    _add_evaluators_option(grade)
    grade.add_argument(
        "--workers", type=_positive_int, default=None, help="child processes (default: all cores)"
    )
    grade.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"wall-clock limit per row (default {DEFAULT_TIMEOUT:g})",
    )
    grade.set_defaults(handler=_grade_command)

    cases = commands.add_parser(
        "cases",
        help="run conformance cases and report where the engine disagrees",
        description="Grade conformance cases (JSONL, see the cases README) and report the "
        "ones whose verdict or extraction differs from what they expect.",
    )
    cases.add_argument("files", nargs="+", type=Path, metavar="FILE")
    _add_evaluators_option(cases)
    cases.add_argument(
        "--by-fold",
        action="store_true",
        help="also report the jury on each fold of each file (a hash of the case id, 3 folds)",
    )
    cases.add_argument(
        "--reasons",
        action="store_true",
        help="also report each review reason: rows it flagged and how many needed a human",
    )
    cases.set_defaults(handler=_cases_command)
    return parser


def _add_evaluators_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--evaluators",
        type=_evaluator_names,
        default=DEFAULT_EVALUATORS,
        metavar="a,b,...",
        help=f"evaluators to run (default all: {','.join(AVAILABLE)})",
    )


def _evaluator_names(text: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in AVAILABLE]
    if unknown or not names:
        # Raised as a usage error (exit 2) by argparse, with this message.
        raise argparse.ArgumentTypeError(
            f"unknown evaluator(s) {', '.join(unknown) or '(none given)'}; "
            f"available: {', '.join(AVAILABLE)}"
        )
    return names


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _grade_command(args: argparse.Namespace) -> int:
    # The pool's fork server imports and warms the engine while the input is read.
    with SandboxPool(args.workers, timeout=args.timeout) as pool:
        try:
            rows = read_sample_file(args.input)
        except IngestError as exc:  # the file cannot be read at all (empty, UTF-32, a bad header)
            raise UsageError(f"{args.input}: {exc}") from exc
        except (OSError, ValueError) as exc:  # MissingColumnError is a ValueError
            message = str(exc) if isinstance(exc, MissingColumnError) else _oserror(exc)
            raise UsageError(message) from exc
        readable = [row for row in rows if isinstance(row, SampleRow)]
        progress = _ProgressLine(sys.stderr) if sys.stderr.isatty() else None
        graded = grade_many(
            [row.sample for row in readable],
            evaluators=args.evaluators,
            timeout=args.timeout,
            progress=progress,
            pool=pool,
        )
    if progress is not None:
        progress.finish()
    results = iter(graded)
    lines = _output_lines(
        {"line": row.line, "error": row.error}
        if isinstance(row, RowError)
        else _output_record(row, next(results))
        for row in rows
    )
    _write_atomically(args.output, lines)
    unreadable = len(rows) - len(readable)
    to_review = sum(result.needs_review for result in graded)
    print(
        f"graded {len(readable)} rows ({to_review} need review, {unreadable} unreadable) "
        f"into {args.output}",
        file=sys.stderr,
    )
    return 0


def _cases_command(args: argparse.Namespace) -> int:
    from grading import cases  # the conformance runner; only this command needs it

    return cases.main(args.files, args.evaluators, by_fold=args.by_fold, reasons=args.reasons)


def _output_record(row: SampleRow, graded: GradedSample) -> dict:
    record = dict(row.fields)
    record.update(
        auto_verdict=graded.auto_verdict.value,
        needs_review=graded.needs_review,
        review_reasons=[{"code": r.code, "message": r.message} for r in graded.review_reasons],
        answer_type=graded.answer_type.value,
        evaluations={
            e.evaluator: {
                "verdict": e.verdict.value if e.verdict else None,
                "status": e.status.value,
                "extracted": e.extracted,
                "extracted_latex": e.extracted_latex,
                "gold_latex": e.gold_latex,
                "ms": e.ms,
            }
            for e in graded.evaluations
        },
    )
    return record


def _output_lines(records: Iterable[dict]) -> bytes:
    """JSON Lines in ASCII (every other character escaped, as ``json.dumps`` does by default),
    so no reader splits a line at U+2028; orjson writes them several times faster."""
    lines = bytearray()
    for record in records:
        try:
            line = orjson.dumps(record)
        except TypeError:  # a lone surrogate, which orjson refuses and json escapes
            line = json.dumps(record, ensure_ascii=True).encode("ascii")
        if not line.isascii():
            line = line.decode("utf-8").encode("ascii", _JSON_ESCAPE)
        lines += line
        lines += b"\n"
    return bytes(lines)


def _escape_for_json(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: a run of characters outside ASCII as JSON ``\\uXXXX`` escapes."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    units = error.object[error.start : error.end].encode("utf-16-be")
    escaped = "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))
    return escaped, error.end


_JSON_ESCAPE = "mathjury-json-escape"
codecs.register_error(_JSON_ESCAPE, _escape_for_json)


def _write_atomically(path: Path, data: bytes) -> None:
    """Write next to ``path`` and rename, so a failed run never leaves half a file."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_bytes(data)
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise UsageError(_oserror(exc)) from exc


def _oserror(exc: OSError | ValueError) -> str:
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc)


class _ProgressLine:
    """``graded 120/800 rows (15%)`` rewritten in place on a terminal, at most 10 times a second."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown_at = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.shown_at < 0.1:
            return
        self.shown_at = now
        self.stream.write(f"\rgraded {done}/{total} rows ({done * 100 // max(total, 1)}%)")
        self.stream.flush()

    def finish(self) -> None:
        self.stream.write("\n")
        self.stream.flush()
